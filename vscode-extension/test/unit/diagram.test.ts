// The trace view's layout (src/traceView/diagram.ts), its messages and
// its page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { buildDiagram, bugKindTitle, rowOfStep, type Diagram, type EdgeKind } from '../../src/traceView/diagram';
import { parseFromWebview, parseToWebview } from '../../src/traceView/messages';
import { traceViewHtml } from '../../src/traceView/html';
import type { TraceDocument } from '../../src/protocol';
import { dataRace, longTrace, lostUpdateWithLocks, threadPool, withoutEvents } from './traceFixtures';

/** Edges as "kind from→to label", rows 0-based, in the model's order. */
function edgeList(d: Diagram): string[] {
  return d.edges.map((e) => `${e.kind} ${e.from}→${e.to} ${e.label}`);
}

function columnList(d: Diagram): string[] {
  return d.columns.map((c) => `${c.name} ${c.start}..${c.end}${c.spawned ? ' spawned' : ''}${c.ended ? ' ended' : ''}`);
}

interface Case {
  name: string;
  trace: () => TraceDocument;
  edges: string[];
  columns: string[];
  race: number[];
  hasEvents: boolean;
  /** A note the view must show, or none. */
  note?: RegExp;
}

const cases: Case[] = [
  {
    name: 'lost update with locks: unlock→lock edges between threads only, joins from each end',
    trace: lostUpdateWithLocks,
    edges: [
      'lock-order 2→3 m', // incr[0] unlock m → incr[1] lock m
      // 5→6 is incr[1] unlocking and locking again: same thread, no edge
      'lock-order 8→9 m', // incr[1] unlock m (ends) → incr[0] lock m
      'join 8→13 incr[1]',
      'join 11→12 incr[0]',
    ],
    columns: ['incr[0] 0..11 ended', 'incr[1] 0..8 ended', 'main 0..15'],
    race: [],
    hasEvents: true,
  },
  {
    name: 'thread pool: spawn to first step, end to join, lock order between workers',
    trace: threadPool,
    edges: [
      'spawn 0→3 worker#0',
      'spawn 1→8 worker#1',
      'spawn 2→13 worker#2',
      'join 6→7 worker#0',
      'lock-order 6→8 m',
      'join 11→12 worker#1',
      'lock-order 11→13 m',
      'join 16→17 worker#2',
    ],
    columns: ['main 0..19', 'worker#0 0..6 spawned ended', 'worker#1 1..11 spawned ended', 'worker#2 2..16 spawned ended'],
    race: [],
    hasEvents: true,
  },
  {
    name: 'data race: both accesses flagged, one undirected edge',
    trace: dataRace,
    edges: ['race 1→2 c'],
    columns: ['incr[0] 0..1 ended', 'incr[1] 0..2', 'main 0..2'],
    race: [1, 2],
    hasEvents: true,
  },
  {
    name: 'no event data: rows, no edges, lifelines over the whole trace, a note',
    trace: () => withoutEvents(threadPool()),
    edges: [],
    columns: ['main 0..19', 'worker#0 0..19', 'worker#1 0..19', 'worker#2 0..19'],
    race: [],
    hasEvents: false,
    note: /no event data/,
  },
  {
    name: 'no event data, data race: the race pair still comes from raceSteps',
    trace: () => withoutEvents(dataRace()),
    edges: ['race 1→2 '],
    columns: ['incr[0] 0..2', 'incr[1] 0..2', 'main 0..2'],
    race: [1, 2],
    hasEvents: false,
    note: /no event data/,
  },
];

for (const c of cases) {
  test(`buildDiagram: ${c.name}`, () => {
    const t = c.trace();
    const d = buildDiagram(t);
    assert.deepEqual(edgeList(d), c.edges);
    assert.deepEqual(columnList(d), c.columns);
    assert.equal(d.hasEvents, c.hasEvents);
    assert.deepEqual(
      d.rows.filter((r) => r.race).map((r) => r.index),
      c.race,
    );
    // One row per step, in order, in its thread's column, the last one the bug's.
    assert.equal(d.rows.length, t.steps.length);
    assert.equal(d.totalSteps, t.steps.length);
    d.rows.forEach((r, i) => {
      const s = t.steps[i];
      assert.equal(r.index, i);
      assert.equal(r.step, s.step);
      assert.equal(r.at, i);
      assert.equal(d.columns[r.column].name, s.thread);
      assert.equal(r.op, s.op);
      assert.equal(r.line, s.range.start.line + 1);
      assert.equal(r.bug, i === t.steps.length - 1, `row ${i} bug flag`);
    });
    for (const e of d.edges) {
      assert.ok(e.from < e.to, `edge ${e.kind} ${e.from}→${e.to} goes down`);
      if (e.kind !== 'race') assert.notEqual(d.rows[e.from].column, d.rows[e.to].column, 'edges join two threads');
    }
    if (c.note) assert.ok(d.notes.some((n) => c.note!.test(n)), `notes ${JSON.stringify(d.notes)} say ${c.note}`);
    else assert.deepEqual(d.notes, []);
  });
}

