package lsp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/replay"
	"weft/source"
)

// The states of a document's check, as weft/status and the top code lens
// say them.
const (
	stateChecking   = "checking"
	stateVerified   = "verified"
	stateVacuous    = "vacuous" // complete, but nothing was checked (see warnings); never "verified"
	stateBugs       = "bugs"
	stateIncomplete = "incomplete"
	stateErrors     = "errors"
)

// status is the state of a document's check, sent as weft/status.
type status struct {
	URI        uri.URI `json:"uri"`
	Version    int32   `json:"version"`
	State      string  `json:"state"`
	Algorithm  string  `json:"algorithm,omitempty"`
	K          int     `json:"k,omitempty"`
	Executions int64   `json:"executions"`
	ElapsedMs  int64   `json:"elapsedMs"`
	Bugs       int     `json:"bugs"`
	Complete   bool    `json:"complete"`      // the exploration finished (verified, vacuous, or bugs with nothing left)
	Why        string  `json:"why,omitempty"` // why incomplete, in words
	// Stopped is why the exploration stopped early, as the engine names
	// it ("timeout", "cancelled", "max-executions", "max-bugs",
	// "execution-length", "memory", "bitstate"; engine.StopReason); empty when it
	// did not, and when the check failed (Why then says how).
	Stopped    engine.StopReason `json:"stopped,omitempty"`
	Waiting    bool              `json:"waiting"`    // checking: waiting for a pause in typing or a free slot
	Escalating bool              `json:"escalating"` // checking: an escalated (idle) check
	Warnings   []string          `json:"warnings,omitempty"`
	Message    string            `json:"message"` // the status in words, as the code lens shows it
	// Fallback says why the check runs (or ran) sdpor rather than the
	// mode planned (qpor for the quick check, the escalation's mode
	// after it): the model uses a feature that mode does not explore.
	Fallback string `json:"fallback,omitempty"`
	// Assumptions are what the verdict rests on besides the model
	// (engine.Result.Assumptions: "no-overflow", "no-spurious-wakeups");
	// the message says them ("verified, assuming no overflow").
	Assumptions []string `json:"assumptions,omitempty"`
	// Earlier, for an incomplete check, is the verdict an earlier check
	// of the same version reached under an assumption, which this one
	// (run without it) could not confirm: "verified, assuming no
	// overflow (1 execution, cdpor)".
	Earlier string `json:"earlier,omitempty"`
	// Mode is "stateful" when the check runs (or ran) the stateful mode
	// because the model loops forever or a stateless check reached the
	// step bound; ModeWhy says which, in words. Absent otherwise.
	Mode    string `json:"mode,omitempty"`
	ModeWhy string `json:"modeWhy,omitempty"`
	// States counts the distinct states a stateful check stored (0 in
	// the other modes).
	States int64 `json:"states,omitempty"`
	// OmittedBugs counts the distinct bugs the check found beyond those
	// it kept with a trace (engine.Result.Omitted: 100 are kept); the
	// warnings summarise them per kind and variable.
	OmittedBugs int64 `json:"omittedBugs,omitempty"`
}

// words says the status as a person reads it.
func (st status) words() string {
	w := st.stateWords()
	if st.Fallback != "" && st.State != stateErrors && !st.Waiting {
		w += " — " + st.Fallback
	}
	if st.ModeWhy != "" && st.State != stateErrors && !st.Waiting {
		w += " — " + st.ModeWhy
	}
	return w
}

