// The shapes the Weft language server and debug adapter send, as
// documented in docs/editors.md. Lines and characters are 0-based UTF-16,
// as everywhere in LSP. Nothing here imports `vscode`: pure data.

/** A position in a document (0-based line, UTF-16 character). */
export interface Position {
  line: number;
  character: number;
}

/** A range in a document (end excluded). */
export interface Range {
  start: Position;
  end: Position;
}

/** The states of a document's check. "vacuous" is complete but checked nothing: never "verified". */
export type CheckState = 'checking' | 'verified' | 'vacuous' | 'bugs' | 'incomplete' | 'errors';

/** The `weft/status` notification: the truthful state of one document's check. */
export interface WeftStatus {
  uri: string;
  version: number;
  state: CheckState;
  algorithm?: string;
  k?: number;
  executions: number;
  elapsedMs: number;
  bugs: number;
  /** The exploration finished (verified, vacuous, or bugs with nothing left to explore). */
  complete: boolean;
  /** Why the exploration is incomplete, in words ("the time budget ran out", …). */
  why?: string;
  /** Why it stopped early, as the engine names it; absent when it did not, or when the check failed. */
  stopped?: "timeout" | "cancelled" | "max-executions" | "max-bugs" | "execution-length" | "memory" | "bitstate";
  /** Checking: waiting for a pause in typing or a free slot. */
  waiting: boolean;
  /** Checking: an escalated check that runs while the editor is idle. */
  escalating: boolean;
  warnings?: string[];
  /** The status in words, as the code lens shows it. */
  message: string;
  /** Why the check runs sdpor rather than the mode planned, if it does. */
  fallback?: string;
  /**
   * "stateful" when the check runs the stateful mode because the model
   * loops forever or a stateless check reached the step bound; modeWhy
   * says which. Absent otherwise.
   */
  mode?: string;
  modeWhy?: string;
  /** The distinct states a stateful check stored (it counts no executions). */
  states?: number;
  /**
   * What the verdict rests on besides the model: "no-overflow" (cdpor
   * merged orders on conditions that hold only where nothing overflows;
   * the server checks again without them while escalating),
   * "no-spurious-wakeups" (the model waits on a condition variable and
   * spurious wake-ups were not explored). Absent: nothing.
   */
  assumptions?: string[];
  /**
   * For an incomplete check: the verdict an earlier check of the same
   * version reached under an assumption, which this one, run without it,
   * could not confirm ("verified, assuming no overflow (1 execution, cdpor)").
   */
  earlier?: string;
  /**
   * The distinct bugs found beyond those kept with a trace (the server
   * keeps 100); the warnings summarise them. Absent: none.
   */
  omittedBugs?: number;
}

/** A named value in a trace state ("x" → "3", "a" → "{0, 7, 7}"). */
export interface NamedValue {
  name: string;
  value: string;
}

/** A mutex and the thread holding it ("" when free). */
export interface LockState {
  name: string;
  holder: string;
}

/** A thread in a trace state. */
export interface ThreadState {
  name: string;
  /** "running", "blocked", "finished", … */
  status: string;
  /** The statement it runs next (for a blocked thread, the one it waits at). */
  range?: Range;
  /** For a blocked thread: what it waits for and who holds it up ("lock fork[1], held by phil[1]"). */
  waits?: string;
  locals?: NamedValue[];
}

/** What a step did, for drawing: the kind and the object it touched. */
export interface StepEvent {
  kind: 'read' | 'write' | 'lock' | 'unlock' | 'spawn' | 'join' | 'atomic' | 'stop' | string;
  /** A location name, or a thread name for spawn and join. */
  object?: string;
}

/** One step of a counterexample, with the state right after it. */
export interface TraceStep {
  /** 1-based. */
  step: number;
  thread: string;
  op: string;
  range: Range;
  event?: StepEvent;
  /** The thread finished with this step. */
  ends?: boolean;
  shared?: NamedValue[];
  locks?: LockState[];
  threadStates?: ThreadState[];
}

/**
 * A counterexample: the answer of the server's `weft.trace` command, and
 * what `weft dap` replays (docs/editors.md). Empty lists may be left out.
 * bugId is opaque (a report's bug is "REPORT.json#N").
 */
export interface TraceDocument {
  uri: string;
  version: number;
  bugId: string;
  kind: string;
  message: string;
  range: Range;
  /** Every thread of the execution, in creation order. */
  threads: string[];
  steps: TraceStep[];
  /** The trace is too long for a state per step: steps only. */
  stateOmitted?: boolean;
  /** For a data race: the 1-based steps of the two unordered accesses. */
  raceSteps?: [number, number];
  /** The model's path on disk, when known. */
  file?: string;
  /** The SHA-256 of the text it was built from, when known. */
  sourceSha256?: string;
  /** The thread at fault. */
  thread?: string;
  /** When steps are the bug's causal slice: the length of the whole execution. */
  fullSteps?: number;
  /** The whole execution, asked for with weft.trace's "allSteps". */
  allSteps?: boolean;
}

/** The data of a bug's diagnostic. */
export interface BugDiagnosticData {
  bugId: string;
  version: number;
  steps: number;
  /** The diagnostic of a data race's other access (the race is reported at the first). */
  otherSide?: boolean;
}

/** The custom event `weft dap` sends before each stop. */
export interface WeftStepEvent {
  step: number;
  steps: number;
  bugId: string;
}
