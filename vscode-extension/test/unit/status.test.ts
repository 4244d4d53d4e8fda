import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import type { WeftStatus } from '../../src/protocol';
import { groupDigits, statusView } from '../../src/status';

function st(over: Partial<WeftStatus>): WeftStatus {
  return { uri: 'file:///m.weft', version: 1, state: 'checking', executions: 0, elapsedMs: 0, bugs: 0, complete: false, waiting: false, escalating: false, message: 'words', ...over };
}

const cases: Array<{ name: string; status: WeftStatus; text: RegExp; background?: string; notText?: RegExp; tooltip?: RegExp }> = [
  { name: 'checking spins and counts', status: st({ executions: 12345 }), text: /^\$\(sync~spin\) Weft: checking… 12,345 executions$/ },
  { name: 'waiting for a pause', status: st({ waiting: true }), text: /checking soon/, notText: /spin/ },
  { name: 'bugs found while checking stay visible', status: st({ bugs: 2, executions: 10 }), text: /2 bugs so far, checking…/, background: 'error' },
  { name: 'verified only when complete', status: st({ state: 'verified', complete: true, executions: 6 }), text: /\$\(pass\) Weft: verified \(6 executions\)/ },
  { name: 'a verified status that is not complete never says verified', status: st({ state: 'verified', complete: false }), text: /incomplete/, notText: /verified/, background: 'warning' },
  { name: 'vacuous is not verified', status: st({ state: 'vacuous', complete: true, warnings: ['every execution is blocked by an assume'] }), text: /not verified/, tooltip: /assume/, background: 'warning' },
  { name: 'one bug, exploration complete', status: st({ state: 'bugs', bugs: 1, complete: true }), text: /^\$\(bug\) Weft: 1 bug$/, background: 'error' },
  { name: 'bugs beyond those kept are counted, not hidden', status: st({ state: 'bugs', bugs: 100, omittedBugs: 29900, why: 'time budget' }), text: /30000 bugs, 100 shown \(incomplete: time budget\)/, background: 'error' },
  { name: 'bugs, incomplete says why', status: st({ state: 'bugs', bugs: 3, why: 'time budget' }), text: /3 bugs \(incomplete: time budget\)/, background: 'error' },
  { name: 'incomplete says why and that no bug was found so far', status: st({ state: 'incomplete', why: 'memory' }), text: /incomplete \(memory\), no bug so far/, tooltip: /not a proof/, background: 'warning' },
  { name: 'errors', status: st({ state: 'errors' }), text: /not checked/, background: 'error' },
  {
    name: 'verified under an assumption says it, in the text and the tooltip',
    status: st({ state: 'verified', complete: true, executions: 1, assumptions: ['no-overflow'] }),
    text: /^\$\(pass\) Weft: verified, assuming no overflow \(1 execution\)$/,
    tooltip: /verified, assuming no overflow/,
  },
  {
    name: 'two assumptions',
    status: st({ state: 'verified', complete: true, executions: 2, assumptions: ['no-overflow', 'no-spurious-wakeups'] }),
    text: /verified, assuming no overflow and no spurious wake-ups \(2 executions\)/,
    tooltip: /assuming no overflow and no spurious wake-ups/,
  },
  {
    name: 'a complete exploration with bugs names its assumption in the tooltip',
    status: st({ state: 'bugs', bugs: 1, complete: true, assumptions: ['no-spurious-wakeups'] }),
    text: /^\$\(bug\) Weft: 1 bug$/,
    tooltip: /complete, assuming no spurious wake-ups/,
    background: 'error',
  },
  {
    name: 'a stateful check counts states, not executions, and says it ran statefully',
    status: st({ state: 'verified', complete: true, algorithm: 'stateful', mode: 'stateful', states: 51, assumptions: ['no-fingerprint-collision'] }),
    text: /^\$\(pass\) Weft: verified, assuming no two distinct states with one fingerprint \(51 states, stateful\)$/,
    notText: /execution/,
  },
  {
    name: 'a stateful check running counts states',
    status: st({ algorithm: 'stateful', mode: 'stateful', states: 1234 }),
    text: /^\$\(sync~spin\) Weft: checking… 1,234 states$/,
  },
  { name: 'plain verified names no assumption', status: st({ state: 'verified', complete: true, executions: 6 }), text: /verified \(6 executions\)$/, notText: /assuming/ },
];

for (const c of cases) {
  test(`statusView: ${c.name}`, () => {
    const v = statusView(c.status);
    assert.match(v.text, c.text);
    if (c.notText) {
      assert.doesNotMatch(v.text, c.notText);
    }
    assert.equal(v.background, c.background);
    assert.match(v.tooltip, /Click to show the Weft output/);
    if (c.tooltip) {
      assert.match(v.tooltip, c.tooltip);
    }
  });
}

test('groupDigits', () => {
  for (const [n, want] of [[0, '0'], [999, '999'], [1000, '1,000'], [1234567, '1,234,567']] as const) {
    assert.equal(groupDigits(n), want);
  }
});