func (st status) stateWords() string {
	switch st.State {
	case stateChecking:
		var b strings.Builder
		if st.Bugs > 0 {
			fmt.Fprintf(&b, "%s so far; ", plural(st.Bugs, "bug"))
		}
		if st.Waiting {
			b.WriteString("Checking soon (after a pause in typing)…")
			return b.String()
		}
		fmt.Fprintf(&b, "Checking… %s", algoWords(st.Algorithm, st.K))
		if st.Algorithm == string(engine.Stateful) {
			if st.States > 0 {
				fmt.Fprintf(&b, ", %s states", groupDigits(st.States))
			}
		} else if st.Executions > 0 {
			fmt.Fprintf(&b, ", %s executions", groupDigits(st.Executions))
		}
		return b.String()
	case stateVerified:
		v := "✓ Verified"
		if a := st.assuming(); a != "" {
			v += ", " + a
		}
		return fmt.Sprintf("%s: %s, %s, %s", v, st.explored(), algoWords(st.Algorithm, st.K), seconds(st.ElapsedMs))
	case stateVacuous:
		w := "nothing was checked"
		if len(st.Warnings) > 0 {
			w = st.Warnings[0]
		}
		return "⚠ Not verified: " + w
	case stateBugs:
		s := plural(st.Bugs, "bug")
		if st.OmittedBugs > 0 {
			s = fmt.Sprintf("%s bugs, %d shown", groupDigits(int64(st.Bugs)+st.OmittedBugs), st.Bugs)
		}
		if st.Complete {
			a := ""
			if w := st.assuming(); w != "" {
				a = "; " + w
			}
			return s + fmt.Sprintf(" (exploration complete: %s, %s%s)", st.explored(), algoWords(st.Algorithm, st.K), a)
		}
		if st.Why != "" {
			return s + " (incomplete: " + st.Why + ")"
		}
		return s
	case stateIncomplete:
		w := fmt.Sprintf("Incomplete: %s after %s (%s); no bug found so far", st.Why, st.explored(), algoWords(st.Algorithm, st.K))
		if st.Earlier != "" {
			w += "; an earlier check: " + st.Earlier
		}
		return w
	case stateErrors:
		return "Not checked: the file has errors"
	}
	return st.State
}

// explored says how much the check explored: executions, or for the
// stateful mode the states it stored (it counts no executions).
func (st status) explored() string {
	if st.Algorithm == string(engine.Stateful) {
		return plural64(st.States, "state")
	}
	return plural64(st.Executions, "execution")
}

// assuming is the qualifier of the status's verdict: "assuming no
// overflow", or "".
func (st status) assuming() string {
	as := make([]engine.Assumption, len(st.Assumptions))
	for i, a := range st.Assumptions {
		as[i] = engine.Assumption(a)
	}
	return engine.AssumingWords(as)
}

// algoWords is a mode's name as the user reads it: in the code lens, the
// status and the title of the work-done progress alike.
func algoWords(algo string, k int) string {
	if algo == string(engine.QPOR) {
		return fmt.Sprintf("qpor k=%d", k)
	}
	return algo
}

func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

func plural(n int, what string) string { return plural64(int64(n), what) }

func plural64(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return groupDigits(n) + " " + what + "s"
}

// groupDigits writes n with thousands separators: 12,345.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// setStatus records and announces the status of version (if it is still
// the document's latest).
func (d *document) setStatus(version int32, st status) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != version || d.ctx.Err() != nil {
		return
	}
	st.URI, st.Version, st.Bugs = d.uri, version, len(d.bugs)
	changed := st.State != d.st.State || st.Waiting != d.st.Waiting || st.Algorithm != d.st.Algorithm || st.Bugs != d.st.Bugs
	d.st = st
	d.st.Message = st.words()
	if d.s.caps.weft.status {
		_ = d.s.conn.Notify(d.ctx, methodStatus, d.st)
	}
	if changed || time.Since(d.lastLens) > 2*time.Second {
		d.lastLens = time.Now()
		d.s.refreshLenses()
	}
}

// methodStatus is the custom notification of a document's status, sent
// only to a client that opted in (weftCaps.status). It is the server's
// only custom notification.
const methodStatus = "weft/status"

func (s *Server) refreshLenses() {
	if s.caps.codeLensRefresh {
		s.lensRefresh.request(s.ctx, s.client.CodeLensRefresh)
	}
}

// refreshHints asks the client to ask for the inlay hints again.
func (s *Server) refreshHints() {
	if s.caps.inlayHintRefresh {
		s.hintRefresh.request(s.ctx, s.client.InlayHintRefresh)
	}
}

// refreshVersion asks the client to drop the code lenses and inlay hints
// it shows, which are of an older version of a document (if it supports
// the refresh requests: otherwise it asks again after an edit anyway).
func (s *Server) refreshVersion() {
	s.refreshLenses()
	s.refreshHints()
}

// refresher sends one kind of refresh request, one at a time: one asked
// for while another waits for its answer is sent once that is answered
// (one for all asked meanwhile), so a client slow to answer, or that
// never does, holds one request and one goroutine, not one per edit.
type refresher struct {
	mu    sync.Mutex
	busy  bool // a request is out
	again bool // another was asked for meanwhile
}

