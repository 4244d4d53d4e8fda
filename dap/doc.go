// Package dap is Weft's replay debugger: `weft dap` speaks the Debug
// Adapter Protocol (through github.com/google/go-dap's types) over stdio
// and steps through one counterexample, forward and back. It is the only
// package besides cmd/weft that imports go-dap; it reads the
// counterexample document of package replay, which it gets inline from
// the client (the language server's weft.trace answer) or builds from a
// saved `weft check --json` report.
//
// # Launch
//
// The launch request's arguments are one of
//
//	{"trace": DOCUMENT}
//	{"traceFile": "/path/report.json", "bug": 1, "program": "/path/model.weft"}
//
// DOCUMENT is the JSON of replay.Document. With traceFile, bug is 1-based
// (default 1) and program overrides the model the report names (its
// "file", taken relative to the report's directory); the model must be
// the text that was checked (its SHA-256 is in the report). "program"
// with an inline trace sets the model's path when the document has none.
// "stopOnEntry" is accepted and changes nothing: the replay always stops
// at step 1. A launch that fails is an error response a person can read
// (showUser).
//
// # Position
//
// The replay stands at step i, 1 ≤ i ≤ n: steps 1..i have run, and every
// variable shows the state right after step i. Once launched and
// configured (configurationDone), it stops at step 1, reason "entry".
// next, stepIn and stepOut go to i+1; stepBack to i−1 (at step 1 it stays,
// reason "step"); continue runs to the next step on a line with a
// breakpoint, else to the last step; reverseContinue back to the previous
// such step, else to step 1 (reason "entry"). Reaching the last step
// always stops with reason "exception" (description the bug's kind, text
// its message, the faulting thread's id); stepping past it stays there
// and says so again. Reaching the end never ends the session: disconnect
// (or the end of the input) does; terminate sends "terminated" and the
// session waits for the disconnect that follows.
//
// Every stop is a custom event weftStep {"step": i, "steps": n, "bugId"}
// followed by the stopped event (threadId the thread that moved at step
// i, description "step i of n", text "Step i of n: THREAD OP",
// allThreadsStopped). A breakpoint on a line is verified when some step
// of the trace runs that line, and stops continue and reverseContinue at
// the steps whose statement starts on it (reason "breakpoint").
//
// # Threads, frames, variables
//
// Threads are the model's threads that exist at step i, with ids 1 +
// their index in the document's threads (stable over the replay). Each
// has one frame: a blocked thread at the operation it waits at, named
// "T: WAITS (blocked)" (the state's waits: "lock fork[1], held by
// phil[1]"); otherwise the thread that moved at step i at that step's
// statement, named "T: OP"; a finished one at its last step, "T
// (finished; last step k: OP)"; any other at the statement it runs next,
// "T (STATUS; last step k: OP)". A frame with no place in the model is a
// label frame (presentationHint "label"), which clients draw as its name
// alone.
// Each frame has the scopes Shared (every shared variable), Locals (that
// thread's locals in scope) and Locks (each mutex: its holder, or "free");
// a document without states (too long a trace) has one variable saying
// so instead. evaluate answers an expression over the step's state
// (expr.go: names, constant and computed indexes, + - * / % comparisons,
// && || !) whose names are a local of the frame's thread (or of the
// thread that moved), a shared variable or a mutex.
//
// # Custom requests
//
//	weftGoto  {"step": i}  moves to step i: weftStep, then stopped reason "goto" ("exception" at the last step)
//	weftTrace {}           answers the whole document
//
//	weftSourceChanged {"path", "uri", "version"}  the editor's text of a file changed: if it is the model, the replay ends (below)
//
// gotoTargets/goto (Run to Cursor's cousin, "Jump to Cursor") list and
// move to the steps on a line; exceptionInfo describes the bug.
//
// # A changed model
//
// A counterexample's lines are those of the text it was built from. The
// session looks at the model file before each stop and each stackTrace:
// when it holds a text other than the document's (sourceSha256) and the
// file's at launch, or when the client sends weftSourceChanged for the
// model, the replay ends: an output event of category "important" says
// why ("… changed on disk since this replay began: the counterexample's
// lines no longer match the text, so the replay has stopped. Replay the
// bug again on the new text."), then terminated. From then on frames show
// no source and the motions fail with that message.
//
// # Robustness
//
// The framing skips malformed frames (package framing), a message that is
// not a request, an unknown command or bad arguments get an error
// response, a panic in a handler is recovered into an error response,
// and the session goes on. Requests are answered in order, each before
// the events it causes; the input is read meanwhile, so that a
// disconnect, a terminate, or a cancel of the request being handled
// stops it (a launch that replays a trace of a million steps takes tens of
// seconds) and everything is answered at once. A traceFile or program that is not a regular file
// (a FIFO, a device, a directory) or is over its size limit is refused
// before it is opened. hostile_test.go holds the table of what a broken
// or hostile client can send (garbage frames, wrong types, lifecycle
// misuse, such files), each answered within a deadline, in process and
// against `weft dap`.
package dap
