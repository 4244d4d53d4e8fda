import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { bugAt, bugData, BugRef, distinctBugs } from '../../src/bugs';

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const race: BugRef[] = [
  { bugId: 'b1', message: 'data race on x', range: r(3, 4, 3, 9), steps: 4 },
  { bugId: 'b1', message: 'data race on x', range: r(8, 4, 8, 9), steps: 4 },
];
const two: BugRef[] = [...race, { bugId: 'b2', message: 'assertion failed', range: r(12, 4, 12, 20), steps: 7 }];

test('bugAt', () => {
  const cases: Array<{ name: string; bugs: BugRef[]; cursor?: { line: number; character: number }; want?: string }> = [
    { name: 'none', bugs: [], want: undefined },
    { name: "a race's two diagnostics are one bug", bugs: race, want: 'b1' },
    { name: 'several, cursor on one', bugs: two, cursor: { line: 12, character: 10 }, want: 'b2' },
    { name: 'several, cursor on the other side of the race', bugs: two, cursor: { line: 8, character: 9 }, want: 'b1' },
    { name: 'several, cursor elsewhere: the user picks', bugs: two, cursor: { line: 0, character: 0 }, want: undefined },
    { name: 'several, no cursor', bugs: two, want: undefined },
  ];
  for (const c of cases) {
    assert.equal(bugAt(c.bugs, c.cursor)?.bugId, c.want, c.name);
  }
});

test('distinctBugs', () => {
  assert.deepEqual(distinctBugs(two).map((b) => b.bugId), ['b1', 'b2']);
});

test('bugData', () => {
  assert.deepEqual(bugData({ bugId: 'b3', version: 4, steps: 9 }), { bugId: 'b3', version: 4, steps: 9 });
  for (const bad of [undefined, null, 'b3', {}, { bugId: '' }, { bugId: 7 }]) {
    assert.equal(bugData(bad), undefined);
  }
});
