package dap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	godap "github.com/google/go-dap"

	"weft/replay"
)

// The custom event and requests (see the package doc).
const (
	eventStep    = "weftStep"
	requestGoto  = "weftGoto"
	requestTrace = "weftTrace"
)

// The scopes of a frame, the low bits of a variables reference (the rest
// is the thread's id).
const (
	scopeShared = 1 + iota
	scopeLocals
	scopeLocks
	scopeCount
)

// session is one client's replay.
type session struct {
	ctx      context.Context
	out      io.Writer
	log      io.Writer
	opts     replay.Options
	seq      int
	pending  []godap.Message // events to send after the current response
	writeErr error

	linesAt1, columnsAt1 bool
	configured           bool // configurationDone came
	started              bool // the entry stop was sent
	terminated           bool // the terminated event was sent

	doc     *replay.Document
	file    string         // the model's path ("" when unknown)
	pos     int            // the current step, 1-based (0 before launch)
	tid     map[string]int // thread name → its id (1 + index in doc.Threads)
	stepsOf [][]int        // by thread index: the steps it made, in order
	spawned map[string]int // a thread spawned in the trace → the step that spawned it

	breakpoints map[string][]breakpoint // by source path, as the client set them
	nextBP      int

	panicOn string // see Options
}

// breakpoint is a source breakpoint on a line (0-based).
type breakpoint struct {
	id   int
	line int
}

func newSession(ctx context.Context, out io.Writer, opts Options) *session {
	return &session{ctx: ctx, out: out, log: opts.Log, opts: opts.Replay, linesAt1: true, columnsAt1: true,
		breakpoints: map[string][]breakpoint{}, panicOn: opts.panicOn}
}

// dispatch runs one request. Events it causes are queued (emit) and sent
// after its response; done ends the session.
func (s *session) dispatch(req *envelope) (body any, done bool, err error) {
	switch req.Command {
	case "initialize":
		body, err = s.initialize(req)
	case "launch":
		err = s.launch(req)
	case "attach":
		err = userErrorf("weft dap replays a counterexample: use a launch configuration (\"trace\" or \"traceFile\")")
	case "configurationDone":
		s.configured = true
		if s.doc != nil && !s.started {
			s.stopAt(1, "entry", nil)
		}
	case "setBreakpoints":
		body, err = s.setBreakpoints(req)
	case "setExceptionBreakpoints":
		body = godap.SetExceptionBreakpointsResponseBody{Breakpoints: []godap.Breakpoint{}}
	case "threads":
		body = godap.ThreadsResponseBody{Threads: s.threads()}
	case "stackTrace":
		body, err = s.stackTrace(req)
	case "scopes":
		body, err = s.scopes(req)
	case "variables":
		body, err = s.variables(req)
	case "evaluate":
		body, err = s.evaluate(req)
	case "exceptionInfo":
		body, err = s.exceptionInfo()
	case "next", "stepIn", "stepOut":
		err = s.move(func() { s.forward() })
	case "stepBack":
		err = s.move(func() { s.backward() })
	case "continue":
		err = s.move(func() { s.runForward() })
		body = godap.ContinueResponseBody{AllThreadsContinued: true}
	case "reverseContinue":
		err = s.move(func() { s.runBackward() })
	case "pause", "cancel":
		// The replay is always stopped, and every request is answered at
		// once: nothing to do.
	case "gotoTargets":
		body, err = s.gotoTargets(req)
	case "goto":
		err = s.gotoTarget(req)
	case requestGoto:
		err = s.gotoStep(req)
	case requestTrace:
		if s.doc == nil {
			err = errNotLaunched
		} else {
			body = s.doc
		}
	case "terminate":
		s.terminate()
	case "disconnect":
		s.terminate()
		done = true
	default:
		err = errorf("weft dap does not support the request %q", req.Command)
	}
	if err != nil {
		body = nil
	}
	return body, done, err
}

var errNotLaunched = errorf("no counterexample is loaded yet (launch first)")

