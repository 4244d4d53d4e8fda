package lsp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"weft/engine"
	"weft/engine/ir"
)

// The work on a document, in three tiers (see the package doc): the
// analysis of every version; a quick check after a quiet period; while the
// editor stays idle, escalated checks with growing budgets until one is
// complete. An edit cancels whatever runs for the older version; nothing
// computed for an older version is published.

// plan is the check to run next on a snapshot.
type plan struct {
	algo   engine.Algorithm
	k      int
	budget time.Duration
	delay  time.Duration // wait this quiet period first
	stage  int           // 0: the quick check; 1…: the escalated ones
	forced bool          // asked for by the user (Run optimal now)
	// auto: run cdpor instead of algo when the snapshot's independence
	// constraints apply (engine.ConstraintsApply; see schedule in the
	// package doc).
	auto bool
	// fallback, set when the plan runs, is why it ran sdpor instead of
	// algo (a feature algo does not explore; see modeFor), or "".
	fallback string
	// exact: use no independence condition that holds only where no
	// arithmetic overflows (the check that follows a verdict resting on
	// engine.AssumeNoOverflow; see withoutNoOverflow).
	exact bool
	// assumed is the verdict an earlier check of the snapshot reached
	// under the no-overflow assumption, in words, for the status of a
	// later check that ends incomplete.
	assumed string
	// stateful, when not "", is why the plan runs the stateful mode (a
	// loop that never ends; a stateless check that reached the step
	// bound), in words; the escalated checks after it stay stateful.
	// See "Stateful checks" in the package doc.
	stateful string
}

// quickPlan is the first check of snap after a pause in typing: qpor (or
// cdpor where the constraints apply), or, on a model with a loop that
// never ends (analysis.Program.EndlessLoops), the stateful mode at once:
// a stateless exploration of it can only end at the step bound, and its
// step-bound alarm would be shown until a stateful check replaced it.
func quickPlan(snap *snapshot, set Settings) *plan {
	p := &plan{algo: engine.QPOR, k: 1, budget: set.quickBudget(), delay: set.idleDelay(), auto: set.CDPOR}
	if loops := snap.loaded.Program.EndlessLoops(); len(loops) > 0 {
		p.algo, p.auto = engine.Stateful, false
		p.stateful = fmt.Sprintf("the model loops forever (the `while true` loop at line %d: no break leaves it), so it is checked statefully", loops[0].Start.Line+1)
	}
	return p
}

// stepBoundAt is the 1-based line of a step-bound bug of res (one listed,
// or else one only counted), or 0 when it has none.
func stepBoundAt(res *engine.Result) int {
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			return b.Range.Start.Line + 1
		}
	}
	for _, o := range res.Omitted {
		if o.Kind == engine.BugStepBound {
			return o.Lines[0]
		}
	}
	return 0
}

// modeFor is the mode a check planned with opts runs on prog:
// opts.Algorithm, or sdpor when that mode does not explore a feature prog
// uses with these options (engine.Explore would refuse it), with the
// refusal in words.
func modeFor(prog *engine.Program, opts engine.Options) (engine.Algorithm, string) {
	if u := engine.Unsupported(prog, opts); u != nil {
		return engine.SDPOR, u.Error()
	}
	return opts.Algorithm, ""
}

