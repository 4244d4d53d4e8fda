// Entry point of the Weft extension (filled in by the client work).
import * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {}

export function deactivate(): void {}
