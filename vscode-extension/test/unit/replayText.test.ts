import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { EditorText, ReplayedModel, isReplayedModel, staleReason } from '../../src/replayText';

const fromServer: ReplayedModel = { uri: 'file:///w/lost_update.weft', file: '/w/lost_update.weft', version: 7 };
const fromReport: ReplayedModel = { uri: 'file:///w/lost_update.weft', file: '/w/lost_update.weft', version: 0 };

function text(over: Partial<EditorText>): EditorText {
  return { uri: 'file:///w/lost_update.weft', file: '/w/lost_update.weft', version: 7, isDirty: false, ...over };
}

const cases: Array<{ name: string; model: ReplayedModel; text: EditorText; stale: RegExp | undefined }> = [
  { name: "the server's trace, the same version", model: fromServer, text: text({}), stale: undefined },
  { name: "the server's trace of an unsaved buffer, unchanged", model: fromServer, text: text({ isDirty: true }), stale: undefined },
  { name: "the server's trace, the text edited since", model: fromServer, text: text({ version: 8, isDirty: true }), stale: /version 8.*version 7/ },
  { name: "the server's trace, edited and saved", model: fromServer, text: text({ version: 9 }), stale: /version 9/ },
  { name: "a report's trace, the file as saved", model: fromReport, text: text({ version: 3 }), stale: undefined },
  { name: "a report's trace, unsaved changes", model: fromReport, text: text({ version: 4, isDirty: true }), stale: /not saved/ },
  { name: 'a report with no version at all', model: { uri: '', file: '/w/lost_update.weft' }, text: text({ isDirty: true }), stale: /not saved/ },
  { name: 'another file', model: fromServer, text: text({ uri: 'file:///w/other.weft', file: '/w/other.weft', version: 99 }), stale: undefined },
  { name: 'the same file by path, another uri spelling', model: fromServer, text: text({ uri: 'file:///w/./lost_update.weft', file: '/w/./lost_update.weft', version: 8 }), stale: /version 8/ },
  { name: 'an untitled document by uri', model: { uri: 'untitled:Untitled-1', version: 2 }, text: { uri: 'untitled:Untitled-1', version: 3, isDirty: true }, stale: /version 3/ },
  { name: 'an unknown uri is no match', model: { uri: '', version: 2 }, text: { uri: '', version: 3, isDirty: true }, stale: undefined },
];

for (const c of cases) {
  test(`staleReason: ${c.name}`, () => {
    const got = staleReason(c.model, c.text);
    if (c.stale === undefined) {
      assert.equal(got, undefined);
    } else {
      assert.match(got ?? '', c.stale);
    }
  });
}

test('isReplayedModel: by file or by uri', () => {
  assert.ok(isReplayedModel(fromServer, text({ uri: 'file:///elsewhere' })));
  assert.ok(isReplayedModel({ uri: 'file:///w/lost_update.weft' }, text({ file: undefined })));
  assert.ok(!isReplayedModel(fromServer, text({ uri: 'file:///w/x.weft', file: '/w/x.weft' })));
});