func (d *document) run() {
	defer close(d.done)
	var snap *snapshot
	var next *plan
	for {
		woke := false
		if next == nil {
			select {
			case <-d.ctx.Done():
				return
			case <-d.wake:
				woke = true
			case cmd := <-d.cmds:
				if next = d.planFor(snap, cmd); next == nil {
					continue
				}
			}
		} else {
			select {
			case <-d.wake:
				woke = true
			default:
			}
		}
		if woke {
			next = nil
			if snap = d.analyse(); snap == nil {
				continue // superseded already
			}
			if snap.hasErrors() {
				d.setStatus(snap.version, status{State: stateErrors})
				continue
			}
			if d.stoppedByUser(snap.version) {
				// Re-analysed for new settings: the checks the user
				// stopped stay stopped. What they found was found with
				// the old settings, so none of it is shown.
				d.setStatus(snap.version, status{State: stateIncomplete, Stopped: engine.StoppedCancelled,
					Why: "stopped by the user (the settings changed since; an edit or Run optimal now checks again)"})
				continue
			}
			next = quickPlan(snap, d.s.currentSettings())
			d.setStatus(snap.version, status{State: stateChecking, Algorithm: string(next.algo), K: 1, Waiting: true})
		}
		if next == nil || snap == nil || d.ctx.Err() != nil {
			next = nil
			continue
		}
		var interrupted bool
		next, interrupted = d.execute(snap, next)
		if interrupted {
			next = nil // the next wake or command says what comes next
		}
	}
}

// stoppedByUser says whether the user stopped the checks of version.
func (d *document) stoppedByUser(version int32) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.userStopped && d.stoppedVersion == version
}

// planFor turns a command into a plan for the current snapshot.
func (d *document) planFor(snap *snapshot, cmd docCommand) *plan {
	if snap == nil || snap.hasErrors() || !d.current(snap.version) {
		return nil
	}
	d.mu.Lock()
	d.userStopped = false // a command the user gives runs
	d.mu.Unlock()
	switch cmd {
	case cmdRunOptimalNow:
		set := d.s.currentSettings()
		return &plan{algo: engine.Algorithm(set.EscalationAlgorithm), k: 1, budget: time.Duration(set.EscalationCeilingMs) * time.Millisecond, stage: 1, forced: true}
	}
	return nil
}

// analyse builds the snapshot of the latest text and publishes its static
// diagnostics; nil if a newer version arrived meanwhile.
func (d *document) analyse() *snapshot {
	d.mu.Lock()
	text, version := d.text, d.version
	d.mu.Unlock()
	snap := newSnapshot(d.ctx, docName(d.uri), version, text)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != version || d.ctx.Err() != nil {
		snap.cancel()
		return nil
	}
	if d.snap != nil {
		d.snap.cancel() // its background work is of no use any more
	}
	d.snap = snap
	d.bugs = nil
	d.publishLocked()
	if d.hintsWithheld && d.s.caps.inlayHintRefresh {
		d.hintsWithheld = false
		d.s.refreshHints()
	}
	return snap
}