func (r *refresher) request(ctx context.Context, send func(context.Context) error) {
	r.mu.Lock()
	if r.busy {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.busy = true
	r.mu.Unlock()
	go func() {
		for {
			_ = send(ctx)
			r.mu.Lock()
			if !r.again || ctx.Err() != nil {
				r.busy, r.again = false, false
				r.mu.Unlock()
				return
			}
			r.again = false
			r.mu.Unlock()
		}
	}()
}

// bugReport is a bug as the server keeps it: copied out of the engine's
// report (which the engine may still change) with the snapshot it is for.
type bugReport struct {
	id         string
	snap       *snapshot
	kind       engine.BugKind
	message    string
	thread     string
	rng        source.Range
	other      *engine.RaceSide
	schedule   []int32
	replayOpts engine.ReplayOptions // the local budget, the choices and options it replays with
	// fullSchedule and fullChoices are the whole execution schedule was
	// sliced from (engine.Bug.FullSchedule), nil when not sliced: what
	// weft.trace gives with "allSteps".
	fullSchedule, fullChoices []int32
	// The first step and the last maxRelatedSteps of its trace (all of
	// it in head when it is short): what its diagnostic lists.
	head, tail []engine.TraceStep
	traceErr   error
	// stateful is why a stateful check found it (plan.stateful), or "".
	stateful string
}

func (b *bugReport) key() string { return reportKey(b.kind, b.rng, b.other) }

// engineBugKey is the key of the report of an engine bug.
func engineBugKey(b *engine.Bug) string { return reportKey(b.Kind, b.Range, b.Other) }

func reportKey(kind engine.BugKind, rng source.Range, other *engine.RaceSide) string {
	k := fmt.Sprintf("%s|%d|%d", kind, rng.Start.Offset, rng.End.Offset)
	if other != nil {
		k += fmt.Sprintf("|%d", other.Range.Start.Offset)
	}
	return k
}

// settleBugs makes the bugs of snap those of a check's Result (final,
// in the Result's order, with its traces), keeping the ids of the bugs
// already shown under the same key so that a lens or a trace asked for
// by id still finds them. After a complete check the list is exactly
// final: a bug of an earlier check (another mode, which may name a race
// by its other access, or a step-bound alarm of a stateless check that a
// stateful one explored round its cycle) or one streamed in that the
// Result does not keep (with more bugs than the engine keeps, a bug
// streamed in early may give its place to one before it in canonical
// order) is not shown. After an incomplete one, the bugs of earlier
// checks it did not reach stay, after final's; those it streamed in and
// did not keep go. d.mu is not held.
func (d *document) settleBugs(snap *snapshot, final []*bugReport, complete bool, streamed map[string]bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != snap.version || d.snap != snap || d.ctx.Err() != nil {
		return
	}
	old := make(map[string]*bugReport, len(d.bugs))
	for _, b := range d.bugs {
		old[b.key()] = b
	}
	kept := make([]*bugReport, 0, len(final)+len(d.bugs))
	inFinal := make(map[string]bool, len(final))
	for _, r := range final {
		k := r.key()
		if inFinal[k] {
			continue
		}
		inFinal[k] = true
		if o := old[k]; o != nil {
			r.id = o.id
		} else {
			r.id = "bug-" + strconv.FormatInt(d.s.nextID.Add(1), 10)
		}
		kept = append(kept, r)
	}
	if !complete {
		for _, b := range d.bugs {
			if k := b.key(); !inFinal[k] && !streamed[k] {
				kept = append(kept, b)
			}
		}
	}
	d.bugs = kept
	d.s.refreshLenses()
}

// newBugReport copies bug b of snap out of the engine's report, with the
// ends of its trace; its id is set when it is recorded.
func newBugReport(snap *snapshot, b *engine.Bug, stateful string) *bugReport {
	r := &bugReport{
		snap: snap, kind: b.Kind, message: b.Message, thread: b.Thread, rng: b.Range, stateful: stateful,
		schedule: append([]int32(nil), b.Schedule...), replayOpts: b.ReplayOptions(),
	}
	r.head, r.tail, r.traceErr = b.TraceEnds(1, maxRelatedSteps)
	if b.FullSchedule != nil {
		r.fullSchedule = append([]int32(nil), b.FullSchedule...)
		if b.FullChoices != nil {
			r.fullChoices = append([]int32(nil), b.FullChoices...)
		}
	}
	r.replayOpts.Choices = append([]int32(nil), b.Choices...)
	if b.Choices == nil {
		r.replayOpts.Choices = nil
	}
	if b.Other != nil {
		o := *b.Other
		r.other = &o
	}
	return r
}

// streamBug records a bug of snap a running check reported (if snap is
// still current) and publishes it soon (publishSoonLocked). A bug shown
// already under the same key keeps its place unless this trace is
// shorter; the check's Result settles both (settleBugs).
func (d *document) streamBug(snap *snapshot, b *engine.Bug, stateful string) {
	r := newBugReport(snap, b, stateful)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != snap.version || d.snap != snap || d.ctx.Err() != nil {
		return
	}
	for i, old := range d.bugs {
		if old.key() == r.key() {
			if len(r.schedule) < len(old.schedule) {
				r.id = old.id
				d.bugs[i] = r
				d.publishSoonLocked()
			}
			return
		}
	}
	r.id = "bug-" + strconv.FormatInt(d.s.nextID.Add(1), 10)
	d.bugs = append(d.bugs, r)
	d.publishSoonLocked()
	d.s.refreshLenses()
}

// publishInterval bounds how often the bugs streamed in while a check
// runs are published: each publication carries every bug found so far
// with its steps, so publishing at each of a hundred bugs sent megabytes
// and held the exploring goroutine for seconds.
const publishInterval = 100 * time.Millisecond

// publishSoonLocked publishes the diagnostics now if the last
// publication is publishInterval old, and otherwise once it is. d.mu is
// held.
func (d *document) publishSoonLocked() {
	if d.publishTimer != nil {
		return // due already
	}
	wait := publishInterval - time.Since(d.publishedAt)
	if wait <= 0 {
		d.publishLocked()
		return
	}
	d.publishTimer = time.AfterFunc(wait, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.publishTimer = nil
		d.publishLocked()
	})
}