test('buildDiagram: thread names with brackets and hashes are matched exactly', () => {
  // worker[3] and worker#2 are distinct threads; a spawn of `worker#2`
  // must not be taken for worker[2] or worker#20.
  const t: TraceDocument = {
    uri: 'file:///x.weft',
    version: 1,
    bugId: 'b',
    kind: 'deadlock',
    message: 'deadlock',
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    threads: ['main', 'worker[3]', 'worker#2', 'worker#20'],
    steps: [
      { step: 1, thread: 'main', op: 'spawn worker#20', range: r(3), event: { kind: 'spawn', object: 'worker#20' } },
      { step: 2, thread: 'main', op: 'spawn worker#2', range: r(3), event: { kind: 'spawn', object: 'worker#2' } },
      { step: 3, thread: 'worker[3]', op: 'lock m', range: r(5), event: { kind: 'lock', object: 'm' } },
      { step: 4, thread: 'worker#2', op: 'write x = 1', range: r(8), event: { kind: 'write', object: 'x' }, ends: true },
      { step: 5, thread: 'worker#20', op: 'read x → 1', range: r(8), event: { kind: 'read', object: 'x' }, ends: true },
      { step: 6, thread: 'main', op: 'join worker#2', range: r(4), event: { kind: 'join', object: 'worker#2' } },
      // A thread the list forgot: it still gets a column, after the others.
      { step: 7, thread: 'late', op: 'lock m', range: r(5), event: { kind: 'lock', object: 'm' } },
    ],
  };
  const d = buildDiagram(t);
  assert.deepEqual(columnList(d), [
    'main 0..6',
    'worker[3] 0..6',
    'worker#2 1..3 spawned ended',
    'worker#20 0..4 spawned ended',
    'late 0..6',
  ]);
  assert.deepEqual(edgeList(d), ['spawn 0→4 worker#20', 'spawn 1→3 worker#2', 'join 3→5 worker#2']);
});

test('buildDiagram: malformed race steps and inconsistent joins draw nothing', () => {
  for (const raceSteps of [[0, 2], [2, 2], [1, 99], [1.5, 2]] as [number, number][]) {
    const d = buildDiagram({ ...dataRace(), raceSteps });
    assert.deepEqual(edgeList(d), [], `raceSteps ${raceSteps}`);
    assert.equal(d.rows.filter((x) => x.race).length, 0);
  }
  // A join of a thread whose last step comes after it: no arrow up the page.
  const t = lostUpdateWithLocks();
  t.steps[12].event = { kind: 'join', object: 'main' };
  assert.deepEqual(
    buildDiagram(t).edges.filter((e) => e.kind === 'join').map((e) => `${e.from}→${e.to}`),
    ['8→13'],
  );
  // An empty trace.
  const empty = buildDiagram({ ...dataRace(), steps: [], raceSteps: undefined });
  assert.equal(empty.rows.length, 0);
  assert.deepEqual(empty.notes, ['The trace has no steps.']);
});

test('buildDiagram: 10,000 steps lay out quickly, every step a row, edges bounded', () => {
  const t = longTrace(10_000);
  buildDiagram(t); // warm up
  const t0 = performance.now();
  const d = buildDiagram(t);
  const ms = performance.now() - t0;
  assert.ok(ms < 250, `took ${ms.toFixed(1)} ms`);
  assert.equal(d.rows.length, 10_000);
  assert.equal(d.omitted, undefined);
  // Each lock has at most one incoming lock-order edge: a quarter of the steps.
  const lockOrder = d.edges.filter((e) => e.kind === 'lock-order');
  assert.equal(lockOrder.length, 2_499);
  assert.equal(d.edges.length, lockOrder.length);
  for (let i = 1; i < d.edges.length; i++) assert.ok(d.edges[i - 1].from <= d.edges[i].from, 'edges sorted by from');
  assert.equal(rowOfStep(d, 1), 0);
  assert.equal(rowOfStep(d, 10_000), 9_999);
  assert.equal(rowOfStep(d, 10_001), undefined);
});

