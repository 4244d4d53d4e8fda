// The trace view's model: a counterexample (TraceDocument) laid out as a
// sequence diagram. Pure data in, pure data out; no `vscode`, no DOM, so
// it runs in the webview and under `node --test` alike.
//
// Layout: one column per thread (creation order), one row per step. A
// thread's lifeline runs from the row that spawned it (row 0 for a
// declared thread) to the row with which it ended (the last row if it
// was still alive when the bug struck). Edges say what orders two steps
// of different threads:
//   lock-order  the unlock of mutex m by thread A → the next lock of m,
//               when that lock is by another thread B
//   spawn       the spawn of T → T's first step
//   join        the step with which T ends → the join of T
//   race        the two unordered accesses of a data race (both rows
//               flagged; the edge has no direction)
// The last row is flagged as the bug's row.
//
// Long traces: every step is a row and the view virtualises (it only
// builds the rows and edges in sight), so thousands of steps cost what a
// screenful does. A browser cannot scroll an element taller than some
// millions of pixels, so past `maxRows` (default 200,000, twice the
// default step bound) the middle of the trace is left out: the first
// rows (the spawns) and the last ones (the bug) are kept, the gap is
// recorded in `omitted` and said in a note. Edges with an end in the gap
// are not drawn (counted in `omitted.edges`).
//
// Traces without event data (an older language server sends no `event`
// or `ends`) have rows and no edges; `hasEvents` is false and a note says
// so. Lifelines then span the whole trace: nothing says when a thread was
// created or when it ended.

import type { TraceDocument, TraceStep } from '../protocol';

export type EdgeKind = 'lock-order' | 'spawn' | 'join' | 'race';

/** The kinds of edges, in the order the legend lists them. */
export const EDGE_KINDS: readonly EdgeKind[] = ['lock-order', 'spawn', 'join', 'race'];

export interface Column {
  /** Index in `Diagram.columns`: creation order. */
  index: number;
  name: string;
  /** The row where the lifeline starts: the spawning row, or 0 for a declared thread. */
  start: number;
  /** The row where the lifeline ends (inclusive): the thread's last row if it ended, else the last row. */
  end: number;
  /** The thread finished within the trace (its `ends` step is drawn). */
  ended: boolean;
  /** The thread was spawned by a step of the trace (not declared). */
  spawned: boolean;
}

export interface Row {
  /** Index in `Diagram.rows`. */
  index: number;
  /** The step's 1-based number in the trace. */
  step: number;
  /** The step's index in `TraceDocument.steps`. */
  at: number;
  /** The column of the step's thread. */
  column: number;
  thread: string;
  op: string;
  /** 1-based source line of the step. */
  line: number;
  /** The event kind, when the server sent one. */
  event?: string;
  /** The mutex, location or thread the event touched. */
  object?: string;
  /** The thread finished with this step. */
  ends: boolean;
  /** One of the two accesses of a data race. */
  race: boolean;
  /** The last step: where the bug shows. */
  bug: boolean;
}

export interface Edge {
  kind: EdgeKind;
  /** Row indices; `from` < `to` (a race edge goes from the earlier access). */
  from: number;
  to: number;
  /** What the edge is about: the mutex (lock-order), the thread (spawn, join), the location (race). */
  label: string;
}

export interface Omitted {
  /** Rows before this index are the first steps; rows from it on are the last ones. */
  beforeRow: number;
  /** How many steps are not drawn. */
  steps: number;
  /** How many edges had an end among them. */
  edges: number;
}

export interface Diagram {
  kind: string;
  message: string;
  /** Whether the trace carries event data (arrows); older servers send none. */
  hasEvents: boolean;
  columns: Column[];
  rows: Row[];
  /** Sorted by `from`, then `to`. */
  edges: Edge[];
  /** The total number of steps in the trace (rows.length unless some are omitted). */
  totalSteps: number;
  omitted?: Omitted;
  /** Things the view must say: missing event data, omitted steps. */
  notes: string[];
}

export interface DiagramOptions {
  /** The most rows drawn; beyond it the middle of the trace is omitted. */
  maxRows?: number;
}

