import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { dropTokens, lexicalIndices } from '../../src/semanticTokens';

// Absolute tokens [line, start, length, type] → LSP's relative encoding.
function encode(toks: number[][]): number[] {
  const out: number[] = [];
  let line = 0;
  let start = 0;
  for (const [l, s, len, typ] of toks) {
    out.push(l - line, l === line ? s - start : s, len, typ, 0);
    line = l;
    start = s;
  }
  return out;
}

test('dropTokens keeps the other tokens where they were', () => {
  const legend = ['keyword', 'sharedVariable', 'number', 'mutex', 'operator'];
  const drop = lexicalIndices(legend);
  assert.deepEqual([...drop].sort(), [0, 2, 4]);
  const cases: Array<{ name: string; toks: number[][]; want: number[][] }> = [
    { name: 'empty', toks: [], want: [] },
    { name: 'only lexical', toks: [[0, 0, 3, 0], [0, 6, 1, 2]], want: [] },
    {
      name: 'mixed on one line and across lines',
      toks: [[0, 0, 3, 0], [0, 4, 1, 1], [0, 6, 1, 4], [0, 8, 1, 1], [2, 4, 4, 0], [2, 9, 2, 3], [5, 0, 1, 2], [5, 2, 1, 1]],
      want: [[0, 4, 1, 1], [0, 8, 1, 1], [2, 9, 2, 3], [5, 2, 1, 1]],
    },
    { name: 'the first token kept is on a later line', toks: [[0, 0, 5, 0], [3, 7, 2, 3]], want: [[3, 7, 2, 3]] },
  ];
  for (const c of cases) {
    assert.deepEqual(dropTokens(encode(c.toks), drop), encode(c.want), c.name);
  }
});
