// The language client: starts `weft lsp`, keeps the status bar truthful
// from weft/status, and routes the server's commands (the code lenses'
// Replay, Stop, Run optimal) through the extension.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';

import { traceArguments } from './allSteps';
import { fillWeftExperimental } from './capabilities';
import type { TraceDocument, WeftStatus } from './protocol';
import { dropTokens, lexicalIndices, weftTokenTypes } from './semanticTokens';
import { resolveServer, Resolution } from './serverPath';
import { statusView } from './status';

/** What the client asks of the rest of the extension. */
export interface ClientHooks {
  /** Starts the replay of a counterexample (the server's weft.replay answered it). */
  replay(trace: TraceDocument): Thenable<unknown>;
  /** Picks the bug of a document a command without arguments is about. */
  pickBug(uri: vscode.Uri): Thenable<string | undefined>;
}

/** Finds the server program with the machine's real file system. */
export function findServer(context: vscode.ExtensionContext): Resolution {
  const configured = vscode.workspace.getConfiguration('weft').get<string>('serverPath', '');
  return resolveServer({
    configured,
    extensionPath: context.extensionPath,
    platform: process.platform,
    arch: process.arch,
    envPath: process.env.PATH ?? '',
    home: os.homedir(),
    isFile: (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
    isExecutable: (p) => {
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  });
}

/** Finds the server, making the shipped binary executable if unpacking lost its mode. */
export function serverProgram(context: vscode.ExtensionContext, log: vscode.OutputChannel): Resolution {
  const found = findServer(context);
  if (found.ok && found.needsChmod) {
    try {
      fs.chmodSync(found.path, 0o755);
    } catch (err) {
      log.appendLine(`Could not make ${found.path} executable: ${String(err)}`);
      return {
        ok: false,
        fix: 'install',
        message: `The server shipped with the extension (${found.path}) is not executable and could not be made so. Set weft.serverPath to a \`weft\` program.`,
      };
    }
  }
  return found;
}

/** Shows why the server cannot start, with the button that fixes it. */
export async function explainNoServer(res: Extract<Resolution, { ok: false }>, log: vscode.OutputChannel): Promise<void> {
  log.appendLine(res.message);
  const open = 'Open Settings';
  const choice = await vscode.window.showErrorMessage(`Weft: ${res.message}`, open, 'Show Output');
  if (choice === open) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'weft.serverPath');
  } else if (choice) {
    log.show(true);
  }
}

/** The status bar item and the statuses it shows, one per document. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('weft.status', vscode.StatusBarAlignment.Left, 100);
  private readonly statuses = new Map<string, WeftStatus>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private serverProblem: string | undefined;
  private hasBugs = false;

  constructor() {
    this.item.name = 'Weft';
    this.item.command = 'weft.showStatus';
    this.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(() => this.render()));
    this.subscriptions.push(vscode.workspace.onDidCloseTextDocument((d) => this.statuses.delete(d.uri.toString())));
    this.render();
  }

  /** Records a weft/status notification. */
  update(st: WeftStatus): void {
    this.statuses.set(normaliseUri(st.uri), st);
    this.render();
  }

  /** The last status of a document, if any. */
  get(uri: vscode.Uri): WeftStatus | undefined {
    return this.statuses.get(uri.toString());
  }

  /** Says the server is not running (or clears that with undefined). */
  setServerProblem(problem: string | undefined): void {
    this.serverProblem = problem;
    if (problem !== undefined) {
      this.statuses.clear();
    }
    this.render();
  }

  private render(): void {
    const editor = vscode.window.activeTextEditor;
    const active = editor && editor.document.languageId === 'weft' ? this.statuses.get(editor.document.uri.toString()) : undefined;
    const hasBugs = !!active && active.bugs > 0;
    if (hasBugs !== this.hasBugs) {
      // The editor title's "Show trace" button shows only on a file with a bug.
      this.hasBugs = hasBugs;
      void vscode.commands.executeCommand('setContext', 'weft.hasBugs', hasBugs);
    }
    if (!editor || editor.document.languageId !== 'weft') {
      this.item.hide();
      return;
    }
    if (this.serverProblem !== undefined) {
      this.item.text = '$(error) Weft: server not running';
      this.item.tooltip = `${this.serverProblem}\n\nClick to show the Weft output.`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      this.item.show();
      return;
    }
    const st = this.statuses.get(editor.document.uri.toString());
    if (!st) {
      this.item.text = '$(sync~spin) Weft: starting…';
      this.item.tooltip = 'The Weft language server has not reported on this file yet.';
      this.item.backgroundColor = undefined;
      this.item.show();
      return;
    }
    const view = statusView(st);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.background ? new vscode.ThemeColor(`statusBarItem.${view.background}Background`) : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

/** VS Code's spelling of a URI (the server may percent-encode differently). */
export function normaliseUri(uri: string): string {
  try {
    return vscode.Uri.parse(uri, true).toString();
  } catch {
    return uri;
  }
}

/** The settings the server reads, from the "weft" section. */
export function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('weft');
  const out: Record<string, unknown> = {};
  for (const key of [
    'idleDelayMs',
    'quickBudgetMs',
    'escalate',
    'escalationAlgorithm',
    'escalationCeilingMs',
    'cdpor',
    'smt',
    'assumeNoOverflow',
    'maxMemoryMB',
    'maxConcurrent',
    'maxSteps',
    'bugKinds',
    'stateful',
  ]) {
    const v = c.get(key);
    if (v !== undefined) {
      out[key] = v;
    }
  }
  return out;
}

