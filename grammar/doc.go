// Package grammar turns Weft source text into a syntax tree and back.
//
// It holds the token kinds, the lexer (Scanner), the error-tolerant
// recursive-descent parser (ParseFile), the syntax tree (File, Decl, Stmt,
// Expr) with exact positions on every node, and the canonical printer used
// by `weft fmt` (Format).
//
// The parser never fails: whatever the input, it returns a tree (with Bad…
// nodes where text could not be parsed) and every syntax error it found as
// a source.Diagnostic. Required children of a node are never nil; where the
// text lacks them the parser puts a Bad… node or an empty Ident at the
// position where they were expected.
package grammar
