// The TextMate grammar (syntaxes/weft.tmLanguage.json) against the
// language itself: nothing in the example models is scoped invalid, and
// the grammar knows every keyword and operator that the
// lexer (grammar/token.go) knows. The scope of each construct is tested
// in test/grammar/*.weft (npm run test:grammar).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type * as tmgrammarTest from 'vscode-tmgrammar-test/dist/common/index';

// vscode-tmgrammar-test (the runner of test/grammar) loads vscode-textmate
// and its WebAssembly regular expressions from node_modules: it is
// required at run time rather than bundled.
const { createRegistry } = createRequire(__filename)('vscode-tmgrammar-test/dist/common/index') as typeof tmgrammarTest;

// The bundle runs from out/test/unit/.
const extensionRoot = join(__dirname, '..', '..', '..');
const repoRoot = join(extensionRoot, '..');

interface Token {
  text: string;
  line: number;
  column: number;
  scopes: string[];
}

type Tokenize = (text: string) => Token[];

let tokenizer: Promise<Tokenize> | undefined;

function loadTokenizer(): Promise<Tokenize> {
  tokenizer ??= (async () => {
    const registry = createRegistry([
      { path: join(extensionRoot, 'syntaxes', 'weft.tmLanguage.json'), scopeName: 'source.weft' },
    ]);
    const grammar = await registry.loadGrammar('source.weft');
    if (grammar === null) {
      throw new Error('the grammar source.weft did not load');
    }
    return (text: string): Token[] => {
      const out: Token[] = [];
      let state: Parameters<typeof grammar.tokenizeLine>[1] = null;
      const lines = text.split(/\r?\n/);
      for (let n = 0; n < lines.length; n++) {
        const line = lines[n];
        const r = grammar.tokenizeLine(line, state);
        state = r.ruleStack;
        for (const t of r.tokens) {
          out.push({ text: line.slice(t.startIndex, t.endIndex), line: n + 1, column: t.startIndex + 1, scopes: t.scopes });
        }
      }
      return out;
    };
  })();
  return tokenizer;
}

const isInvalid = (scope: string): boolean => scope === 'invalid' || scope.startsWith('invalid.');
const where = (t: Token): string => `${t.line}:${t.column} ${JSON.stringify(t.text)} [${t.scopes.join(' ')}]`;

test('no token of an example model is scoped invalid', async () => {
  const tokenize = await loadTokenizer();
  const dir = join(repoRoot, 'examples');
  const files = readdirSync(dir).filter((f) => f.endsWith('.weft'));
  assert.ok(files.length >= 12, `found ${files.length} examples in ${dir}, want at least 12`);
  for (const f of files) {
    const tokens = tokenize(readFileSync(join(dir, f), 'utf8'));
    const bad = tokens.filter((t) => t.scopes.some(isInvalid));
    assert.deepEqual(bad.map(where), [], `${f}: tokens scoped invalid`);
    // Each example declares a thread: the grammar did recognise the file.
    assert.ok(tokens.some((t) => t.scopes.includes('entity.name.function.thread.weft')), `${f}: no thread name found`);
  }
});