test('buildDiagram: past maxRows the middle is omitted, with a note', () => {
  const n = 250_000;
  const t = longTrace(n);
  const t0 = performance.now();
  const d = buildDiagram(t, { maxRows: 5_000 });
  const ms = performance.now() - t0;
  assert.ok(ms < 1_000, `took ${ms.toFixed(1)} ms`);
  assert.equal(d.rows.length, 5_000);
  assert.equal(d.totalSteps, n);
  // 62,499 lock-order edges in all: 249 among the first 1,000 steps, 999
  // among the last 4,000, and every other one has an end in the gap.
  assert.deepEqual(d.omitted, { beforeRow: 1_000, steps: n - 5_000, edges: 62_499 - 1_248 });
  assert.equal(d.edges.length, 1_248);
  assert.equal(d.rows[999].step, 1_000);
  assert.equal(d.rows[1_000].step, n - 4_000 + 1);
  assert.ok(d.rows[4_999].bug);
  assert.equal(rowOfStep(d, n), 4_999);
  assert.equal(rowOfStep(d, 1_001), undefined);
  assert.equal(rowOfStep(d, n - 3_999), 1_000);
  assert.ok(d.notes.some((x) => x.startsWith('245,000 steps not drawn')), JSON.stringify(d.notes));
  for (const e of d.edges) assert.ok(e.from < e.to && e.to < d.rows.length);
  // Lifelines stay within the rows drawn.
  for (const c of d.columns) assert.ok(c.start >= 0 && c.end < d.rows.length, `${c.name} ${c.start}..${c.end}`);
  // The default cap keeps a 100,000-step trace (the default step bound) whole.
  assert.equal(buildDiagram(longTrace(100_000)).omitted, undefined);
});

test('bugKindTitle', () => {
  assert.equal(bugKindTitle('data-race'), 'Data race');
  assert.equal(bugKindTitle('runtime-error'), 'Runtime error');
  assert.equal(bugKindTitle('assertion'), 'Assertion');
  assert.equal(bugKindTitle(''), 'Bug');
});

test('messages: only well-formed messages pass', () => {
  const from: [unknown, unknown][] = [
    [{ type: 'ready' }, { type: 'ready' }],
    [{ type: 'reveal', step: 3 }, { type: 'reveal', step: 3 }],
    [{ type: 'reveal', step: 0 }, undefined],
    [{ type: 'reveal', step: '3' }, undefined],
    [{ type: 'reveal', step: 2.5 }, undefined],
    [{ type: 'other' }, undefined],
    [null, undefined],
    ['ready', undefined],
  ];
  for (const [msg, want] of from) assert.deepEqual(parseFromWebview(msg), want, JSON.stringify(msg));
  const trace = dataRace();
  const to: [unknown, unknown][] = [
    [{ type: 'trace', trace }, { type: 'trace', trace }],
    [{ type: 'trace', trace: { steps: 1 } }, undefined],
    [{ type: 'current', step: 0 }, { type: 'current', step: 0 }],
    [{ type: 'current', step: 7 }, { type: 'current', step: 7 }],
    [{ type: 'current', step: -1 }, undefined],
    [{ type: 'current' }, undefined],
  ];
  for (const [msg, want] of to) assert.deepEqual(parseToWebview(msg), want, JSON.stringify(msg));
});

test('traceViewHtml: a strict policy, the script by nonce, no inline code', () => {
  const html = traceViewHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/traceView.css',
    nonce: 'abc123+/=',
  });
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? '';
  assert.match(csp, /^default-src 'none'; /);
  assert.match(csp, /script-src 'nonce-abc123\+\/='(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(html, /<script nonce="abc123\+\/=" src="[^"]*dist\/webview\.js"><\/script>/);
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script');
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline handlers');
  assert.doesNotMatch(html, /\sstyle=|<style/i, 'no inline styles');
});

function r(line: number) {
  return { start: { line: line - 1, character: 4 }, end: { line: line - 1, character: 10 } };
}

// The kinds the tests above exercise cover every kind the model makes.
test('every edge kind is exercised', () => {
  const kinds = new Set<EdgeKind>();
  for (const c of cases) for (const e of buildDiagram(c.trace()).edges) kinds.add(e.kind);
  assert.deepEqual([...kinds].sort(), ['join', 'lock-order', 'race', 'spawn']);
});