func (s *session) initialize(req *envelope) (any, error) {
	var args struct {
		LinesStartAt1   *bool `json:"linesStartAt1"`
		ColumnsStartAt1 *bool `json:"columnsStartAt1"`
	}
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if args.LinesStartAt1 != nil {
		s.linesAt1 = *args.LinesStartAt1
	}
	if args.ColumnsStartAt1 != nil {
		s.columnsAt1 = *args.ColumnsStartAt1
	}
	s.emit("initialized", nil)
	return godap.Capabilities{
		SupportsConfigurationDoneRequest: true,
		SupportsStepBack:                 true,
		SupportsEvaluateForHovers:        true,
		SupportsTerminateRequest:         true,
		SupportsGotoTargetsRequest:       true,
		SupportsExceptionInfoRequest:     true,
	}, nil
}

// launchArgs are the launch request's arguments (see the package doc).
type launchArgs struct {
	Trace       json.RawMessage `json:"trace"`
	TraceFile   string          `json:"traceFile"`
	Bug         *int            `json:"bug"`
	Program     string          `json:"program"`
	StopOnEntry *bool           `json:"stopOnEntry"` // always true in effect
}

func (s *session) launch(req *envelope) error {
	if s.doc != nil {
		return userErrorf("this session already replays a counterexample; start another session for another")
	}
	var args launchArgs
	if err := json.Unmarshal(orEmpty(req.Arguments), &args); err != nil {
		return userErrorf("weft: bad launch configuration: %v", err)
	}
	inline := len(args.Trace) > 0 && string(args.Trace) != "null"
	var doc *replay.Document
	switch {
	case inline && args.TraceFile != "":
		return userErrorf("weft: give \"trace\" or \"traceFile\" in the launch configuration, not both")
	case inline:
		d, err := inlineDocument(args.Trace)
		if err != nil {
			return userErrorf("weft: the counterexample given in \"trace\" is not one: %v", err)
		}
		doc = d
	case args.TraceFile != "":
		n := 1
		if args.Bug != nil {
			n = *args.Bug
		}
		d, err := replay.LoadReport(s.ctx, args.TraceFile, n, args.Program, s.opts)
		if err != nil {
			return userErrorf("weft: cannot replay bug %d of %s: %v", n, args.TraceFile, err)
		}
		doc = d
	default:
		return userErrorf("weft: the launch configuration needs \"traceFile\" (a report saved by 'weft check --json') or \"trace\" (a counterexample from the language server)")
	}
	if len(doc.Steps) == 0 {
		return userErrorf("weft: this counterexample has no steps: its bug (%s) is in the initial state, there is nothing to replay", doc.Message)
	}
	s.file = modelPath(doc, args.Program)
	if doc.File == "" {
		doc.File = s.file
	}
	s.doc, s.pos = doc, 1
	s.tid = make(map[string]int, len(doc.Threads))
	s.stepsOf = make([][]int, len(doc.Threads))
	for i, t := range doc.Threads {
		s.tid[t] = i + 1
	}
	s.spawned = map[string]int{}
	for _, st := range doc.Steps {
		i := s.tid[st.Thread] - 1
		s.stepsOf[i] = append(s.stepsOf[i], st.Step)
		if _, seen := s.spawned[st.Event.Object]; st.Event.Kind == "spawn" && !seen {
			s.spawned[st.Event.Object] = st.Step
		}
	}
	what := doc.Kind
	if doc.Message != "" {
		what += ": " + doc.Message
	}
	s.emit("output", godap.OutputEventBody{Category: "console", Output: fmt.Sprintf("Replaying %s (%d steps)\n", what, len(doc.Steps))})
	for path, bps := range s.breakpoints {
		for _, bp := range bps {
			b := s.verify(path, bp)
			s.emit("breakpoint", godap.BreakpointEventBody{Reason: "changed", Breakpoint: b})
		}
	}
	if s.configured && !s.started {
		s.stopAt(1, "entry", nil)
	}
	return nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// inlineDocument reads a document given in the launch arguments (an
// object, or a string holding one).
func inlineDocument(raw json.RawMessage) (*replay.Document, error) {
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
		raw = json.RawMessage(text)
	}
	var doc replay.Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	return &doc, nil
}

