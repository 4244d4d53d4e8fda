// Replay as a debug session: the "weft" debugger type runs `weft dap`,
// which steps through a counterexample forward and back. A replay starts
// from a trace the language server gave (the Replay lens) or from a
// saved `weft check --json` report (a launch configuration).

import * as path from 'node:path';
import * as vscode from 'vscode';

import type { TraceDocument, WeftStepEvent } from './protocol';
import { EditorText, ReplayedModel, isReplayedModel, staleReason } from './replayText';

/** The debug configuration of a replay. */
export interface ReplayConfiguration extends vscode.DebugConfiguration {
  trace?: TraceDocument;
  traceFile?: string;
  bug?: number;
  program?: string;
}

/** Listens to the replays: their traces and the step each stands at. */
export interface ReplayListener {
  onStep(session: vscode.DebugSession, ev: WeftStepEvent): void;
  onEnd(session: vscode.DebugSession): void;
}

/** The debugger's side of the extension. */
export class Replays implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly steps = new Map<string, WeftStepEvent>();
  /** The model of each replay whose text is watched, by session id. */
  private readonly models = new Map<string, { session: vscode.DebugSession; model: ReplayedModel }>();

  constructor(
    private readonly program: () => string | undefined,
    private readonly listener: ReplayListener,
  ) {
    this.subscriptions.push(
      vscode.debug.registerDebugAdapterDescriptorFactory('weft', {
        createDebugAdapterDescriptor: () => {
          const p = this.program();
          if (!p) {
            throw new Error('Weft: the `weft` program was not found, so a replay cannot start. Set weft.serverPath.');
          }
          return new vscode.DebugAdapterExecutable(p, ['dap']);
        },
      }),
      vscode.debug.registerDebugConfigurationProvider('weft', {
        resolveDebugConfiguration: (_folder, config) => this.resolve(config as ReplayConfiguration),
        // Relative paths once ${workspaceFolder} and the like are substituted.
        resolveDebugConfigurationWithSubstitutedVariables: (folder, config) => absolutePaths(config as ReplayConfiguration, folder),
      }),
      vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
        if (e.session.type === 'weft' && e.event === 'weftStep' && e.body) {
          const ev = e.body as WeftStepEvent;
          if (!this.steps.has(e.session.id)) {
            void this.watch(e.session); // launched: its trace is there
          }
          this.steps.set(e.session.id, ev);
          this.listener.onStep(e.session, ev);
        }
      }),
      vscode.debug.onDidTerminateDebugSession((s) => {
        if (s.type === 'weft') {
          this.steps.delete(s.id);
          this.models.delete(s.id);
          this.listener.onEnd(s);
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) {
          for (const { session, model } of [...this.models.values()]) {
            this.check(session, model, e.document);
          }
        }
      }),
    );
  }

  /** Starts replaying a trace the server gave. */
  async start(trace: TraceDocument): Promise<boolean> {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(trace.uri));
    const config: ReplayConfiguration = {
      type: 'weft',
      request: 'launch',
      name: `Replay: ${trace.message}`,
      trace,
    };
    return vscode.debug.startDebugging(folder, config);
  }

  /** The active replay session, if the active debug session is one. */
  active(): vscode.DebugSession | undefined {
    const s = vscode.debug.activeDebugSession;
    return s && s.type === 'weft' ? s : undefined;
  }

  /** The step a replay stands at, once it has stopped. */
  stepOf(session: vscode.DebugSession): WeftStepEvent | undefined {
    return this.steps.get(session.id);
  }

  /** Moves a replay to a step (the trace view's click). */
  async goto(session: vscode.DebugSession, step: number): Promise<void> {
    await session.customRequest('weftGoto', { step });
  }

  /** The whole trace a replay is stepping through. */
  async traceOf(session: vscode.DebugSession): Promise<TraceDocument> {
    const inline = (session.configuration as ReplayConfiguration).trace;
    if (inline) {
      return inline;
    }
    return (await session.customRequest('weftTrace')) as TraceDocument;
  }

  /**
   * Watches the text of a replay's model: when the editor's text is no
   * longer the one the counterexample is of (now, or after an edit), the
   * adapter is told (`weftSourceChanged`), and it ends the replay saying
   * why, rather than highlight lines of another text.
   */
  private async watch(session: vscode.DebugSession): Promise<void> {
    let trace: TraceDocument;
    try {
      trace = await this.traceOf(session);
    } catch {
      return; // the session ended meanwhile
    }
    const inline = (session.configuration as ReplayConfiguration).trace !== undefined;
    const model: ReplayedModel = { uri: trace.uri ?? '', file: trace.file, version: inline ? trace.version : undefined };
    this.models.set(session.id, { session, model });
    for (const doc of vscode.workspace.textDocuments) {
      this.check(session, model, doc);
    }
  }

  private check(session: vscode.DebugSession, model: ReplayedModel, doc: vscode.TextDocument): void {
    const text: EditorText = {
      uri: doc.uri.toString(),
      file: doc.uri.scheme === 'file' ? doc.uri.fsPath : undefined,
      version: doc.version,
      isDirty: doc.isDirty,
    };
    if (!this.models.has(session.id) || !isReplayedModel(model, text) || staleReason(model, text) === undefined) {
      return;
    }
    this.models.delete(session.id); // once: the adapter ends the replay
    void Promise.resolve(session.customRequest('weftSourceChanged', { path: text.file, uri: modelUri(model, text), version: doc.version })).catch(() => {
      // The session ended meanwhile: nothing is shown any more.
    });
  }

  private resolve(config: ReplayConfiguration): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request && !config.name) {
      // F5 without a launch.json: replay the bug of the active file.
      void vscode.commands.executeCommand('weft.replay');
      return undefined;
    }
    if (!config.trace && !config.traceFile) {
      void vscode.window.showErrorMessage(
        'Weft: a replay needs "traceFile" (a report saved by `weft check --json FILE > report.json`), or start it from the "Replay counterexample" lens.',
      );
      return undefined;
    }
    return config;
  }

  dispose(): void {
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

/** Makes a replay's file paths absolute, relative to the configuration's folder (else the first one). */
function absolutePaths(config: ReplayConfiguration, folder: vscode.WorkspaceFolder | undefined): ReplayConfiguration {
  const base = (folder ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath;
  if (base) {
    for (const key of ['traceFile', 'program'] as const) {
      const p = config[key];
      if (typeof p === 'string' && p !== '' && !path.isAbsolute(p)) {
        config[key] = path.join(base, p);
      }
    }
  }
  return config;
}

/** The uri to name the model by: the trace's own spelling when it has one. */
function modelUri(model: ReplayedModel, text: EditorText): string {
  return model.uri !== '' ? model.uri : text.uri;
}
