import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { fillWeftExperimental } from '../../src/capabilities';

const cases: Array<{ name: string; before: unknown; want: Record<string, unknown> }> = [
  { name: 'no experimental capabilities yet', before: undefined, want: { weftStatus: true, weftReplay: true } },
  { name: 'other experimental capabilities are kept', before: { snippetTextEdit: true }, want: { snippetTextEdit: true, weftStatus: true, weftReplay: true } },
  { name: 'a value that is not an object is replaced', before: 'x', want: { weftStatus: true, weftReplay: true } },
];

for (const c of cases) {
  test(`fillWeftExperimental: ${c.name}`, () => {
    const caps: { experimental?: unknown } = c.before === undefined ? {} : { experimental: c.before };
    fillWeftExperimental(caps);
    assert.deepEqual(caps.experimental, c.want);
  });
}