// publishBugs publishes the diagnostics at once (after a check's final
// list of bugs).
func (d *document) publishBugs(snap *snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version != snap.version || d.snap != snap || d.ctx.Err() != nil {
		return
	}
	d.publishLocked()
}

// publishLocked publishes the diagnostics of d.snap: the static ones and
// the bugs found so far. d.mu is held, so no edit can slip in between the
// check that the snapshot is current and the publication.
func (d *document) publishLocked() {
	if d.publishTimer != nil {
		d.publishTimer.Stop() // this publication is the one due
		d.publishTimer = nil
	}
	d.publishedAt = time.Now()
	snap := d.snap
	if snap == nil || snap.version != d.version {
		return
	}
	diags := make([]protocol.Diagnostic, 0, len(snap.diags)+len(d.bugs))
	for _, sd := range snap.diags {
		diags = append(diags, staticDiagnostic(sd))
	}
	for _, b := range d.bugs {
		own := d.bugDiagnostic(b)
		diags = append(diags, own)
		if o := d.raceOtherDiagnostic(b, own); o != nil {
			diags = append(diags, *o)
		}
	}
	_ = d.s.client.PublishDiagnostics(d.ctx, &protocol.PublishDiagnosticsParams{
		URI: d.uri, Version: protocol.NewOptional(snap.version), Diagnostics: diags,
	})
}

func toRange(r source.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(max(0, r.Start.Line)), Character: uint32(max(0, r.Start.Col))},
		End:   protocol.Position{Line: uint32(max(0, r.End.Line)), Character: uint32(max(0, r.End.Col))},
	}
}

func severity(s source.Severity) protocol.DiagnosticSeverity {
	switch s {
	case source.Error:
		return protocol.DiagnosticSeverityError
	case source.Warning:
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

func staticDiagnostic(sd source.Diagnostic) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    toRange(sd.Range),
		Severity: severity(sd.Severity),
		Code:     protocol.String(sd.Code),
		Source:   protocol.NewOptional("weft"),
		Message:  protocol.String(sd.Message),
	}
}

// maxRelatedSteps bounds the trace steps a bug diagnostic lists.
const maxRelatedSteps = 30

