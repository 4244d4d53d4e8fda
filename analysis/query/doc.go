// Package query answers the questions an editor asks about one Weft file:
// where a name is declared and used, what renaming it would change, the
// outline, semantic highlighting, folding, completion, signature help and
// inlay hints. It reads what grammar.ParseFile and analysis.Check return
// and answers in source positions and plain structs; the language server
// (lsp/) converts those to protocol types, so nothing here knows LSP.
//
// The contract every query keeps:
//
//   - It never panics and never fails on a half-written file: syntax
//     errors, Bad… nodes, empty names and unresolved identifiers are the
//     normal case in an editor. Names that do not resolve are simply not
//     part of an answer. A nil Program, File or text gives an empty answer.
//   - It is linear in the file (or in what it returns), so that an editor
//     can ask on every keystroke: no query builds anything quadratic, and
//     none keeps state between calls.
//   - Positions in are source.Pos values whose Offset is authoritative
//     (Line and Col are not read); positions out carry byte offset, line
//     and UTF-16 column, as source.File.Pos computes them. A Range out is
//     half-open.
//
// Queries that need the text itself (tokens, comments, the word being
// typed) take the *source.File that was parsed; the others read the tree
// in Program.File. The text, the tree and the Program must come from the
// same version of the file.
package query
