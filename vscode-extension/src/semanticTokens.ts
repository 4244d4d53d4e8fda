// Semantic tokens as the extension wants them: the server's own token
// types (sharedVariable, mutex, thread…), which package.json declares with
// their standard supertypes, and none of the purely lexical tokens
// (keywords, numbers, strings, comments, operators, type names): the
// TextMate grammar scopes those more finely (control keywords apart from
// declarations, reserved words in red), and a semantic "keyword" token
// would paint them all one colour. Pure: unit-tested without VS Code.

/** Weft's token types beyond LSP's standard ones, as the server names them. */
export const weftTokenTypes: ReadonlyArray<string> = [
  'sharedVariable',
  'atomicVariable',
  'mutex',
  'constant',
  'localVariable',
  'threadIndex',
  'thread',
  'proc',
];

/** The token types the TextMate grammar already scopes well. */
export const lexicalTokenTypes: ReadonlySet<string> = new Set(['keyword', 'type', 'number', 'string', 'comment', 'operator']);

/** The legend indices of the token types to drop. */
export function lexicalIndices(legendTypes: readonly string[]): Set<number> {
  const out = new Set<number>();
  legendTypes.forEach((t, i) => {
    if (lexicalTokenTypes.has(t)) {
      out.add(i);
    }
  });
  return out;
}

/**
 * Removes the tokens whose type index is in drop from LSP's relative
 * encoding (five numbers per token: delta line, delta start, length,
 * type, modifiers), re-basing the positions of the tokens kept.
 */
export function dropTokens(data: ArrayLike<number>, drop: ReadonlySet<number>): number[] {
  const out: number[] = [];
  let line = 0;
  let start = 0; // absolute position of the current token
  let keptLine = 0;
  let keptStart = 0; // absolute position of the last token kept
  for (let i = 0; i + 4 < data.length; i += 5) {
    const dl = data[i];
    line += dl;
    start = dl === 0 ? start + data[i + 1] : data[i + 1];
    if (drop.has(data[i + 3])) {
      continue;
    }
    const outDl = line - keptLine;
    out.push(outDl, outDl === 0 ? start - keptStart : start, data[i + 2], data[i + 3], data[i + 4]);
    keptLine = line;
    keptStart = start;
  }
  return out;
}