// bugData is the data field of a bug diagnostic.
type bugData struct {
	BugID   string `json:"bugId"`
	Version int32  `json:"version"`
	Steps   int    `json:"steps"`
	// OtherSide marks the diagnostic on a data race's other access
	// (raceOtherDiagnostic); the bug's own is on the access it is
	// reported at.
	OtherSide bool `json:"otherSide,omitempty"`
}

func (d *document) bugDiagnostic(b *bugReport) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	if b.kind == engine.BugDataRace {
		sev = protocol.DiagnosticSeverityWarning
	}
	msg := b.message
	switch b.kind {
	case engine.BugDeadlock:
		if !strings.Contains(strings.ToLower(msg), "deadlock") {
			msg = "deadlock: " + msg
		}
	case engine.BugDataRace:
		// Name the other access, so that two races reported at one
		// access read differently.
		if b.other != nil {
			msg = replay.RaceWith(msg, b.other.Thread, b.other.Range.Start.Line+1)
		}
	}
	msg += fmt.Sprintf(" (counterexample: %s)", plural(len(b.schedule), "step"))
	var related []protocol.DiagnosticRelatedInformation
	loc := func(r source.Range, m string) {
		related = append(related, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: d.uri, Range: toRange(r)}, Message: m,
		})
	}
	if b.other != nil {
		loc(b.other.Range, fmt.Sprintf("the other access: %s by %s", b.other.Op, b.other.Thread))
	}
	if b.traceErr != nil {
		loc(b.rng, "internal error: "+b.traceErr.Error())
	}
	if b.stateful != "" {
		loc(b.rng, "found by a stateful check: "+b.stateful)
	}
	n := len(b.schedule)
	if len(b.tail) > 0 {
		st := b.head[0]
		loc(st.Range, fmt.Sprintf("step 1: %s %s (%d steps not listed; the weft.trace command has them all)", st.Thread, st.Op, n-1-len(b.tail)))
	} else {
		for i, st := range b.head {
			loc(st.Range, fmt.Sprintf("step %d: %s %s", i+1, st.Thread, st.Op))
		}
	}
	for i, st := range b.tail {
		loc(st.Range, fmt.Sprintf("step %d: %s %s", n-len(b.tail)+i+1, st.Thread, st.Op))
	}
	return protocol.Diagnostic{
		Range:              toRange(b.rng),
		Severity:           sev,
		Code:               protocol.String(string(b.kind)),
		Source:             protocol.NewOptional("weft"),
		Message:            protocol.String(msg),
		RelatedInformation: related,
		Data:               rawJSON(bugData{BugID: b.id, Version: b.snap.version, Steps: len(b.schedule)}),
	}
}

// raceOtherDiagnostic is the diagnostic of a data race's other access,
// so that both accesses have a squiggle: the same severity, code and
// bug id (its code action and a replay from its line find the race), a
// message naming the race and the access it is reported at, which its
// related information points to. Nil for another bug, and for a race
// whose two accesses are one statement (two instances of a thread),
// which its own diagnostic marks already.
func (d *document) raceOtherDiagnostic(b *bugReport, own protocol.Diagnostic) *protocol.Diagnostic {
	if b.kind != engine.BugDataRace || b.other == nil || b.other.Range == b.rng {
		return nil
	}
	line := b.rng.Start.Line + 1
	msg := replay.RaceWith(b.message, b.thread, line)
	msg += fmt.Sprintf(" (counterexample: %s)", plural(len(b.schedule), "step"))
	return &protocol.Diagnostic{
		Range:    toRange(b.other.Range),
		Severity: own.Severity,
		Code:     own.Code,
		Source:   own.Source,
		Message:  protocol.String(msg),
		RelatedInformation: []protocol.DiagnosticRelatedInformation{{
			Location: protocol.Location{URI: d.uri, Range: toRange(b.rng)},
			Message:  fmt.Sprintf("the other access, by %s, where the race is reported (its diagnostic lists the steps)", b.thread),
		}},
		Data: rawJSON(bugData{BugID: b.id, Version: b.snap.version, Steps: len(b.schedule), OtherSide: true}),
	}
}

