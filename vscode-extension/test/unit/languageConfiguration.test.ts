// language-configuration.json: the regular expressions VS Code compiles
// from it (word pattern, indentation, folding markers, Enter in a block
// comment) do what the file promises, and the pairs are there.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The bundle runs from out/test/unit/.
const file = join(__dirname, '..', '..', '..', 'language-configuration.json');

type Pattern = string | { pattern: string; flags?: string };

interface OnEnterRule {
  beforeText: Pattern;
  afterText?: Pattern;
  previousLineText?: Pattern;
  action: { indent: string; appendText?: string; removeText?: number };
}

interface LanguageConfiguration {
  comments: { lineComment: string; blockComment: [string, string] };
  brackets: Array<[string, string]>;
  autoClosingPairs: Array<{ open: string; close: string; notIn?: string[] }>;
  surroundingPairs: Array<[string, string]>;
  indentationRules: { increaseIndentPattern: Pattern; decreaseIndentPattern: Pattern };
  onEnterRules: OnEnterRule[];
  folding: { markers: { start: Pattern; end: Pattern } };
  wordPattern: Pattern;
}

const config = JSON.parse(readFileSync(file, 'utf8')) as LanguageConfiguration;

// regex compiles a pattern the way VS Code does (a string, or a pattern
// with flags).
function regex(p: Pattern, extraFlags = ''): RegExp {
  return typeof p === 'string' ? new RegExp(p, extraFlags) : new RegExp(p.pattern, (p.flags ?? '') + extraFlags);
}

test('comments, brackets and pairs', () => {
  assert.deepEqual(config.comments, { lineComment: '//', blockComment: ['/*', '*/'] });
  assert.deepEqual(config.brackets, [['{', '}'], ['[', ']'], ['(', ')']]);
  const pairs = new Map(config.autoClosingPairs.map((p) => [p.open, p]));
  for (const [open, close] of [['{', '}'], ['[', ']'], ['(', ')'], ['"', '"']]) {
    assert.equal(pairs.get(open)?.close, close, `auto-closing ${open}`);
  }
  assert.deepEqual(pairs.get('"')?.notIn, ['string', 'comment']);
  assert.equal(pairs.get('/*')?.close.trim(), '*/');
  assert.deepEqual(config.surroundingPairs, [['{', '}'], ['[', ']'], ['(', ')'], ['"', '"']]);
});

test('the word pattern takes names and numbers whole', () => {
  const words = 'x1 = 0x2A + écart_2*42 - _tmp; a[i]..N'.match(regex(config.wordPattern, 'g'));
  assert.deepEqual(words, ['x1', '0x2A', 'écart_2', '42', '_tmp', 'a', 'i', 'N']);
});

test('indentation: in after a line ending in an opening bracket, out at a closing one', () => {
  const increase = regex(config.indentationRules.increaseIndentPattern);
  const decrease = regex(config.indentationRules.decreaseIndentPattern);
  for (const line of ['thread t {', '    if x > 0 {   ', '} else {', 'thread w[i in 0..N] { // N copies', 'var a [3]int = {', 'atomic { /* rmw */', '    spawn p(']) {
    assert.match(line, increase);
  }
  for (const line of ['    x = 1', '}', 'var a [3]int = {1, 2}', '// a comment {', ' * in a block comment {', '    lock(m)', 'atomic {}']) {
    assert.doesNotMatch(line, increase);
  }
  for (const line of ['}', '    } else {', '  )', ']']) {
    assert.match(line, decrease);
  }
  for (const line of ['x = {}', '    lock(m)', '// }']) {
    assert.doesNotMatch(line, decrease);
  }
});

test('folding markers are // #region and // #endregion', () => {
  const start = regex(config.folding.markers.start);
  const end = regex(config.folding.markers.end);
  assert.match('// #region locks', start);
  assert.match('    //#region', start);
  assert.doesNotMatch('// #endregion', start);
  assert.doesNotMatch('x = 1 // #region', start);
  assert.match('// #endregion', end);
  assert.match('    // #endregion locks', end);
  assert.doesNotMatch('// #region', end);
});

// onEnter returns the first rule that applies, as VS Code picks it.
function onEnter(before: string, after: string, previous: string): OnEnterRule | undefined {
  return config.onEnterRules.find((r) =>
    regex(r.beforeText).test(before) &&
    (r.afterText === undefined || regex(r.afterText).test(after)) &&
    (r.previousLineText === undefined || regex(r.previousLineText).test(previous)));
}

test('Enter inside a block comment continues it with " * "', () => {
  assert.deepEqual(onEnter('/*', ' */', '')?.action, { indent: 'indentOutdent', appendText: ' * ' });
  assert.deepEqual(onEnter('    /* the invariant:', '', '')?.action, { indent: 'none', appendText: ' * ' });
  assert.deepEqual(onEnter('     * holds here', '', '    /* the invariant:')?.action, { indent: 'none', appendText: '* ' });
  assert.deepEqual(onEnter('     */', '', '     * holds here')?.action, { indent: 'none', removeText: 1 });
  for (const [before, previous] of [['/* closed */', ''], ['x = a * b', 'y = 1'], ['// not a block', ''], ['thread t {', '']]) {
    assert.equal(onEnter(before, '', previous), undefined, before);
  }
});