// execute runs one plan on snap: waits its quiet period, takes a slot
// among the concurrent explorations, explores, publishes. It returns the
// plan that follows (nil: done) and whether an edit, a command or a close
// interrupted it.
func (d *document) execute(snap *snapshot, p *plan) (*plan, bool) {
	runCtx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	d.mu.Lock()
	if d.version != snap.version || len(d.wake) > 0 || len(d.cmds) > 0 {
		d.mu.Unlock()
		return nil, true
	}
	d.runCancel, d.stopAsked = cancel, false
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.runCancel = nil
		d.mu.Unlock()
	}()

	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-t.C:
		case <-runCtx.Done():
			t.Stop()
			return d.afterCancel(snap, nil)
		}
	}
	// The constraints are computed once the text has been quiet for the
	// idle delay (not for every keystroke), beside the checks.
	snap.startConstraints(d.s.currentSettings(), d.s.synth)
	if err := d.s.limiter.acquire(runCtx); err != nil {
		return d.afterCancel(snap, nil)
	}
	res, err := d.explore(runCtx, snap, p)
	d.s.limiter.release()
	if err != nil {
		// Not a verdict, not a stop of the exploration: the engine
		// refused the model or failed. Said as it is, never as a stop.
		d.setStatus(snap.version, status{State: stateIncomplete, Algorithm: string(p.algo), Why: "internal error: " + err.Error()})
		return nil, false
	}
	if runCtx.Err() != nil && !res.Complete && res.Stopped == engine.StoppedCancelled {
		return d.afterCancel(snap, res)
	}
	st := d.finalStatus(snap, p, res)
	set := d.s.currentSettings()
	if p.stateful != "" {
		// Logged once the status is set, so that the lens a client
		// asks for on reading the log says the same.
		msg := fmt.Sprintf("weft: %s: stateful check: %s", docName(d.uri), st.words())
		defer d.s.clientLog(protocol.MessageTypeInfo, msg)
	}
	// A stateless check that reached the step bound may have met a loop
	// that does not end rather than a bug: a stateful check decides.
	if line := stepBoundAt(res); line > 0 && p.stateful == "" && res.Algorithm != engine.Stateful && set.Escalate {
		budgets := set.escalationBudgets()
		stage := min(p.stage, len(budgets)-1)
		next := &plan{algo: engine.Stateful, k: 1, budget: budgets[stage], stage: stage + 1,
			stateful: fmt.Sprintf("the %s check reached the step bound at line %d, which a loop that does not end reaches too, so it is checked statefully", algoWords(string(res.Algorithm), p.k), line)}
		st.State, st.Waiting, st.Escalating = stateChecking, false, true
		st.Assumptions = nil
		d.setStatus(snap.version, st)
		return next, false
	}
	// A bug-free verdict that rests on the no-overflow assumption is
	// not the last word while escalation may go on: the next check
	// drops the conditions that need it, so that it either finds the
	// overflows the merged orders hid or says plain "verified".
	assumed := st.State == stateVerified && slices.Contains(res.Assumptions, engine.AssumeNoOverflow)
	if (res.Complete && !assumed) || p.forced || !set.Escalate || p.stage >= len(set.escalationBudgets()) {
		d.setStatus(snap.version, st)
		return nil, false
	}
	budget := set.escalationBudgets()[p.stage]
	next := &plan{algo: engine.Algorithm(set.EscalationAlgorithm), k: 1, budget: budget, delay: 0, stage: p.stage + 1, auto: set.CDPOR && p.stage == 0, exact: p.exact, assumed: p.assumed}
	if p.stateful != "" {
		// A model checked statefully stays so: a stateless mode could
		// only end at the step bound.
		next.algo, next.auto, next.stateful = engine.Stateful, false, p.stateful
	}
	if assumed {
		next.auto, next.exact = set.CDPOR, true
		next.assumed = fmt.Sprintf("verified, %s (%s, %s)", st.assuming(), plural64(st.Executions, "execution"), algoWords(st.Algorithm, st.K))
	}
	st.State, st.Waiting, st.Escalating = stateChecking, false, true
	st.Assumptions = nil // no verdict while checking
	d.setStatus(snap.version, st)
	return next, false
}

// afterCancel decides what a cancelled run amounts to: a stop the user
// asked for ends the checks of this version (incomplete); an edit, a
// command or a close interrupts them.
func (d *document) afterCancel(snap *snapshot, res *engine.Result) (*plan, bool) {
	d.mu.Lock()
	stopped := d.stopAsked && d.version == snap.version && d.ctx.Err() == nil
	if stopped {
		d.userStopped, d.stoppedVersion = true, snap.version
	}
	d.mu.Unlock()
	if !stopped {
		return nil, true
	}
	st := status{State: stateIncomplete, Stopped: engine.StoppedCancelled, Why: "stopped by the user"}
	if res != nil {
		st = d.finalStatus(snap, nil, res)
		st.Stopped, st.Why = engine.StoppedCancelled, "stopped by the user"
		if len(res.Bugs) > 0 {
			st.State = stateBugs
		}
	}
	d.setStatus(snap.version, st)
	return nil, false
}