// modelPath is the model's file: program if given, else the document's
// file, else its URI's path when that is a file URI.
func modelPath(doc *replay.Document, program string) string {
	switch {
	case program != "":
		if abs, err := filepath.Abs(program); err == nil {
			return abs
		}
		return program
	case doc.File != "":
		return doc.File
	}
	if u, err := url.Parse(doc.URI); err == nil && u.Scheme == "file" && u.Path != "" {
		return filepath.FromSlash(u.Path)
	}
	return ""
}

// move runs a motion of the replay.
func (s *session) move(f func()) error {
	if s.doc == nil {
		return errNotLaunched
	}
	f()
	return nil
}

func (s *session) last() int { return len(s.doc.Steps) }

// forward goes one step on; at the last step it stays and says so again.
func (s *session) forward() {
	s.stopAt(min(s.pos+1, s.last()), "step", nil)
}

// backward goes one step back; at step 1 it stays.
func (s *session) backward() {
	s.stopAt(max(s.pos-1, 1), "step", nil)
}

// runForward goes to the next step on a breakpoint's line, else to the
// last step.
func (s *session) runForward() {
	lines := s.breakpointLines()
	for i := s.pos + 1; i < s.last(); i++ {
		if id, ok := lines[s.doc.Steps[i-1].Range.Start.Line]; ok {
			s.stopAt(i, "breakpoint", []int{id})
			return
		}
	}
	s.stopAt(s.last(), "exception", nil)
}

// runBackward goes to the previous step on a breakpoint's line, else to
// step 1.
func (s *session) runBackward() {
	lines := s.breakpointLines()
	for i := s.pos - 1; i >= 1; i-- {
		if id, ok := lines[s.doc.Steps[i-1].Range.Start.Line]; ok {
			s.stopAt(i, "breakpoint", []int{id})
			return
		}
	}
	s.stopAt(1, "entry", nil)
}

// stopAt moves the replay to step i and sends weftStep and stopped. The
// last step is always a stop on the exception, whatever the reason.
func (s *session) stopAt(i int, reason string, hit []int) {
	s.pos, s.started = i, true
	n := s.last()
	st := &s.doc.Steps[i-1]
	s.emit(eventStep, stepEventBody{Step: i, Steps: n, BugID: s.doc.BugID})
	body := godap.StoppedEventBody{
		Reason:            reason,
		Description:       fmt.Sprintf("step %d of %d", i, n),
		ThreadId:          s.tid[st.Thread],
		Text:              fmt.Sprintf("Step %d of %d: %s %s", i, n, st.Thread, st.Op),
		AllThreadsStopped: true,
		HitBreakpointIds:  hit,
	}
	if i == n {
		body.Reason, body.Description, body.Text, body.HitBreakpointIds = "exception", s.doc.Kind, s.doc.Message, nil
		if id, ok := s.tid[s.doc.Thread]; ok && s.exists(s.doc.Thread, i) {
			body.ThreadId = id
		}
	}
	s.emit("stopped", body)
}

// stepEventBody is the body of weftStep.
type stepEventBody struct {
	Step  int    `json:"step"`
	Steps int    `json:"steps"`
	BugID string `json:"bugId"`
}

func (s *session) gotoStep(req *envelope) error {
	var args struct {
		Step *int `json:"step"`
	}
	if err := decode(req, &args); err != nil {
		return err
	}
	if s.doc == nil {
		return errNotLaunched
	}
	if args.Step == nil || *args.Step < 1 || *args.Step > s.last() {
		return errorf("%s: want {\"step\": i} with 1 ≤ i ≤ %d", requestGoto, s.last())
	}
	s.stopAt(*args.Step, "goto", nil)
	return nil
}

