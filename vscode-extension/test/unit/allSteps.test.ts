import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { ALL_STEPS, hasMoreSteps, sameTrace, stepsWords, traceArguments } from '../../src/allSteps';
import type { TraceDocument, TraceStep } from '../../src/protocol';

const doc = (steps: number, extra: Partial<TraceDocument> = {}): TraceDocument => ({
  uri: 'file:///m.weft',
  version: 1,
  bugId: 'bug-1',
  kind: 'assertion',
  message: 'm',
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  threads: ['t'],
  steps: Array.from({ length: steps }, (_, i) => ({ step: i + 1 }) as TraceStep),
  ...extra,
});

test('traceArguments', () => {
  assert.deepEqual(traceArguments('file:///m.weft', 'bug-1', false), ['file:///m.weft', 'bug-1']);
  assert.deepEqual(traceArguments('file:///m.weft', 'bug-1', true), ['file:///m.weft', 'bug-1', ALL_STEPS]);
  assert.equal(ALL_STEPS, 'allSteps');
});

test('stepsWords and hasMoreSteps', () => {
  const cases: Array<{ name: string; doc: TraceDocument; words: string; more: boolean }> = [
    { name: 'a slice', doc: doc(7, { fullSteps: 15 }), words: '7 of 15 steps (those the bug depends on)', more: true },
    { name: 'the whole execution', doc: doc(15, { allSteps: true }), words: 'all 15 steps', more: false },
    { name: 'not sliced', doc: doc(6), words: '6 steps', more: false },
    { name: 'one step', doc: doc(1), words: '1 step', more: false },
    { name: 'the whole of an unsliced bug', doc: doc(1, { allSteps: true }), words: 'all 1 step', more: false },
  ];
  for (const c of cases) {
    assert.equal(stepsWords(c.doc), c.words, c.name);
    assert.equal(hasMoreSteps(c.doc), c.more, c.name);
  }
});

test('sameTrace', () => {
  const slice = doc(7, { fullSteps: 15 });
  const full = doc(15, { allSteps: true });
  assert.equal(sameTrace(slice, doc(7, { fullSteps: 15 })), true);
  assert.equal(sameTrace(slice, full), false, "a slice's step numbers are not the whole execution's");
  assert.equal(sameTrace(full, doc(15, { allSteps: true })), true);
  assert.equal(sameTrace(slice, doc(7, { bugId: 'bug-2' })), false);
  assert.equal(sameTrace(slice, undefined), false);
});