// explore runs the engine, publishing bugs as they are found and the
// progress about every half second. An error is the engine's refusal or
// failure (a panic), never a verdict.
func (d *document) explore(ctx context.Context, snap *snapshot, p *plan) (*engine.Result, error) {
	set := d.s.currentSettings()
	algo, cs := chooseMode(ctx, snap, p)
	ctx, cancelBudget := context.WithTimeout(ctx, p.budget)
	defer cancelBudget()
	start := time.Now()
	algo, p.fallback = modeFor(snap.loaded.Exec, engine.Options{Algorithm: algo})
	if algo != engine.Stateful {
		p.stateful = "" // the stateful mode does not explore the model (p.fallback says why)
	}
	stateful := engine.StatefulOptions{POR: engine.StatefulPOR(set.Stateful.POR)}
	if algo == engine.Stateful {
		if p.stateful != "" {
			d.s.clientLog(protocol.MessageTypeInfo, fmt.Sprintf("weft: %s: %s (stateful, --stateful-por %s)", docName(d.uri), p.stateful, stateful.POR))
		}
		stateful.Invisible, stateful.RaceFree = statefulFacts(ctx, snap)
	}
	base := status{State: stateChecking, Algorithm: string(algo), K: p.k, Escalating: p.stage > 0, Fallback: p.fallback}
	if algo == engine.Stateful {
		base.Mode, base.ModeWhy = string(engine.Stateful), p.stateful
	}
	d.setStatus(snap.version, base)
	token := d.beginProgress(snap, p, algo)
	var lastReport time.Time
	var mu sync.Mutex             // OnBug and OnProgress run on the exploring goroutine; the lock documents it
	streamed := map[string]bool{} // the keys of the bugs OnBug streamed in (under mu)
	opts := engine.Options{
		Algorithm: algo,
		QPOR:      engine.QPOROptions{K: p.k},
		MaxSteps:  set.MaxSteps,
		MaxMemory: set.maxMemory(),
		// Several checks run side by side, each with its own MaxMemory;
		// the heap of the whole server is guarded by HeapLimit.
		HeapLimit: set.heapLimit(),
		CDPOR:     engine.CDPOROptions{Constraints: cs},
		Stateful:  stateful,
		OnBug: func(b *engine.Bug) {
			mu.Lock()
			defer mu.Unlock()
			if set.reports(string(b.Kind)) {
				streamed[engineBugKey(b)] = true
				d.streamBug(snap, b, p.stateful)
			}
		},
		OnProgress: func(stats engine.Stats) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(lastReport) < 500*time.Millisecond {
				return
			}
			lastReport = time.Now()
			st := base
			st.Executions, st.States, st.ElapsedMs = stats.Executions, stats.States, time.Since(start).Milliseconds()
			d.setStatus(snap.version, st)
			d.reportProgress(token, st)
		},
		OnRestart: func() {},
	}
	res, err := exploreSafely(ctx, snap, opts)
	if err != nil {
		d.endProgress(token, nil)
		return nil, err
	}
	d.results.setIndependence(snap.version, res.Independence)
	d.endProgress(token, res)
	// The check's Result is the word on its bugs: each bug it keeps is
	// shown with the Result's trace (the shortest slice, ties broken
	// canonically: what weft check shows), replacing the one streamed in
	// or found by an earlier check, and a complete check's list replaces
	// the document's whole (see settleBugs).
	var final []*bugReport
	for _, b := range res.Bugs {
		if set.reports(string(b.Kind)) {
			final = append(final, newBugReport(snap, b, p.stateful))
		}
	}
	mu.Lock()
	d.settleBugs(snap, final, res.Complete, streamed)
	mu.Unlock()
	d.publishBugs(snap)
	return res, nil
}

// chooseMode is the mode of plan p on snap and, for cdpor, the
// independence constraints it uses: cdpor when p asks for it, or when p
// is auto and the snapshot's constraints apply; otherwise p.algo. It
// waits for the constraints (computed in the background since the
// snapshot's checks began) at most p's budget, then runs p.algo.
func chooseMode(ctx context.Context, snap *snapshot, p *plan) (engine.Algorithm, *ir.Constraints) {
	if !p.auto && p.algo != engine.CDPOR {
		return p.algo, nil
	}
	wait, cancel := context.WithTimeout(ctx, p.budget)
	defer cancel()
	ind := snap.waitConstraints(wait)
	if ind == nil {
		return p.algo, nil // cdpor asked for: its own conditions only
	}
	cs := ind.Constraints()
	if p.exact {
		cs = withoutNoOverflow(cs)
	}
	if p.algo == engine.CDPOR || engine.ConstraintsApply(snap.loaded.Exec, cs) {
		return engine.CDPOR, cs
	}
	return p.algo, nil
}

