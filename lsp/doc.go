// Package lsp is Weft's language server: `weft lsp` speaks the Language
// Server Protocol (3.18, through go.lsp.dev) over stdio. It is the only
// package that imports LSP types; it reads the front end (grammar,
// analysis, analysis/lower, analysis/query, analysis/access) and runs the
// engine.
//
// # Documents and snapshots
//
// Each open document has a worker goroutine. Edits arrive in order (the
// server handles notifications on the connection's reading goroutine and
// only requests concurrently), record the new text and version, and
// cancel whatever still runs for the older version. The worker analyses
// the latest text into an immutable snapshot (text, tree, checked program,
// lowered program); every result carries the snapshot's version, and a
// result is published only while its version is still the document's
// latest, checked under the document's lock, so no stale diagnostic,
// status or lens ever reaches the client.
//
// As in gopls' cache, a snapshot never changes once built. What is
// derived from it (the hover's facts, the independence constraints)
// hangs off it as promises: computed once, on a goroutine of their own
// bounded by the snapshot's context, for every caller, each waiting with
// its own context. That context ends when an edit makes a newer version
// or the document closes: the derived work stops, and a request still
// holding the snapshot is answered ContentModified, never from the older
// text. What explorations find out (the counts of the independence
// conditions the hover shows) lives beside the snapshots, in the
// document's results, keyed by version.
//
// # Three tiers
//
//  1. Every version: parse and analysis; syntax and type diagnostics.
//  2. After a quiet period (Settings.IdleDelayMs, 300 ms), when the file
//     has no errors: QPOR with k=1 and a small budget (QuickBudgetMs, 2 s).
//     Bugs are published as the engine finds them.
//  3. While the editor stays idle: escalated checks (EscalationAlgorithm,
//     optimal) with budgets growing ×6 from 10 s to EscalationCeilingMs
//     (5 min), until one completes.
//
// # Schedule with independence constraints
//
// When a snapshot's checks start, its independence constraints
// (analysis/indep, with z3's conditions for pairs of atomic blocks when
// Settings.SMT and z3 is installed) are computed in the background, at
// most 10 s. On a model where they apply (engine.ConstraintsApply: it
// cannot race, and a condition on the two threads' locals pairs an atomic
// block), the quick check and the first escalated one run cdpor instead
// (Settings.CDPOR); the later escalated ones run EscalationAlgorithm as
// before. The choice is measured (one run of each mode to completion, one
// machine): on the models where they apply (the Pi ports) cdpor completes
// in a seventh of qpor's time (Pi(8): 0.13 s against 0.89 s, 40,320
// executions each; with AssumeNoOverflow one execution), being sdpor where
// sdpor has no sleep-set-blocked executions; elsewhere (QPOR's table,
// most examples) the constraints do not apply and nothing changes: there
// cdpor explores what sdpor does, 13–28% slower, and optimal often less.
// The hover uses the same constraints, and the
// counts of the latest cdpor check.
//
// # Stateful checks
//
// A model with a loop that never ends once reached (a `while true` loop
// that no break or return leaves: analysis.Program.EndlessLoops) is
// checked in the stateful mode from the quick check on, and its
// escalated checks stay stateful: a stateless exploration of it can only
// end at the step bound, and the false alarm would show until replaced.
// A stateless check (quick or escalated) that ends with a step-bound bug
// is followed, when Settings.Escalate, by a stateful check with the next
// escalation budget: the bound may be a loop that comes back to a state
// it was in, which the stateful mode explores once and does not report.
// The stateful checks use Settings.Stateful.POR, and the invisible steps
// and race-free words of the snapshot's access facts, as weft check does
// (the hover's facts, computed once, within the check's context;
// unknown, every step counts as visible and every word as racy). weft/status
// says "mode": "stateful" and why (modeWhy), and counts states; a
// complete stateful check removes the stateless checks' step-bound bugs
// its own list lacks. Clients that do not take weft/status see it in the
// status lens, in window/logMessage (the start, with why, and the
// verdict), and in the related information of each bug the stateful
// check found. An edit cancels a stateful check like any other.
//
// The syntheses (each runs one z3 process) run at most two at once over
// all documents, and no more than MaxConcurrent: a snapshot waits for a
// slot, stops waiting when it is replaced or its document closes, and
// its 10 s count from the slot.
//
// One check runs at a time per document; a limiter bounds the checks
// running at once over all documents (MaxConcurrent: cores minus one);
// each check has the memory budget MaxMemoryMB (the engine's
// Options.MaxMemory). Closing a document stops its work and clears its
// diagnostics; a change of settings checks every open document again.
//
// # What the client sees
//
// Diagnostics with stable codes (the analysis's, and assertion, deadlock,
// data-race, runtime-error, step-bound), source "weft", a data race as a
// warning, related information for the other racing access and the
// trace's last steps, and data {bugId, version, steps}; the other access
// of a race has a diagnostic of its own too (same code, severity and
// bugId, data otherSide). The bugs and traces are those of the check's
// engine.Result (each the shortest slice found, as weft check shows it):
// bugs streamed in while a check runs (OnBug) are replaced when it ends,
// and a complete check's list replaces the document's whole (settleBugs). The custom
// notification weft/status (see status) on every change of state, to a
// client that opts in with the experimental capability weftStatus (the
// server's only custom notification: no other client gets one), and the
// same words in a code lens at the top of the file; "verified" only for a
// complete exploration that checked something, naming the assumptions
// the verdict rests on ("verified, assuming no overflow"; a bug-free
// verdict resting on no-overflow is checked again without it while the
// checks escalate). A code lens or inlay hint asked for after an edit
// shows nothing of the older version (the status lens says Checking…
// until the new version's check reports), and an edit sends
// codeLens/inlayHint refresh. Code lenses "Replay: race on x[0] with
// master (N steps)" naming each bug (command weft.replay), "Run optimal now"
// (until a check is complete), "Stop"; the code action "Show
// counterexample (N steps)" on a bug's diagnostic (weft.replay too).
// Commands weft.trace / weft.replay (package replay's
// counterexample document: each step, its event, the state after it; of
// the bug's causal slice, or with a third argument "allSteps" of the
// whole execution;
// weft.replay, for a client without the experimental capability
// weftReplay, also writes the counterexample as text to the cache
// directory and asks the client to show it: showreplay.go),
// weft.runOptimal, weft.stop, weft.showStatus. Work-done progress for
// the escalated checks, cancellable, titled with the mode it runs.
//
// # Robustness
//
// The framing (package internal/framing) skips malformed frames instead
// of ending the session, and a length that lies does not swallow the
// frames after it; a panic in a handler is recovered, logged (stderr and
// window/logMessage) and answered with an error; a cancelled request is
// answered -32800.
//
// # JSON-RPC
//
// The server owns conformance rather than relying on the library, which
// drops a malformed message silently (a request carrying an id then waits
// forever) and ends the connection when a notification's handler fails.
// The stream (stream.go) checks every body before the library sees it
// and answers what is not a well-formed JSON-RPC 2.0 message itself:
// not JSON, -32700 with id null; not an object, no "jsonrpc": "2.0", a
// method that is not a string, a method with a result, an id that is not
// a string or an integer (null, a fraction, an exponent, an object, a
// bool), -32600 under the id when it is valid, else null. A batch is
// refused (LSP has none): each request in it is answered -32600 under its
// id, as separate messages, and nothing in it runs. A malformed response
// is logged and dropped (a response is never answered).
//
// The handler (server.go) then answers: before initialize, -32002; a
// second initialize, and any request after shutdown, -32600; a method LSP
// does not define, -32601, with params or without (a notification of one,
// $/ or not, is ignored); params that do not decode, -32602. (A method LSP
// defines that weft does not serve is -32601 too, but -32602 without
// params: the dispatcher decodes params before it knows.)
// $/cancelRequest is the server's own: a cancel whose id is not a string
// or an integer, or that has no params, is logged and ignored. Shutdown
// is recorded on the reading goroutine before the next message is read,
// so after it a didOpen or didChange starts nothing, and from then on
// the stream writes only answers (a refresh or status a goroutine sends
// late is dropped); exit ends the process, with code 0 after shutdown
// and 1 without.
//
// The server never reads a document's URI: the text is didOpen's and the
// edits', so a URI naming a FIFO or a device file is harmless.
package lsp
