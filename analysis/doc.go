// Package analysis gives meaning to a parsed Weft file: it resolves every
// name to its declaration, computes the type of every expression and the
// value of every constant expression, instantiates the declared threads
// (writer[0], writer[1], …), lays out shared memory and thread-local frames,
// and reports every static error of the program (see the Code… constants)
// as a source.Diagnostic with an exact range.
//
// Check is the entry point. It never fails and never panics on a tree that
// grammar.ParseFile produced, however broken: Bad… nodes and empty
// identifiers are skipped silently, because the parser has already
// reported them. Check is linear in the size of the file, so an editor can
// run it on every keystroke.
//
// The Program it returns is what the lowering to the engine's program form
// and the language server read: the objects of the file (constants, shared
// variables, threads and their instances, procs, functions), the Uses,
// Types and ConstValues tables, and the memory layout (Object.Offset for
// shared variables in a flat memory of Program.SharedSize int64 words,
// Object.Slot for locals in a flat frame of Object.FrameSize words per
// thread, proc or function).
//
// The static rules of language version 2 (docs/language.md) are checked
// here too: a function's arguments and result, a missing return, the
// places where choose, trylock, wait, signal, broadcast and await may not
// appear (atomic blocks; while and await conditions), and the same rules
// for calls, through every function a call may reach (recursion
// included).
package analysis
