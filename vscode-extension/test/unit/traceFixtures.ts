// Counterexamples written by hand in the shape of `weft.trace`'s answer
// (src/protocol.ts), for the trace view's tests and for
// scripts/render-trace-view.mjs. The steps, ops and lines are those
// `weft check` prints for the models quoted above each one; the event
// data is what the extended server sends for them.

import type { NamedValue, StepEvent, TraceDocument, TraceStep } from '../../src/protocol';

type StepSpec = [thread: string, op: string, line: number, event?: StepEvent, ends?: boolean, shared?: NamedValue[]];

function steps(specs: StepSpec[]): TraceStep[] {
  return specs.map(([thread, op, line, event, ends, shared], i) => {
    const s: TraceStep = {
      step: i + 1,
      thread,
      op,
      range: { start: { line: line - 1, character: 4 }, end: { line: line - 1, character: 4 + op.length } },
    };
    if (event) s.event = event;
    if (ends) s.ends = true;
    if (shared) s.shared = shared;
    return s;
  });
}

function doc(kind: string, message: string, threads: string[], st: TraceStep[], extra: Partial<TraceDocument> = {}): TraceDocument {
  const last = st[st.length - 1];
  return {
    uri: 'file:///models/example.weft',
    version: 1,
    bugId: `${kind}-1`,
    kind,
    message,
    range: last ? last.range : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    threads,
    steps: st,
    ...extra,
  };
}

const ev = (kind: string, object?: string): StepEvent => (object === undefined ? { kind } : { kind, object });

/**
 * A lost update despite a mutex: each incr[k] reads c in one critical
 * section and writes it in another.
 *
 *     var c int
 *     var m mutex
 *     thread incr[k in 0..2] {
 *         var t int
 *         lock(m); t = c; unlock(m)     // lines 6–8
 *         lock(m); c = t + 1; unlock(m) // lines 9–11
 *     }
 *     thread main { join incr[0]; join incr[1]; assert c == 2, "an increment was lost" }
 */
export function lostUpdateWithLocks(): TraceDocument {
  return doc(
    'assertion',
    'an increment was lost',
    ['incr[0]', 'incr[1]', 'main'],
    steps([
      ['incr[0]', 'lock m', 6, ev('lock', 'm')],
      ['incr[0]', 'read c → 0', 7, ev('read', 'c'), false, [{ name: 'c', value: '0' }]],
      ['incr[0]', 'unlock m', 8, ev('unlock', 'm')],
      ['incr[1]', 'lock m', 6, ev('lock', 'm')],
      ['incr[1]', 'read c → 0', 7, ev('read', 'c')],
      ['incr[1]', 'unlock m', 8, ev('unlock', 'm')],
      ['incr[1]', 'lock m', 9, ev('lock', 'm')],
      ['incr[1]', 'write c = 1', 10, ev('write', 'c'), false, [{ name: 'c', value: '1' }]],
      ['incr[1]', 'unlock m', 11, ev('unlock', 'm'), true],
      ['incr[0]', 'lock m', 9, ev('lock', 'm')],
      ['incr[0]', 'write c = 1', 10, ev('write', 'c')],
      ['incr[0]', 'unlock m', 11, ev('unlock', 'm'), true],
      ['main', 'join incr[0]', 15, ev('join', 'incr[0]')],
      ['main', 'join incr[1]', 16, ev('join', 'incr[1]')],
      ['main', 'read c → 1', 17, ev('read', 'c')],
      ['main', 'assertion failed: an increment was lost', 17, ev('stop')],
    ]),
  );
}

/**
 * examples/thread_pool.weft with the assertion made to fail: main spawns
 * worker#0..2, each adds to total under m, main joins them all.
 */
export function threadPool(): TraceDocument {
  return doc(
    'assertion',
    'every worker’s share is counted',
    ['main', 'worker#0', 'worker#1', 'worker#2'],
    steps([
      ['main', 'spawn worker#0', 15, ev('spawn', 'worker#0')],
      ['main', 'spawn worker#1', 15, ev('spawn', 'worker#1')],
      ['main', 'spawn worker#2', 15, ev('spawn', 'worker#2')],
      ['worker#0', 'lock m', 7, ev('lock', 'm')],
      ['worker#0', 'read total → 0', 8, ev('read', 'total')],
      ['worker#0', 'write total = 1', 8, ev('write', 'total')],
      ['worker#0', 'unlock m', 9, ev('unlock', 'm'), true],
      ['main', 'join worker#0', 18, ev('join', 'worker#0')],
      ['worker#1', 'lock m', 7, ev('lock', 'm')],
      ['worker#1', 'read total → 1', 8, ev('read', 'total')],
      ['worker#1', 'write total = 3', 8, ev('write', 'total')],
      ['worker#1', 'unlock m', 9, ev('unlock', 'm'), true],
      ['main', 'join worker#1', 18, ev('join', 'worker#1')],
      ['worker#2', 'lock m', 7, ev('lock', 'm')],
      ['worker#2', 'read total → 3', 8, ev('read', 'total')],
      ['worker#2', 'write total = 6', 8, ev('write', 'total')],
      ['worker#2', 'unlock m', 9, ev('unlock', 'm'), true],
      ['main', 'join worker#2', 18, ev('join', 'worker#2')],
      ['main', 'read total → 6', 20, ev('read', 'total')],
      ['main', 'assertion failed: every worker’s share is counted', 20, ev('stop')],
    ]),
  );
}

/** examples/lost_update.weft, its data race: incr[0]'s write and incr[1]'s read of c. */
export function dataRace(): TraceDocument {
  return doc(
    'data-race',
    'data race on c: write of c by incr[0] and read of c by incr[1] are not ordered by synchronisation',
    ['incr[0]', 'incr[1]', 'main'],
    steps([
      ['incr[0]', 'read c → 0', 13, ev('read', 'c')],
      ['incr[0]', 'write c = 1', 13, ev('write', 'c'), true],
      ['incr[1]', 'read c → 1', 13, ev('read', 'c')],
    ]),
    { raceSteps: [2, 3] },
  );
}

/** The same trace as an older server sends it: no events, no `ends`. */
export function withoutEvents(t: TraceDocument): TraceDocument {
  return {
    ...t,
    steps: t.steps.map(({ event: _e, ends: _n, ...rest }) => rest),
  };
}

/**
 * A long trace: `workers` threads named worker[0]…, each looping
 * lock m / read x / write x / unlock m, `n` steps in all, round robin in
 * blocks of four steps, then a failed assertion in main.
 */
export function longTrace(n: number, workers = 4): TraceDocument {
  const threads = ['main', ...Array.from({ length: workers }, (_, i) => `worker[${i}]`)];
  const specs: StepSpec[] = [];
  let x = 0;
  const body: [string, (w: string) => StepEvent, number][] = [
    ['lock m', () => ev('lock', 'm'), 6],
    ['read x', () => ev('read', 'x'), 7],
    ['write x', () => ev('write', 'x'), 7],
    ['unlock m', () => ev('unlock', 'm'), 8],
  ];
  for (let i = 0; specs.length < n - 1; i++) {
    const w = threads[1 + (Math.floor(i / 4) % workers)];
    const [op, e, line] = body[i % 4];
    const text = op === 'read x' ? `read x → ${x}` : op === 'write x' ? `write x = ${++x}` : op;
    specs.push([w, text, line, e(w)]);
  }
  specs.push(['main', 'assertion failed: x stays small', 20, ev('stop')]);
  return doc('assertion', 'x stays small', threads, steps(specs), { stateOmitted: n > 5000 });
}