// lexerWords reads grammar/token.go: the keywords (the kinds declared
// between keywordBeg and keywordEnd, spelled as the kindText table says)
// and each operator or punctuation token of kindText. Language version 2
// has no reserved words: every keyword means something.
function lexerWords(): { keywords: string[]; operators: string[] } {
  const src = readFileSync(join(repoRoot, 'grammar', 'token.go'), 'utf8');
  const table = /var kindText = \[\.\.\.\]string\{([\s\S]*?)\n\}/.exec(src);
  assert.ok(table, 'kindText not found in grammar/token.go');
  const entries = [...table[1].matchAll(/([A-Z_]+):\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => ({ kind: m[1], text: m[2] }));
  const block = /\n\tkeywordBeg\n([\s\S]*?)\n\tkeywordEnd\n/.exec(src);
  assert.ok(block, 'keywordBeg … keywordEnd not found in grammar/token.go');
  const kinds = block[1].split('\n').map((l) => l.replace(/\/\/.*$/, '').trim()).filter((l) => /^[A-Z_]+$/.test(l));
  const keywords = kinds.map((k) => {
    const e = entries.find((e) => e.kind === k);
    assert.ok(e, `keyword kind ${k} has no text in kindText`);
    return e.text;
  });
  const operators = entries.filter((e) => /^[^A-Za-z]+$/.test(e.text)).map((e) => e.text);
  assert.ok(keywords.length >= 33 && operators.length >= 28,
    `implausible kind table: ${keywords.length} keywords, ${operators.length} operators`);
  for (const word of ['func', 'trylock', 'cond', 'wait', 'signal', 'broadcast', 'choose', 'await']) {
    assert.ok(keywords.includes(word), `${word} is not a keyword of grammar/token.go`);
  }
  return { keywords, operators };
}

test('every keyword of the lexer is a keyword of the grammar, and only as a whole word', async () => {
  const tokenize = await loadTokenizer();
  const { keywords } = lexerWords();
  for (const kw of keywords) {
    const [t] = tokenize(kw);
    assert.equal(t.text, kw, `${kw} is not one token: ${where(t)}`);
    assert.ok(t.scopes.length > 1 && !t.scopes.some((s) => s.startsWith('variable.') || isInvalid(s)),
      `keyword ${kw} is scoped as a name or invalid: ${where(t)}`);
    for (const name of [kw + 'x', 'x' + kw, kw + '_1', kw + 'é']) {
      const tokens = tokenize(name);
      assert.equal(tokens.length, 1, `${name} is split: ${tokens.map(where).join(', ')}`);
      assert.ok(tokens[0].scopes.includes('variable.other.weft'), `${name} is not a plain name: ${where(tokens[0])}`);
    }
  }
});

test('the keywords of language version 2 are scoped as keywords and types, not as errors or names', async () => {
  const tokenize = await loadTokenizer();
  const want: Record<string, string> = {
    func: 'storage.type.func.weft',
    trylock: 'keyword.control.concurrency.weft',
    wait: 'keyword.control.concurrency.weft',
    signal: 'keyword.control.concurrency.weft',
    broadcast: 'keyword.control.concurrency.weft',
    await: 'keyword.control.concurrency.weft',
    choose: 'keyword.other.choose.weft',
    cond: 'support.type.primitive.weft',
  };
  for (const [word, scope] of Object.entries(want)) {
    for (const line of [word, `x = ${word}`, `${word}(x)`]) {
      const t = tokenize(line).find((t) => t.text === word);
      assert.ok(t?.scopes.includes(scope) && !t.scopes.some(isInvalid), `${word} in ${JSON.stringify(line)}: ${t ? where(t) : 'no token'}`);
    }
  }
});

test('no operator or punctuation of the lexer is scoped invalid', async () => {
  const tokenize = await loadTokenizer();
  const { operators } = lexerWords();
  for (const op of operators) {
    const line = `a ${op} b`;
    const tokens = tokenize(line);
    const t = tokens.find((t) => t.column === 3);
    assert.ok(t !== undefined && op.startsWith(t.text) && t.text.length > 0, `${JSON.stringify(line)}: ${tokens.map(where).join(', ')}`);
    assert.equal(t.text, op, `${op} is split: ${tokens.map(where).join(', ')}`);
    assert.ok(!t.scopes.some(isInvalid) && t.scopes.length > 1, `${op}: ${where(t)}`);
  }
});

test('the names in declarations exclude exactly the keywords of the lexer', () => {
  // A declared name is matched by [\p{L}_][\p{L}\p{Nd}_]* preceded by a
  // negative look-ahead for the keywords, repeated in several rules; each
  // copy must list the lexer's keywords.
  const { keywords } = lexerWords();
  const want = [...keywords].sort();
  const rules = JSON.stringify(JSON.parse(readFileSync(join(extensionRoot, 'syntaxes', 'weft.tmLanguage.json'), 'utf8')));
  const lists = [...rules.matchAll(/\(\?!\(\?:([a-z|]+)\)/g)].map((m) => m[1].split('|').sort());
  assert.ok(lists.length >= 8, `found ${lists.length} keyword look-aheads in the grammar, expected one per declared name`);
  for (const got of lists) {
    assert.deepEqual(got, want);
  }
});