/** The default cap on drawn rows (the view virtualises below it). */
export const DEFAULT_MAX_ROWS = 200_000;
/** How many of the first steps are kept when the middle is omitted. */
const HEAD_ROWS = 1_000;

/** Lays out a trace as a sequence diagram. Linear in the number of steps; never throws on well-typed input. */
export function buildDiagram(trace: TraceDocument, options: DiagramOptions = {}): Diagram {
  const steps: TraceStep[] = Array.isArray(trace.steps) ? trace.steps : [];
  const n = steps.length;
  const maxRows = Math.max(2, Math.floor(options.maxRows ?? DEFAULT_MAX_ROWS));

  // Columns: the declared order, then any thread only the steps or the
  // spawn/join events name (a defensive measure: the server lists them all).
  const columnOf = new Map<string, number>();
  const names: string[] = [];
  const addThread = (name: string): number => {
    let c = columnOf.get(name);
    if (c === undefined) {
      c = names.length;
      columnOf.set(name, c);
      names.push(name);
    }
    return c;
  };
  for (const t of Array.isArray(trace.threads) ? trace.threads : []) {
    if (typeof t === 'string') addThread(t);
  }

  const hasEvents = steps.some((s) => s.event !== undefined || s.ends !== undefined);

  // Per-thread facts over step indices (0-based), computed on the whole trace.
  const spawnedAt = new Map<string, number>();
  const firstStep = new Map<string, number>();
  const lastStep = new Map<string, number>();
  const endStep = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const s = steps[i];
    addThread(s.thread);
    if (!firstStep.has(s.thread)) firstStep.set(s.thread, i);
    lastStep.set(s.thread, i);
    if (s.ends === true && !endStep.has(s.thread)) endStep.set(s.thread, i);
    const ev = s.event;
    if (ev?.kind === 'spawn' && typeof ev.object === 'string' && ev.object !== '') {
      addThread(ev.object);
      if (!spawnedAt.has(ev.object)) spawnedAt.set(ev.object, i);
    }
  }

  // Edges over step indices.
  type StepEdge = { kind: EdgeKind; from: number; to: number; label: string };
  const stepEdges: StepEdge[] = [];
  if (hasEvents) {
    const lastUnlock = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const s = steps[i];
      const ev = s.event;
      if (!ev || typeof ev.object !== 'string') continue;
      const obj = ev.object;
      switch (ev.kind) {
        case 'unlock':
          lastUnlock.set(obj, i);
          break;
        case 'lock': {
          const u = lastUnlock.get(obj);
          if (u !== undefined) {
            if (steps[u].thread !== s.thread) stepEdges.push({ kind: 'lock-order', from: u, to: i, label: obj });
            lastUnlock.delete(obj);
          }
          break;
        }
        case 'spawn': {
          const f = firstStep.get(obj);
          if (f !== undefined && f > i) stepEdges.push({ kind: 'spawn', from: i, to: f, label: obj });
          break;
        }
        case 'join': {
          // The step with which the joined thread ended; failing a flag,
          // its last step (it cannot step after ending). Inconsistent data
          // (an end after the join) draws nothing.
          const e = endStep.get(obj) ?? lastStep.get(obj);
          if (e !== undefined && e < i && steps[e].thread !== s.thread) {
            stepEdges.push({ kind: 'join', from: e, to: i, label: obj });
          }
          break;
        }
      }
    }
  }
  const raceRows = new Set<number>();
  const race = trace.raceSteps;
  if (Array.isArray(race) && race.length === 2) {
    const a = race[0] - 1;
    const b = race[1] - 1;
    if (Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < n && b < n && a !== b) {
      raceRows.add(a);
      raceRows.add(b);
      const from = Math.min(a, b);
      const to = Math.max(a, b);
      stepEdges.push({ kind: 'race', from, to, label: steps[to].event?.object ?? steps[from].event?.object ?? '' });
    }
  }

  // Which steps become rows: all of them, or the head and the tail.
  let omitted: Omitted | undefined;
  let head = n;
  let tailStart = n;
  if (n > maxRows) {
    head = Math.min(HEAD_ROWS, Math.floor(maxRows / 2));
    tailStart = n - (maxRows - head);
    omitted = { beforeRow: head, steps: tailStart - head, edges: 0 };
  }
  const dropped = tailStart - head;
  const kept = (i: number) => i < head || i >= tailStart;
  const rowOf = (i: number) => (i < head ? i : i - dropped);

  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    if (!kept(i)) continue;
    const s = steps[i];
    const line = s.range?.start?.line;
    rows.push({
      index: rows.length,
      step: typeof s.step === 'number' ? s.step : i + 1,
      at: i,
      column: columnOf.get(s.thread) ?? 0,
      thread: s.thread,
      op: typeof s.op === 'string' ? s.op : '',
      line: typeof line === 'number' ? line + 1 : 0,
      event: s.event?.kind,
      object: s.event?.object,
      ends: s.ends === true,
      race: raceRows.has(i),
      bug: i === n - 1,
    });
  }

  const edges: Edge[] = [];
  for (const e of stepEdges) {
    if (!kept(e.from) || !kept(e.to)) {
      if (omitted) omitted.edges++;
      continue;
    }
    edges.push({ kind: e.kind, from: rowOf(e.from), to: rowOf(e.to), label: e.label });
  }
  edges.sort((x, y) => x.from - y.from || x.to - y.to);

  // Lifelines, mapped to rows: a start in the gap moves to the first row
  // after it, an end in the gap to the last row before it.
  const lastRow = Math.max(0, rows.length - 1);
  const startRow = (i: number) => (kept(i) ? rowOf(i) : head);
  const endRow = (i: number) => (kept(i) ? rowOf(i) : head - 1);
  const columns: Column[] = names.map((name, index) => {
    if (!hasEvents) return { index, name, start: 0, end: lastRow, ended: false, spawned: false };
    const sp = spawnedAt.get(name);
    const en = endStep.get(name);
    return {
      index,
      name,
      start: sp === undefined ? 0 : startRow(sp),
      end: en === undefined ? lastRow : endRow(en),
      ended: en !== undefined,
      spawned: sp !== undefined,
    };
  });

  const notes: string[] = [];
  if (n === 0) notes.push('The trace has no steps.');
  if (!hasEvents && n > 0) {
    notes.push('This trace carries no event data (the language server is older than this view), so the arrows that order the steps are not drawn.');
  }
  if (omitted) {
    notes.push(
      `${omitted.steps.toLocaleString('en-US')} steps not drawn: steps ${head + 1}–${tailStart} of ${n.toLocaleString('en-US')} are left out, ` +
        `to keep the view scrollable (the first ${head.toLocaleString('en-US')} and the last ${(n - tailStart).toLocaleString('en-US')} are shown).` +
        (omitted.edges > 0 ? ` ${omitted.edges.toLocaleString('en-US')} arrows into them are not drawn.` : ''),
    );
  }

  return {
    kind: typeof trace.kind === 'string' ? trace.kind : '',
    message: typeof trace.message === 'string' ? trace.message : '',
    hasEvents,
    columns,
    rows,
    edges,
    totalSteps: n,
    omitted,
    notes,
  };
}

/** The row showing a 1-based step, if it is drawn. */
export function rowOfStep(d: Diagram, step: number): number | undefined {
  // Rows are in step order; steps are usually 1..n, so try the direct index first.
  const guess = d.omitted && step - 1 >= d.omitted.beforeRow ? step - 1 - d.omitted.steps : step - 1;
  if (guess >= 0 && guess < d.rows.length && d.rows[guess].step === step) return guess;
  let lo = 0;
  let hi = d.rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = d.rows[mid].step;
    if (s === step) return mid;
    if (s < step) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Bug kinds as words for a title ("data-race" → "Data race"). */
export function bugKindTitle(kind: string): string {
  const words = kind.replace(/[-_]+/g, ' ').trim();
  if (words === '') return 'Bug';
  return words[0].toUpperCase() + words.slice(1);
}