func (s *session) gotoTargets(req *envelope) (any, error) {
	var args godap.GotoTargetsArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	targets := []godap.GotoTarget{}
	if s.isModel(args.Source.Path) {
		line := s.fromClientLine(args.Line)
		for _, st := range s.doc.Steps {
			if st.Range.Start.Line == line {
				r := st.Range
				targets = append(targets, godap.GotoTarget{Id: st.Step, Label: fmt.Sprintf("Step %d: %s %s", st.Step, st.Thread, st.Op),
					Line: s.clientLine(r.Start.Line), Column: s.clientColumn(r.Start.Character),
					EndLine: s.clientLine(r.End.Line), EndColumn: s.clientColumn(r.End.Character)})
			}
		}
	}
	return godap.GotoTargetsResponseBody{Targets: targets}, nil
}

func (s *session) gotoTarget(req *envelope) error {
	var args godap.GotoArguments
	if err := decode(req, &args); err != nil {
		return err
	}
	if s.doc == nil {
		return errNotLaunched
	}
	if args.TargetId < 1 || args.TargetId > s.last() {
		return errorf("goto: no target %d", args.TargetId)
	}
	s.stopAt(args.TargetId, "goto", nil)
	return nil
}

// terminate sends the terminated event, once.
func (s *session) terminate() {
	if !s.terminated {
		s.terminated = true
		s.emit("terminated", nil)
	}
}

// Breakpoints.

func (s *session) setBreakpoints(req *envelope) (any, error) {
	var args godap.SetBreakpointsArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	lines := args.Lines
	if args.Breakpoints != nil {
		lines = lines[:0]
		for _, b := range args.Breakpoints {
			lines = append(lines, b.Line)
		}
	}
	path := args.Source.Path
	var bps []breakpoint
	out := []godap.Breakpoint{}
	for _, l := range lines {
		s.nextBP++
		bp := breakpoint{id: s.nextBP, line: s.fromClientLine(l)}
		bps = append(bps, bp)
		out = append(out, s.verify(path, bp))
	}
	s.breakpoints[path] = bps
	return godap.SetBreakpointsResponseBody{Breakpoints: out}, nil
}

// verify says whether a breakpoint can stop the replay.
func (s *session) verify(path string, bp breakpoint) godap.Breakpoint {
	b := godap.Breakpoint{Id: bp.id, Line: s.clientLine(bp.line)}
	switch {
	case s.doc == nil:
		b.Message = "no counterexample is loaded yet"
	case !s.isModel(path):
		b.Message = "not the model being replayed"
	default:
		for _, st := range s.doc.Steps {
			if st.Range.Start.Line == bp.line {
				b.Verified = true
				return b
			}
		}
		b.Message = fmt.Sprintf("no step of this counterexample runs line %d", s.clientLine(bp.line))
	}
	return b
}

// breakpointLines maps each line (0-based) with a breakpoint in the model
// to its breakpoint's id.
func (s *session) breakpointLines() map[int]int {
	lines := map[int]int{}
	for path, bps := range s.breakpoints {
		if !s.isModel(path) {
			continue
		}
		for _, bp := range bps {
			if _, ok := lines[bp.line]; !ok {
				lines[bp.line] = bp.id
			}
		}
	}
	return lines
}

// isModel says whether a source path is the model being replayed. When
// the model's path is unknown, a path with the document's file name is
// taken to be it.
func (s *session) isModel(path string) bool {
	if path == "" || s.doc == nil {
		return false
	}
	if s.file != "" {
		return filepath.Clean(path) == filepath.Clean(s.file)
	}
	u, err := url.Parse(s.doc.URI)
	return err == nil && u.Path != "" && filepath.Base(filepath.FromSlash(u.Path)) == filepath.Base(path)
}

// Positions.

func (s *session) clientLine(l int) int {
	if s.linesAt1 {
		return l + 1
	}
	return l
}

func (s *session) fromClientLine(l int) int {
	if s.linesAt1 {
		return l - 1
	}
	return l
}

func (s *session) clientColumn(c int) int {
	if s.columnsAt1 {
		return c + 1
	}
	return c
}

// Threads, frames, variables.