// withoutNoOverflow is cs without the conditions that hold only where no
// arithmetic overflows (ir.OriginSMTNoOverflow), so that cdpor's verdict
// rests on no such assumption. A pair keeps its other conditions (the
// syntactic rules'); the conditions that hold over int64, which the
// synthesis gives the engine only when assumeNoOverflow is off, are not
// computed again: the check may merge less than it could, never more.
func withoutNoOverflow(cs *ir.Constraints) *ir.Constraints {
	if cs == nil {
		return nil
	}
	out := *cs
	out.Pairs = make(map[[2]ir.Site][]ir.Constraint, len(cs.Pairs))
	for k, list := range cs.Pairs {
		var keep []ir.Constraint
		for _, c := range list {
			if c.Origin != ir.OriginSMTNoOverflow {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			out.Pairs[k] = keep
		}
	}
	return &out
}

// exploreSafely runs an exploration, turning a panic of the engine into
// an error instead of a dead server.
func exploreSafely(ctx context.Context, snap *snapshot, opts engine.Options) (res *engine.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the %s exploration failed: %v", opts.Algorithm, r)
		}
	}()
	return engine.Explore(ctx, snap.loaded.Exec, opts)
}

func (d *document) finalStatus(snap *snapshot, p *plan, res *engine.Result) status {
	st := status{
		Algorithm:  string(res.Algorithm),
		Executions: res.Executions,
		States:     res.States,
		ElapsedMs:  res.Elapsed.Milliseconds(),
	}
	if p != nil {
		st.K, st.Fallback = p.k, p.fallback
		if res.Algorithm == engine.Stateful {
			st.Mode, st.ModeWhy = string(engine.Stateful), p.stateful
		}
	}
	for _, a := range res.Assumptions {
		st.Assumptions = append(st.Assumptions, string(a))
	}
	verdict, warnings := engine.Verdict(snap.loaded.Exec, res)
	st.Warnings = warnings
	for _, o := range res.Omitted {
		st.OmittedBugs += o.Count
		st.Warnings = append(st.Warnings, "not shown: "+o.String())
	}
	switch verdict {
	case engine.StatusBugs:
		st.State = stateBugs
		st.Complete = res.Complete
		if !res.Complete {
			st.Stopped, st.Why = res.Stopped, res.Stopped.Words()
		}
	case engine.StatusIncomplete:
		st.State, st.Stopped, st.Why = stateIncomplete, res.Stopped, res.Stopped.Words()
		if p != nil {
			st.Earlier = p.assumed
		}
	case engine.StatusVacuous:
		st.State, st.Complete = stateVacuous, true
	default:
		st.State, st.Complete = stateVerified, true
	}
	return st
}

// Stop asks the running check of u to stop.
func (d *document) stop() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.runCancel == nil {
		return false
	}
	d.stopAsked = true
	d.runCancel()
	return true
}

// runOptimalNow interrupts what runs and starts the ceiling-budget check.
func (d *document) runOptimalNow() {
	select {
	case d.cmds <- cmdRunOptimalNow:
	default:
	}
	d.mu.Lock()
	if d.runCancel != nil {
		d.runCancel()
	}
	d.mu.Unlock()
}

// limiter bounds the explorations running at once; its limit can change.
type limiter struct {
	mu      sync.Mutex
	limit   int
	running int
	freed   chan struct{}
}

func newLimiter(n int) *limiter { return &limiter{limit: n, freed: make(chan struct{})} }

