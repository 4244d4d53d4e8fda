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
// trace's last steps, and data {bugId, version, steps}. The custom
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
// codeLens/inlayHint refresh. Code lenses "Replay
// counterexample (N steps)" (command weft.replay), "Run optimal now"
// (until a check is complete), "Stop"; the code action "Show
// counterexample (N steps)" on a bug's diagnostic (weft.replay too).
// Commands weft.trace / weft.replay (package replay's
// counterexample document: each step, its event, the state after it;
// weft.replay, for a client without the experimental capability
// weftReplay, also writes the counterexample as text to the cache
// directory and asks the client to show it: showreplay.go),
// weft.runOptimal, weft.stop, weft.showStatus. Work-done progress for
// the escalated checks, cancellable, titled with the mode it runs.
//
// # Robustness
//
// The framing (package internal/framing) skips malformed frames instead
// of ending the session; a panic in a handler is recovered, logged
// (stderr and window/logMessage) and answered with an error; a cancelled
// request is answered -32800.
package lsp
