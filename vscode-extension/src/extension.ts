// Entry point of the Weft extension: starts the language server client,
// the status bar, the replay debugger and the commands.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { sameTrace, stepsWords } from './allSteps';
import { bugAt, bugData, BugRef, distinctBugs } from './bugs';
import { createClient, explainNoServer, fetchTrace, listen, serverProgram, StatusBar } from './client';
import { Replays } from './debug';
import type { TraceDocument, TraceStep } from './protocol';
import { TraceViewPanel } from './traceView/panel';

/** The extension while it is active. */
class Weft implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Weft');
  readonly status = new StatusBar();
  readonly replays: Replays;
  private client: LanguageClient | undefined;
  private clientSubscription: vscode.Disposable | undefined;
  private program: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.replays = new Replays(() => this.program ?? this.locate(), {
      // The trace view follows the debugger.
      onStep: (session, ev) => {
        const view = TraceViewPanel.panel;
        if (view && view.document.bugId === ev.bugId && this.replays.active()?.id === session.id && this.follows(view.document, session)) {
          view.setCurrentStep(ev.step);
        }
      },
      onEnd: () => TraceViewPanel.panel?.setCurrentStep(0),
    });
  }

  /**
   * Whether a trace shown is the one a replay steps through: a slice's
   * step numbers are not the whole execution's (sameTrace). A replay of
   * a saved report (no inline trace) replays the slice.
   */
  private follows(trace: TraceDocument, session: vscode.DebugSession): boolean {
    const inline = (session.configuration as { trace?: TraceDocument }).trace;
    return inline ? sameTrace(trace, inline) : !trace.allSteps;
  }

  /** Finds the server program, or explains why there is none. */
  private locate(): string | undefined {
    const res = serverProgram(this.context, this.log);
    if (!res.ok) {
      void explainNoServer(res, this.log);
      this.status.setServerProblem(res.message);
      return undefined;
    }
    this.program = res.path;
    this.log.appendLine(`Weft: server program ${res.path} (from ${res.source === 'setting' ? 'weft.serverPath' : res.source === 'bundled' ? 'the extension' : 'PATH'})`);
    return res.path;
  }

  /** Starts (or restarts) the language client. */
  async start(): Promise<void> {
    await this.stop();
    this.program = undefined;
    const program = this.locate();
    if (!program) {
      return;
    }
    const client = createClient(program, this.log, this.status, {
      replay: (trace) => this.replay(trace),
      pickBug: (uri) => this.pickBug(uri),
    });
    this.client = client;
    const started = Date.now();
    try {
      await client.start();
    } catch (err) {
      const message = `The Weft language server (${program}) did not start: ${err instanceof Error ? err.message : String(err)}. Check weft.serverPath, or run "${program} lsp" in a terminal to see why.`;
      this.log.appendLine(message);
      this.status.setServerProblem(message);
      void explainNoServer({ ok: false, fix: 'setting', message }, this.log);
      return;
    }
    this.clientSubscription = listen(client, this.status);
    this.log.appendLine(`Weft: server started in ${Date.now() - started} ms: ${program}`);
  }

  async stop(): Promise<void> {
    this.clientSubscription?.dispose();
    this.clientSubscription = undefined;
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.stop(2000);
      } catch (err) {
        this.log.appendLine(`Weft: stopping the server: ${String(err)}`);
      }
    }
  }

  /** The bugs of a document, from the server's diagnostics. */
  bugsOf(uri: vscode.Uri): BugRef[] {
    const out: BugRef[] = [];
    for (const d of vscode.languages.getDiagnostics(uri)) {
      const data = bugData((d as vscode.Diagnostic & { data?: unknown }).data);
      if (d.source === 'weft' && data) {
        out.push({
          bugId: data.bugId,
          message: d.message,
          steps: data.steps,
          range: {
            start: { line: d.range.start.line, character: d.range.start.character },
            end: { line: d.range.end.line, character: d.range.end.character },
          },
        });
      }
    }
    return out;
  }

  /** The bug a command is about: under the cursor, the only one, or the user's pick. */
  async pickBug(uri: vscode.Uri): Promise<string | undefined> {
    const bugs = this.bugsOf(uri);
    if (bugs.length === 0) {
      const st = this.status.get(uri);
      const why = st && st.state === 'checking' ? ' yet (the check is still running)' : '';
      void vscode.window.showInformationMessage(`Weft: no counterexample in this file${why}.`);
      return undefined;
    }
    const editor = vscode.window.activeTextEditor;
    const cursor = editor && editor.document.uri.toString() === uri.toString() ? editor.selection.active : undefined;
    const at = bugAt(bugs, cursor && { line: cursor.line, character: cursor.character });
    if (at) {
      return at.bugId;
    }
    const picked = await vscode.window.showQuickPick(
      distinctBugs(bugs).map((b) => ({
        label: b.message,
        description: `line ${b.range.start.line + 1}, ${b.steps} steps`,
        bugId: b.bugId,
      })),
      { placeHolder: 'Which counterexample?' },
    );
    return picked?.bugId;
  }

  /** The trace to show: the active replay's, else the active file's bug's. */
  async traceToShow(): Promise<TraceDocument | undefined> {
    const session = this.replays.active();
    if (session) {
      return this.replays.traceOf(session);
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'weft') {
      void vscode.window.showInformationMessage('Weft: open a .weft file with a bug, or start a replay, first.');
      return undefined;
    }
    if (!this.client) {
      void vscode.window.showErrorMessage('Weft: the language server is not running.');
      return undefined;
    }
    const bugId = await this.pickBug(editor.document.uri);
    return bugId ? fetchTrace(this.client, editor.document.uri, bugId) : undefined;
  }

  /** Starts a replay, and says so when it cannot start. */
  private async replay(trace: TraceDocument): Promise<void> {
    let started = false;
    let why = '';
    try {
      started = await this.replays.start(trace);
    } catch (err) {
      why = `: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (!started) {
      const message = `Weft: the replay of "${trace.message}" did not start${why}. The Weft output may say why.`;
      this.log.appendLine(message);
      const choice = await vscode.window.showErrorMessage(message, 'Show Output');
      if (choice) {
        this.log.show(true);
      }
    }
  }

  /** Opens the trace view on the active replay's trace, or on the active file's bug. */
  async showTrace(): Promise<void> {
    const trace = await this.traceToShow();
    if (!trace) {
      return;
    }
    const view = TraceViewPanel.show(this.context, trace, { reveal: (step) => void this.revealStep(trace, step) });
    const session = this.replays.active();
    const at = session && this.replays.stepOf(session);
    view.setCurrentStep(session && at && at.bugId === trace.bugId && this.follows(trace, session) ? at.step : 0);
  }

  /**
   * "Show all steps": the whole execution of the bug the active replay
   * or the cursor is on (a counterexample is its bug's causal slice),
   * in the trace view and replayed in the debugger.
   */
  async showAllSteps(): Promise<void> {
    if (!this.client) {
      void vscode.window.showErrorMessage('Weft: the language server is not running.');
      return;
    }
    let uri: vscode.Uri | undefined;
    let bugId: string | undefined;
    const session = this.replays.active();
    if (session) {
      const t = await this.replays.traceOf(session);
      uri = t.uri ? vscode.Uri.parse(t.uri) : undefined;
      bugId = t.bugId;
    } else {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'weft') {
        void vscode.window.showInformationMessage('Weft: open a .weft file with a bug, or start a replay, first.');
        return;
      }
      uri = editor.document.uri;
      bugId = await this.pickBug(uri);
    }
    if (!uri || !bugId) {
      return;
    }
    let trace: TraceDocument;
    try {
      trace = await fetchTrace(this.client, uri, bugId, true);
    } catch (err) {
      void vscode.window.showErrorMessage(`Weft: the whole execution of this bug is not available: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.log.appendLine(`Weft: showing ${stepsWords(trace)} of "${trace.message}"`);
    const view = TraceViewPanel.show(this.context, trace, { reveal: (step) => void this.revealStep(trace, step) });
    view.setCurrentStep(0);
    await this.replay(trace);
  }

  /** A step chosen in the trace view: its source line, and the replay moves there. */
  private async revealStep(trace: TraceDocument, step: TraceStep): Promise<void> {
    const session = this.replays.active();
    const at = session && this.replays.stepOf(session);
    if (session && at && at.bugId === trace.bugId && this.follows(trace, session)) {
      try {
        await this.replays.goto(session, step.step);
      } catch (err) {
        this.log.appendLine(`Weft: moving the replay to step ${step.step}: ${String(err)}`);
      }
    }
    const uri = vscode.Uri.parse(trace.uri);
    const r = step.range;
    const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
    try {
      await vscode.window.showTextDocument(uri, { selection: range, viewColumn: vscode.ViewColumn.One, preserveFocus: true });
    } catch (err) {
      void vscode.window.showErrorMessage(`Weft: cannot open ${uri.toString(true)}: ${String(err)}`);
    }
  }

  /** Shows the output channel, with the active file's status in words. */
  showStatus(uriArg?: unknown): void {
    const uri = typeof uriArg === 'string' ? vscode.Uri.parse(uriArg) : vscode.window.activeTextEditor?.document.uri;
    const st = uri && this.status.get(uri);
    if (st) {
      this.log.appendLine(`${vscode.workspace.asRelativePath(uri)}: ${st.message}${st.warnings?.length ? ` (${st.warnings.join('; ')})` : ''}`);
    }
    this.log.show(true);
  }

  dispose(): void {
    void this.stop();
    this.status.dispose();
    this.replays.dispose();
    this.log.dispose();
  }
}

let weft: Weft | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const started = Date.now();
  const w = new Weft(context);
  weft = w;
  context.subscriptions.push(
    w,
    vscode.commands.registerCommand('weft.showStatus', (uri?: unknown) => w.showStatus(uri)),
    vscode.commands.registerCommand('weft.restartServer', () => w.start()),
    vscode.commands.registerCommand('weft.showTrace', () => w.showTrace()),
    vscode.commands.registerCommand('weft.showAllSteps', () => w.showAllSteps()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('weft.serverPath')) {
        void w.start();
      }
    }),
  );
  await w.start();
  // From VS Code calling activate to the server answering initialize.
  w.log.appendLine(`Weft: activated in ${Date.now() - started} ms (the language server is ready)`);
}

export async function deactivate(): Promise<void> {
  await weft?.stop();
  weft = undefined;
}