// exists says whether thread t exists after step i: it has a state there,
// or, without states, it is not spawned later in the trace.
func (s *session) exists(t string, i int) bool {
	if !s.doc.StateOmitted {
		return s.state(t, i) != nil
	}
	at, ok := s.spawned[t]
	return !ok || at <= i
}

// state is thread t's state after step i (nil without one).
func (s *session) state(t string, i int) *replay.ThreadState {
	sts := s.doc.Steps[i-1].ThreadStates
	for k := range sts {
		if sts[k].Name == t {
			return &sts[k]
		}
	}
	return nil
}

// lastStep is the last step thread t made up to step i (0: none).
func (s *session) lastStep(t string, i int) int {
	steps := s.stepsOf[s.tid[t]-1]
	k := sort.SearchInts(steps, i+1)
	if k == 0 {
		return 0
	}
	return steps[k-1]
}

func (s *session) threads() []godap.Thread {
	out := []godap.Thread{}
	if s.doc == nil {
		return out
	}
	for i, t := range s.doc.Threads {
		if s.exists(t, s.pos) {
			out = append(out, godap.Thread{Id: i + 1, Name: t})
		}
	}
	return out
}

// thread is the name of the thread with id (or an error).
func (s *session) thread(id int) (string, error) {
	if s.doc == nil {
		return "", errNotLaunched
	}
	if id < 1 || id > len(s.doc.Threads) || !s.exists(s.doc.Threads[id-1], s.pos) {
		return "", errorf("no thread %d at step %d", id, s.pos)
	}
	return s.doc.Threads[id-1], nil
}

func (s *session) stackTrace(req *envelope) (any, error) {
	var args godap.StackTraceArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	t, err := s.thread(args.ThreadId)
	if err != nil {
		return nil, err
	}
	frames := []godap.StackFrame{}
	if args.StartFrame == 0 {
		frames = append(frames, s.frame(t))
	}
	return godap.StackTraceResponseBody{StackFrames: frames, TotalFrames: 1}, nil
}

// frame is thread t's one frame at the current step (its id is the
// thread's).
func (s *session) frame(t string) godap.StackFrame {
	i := s.pos
	st := &s.doc.Steps[i-1]
	f := godap.StackFrame{Id: s.tid[t]}
	ts := s.state(t, i)
	status := ""
	if ts != nil {
		status = ts.Status
	}
	var at *replay.Range
	switch last := s.lastStep(t, i); {
	case t == st.Thread:
		f.Name, at = t+": "+st.Op, &st.Range
		if status == "finished" || status == "failing" {
			f.Name += " (" + status + ")"
		}
	case status == "finished":
		f.Name, f.PresentationHint = t+" (finished)", "subtle"
	case ts != nil:
		f.Name, at = t, ts.Range
		if last > 0 {
			f.Name += ": " + s.doc.Steps[last-1].Op
		}
		if status != "ready" || last == 0 {
			f.Name += " (" + status + ")"
		}
	case last > 0: // no states: where it last was
		f.Name, at = t+": "+s.doc.Steps[last-1].Op, &s.doc.Steps[last-1].Range
	default:
		f.Name, f.PresentationHint = t+" (not started)", "subtle"
	}
	if at != nil {
		f.Source = s.source()
		f.Line, f.Column = s.clientLine(at.Start.Line), s.clientColumn(at.Start.Character)
		f.EndLine, f.EndColumn = s.clientLine(at.End.Line), s.clientColumn(at.End.Character)
	}
	return f
}

func (s *session) source() *godap.Source {
	if s.file != "" {
		return &godap.Source{Name: filepath.Base(s.file), Path: s.file}
	}
	if u, err := url.Parse(s.doc.URI); err == nil && u.Path != "" {
		return &godap.Source{Name: filepath.Base(filepath.FromSlash(u.Path))}
	}
	return nil
}