func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.running < l.limit {
			l.running++
			l.mu.Unlock()
			return nil
		}
		freed := l.freed
		l.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *limiter) release() {
	l.mu.Lock()
	l.running--
	close(l.freed)
	l.freed = make(chan struct{})
	l.mu.Unlock()
}

func (l *limiter) setLimit(n int) {
	l.mu.Lock()
	l.limit = n
	close(l.freed)
	l.freed = make(chan struct{})
	l.mu.Unlock()
}

// beginProgress starts work-done progress for an escalated check running
// algo, if the client supports it; it returns the token ("" when none).
// Its title names the mode as the status and the lens do (algoWords).
func (d *document) beginProgress(snap *snapshot, p *plan, algo engine.Algorithm) string {
	s := d.s
	if p.stage == 0 || !s.caps.workDoneProgress {
		return ""
	}
	token := fmt.Sprintf("weft-%d", s.nextID.Add(1))
	if err := s.client.WorkDoneProgressCreate(d.ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)}); err != nil {
		return ""
	}
	s.mu.Lock()
	s.progressDocs[token] = d
	s.mu.Unlock()
	t := true
	msg := "starting"
	_ = s.client.Progress(d.ctx, &protocol.ProgressParams{Token: protocol.String(token), Value: rawJSON(protocol.WorkDoneProgressBegin{
		Kind: "begin", Title: fmt.Sprintf("Weft: %s check of %s", algoWords(string(algo), p.k), docName(d.uri)), Cancellable: &t, Message: &msg,
	})})
	return token
}

func (d *document) reportProgress(token string, st status) {
	if token == "" {
		return
	}
	n, what := st.Executions, "executions"
	if st.Algorithm == string(engine.Stateful) {
		n, what = st.States, "states"
	}
	msg := fmt.Sprintf("%s %s", groupDigits(n), what)
	if st.ElapsedMs > 0 {
		msg += fmt.Sprintf(", %s/s", groupDigits(n*1000/st.ElapsedMs))
	}
	_ = d.s.client.Progress(d.ctx, &protocol.ProgressParams{Token: protocol.String(token), Value: rawJSON(protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})})
}

func (d *document) endProgress(token string, res *engine.Result) {
	if token == "" {
		return
	}
	d.s.mu.Lock()
	delete(d.s.progressDocs, token)
	d.s.mu.Unlock()
	msg := "done"
	if res != nil && !res.Complete {
		msg = "incomplete: " + res.Stopped.Words()
	}
	end := struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}{"end", msg}
	_ = d.s.client.Progress(context.WithoutCancel(d.ctx), &protocol.ProgressParams{Token: protocol.String(token), Value: rawJSON(end)})
}

// WorkDoneProgressCancel stops the check the progress belongs to.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	var token string
	switch t := params.Token.(type) {
	case protocol.String:
		token = string(t)
	case protocol.Integer:
		token = fmt.Sprint(int32(t))
	}
	s.mu.Lock()
	d := s.progressDocs[token]
	s.mu.Unlock()
	if d != nil {
		d.stop()
	}
	return nil
}

// statefulFacts are what the static access analysis tells the stateful
// mode about snap, as weft check gives it: the instructions whose steps
// no step of another thread is dependent with
// (access.Summary.InvisibleSites) and the words that cannot race
// (access.Summary.RaceFreeWords), from the snapshot's access facts (the
// hover's, computed once), within ctx. Nil when not known: the stateful
// mode then takes every step as visible and every word as racy, which
// is sound.
func statefulFacts(ctx context.Context, snap *snapshot) (map[ir.Site]bool, []bool) {
	f, _, err := snap.facts(ctx)
	if err != nil || f == nil {
		return nil, nil
	}
	sites, ok := f.sum.InvisibleSites(ctx)
	free, ok2 := f.sum.RaceFreeWords(ctx)
	if !ok || !ok2 {
		return nil, nil
	}
	return sites, free
}