/** Commands the server runs whose only argument is the document. */
const documentCommands = new Set(['weft.runOptimal', 'weft.stop']);

/** Creates (not starts) the language client for the server program. */
export function createClient(program: string, log: vscode.OutputChannel, status: StatusBar, hooks: ClientHooks): LanguageClient {
  const serverOptions: ServerOptions = {
    run: { command: program, args: ['lsp'] },
    debug: { command: program, args: ['lsp'] },
  };
  const activeWeftUri = (): vscode.Uri | undefined => {
    const e = vscode.window.activeTextEditor;
    return e && e.document.languageId === 'weft' ? e.document.uri : undefined;
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: 'weft' }],
    outputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: serverSettings(),
    synchronize: { configurationSection: 'weft' },
    middleware: {
      provideDocumentSemanticTokens: async (document, token, next) => {
        const tokens = await next(document, token);
        const legend = client.initializeResult?.capabilities.semanticTokensProvider?.legend;
        if (!tokens || !legend) {
          return tokens;
        }
        return new vscode.SemanticTokens(new Uint32Array(dropTokens(tokens.data, lexicalIndices(legend.tokenTypes))), tokens.resultId);
      },
      executeCommand: async (command, args, next) => {
        if (documentCommands.has(command) && args.length === 0) {
          const uri = activeWeftUri();
          if (!uri) {
            void vscode.window.showInformationMessage(`Weft: open a .weft file first.`);
            return undefined;
          }
          args = [uri.toString()];
        }
        if (command !== 'weft.replay') {
          return next(command, args);
        }
        if (args.length < 2) {
          const uri = args.length === 1 ? vscode.Uri.parse(String(args[0])) : activeWeftUri();
          if (!uri) {
            void vscode.window.showInformationMessage('Weft: open a .weft file with a bug first.');
            return undefined;
          }
          const bugId = await hooks.pickBug(uri);
          if (!bugId) {
            return undefined;
          }
          args = [uri.toString(), bugId];
        }
        const trace = (await next(command, args)) as TraceDocument | undefined;
        if (trace) {
          await hooks.replay(trace);
        }
        return trace;
      },
    },
  };
  const client = new LanguageClient('weft', 'Weft', serverOptions, clientOptions);
  client.registerFeature(weftTokenTypesFeature);
  client.registerFeature(weftExperimentalFeature);
  client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      status.setServerProblem('The Weft language server stopped. Run "Weft: Restart language server" to start it again.');
    } else if (e.newState === State.Running) {
      status.setServerProblem(undefined);
    }
  });
  return client;
}

/**
 * Declares Weft's own semantic token types to the server, which then
 * sends them rather than their standard supertypes (package.json gives
 * them colours and scopes).
 */
const weftTokenTypesFeature: StaticFeature = {
  fillClientCapabilities(caps) {
    const types = caps.textDocument?.semanticTokens?.tokenTypes;
    if (types) {
      for (const t of weftTokenTypes) {
        if (!types.includes(t)) {
          types.push(t);
        }
      }
    }
  },
  initialize() {},
  getState: () => ({ kind: 'static' }),
  clear() {},
};

/**
 * Opts in to weft/status (the server sends its custom notifications only
 * to clients that ask) and says the extension replays weft.replay's
 * answer itself (the server then writes no text for it to show).
 */
const weftExperimentalFeature: StaticFeature = {
  fillClientCapabilities(caps) {
    fillWeftExperimental(caps);
  },
  initialize() {},
  getState: () => ({ kind: 'static' }),
  clear() {},
};

/** Registers the client's notification handlers; call once the client runs. */
export function listen(client: LanguageClient, status: StatusBar): vscode.Disposable {
  return client.onNotification('weft/status', (st: WeftStatus) => status.update(st));
}

/** Asks the server for a bug's trace (weft.trace): its causal slice, or with allSteps the whole execution. */
export async function fetchTrace(client: LanguageClient, uri: vscode.Uri, bugId: string, allSteps = false): Promise<TraceDocument> {
  return (await client.sendRequest(ExecuteCommandRequest.type, {
    command: 'weft.trace',
    arguments: traceArguments(uri.toString(), bugId, allSteps),
  })) as TraceDocument;
}
