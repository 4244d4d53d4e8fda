// Package replay builds the counterexample document: one bug's trace
// replayed step by step, with what each step did and the state after it.
// It is what the language server's weft.trace command answers, what
// `weft dap` steps through, and what a trace view draws; `weft replay
// --trace` and `weft dap` read saved `weft check --json` reports through
// it. It knows no protocol: it imports neither LSP nor DAP types, and its
// positions are its own Range, 0-based lines and UTF-16 characters (as
// source.Pos counts them), with the JSON shape of an LSP range.
//
// # The document (JSON)
//
//	{"uri": "file:///…/lost_update.weft", "version": 3, "bugId": "bug-7",
//	 "file": "/…/lost_update.weft", "sourceSha256": "e74dc1a1…",
//	 "kind": "assertion", "message": "an increment was lost",
//	 "range": {"start": {"line": 18, "character": 4}, "end": {…}}, "thread": "main",
//	 "threads": ["incr[0]", "incr[1]", "main"],
//	 "steps": [{"step": 1, "thread": "incr[0]", "op": "read c → 0", "range": {…},
//	            "event": {"kind": "read", "object": "c"},
//	            "shared": [{"name": "c", "value": "0"}],
//	            "locks": [{"name": "m", "holder": ""}],
//	            "threadStates": [{"name": "incr[0]", "status": "ready", "range": {…},
//	                              "locals": [{"name": "k", "value": "0"}]},
//	                             {"name": "main", "status": "blocked", "range": {…},
//	                              "waits": "join incr[1], which has not finished"}, …]}, …],
//	 "raceSteps": [2, 3]}
//
// uri, version and bugId identify where the document comes from (the
// language server fills them in for an open document; LoadReport for a
// report); file is the model's path on disk when known; sourceSha256 the
// SHA-256 of the text the document was built from (SourceHash), when
// known, by which a debugger notices that the text changed under it. thread is the
// thread at fault (for a data race, the one of the later access); threads
// lists every thread of the execution in creation order. Each step is
// 1-based; its event says what kind of step it was ("read", "write",
// "lock", "unlock", "spawn", "join", "atomic", "stop", "choose",
// "trylock", "wait", "wake", "signal", "broadcast") and on what: a
// location's name (the mutex of a trylock, the condition variable of a
// wait, wake, signal or broadcast), the thread spawned or joined, the one
// location of an atomic block that touches only one; omitted otherwise. "ends": true
// marks the step with which its thread finished. shared, locks and
// threadStates are the state right after the step: every shared variable
// that is not a mutex and every mutex (holder "" when free) in declaration
// order, and every thread that exists then (status "ready", "blocked",
// "failing", "finished"; range is the statement it runs next, for a
// blocked thread the one it waits at, absent once finished; waits, for a
// blocked thread, what it waits for and who holds it up; locals are the
// named locals in scope there: a var from its declaration, once that has
// run, to the end of its block). Arrays longer
// than Options.ArrayLimit are elided. A trace longer than
// Options.MaxStateSteps comes without the states: "stateOmitted": true,
// and each step has only step, thread, op, range, event and ends. For a
// data race, raceSteps holds the steps of the two unordered accesses
// (earlier first), when they are found in the trace.
//
// The steps are the bug's causal slice when its exploration sliced it
// (engine.Bug.Sliced): then "fullSteps" is the length of the whole
// execution it was sliced from, which the document of bug.Full() has
// step by step; "allSteps": true marks a document its maker built from
// the whole execution on purpose (the language server's weft.trace with
// "allSteps"). Both are absent otherwise.
//
// Building a document replays the bug's schedule from the initial state
// (engine.StepStates); it never trusts a trace written elsewhere, so a
// report whose trace was shortened still gives every step.
package replay