func (s *session) scopes(req *envelope) (any, error) {
	var args godap.ScopesArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if _, err := s.thread(args.FrameId); err != nil {
		return nil, err
	}
	ref := func(scope int) int { return args.FrameId*scopeCount + scope }
	if s.doc.StateOmitted {
		return godap.ScopesResponseBody{Scopes: []godap.Scope{{Name: "Shared", VariablesReference: ref(scopeShared)}}}, nil
	}
	st := &s.doc.Steps[s.pos-1]
	locals := 0
	if ts := s.state(s.doc.Threads[args.FrameId-1], s.pos); ts != nil {
		locals = len(ts.Locals)
	}
	return godap.ScopesResponseBody{Scopes: []godap.Scope{
		{Name: "Shared", PresentationHint: "globals", VariablesReference: ref(scopeShared), NamedVariables: len(st.Shared)},
		{Name: "Locals", PresentationHint: "locals", VariablesReference: ref(scopeLocals), NamedVariables: locals},
		{Name: "Locks", VariablesReference: ref(scopeLocks), NamedVariables: len(st.Locks)},
	}}, nil
}

func (s *session) variables(req *envelope) (any, error) {
	var args godap.VariablesArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	id, scope := args.VariablesReference/scopeCount, args.VariablesReference%scopeCount
	t, err := s.thread(id)
	if err != nil || scope == 0 {
		return nil, errorf("no variables %d at step %d", args.VariablesReference, s.pos)
	}
	vars := []godap.Variable{}
	if s.doc.StateOmitted {
		vars = append(vars, godap.Variable{Name: "(state)", Value: fmt.Sprintf(
			"not shown: this counterexample has %d steps, too many to keep the state of each (weft replay shows it)", s.last())})
		return godap.VariablesResponseBody{Variables: vars}, nil
	}
	st := &s.doc.Steps[s.pos-1]
	switch scope {
	case scopeShared:
		for _, v := range st.Shared {
			vars = append(vars, godap.Variable{Name: v.Name, Value: v.Value, EvaluateName: v.Name})
		}
	case scopeLocals:
		if ts := s.state(t, s.pos); ts != nil {
			for _, v := range ts.Locals {
				vars = append(vars, godap.Variable{Name: v.Name, Value: v.Value, EvaluateName: v.Name})
			}
		}
	case scopeLocks:
		for _, l := range st.Locks {
			vars = append(vars, godap.Variable{Name: l.Name, Value: holder(l.Holder), EvaluateName: l.Name})
		}
	}
	return godap.VariablesResponseBody{Variables: vars}, nil
}

func holder(h string) string {
	if h == "" {
		return "free"
	}
	return h
}

// evaluate answers a name: a local of the frame's thread (or of the
// thread that moved), a shared variable, a mutex.
func (s *session) evaluate(req *envelope) (any, error) {
	var args godap.EvaluateArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	name := strings.TrimSpace(args.Expression)
	if s.doc.StateOmitted {
		return nil, errorf("no values: this counterexample is too long to keep the state of each step")
	}
	st := &s.doc.Steps[s.pos-1]
	t := st.Thread
	if args.FrameId != 0 {
		var err error
		if t, err = s.thread(args.FrameId); err != nil {
			return nil, err
		}
	}
	result := func(v string) (any, error) { return godap.EvaluateResponseBody{Result: v}, nil }
	if ts := s.state(t, s.pos); ts != nil {
		for _, v := range ts.Locals {
			if v.Name == name {
				return result(v.Value)
			}
		}
	}
	for _, v := range st.Shared {
		if v.Name == name {
			return result(v.Value)
		}
	}
	for _, l := range st.Locks {
		if l.Name == name {
			return result(holder(l.Holder))
		}
	}
	return nil, errorf("%q is not a variable of %s or a shared variable at step %d", name, t, s.pos)
}

func (s *session) exceptionInfo() (any, error) {
	if s.doc == nil {
		return nil, errNotLaunched
	}
	return godap.ExceptionInfoResponseBody{ExceptionId: s.doc.Kind, Description: s.doc.Message, BreakMode: "always",
		Details: &godap.ExceptionDetails{Message: s.doc.Message, TypeName: s.doc.Kind}}, nil
}
