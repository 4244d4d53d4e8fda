// The trace view's panel: the `vscode` side of the webview that draws a
// counterexample as a sequence diagram (webview/main.ts draws it,
// diagram.ts lays it out). One panel at a time: showing another trace
// reuses it.
//
// What a chosen step does is the extension's business, not the panel's:
// the `reveal` hook it is given opens the source line and, during a
// replay, moves the debugger (the adapter's `weftGoto` request). The
// extension tells the panel where the debugger is with setCurrentStep.

import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type { TraceDocument, TraceStep } from '../protocol';
import { traceViewHtml } from './html';
import { parseFromWebview, type ToWebview } from './messages';

export interface TraceViewHooks {
  /** The user chose a step (click, Enter): show it. */
  reveal(step: TraceStep): void;
}

export class TraceViewPanel implements vscode.Disposable {
  static readonly viewType = 'weft.traceView';

  private static current: TraceViewPanel | undefined;

  private readonly disposed = new vscode.EventEmitter<void>();
  /** Fires once, when the panel closes (by the user or by dispose). */
  readonly onDidDispose: vscode.Event<void> = this.disposed.event;

  private readonly disposables: vscode.Disposable[] = [];
  private trace: TraceDocument;
  private hooks: TraceViewHooks;
  /** The webview's script has said it listens. */
  private ready = false;
  /** The debugger's step, re-sent with each trace (0: none). */
  private currentStep = 0;
  private isDisposed = false;

  /** The open panel, if any. */
  static get panel(): TraceViewPanel | undefined {
    return TraceViewPanel.current;
  }

  /** Shows a trace: in the open panel if there is one, else in a new panel beside the editor. */
  static show(context: vscode.ExtensionContext, trace: TraceDocument, hooks: TraceViewHooks): TraceViewPanel {
    const open = TraceViewPanel.current;
    if (open) {
      open.update(trace, hooks);
      open.panel.reveal(undefined, true);
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      TraceViewPanel.viewType,
      panelTitle(trace),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [
          vscode.Uri.joinPath(context.extensionUri, 'dist'),
          vscode.Uri.joinPath(context.extensionUri, 'media'),
        ],
      },
    );
    const p = new TraceViewPanel(panel, context.extensionUri, trace, hooks);
    TraceViewPanel.current = p;
    return p;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    trace: TraceDocument,
    hooks: TraceViewHooks,
  ) {
    this.trace = trace;
    this.hooks = hooks;
    const webview = panel.webview;
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
    webview.html = traceViewHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'traceView.css')).toString(),
      nonce: randomBytes(18).toString('base64'),
    });
  }

  /** The trace shown. */
  get document(): TraceDocument {
    return this.trace;
  }

  /** Replaces the trace shown (and the hooks that act on it). */
  update(trace: TraceDocument, hooks: TraceViewHooks): void {
    if (this.isDisposed) return;
    this.trace = trace;
    this.hooks = hooks;
    this.currentStep = 0;
    this.panel.title = panelTitle(trace);
    this.post({ type: 'trace', trace });
  }

  /** The debugger is at this 1-based step (0: before the first): highlight it and scroll to it. */
  setCurrentStep(step: number): void {
    if (this.isDisposed || !Number.isInteger(step) || step < 0) return;
    this.currentStep = step;
    this.post({ type: 'current', step });
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    if (TraceViewPanel.current === this) TraceViewPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.disposed.fire();
    this.disposed.dispose();
  }

  private onMessage(raw: unknown): void {
    const msg = parseFromWebview(raw);
    if (!msg) return;
    switch (msg.type) {
      case 'ready':
        // Also after the webview reloads its page: send the state again.
        this.ready = true;
        this.post({ type: 'trace', trace: this.trace });
        if (this.currentStep > 0) this.post({ type: 'current', step: this.currentStep });
        break;
      case 'reveal': {
        const step = stepOf(this.trace, msg.step);
        if (step) this.hooks.reveal(step);
        break;
      }
    }
  }

  /** Posts to the webview once its script listens; before that, `ready` sends the state. */
  private post(msg: ToWebview): void {
    if (!this.ready) return;
    void this.panel.webview.postMessage(msg);
  }
}

function panelTitle(trace: TraceDocument): string {
  return `Trace: ${trace.kind || 'bug'}${trace.allSteps ? ' (all steps)' : ''}`;
}

/** The step numbered `n` (1-based), whether or not the numbers are 1..N. */
function stepOf(trace: TraceDocument, n: number): TraceStep | undefined {
  const guess = trace.steps[n - 1];
  if (guess && guess.step === n) return guess;
  return trace.steps.find((s) => s.step === n);
}
