package dap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"

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

	watch *modelWatch // the model file (nil: not watched)
	stale string      // why the replay's lines no longer hold ("" while they do)

	breakpoints map[string][]breakpoint // by source path, as the client set them
	nextBP      int

	panicOn string // see Options
	// beforeRequest: see Options.
	beforeRequest func(ctx context.Context, command string)
}

// breakpoint is a source breakpoint on a line (0-based).
type breakpoint struct {
	id   int
	line int
}

func newSession(ctx context.Context, out io.Writer, opts Options) *session {
	return &session{ctx: ctx, out: out, log: opts.Log, opts: opts.Replay, linesAt1: true, columnsAt1: true,
		breakpoints: map[string][]breakpoint{}, panicOn: opts.panicOn, beforeRequest: opts.beforeRequest}
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
		if s.doc != nil && !s.started && s.checkModel() {
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
		// The replay is always stopped; a cancel of the request being
		// handled stopped it already (Serve), and any other request is
		// answered by the time a cancel of it is read: nothing to do.
	case "gotoTargets":
		body, err = s.gotoTargets(req)
	case "goto":
		err = s.gotoTarget(req)
	case requestGoto:
		err = s.gotoStep(req)
	case requestSourceChanged:
		body, err = s.sourceChanged(req)
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
		if err != nil && s.ctx.Err() != nil {
			return errorf("cancelled: the launch stopped replaying bug %d of %s", n, args.TraceFile)
		}
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
	s.watch = watchModel(s.file, doc.SourceSHA256)
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
	if s.configured && !s.started && s.checkModel() {
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