// CodeLens answers the lenses of a document: the status and its actions
// at the top, a replay above each bug.
func (s *Server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	d := s.doc(params.TextDocument.URI)
	if d == nil {
		return nil, errNoDocument(params.TextDocument.URI)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	top := protocol.Range{}
	arg := func(v any) protocol.LSPAny { return rawJSON(v) }
	st := d.st
	if st.State == "" || st.Version != d.version {
		// Nothing of an older version is shown: the status of the
		// latest one is not known yet.
		st = status{State: stateChecking, Waiting: true}
	}
	st.Bugs = len(d.bugs)
	lenses := []protocol.CodeLens{{Range: top, Command: protocol.Command{Title: st.words(), Command: cmdShowStatus, Arguments: []protocol.LSPAny{arg(string(d.uri))}}}}
	switch {
	case st.State == stateChecking && !st.Waiting:
		lenses = append(lenses, protocol.CodeLens{Range: top, Command: protocol.Command{Title: "Stop", Command: cmdStop, Arguments: []protocol.LSPAny{arg(string(d.uri))}}})
	case st.State != stateErrors && !st.Complete: // a complete check, in any mode, leaves nothing to explore
		lenses = append(lenses, protocol.CodeLens{Range: top, Command: protocol.Command{Title: "Run optimal now", Command: cmdRunOptimal, Arguments: []protocol.LSPAny{arg(string(d.uri))}}})
	}
	titles := lensTitles(d.bugs)
	for i, b := range d.bugs {
		if b.snap.version != d.version {
			continue
		}
		lenses = append(lenses, protocol.CodeLens{
			Range: toRange(source.Range{Start: b.rng.Start, End: b.rng.Start}),
			Command: protocol.Command{
				Title:     titles[i],
				Command:   cmdReplay,
				Arguments: []protocol.LSPAny{arg(string(d.uri)), arg(b.id)},
			},
		})
	}
	return lenses, nil
}

// lensTitles are the titles of the replay lenses of bugs, each naming
// its bug so that two lenses on one line can be told apart: "Replay: race on x[0] with master (6 steps)", "Replay:
// assertion 'master's write survives' (9 steps)", "Replay: deadlock (4
// steps)". Two races on one line with the same other thread add the
// other access's line.
func lensTitles(bugs []*bugReport) []string {
	titles := make([]string, len(bugs))
	seen := map[string]int{} // line and title: how many
	for i, b := range bugs {
		titles[i] = bugWords(b, false)
		seen[fmt.Sprintf("%d|%s", b.rng.Start.Line, titles[i])]++
	}
	for i, b := range bugs {
		if b.other != nil && seen[fmt.Sprintf("%d|%s", b.rng.Start.Line, titles[i])] > 1 {
			titles[i] = bugWords(b, true)
		}
	}
	for i, b := range bugs {
		titles[i] = fmt.Sprintf("Replay: %s (%s)", titles[i], plural(len(b.schedule), "step"))
	}
	return titles
}

// maxLensWords bounds the part of a lens title taken from a bug's
// message (an assertion's text, a runtime error), in characters.
const maxLensWords = 48

// bugWords names a bug briefly, for its lens: "race on x[0] with
// master" (withLine: "… with master at line 34"), "assertion 'master's
// write survives'", "deadlock", "step bound", a runtime error's message.
func bugWords(b *bugReport, withLine bool) string {
	switch b.kind {
	case engine.BugDataRace:
		race, _, ok := strings.Cut(b.message, ": ")
		race = strings.TrimPrefix(race, "data ")
		if !ok || !strings.HasPrefix(race, "race") {
			race = "data race"
		}
		if b.other == nil {
			return race
		}
		w := fmt.Sprintf("%s with %s", race, b.other.Thread)
		if withLine {
			w += fmt.Sprintf(" at line %d", b.other.Range.Start.Line+1)
		}
		return w
	case engine.BugAssertion:
		msg := b.message
		if m, ok := strings.CutPrefix(msg, "assertion "); ok {
			if m, ok := strings.CutSuffix(m, " failed"); ok {
				msg = m // an assert without a message: its condition
			}
		}
		return "assertion '" + shorten(msg) + "'"
	case engine.BugDeadlock:
		return "deadlock"
	case engine.BugStepBound:
		return "step bound"
	}
	return shorten(b.message)
}

// shorten cuts s to maxLensWords characters, with an ellipsis.
func shorten(s string) string {
	r := []rune(s)
	if len(r) <= maxLensWords {
		return s
	}
	return strings.TrimSpace(string(r[:maxLensWords-1])) + "…"
}
