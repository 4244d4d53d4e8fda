package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"weft/analysis/lower"
	"weft/engine"
	"weft/internal/framing"
	"weft/replay"
)

// example is a bug of an example model, its document and the states
// engine.StepStates gives for it (what the variables must show).
type example struct {
	path   string
	bug    *engine.Bug
	doc    *replay.Document
	states []engine.StepState
}

func loadExample(t *testing.T, name string, kind engine.BugKind, opts replay.Options) *example {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return loadSource(t, path, src, kind, opts)
}

// loadSource is loadExample for the model src at path.
func loadSource(t *testing.T, path string, src []byte, kind engine.BugKind, opts replay.Options) *example {
	t.Helper()
	ld := lower.Load(path, src)
	if ld.Exec == nil {
		t.Fatalf("%s: %v", path, ld.Diagnostics)
	}
	res, err := engine.Explore(context.Background(), ld.Exec, engine.Options{Algorithm: engine.DFS})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		if b.Kind != kind {
			continue
		}
		doc, err := replay.Build(context.Background(), ld.Exec, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		doc.File, doc.URI, doc.BugID = path, replay.FileURI(path), "bug-test"
		states, err := engine.StepStates(context.Background(), ld.Exec, b.Schedule, b.ReplayOptions(), replay.DefaultArrayLimit, 0)
		if err != nil {
			t.Fatal(err)
		}
		return &example{path: path, bug: b, doc: doc, states: states}
	}
	t.Fatalf("%s: no %s bug", path, kind)
	return nil
}

// lineOf is the 1-based line of the first line of path holding text.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", path, text)
	return 0
}

type stepBody struct {
	Step  int    `json:"step"`
	Steps int    `json:"steps"`
	BugID string `json:"bugId"`
}

// stopped reads weftStep and stopped and checks them against step i.
func (c *client) stopped(ex *example, i int, reason string) godap.StoppedEventBody {
	c.t.Helper()
	var ws stepBody
	c.event(eventStep, &ws)
	var st godap.StoppedEventBody
	c.event("stopped", &st)
	n := len(ex.doc.Steps)
	if ws != (stepBody{i, n, ex.doc.BugID}) {
		c.t.Errorf("weftStep %+v, want step %d of %d", ws, i, n)
	}
	if st.Reason != reason || !st.AllThreadsStopped {
		c.t.Errorf("step %d: stopped %+v, want reason %q", i, st, reason)
	}
	step := ex.doc.Steps[i-1]
	wantThread, wantText := step.Thread, fmt.Sprintf("Step %d of %d: %s %s", i, n, step.Thread, step.Op)
	if i == n {
		wantThread, wantText = ex.bug.Thread, ex.bug.Message
		if st.Description != string(ex.bug.Kind) {
			c.t.Errorf("the last step's description %q, want %q", st.Description, ex.bug.Kind)
		}
	}
	if st.Text != wantText || st.ThreadId != tid(ex, wantThread) {
		c.t.Errorf("step %d: stopped text %q thread %d, want %q thread %d (%s)", i, st.Text, st.ThreadId, wantText, tid(ex, wantThread), wantThread)
	}
	return st
}

func tid(ex *example, name string) int {
	for i, t := range ex.doc.Threads {
		if t == name {
			return i + 1
		}
	}
	return -1
}

// launch initializes, launches with args, sets breakpoints on lines and
// finishes the configuration; it returns the breakpoints' answer.
func (c *client) launch(args any, lines ...int) []godap.Breakpoint {
	c.t.Helper()
	var caps godap.Capabilities
	c.do("initialize", map[string]any{"adapterID": "weft", "linesStartAt1": true, "columnsStartAt1": true}, &caps)
	if !caps.SupportsStepBack || !caps.SupportsConfigurationDoneRequest || !caps.SupportsEvaluateForHovers || !caps.SupportsTerminateRequest {
		c.t.Errorf("capabilities %+v", caps)
	}
	c.event("initialized", nil)
	c.do("launch", args, nil)
	c.event("output", nil)
	var bps godap.SetBreakpointsResponseBody
	if ex, ok := args.(map[string]any); ok && len(lines) > 0 {
		path, _ := ex["program"].(string)
		var sbs []godap.SourceBreakpoint
		for _, l := range lines {
			sbs = append(sbs, godap.SourceBreakpoint{Line: l})
		}
		c.do("setBreakpoints", godap.SetBreakpointsArguments{Source: godap.Source{Path: path}, Breakpoints: sbs}, &bps)
	}
	c.do("configurationDone", nil, nil)
	return bps.Breakpoints
}

// checkState compares what the adapter shows at the current step with
// the state StepStates gives: the threads, each one's locals, the shared
// variables, the locks, and evaluate.
func (c *client) checkState(ex *example, i int) {
	c.t.Helper()
	want := ex.states[i-1]
	var threads godap.ThreadsResponseBody
	c.do("threads", nil, &threads)
	if len(threads.Threads) != len(want.Threads) {
		c.t.Fatalf("step %d: threads %+v, want %d", i, threads.Threads, len(want.Threads))
	}
	for k, th := range want.Threads {
		got := threads.Threads[k]
		if got.Name != th.Name || got.Id != tid(ex, th.Name) {
			c.t.Errorf("step %d: thread %+v, want %s", i, got, th.Name)
		}
		var frames godap.StackTraceResponseBody
		c.do("stackTrace", godap.StackTraceArguments{ThreadId: got.Id}, &frames)
		if len(frames.StackFrames) != 1 {
			c.t.Fatalf("step %d: %s has frames %+v", i, th.Name, frames.StackFrames)
		}
		f := frames.StackFrames[0]
		c.checkFrame(ex, i, th, f)
		var scopes godap.ScopesResponseBody
		c.do("scopes", godap.ScopesArguments{FrameId: f.Id}, &scopes)
		if len(scopes.Scopes) != 3 || scopes.Scopes[0].Name != "Shared" || scopes.Scopes[1].Name != "Locals" || scopes.Scopes[2].Name != "Locks" {
			c.t.Fatalf("step %d: scopes %+v", i, scopes.Scopes)
		}
		vars := func(ref int) string {
			var v godap.VariablesResponseBody
			c.do("variables", godap.VariablesArguments{VariablesReference: ref}, &v)
			var parts []string
			for _, x := range v.Variables {
				parts = append(parts, x.Name+"="+x.Value)
			}
			return strings.Join(parts, " ")
		}
		named := func(vs []engine.NamedValue) string {
			var parts []string
			for _, x := range vs {
				parts = append(parts, x.Name+"="+x.Value)
			}
			return strings.Join(parts, " ")
		}
		if got, w := vars(scopes.Scopes[0].VariablesReference), named(want.Shared); got != w {
			c.t.Errorf("step %d: Shared %q, want %q", i, got, w)
		}
		if got, w := vars(scopes.Scopes[1].VariablesReference), named(th.Locals); got != w {
			c.t.Errorf("step %d: Locals of %s %q, want %q", i, th.Name, got, w)
		}
		var locks []string
		for _, l := range want.Locks {
			h := l.Holder
			if h == "" {
				h = "free"
			}
			locks = append(locks, l.Name+"="+h)
		}
		if got, w := vars(scopes.Scopes[2].VariablesReference), strings.Join(locks, " "); got != w {
			c.t.Errorf("step %d: Locks %q, want %q", i, got, w)
		}
		for _, v := range th.Locals {
			var res godap.EvaluateResponseBody
			c.do("evaluate", godap.EvaluateArguments{Expression: v.Name, FrameId: f.Id, Context: "hover"}, &res)
			if res.Result != v.Value {
				c.t.Errorf("step %d: evaluate %s in %s = %q, want %q", i, v.Name, th.Name, res.Result, v.Value)
			}
		}
	}
	for _, v := range want.Shared {
		var res godap.EvaluateResponseBody
		c.do("evaluate", godap.EvaluateArguments{Expression: v.Name, Context: "watch"}, &res)
		if res.Result != v.Value {
			c.t.Errorf("step %d: evaluate %s = %q, want %q", i, v.Name, res.Result, v.Value)
		}
	}
}

// checkFrame checks thread th's frame f after step i: a blocked thread
// at the operation it waits at, named with what it waits for; a finished
// one at its last step, named so; the thread that moved at its step;
// any other at where it stands. Every frame has a source (a frame
// without one is drawn "Unknown Source 0").
func (c *client) checkFrame(ex *example, i int, th engine.ThreadState, f godap.StackFrame) {
	c.t.Helper()
	want := ex.states[i-1]
	wantAt, wantName := th.At, th.Name
	switch {
	case th.Status == "blocked":
		if th.Waits == "" {
			c.t.Errorf("step %d: blocked %s does not say what it waits for", i, th.Name)
		}
		wantName = th.Name + ": " + th.Waits + " (blocked)"
	case th.Status == "finished":
		last := 0
		for _, st := range ex.states[:i] {
			if st.Thread == th.Name {
				last = st.Step
			}
		}
		wantAt = ex.states[last-1].Range
		wantName = fmt.Sprintf("%s (finished; last step %d: %s)", th.Name, last, ex.states[last-1].Op)
	case th.Name == want.Thread:
		wantAt, wantName = want.Range, th.Name+": "+want.Op
		if th.Status == "failing" {
			wantName += " (failing)"
		}
	default:
		wantName = th.Name + " (" + th.Status + "; "
	}
	if f.Source == nil || f.Source.Path != ex.path || f.Line != wantAt.Start.Line+1 || f.Column != wantAt.Start.Col+1 || !strings.HasPrefix(f.Name, wantName) {
		c.t.Errorf("step %d: %s has frame %+v, want %q at %s:%d:%d", i, th.Name, f, wantName, ex.path, wantAt.Start.Line+1, wantAt.Start.Col+1)
	}
}

// The replay of lost_update's assertion, from the start to the failing
// step and back, with the state at every step, breakpoints, goto and the
// document itself.
func TestReplay(t *testing.T) {
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{})
	n := len(ex.doc.Steps)
	if n < 5 || len(ex.doc.Threads) != 3 {
		t.Fatalf("a trace of %d steps over %v: want a longer one", n, ex.doc.Threads)
	}
	c := startInProcess(t)
	joinLine := lineOf(t, ex.path, "join incr[1]")
	mainLine := lineOf(t, ex.path, "thread main {") // the line before a step's
	bps := c.launch(map[string]any{"trace": ex.doc, "program": ex.path}, joinLine, mainLine)
	if len(bps) != 2 || !bps[0].Verified || bps[0].Line != joinLine || bps[1].Verified ||
		bps[1].Message != fmt.Sprintf("no step of this counterexample runs line %d", mainLine) {
		t.Errorf("breakpoints %+v", bps)
	}
	c.stopped(ex, 1, "entry")
	c.checkState(ex, 1)

	// Forward to the failing step, the state checked at each.
	for i := 2; i <= n; i++ {
		c.do([]string{"next", "stepIn", "stepOut"}[i%3], map[string]any{"threadId": 1}, nil)
		reason := "step"
		if i == n {
			reason = "exception"
		}
		c.stopped(ex, i, reason)
		c.checkState(ex, i)
	}
	var info godap.ExceptionInfoResponseBody
	c.do("exceptionInfo", map[string]any{"threadId": tid(ex, "main")}, &info)
	if info.ExceptionId != "assertion" || info.Description != ex.bug.Message {
		t.Errorf("exceptionInfo %+v", info)
	}
	// Past the end: it stays and says so again.
	c.do("next", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, n, "exception")

	// Back to the start.
	for i := n - 1; i >= 1; i-- {
		c.do("stepBack", map[string]any{"threadId": 1}, nil)
		c.stopped(ex, i, "step")
	}
	c.do("stepBack", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, 1, "step")
	c.checkState(ex, 1)

	// continue stops at the breakpoint, then at the end;
	// reverseContinue goes back to it, then to the start.
	bpStep := firstStepOn(ex, joinLine)
	var cont godap.ContinueResponseBody
	c.do("continue", map[string]any{"threadId": 1}, &cont)
	if !cont.AllThreadsContinued {
		t.Errorf("continue: %+v", cont)
	}
	if st := c.stopped(ex, bpStep, "breakpoint"); len(st.HitBreakpointIds) != 1 || st.HitBreakpointIds[0] != bps[0].Id {
		t.Errorf("stopped at the breakpoint: hit %v, want [%d]", st.HitBreakpointIds, bps[0].Id)
	}
	c.checkState(ex, bpStep)
	c.do("continue", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, n, "exception")
	c.do("reverseContinue", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, bpStep, "breakpoint")
	c.do("reverseContinue", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, 1, "entry")
	c.do(requestGoto, map[string]any{"step": bpStep + 1}, nil)
	c.stopped(ex, bpStep+1, "goto")
	c.do("reverseContinue", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, bpStep, "breakpoint")

	// Without breakpoints continue runs to the end.
	c.do("setBreakpoints", godap.SetBreakpointsArguments{Source: godap.Source{Path: ex.path}}, nil)
	c.do("continue", map[string]any{"threadId": 1}, nil)
	c.stopped(ex, n, "exception")

	// weftGoto and goto move anywhere; gotoTargets lists a line's steps.
	c.do(requestGoto, map[string]any{"step": 3}, nil)
	c.stopped(ex, 3, "goto")
	c.checkState(ex, 3)
	var targets godap.GotoTargetsResponseBody
	c.do("gotoTargets", godap.GotoTargetsArguments{Source: godap.Source{Path: ex.path}, Line: joinLine}, &targets)
	if len(targets.Targets) != 1 || targets.Targets[0].Id != bpStep || targets.Targets[0].Line != joinLine {
		t.Errorf("goto targets %+v, want step %d", targets.Targets, bpStep)
	}
	c.do("goto", godap.GotoArguments{ThreadId: 1, TargetId: bpStep}, nil)
	c.stopped(ex, bpStep, "goto")

	// weftTrace answers the document as launched.
	var doc replay.Document
	c.do(requestTrace, nil, &doc)
	if doc.BugID != ex.doc.BugID || len(doc.Steps) != n || doc.Steps[n-1].Op != ex.doc.Steps[n-1].Op {
		t.Errorf("weftTrace: %+v", doc)
	}

	c.do("disconnect", nil, nil)
	c.event("terminated", nil)
	if err := <-c.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// Locks show their holders; lines and columns follow initialize's
// linesStartAt1 and columnsStartAt1.
func TestLocksAndZeroBased(t *testing.T) {
	ex := loadExample(t, "runtime_error.weft", engine.BugRuntimeError, replay.Options{})
	c := startInProcess(t)
	c.do("initialize", map[string]any{"adapterID": "weft", "linesStartAt1": false, "columnsStartAt1": false}, nil)
	c.event("initialized", nil)
	c.do("launch", map[string]any{"trace": ex.doc}, nil)
	c.event("output", nil)
	c.do("configurationDone", nil, nil)
	c.stopped(ex, 1, "entry")
	first := ex.doc.Steps[0]
	if first.Event.Kind != "lock" {
		t.Fatalf("step 1 is %q, want a lock", first.Op)
	}
	var frames godap.StackTraceResponseBody
	c.do("stackTrace", godap.StackTraceArguments{ThreadId: tid(ex, first.Thread)}, &frames)
	if f := frames.StackFrames[0]; f.Line != first.Range.Start.Line || f.Column != first.Range.Start.Character {
		t.Errorf("0-based frame %+v, want %d:%d", f, first.Range.Start.Line, first.Range.Start.Character)
	}
	var res godap.EvaluateResponseBody
	c.do("evaluate", godap.EvaluateArguments{Expression: first.Event.Object, Context: "repl"}, &res)
	if res.Result != first.Thread {
		t.Errorf("the mutex after step 1 is %q, want held by %s", res.Result, first.Thread)
	}
	c.fail("evaluate", godap.EvaluateArguments{Expression: "nosuch"})
	for i := 2; i <= len(ex.doc.Steps); i++ {
		c.do(requestGoto, map[string]any{"step": i}, nil)
		reason := "goto"
		if i == len(ex.doc.Steps) {
			reason = "exception"
		}
		c.stopped(ex, i, reason)
	}
	// The zero-based checkState would need other arithmetic: check the
	// Locks at the end through a fresh 1-based session instead.
	d := startInProcess(t)
	d.launch(map[string]any{"trace": ex.doc})
	d.stopped(ex, 1, "entry")
	d.checkState(ex, 1)
	free := false
	for i := 2; i <= len(ex.doc.Steps); i++ {
		d.do("next", nil, nil)
		reason := "step"
		if i == len(ex.doc.Steps) {
			reason = "exception"
		}
		d.stopped(ex, i, reason)
		d.checkState(ex, i)
		free = free || ex.states[i-1].Locks[0].Holder == ""
	}
	if !free {
		t.Error("the mutex is never free: the test does not see \"free\"")
	}
}

// A trace too long for states still steps; its scopes say why there are
// no values, and its threads come from the spawns.
func TestStateOmitted(t *testing.T) {
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{MaxStateSteps: 2})
	if !ex.doc.StateOmitted {
		t.Fatal("the document has its states")
	}
	c := startInProcess(t)
	c.launch(map[string]any{"trace": ex.doc})
	c.stopped(ex, 1, "entry")
	var threads godap.ThreadsResponseBody
	c.do("threads", nil, &threads)
	if len(threads.Threads) != 3 {
		t.Errorf("threads %+v", threads.Threads)
	}
	var scopes godap.ScopesResponseBody
	c.do("scopes", godap.ScopesArguments{FrameId: 1}, &scopes)
	var vars godap.VariablesResponseBody
	c.do("variables", godap.VariablesArguments{VariablesReference: scopes.Scopes[0].VariablesReference}, &vars)
	if len(vars.Variables) != 1 || !strings.Contains(vars.Variables[0].Value, "too many") {
		t.Errorf("variables without states: %+v", vars.Variables)
	}
	var frames godap.StackTraceResponseBody
	c.do("stackTrace", godap.StackTraceArguments{ThreadId: tid(ex, "main")}, &frames)
	if f := frames.StackFrames[0]; f.Source != nil || !strings.Contains(f.Name, "not started") {
		t.Errorf("main before its first step: %+v", f)
	}
	c.do("continue", nil, nil)
	c.stopped(ex, len(ex.doc.Steps), "exception")

	// Without states, a spawned thread exists from its spawn on.
	pool, err := os.ReadFile(filepath.Join("..", "examples", "thread_pool.weft"))
	if err != nil {
		t.Fatal(err)
	}
	failing := strings.Replace(string(pool), "assert total == N * (N + 1) / 2", "assert total == 0", 1)
	path := filepath.Join(t.TempDir(), "pool.weft")
	ex = loadSource(t, path, []byte(failing), engine.BugAssertion, replay.Options{MaxStateSteps: 2})
	if !ex.doc.StateOmitted {
		t.Fatal("the document has its states")
	}
	d := startInProcess(t)
	d.launch(map[string]any{"trace": ex.doc})
	d.stopped(ex, 1, "entry")
	for i := 1; i <= len(ex.doc.Steps); i++ {
		if i > 1 {
			d.do("next", nil, nil)
			reason := "step"
			if i == len(ex.doc.Steps) {
				reason = "exception"
			}
			d.stopped(ex, i, reason)
		}
		var threads godap.ThreadsResponseBody
		d.do("threads", nil, &threads)
		var got, want []string
		for _, th := range threads.Threads {
			got = append(got, th.Name)
		}
		for _, th := range ex.states[i-1].Threads {
			want = append(want, th.Name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("step %d: threads %v, want %v", i, got, want)
		}
	}
}

// What a client can get wrong is answered with an error response, and
// the session goes on.
func TestBadRequests(t *testing.T) {
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{})
	c := startInProcess(t)
	for _, r := range []struct {
		name    string
		command string
		args    any
		want    string
	}{
		{"before launch", "stackTrace", map[string]any{"threadId": 1}, "launch first"},
		{"step before launch", "next", nil, "launch first"},
		{"unknown", "weftNoSuch", nil, "does not support"},
		{"attach", "attach", nil, "launch configuration"},
		{"launch without a trace", "launch", map[string]any{}, "traceFile"},
		{"launch with both", "launch", map[string]any{"trace": ex.doc, "traceFile": "x.json"}, "not both"},
		{"launch with a bad trace", "launch", map[string]any{"trace": map[string]any{"steps": []any{map[string]any{"step": 2}}}}, "not one"},
		{"launch with arguments not an object", "launch", []int{1}, "bad launch configuration"},
		{"a missing report", "launch", map[string]any{"traceFile": "/nonexistent/report.json"}, "no such file"},
		{"arguments of the wrong type", "initialize", map[string]any{"linesStartAt1": "yes"}, "bad arguments"},
	} {
		m := c.fail(r.command, r.args)
		if !strings.Contains(m.Message, r.want) {
			t.Errorf("%s: %q, want %q", r.name, m.Message, r.want)
		}
	}
	c.launch(map[string]any{"trace": ex.doc})
	c.stopped(ex, 1, "entry")
	for _, r := range []struct {
		name    string
		command string
		args    any
	}{
		{"launch twice", "launch", map[string]any{"trace": ex.doc}},
		{"goto step 0", requestGoto, map[string]any{"step": 0}},
		{"goto past the end", requestGoto, map[string]any{"step": len(ex.doc.Steps) + 1}},
		{"goto without a step", requestGoto, nil},
		{"no such thread", "stackTrace", map[string]any{"threadId": 99}},
		{"no such frame", "scopes", map[string]any{"frameId": 0}},
		{"no such variables", "variables", map[string]any{"variablesReference": 12345}},
	} {
		c.fail(r.command, r.args)
	}
	// Garbage on the wire: no frame, bad JSON, not a request. Each bad
	// message gets an error response or is skipped; none stops the
	// session.
	c.raw([]byte("hello\r\n\r\n"))
	c.raw([]byte("Content-Length: 5\r\n\r\n{{{{{"))
	if m := c.next(); m.Type != "response" || m.Success {
		t.Errorf("bad JSON answered %+v", m)
	}
	c.raw([]byte("Content-Length: 4\r\n\r\nnull"))
	if m := c.next(); m.Type != "response" || m.Success {
		t.Errorf("null answered %+v", m)
	}
	c.raw([]byte("Content-Length: 37\r\n\r\n{\"seq\":77,\"type\":\"event\",\"event\":\"x\"}"))
	var threads godap.ThreadsResponseBody
	c.do("threads", nil, &threads)
	c.noEvents()
	if len(threads.Threads) != 3 {
		t.Errorf("after the garbage: threads %+v", threads.Threads)
	}
	c.do("next", nil, nil)
	c.stopped(ex, 2, "step")
	// terminate says terminated; the disconnect that follows ends it.
	c.do("terminate", nil, nil)
	c.event("terminated", nil)
	c.do("disconnect", nil, nil)
	c.noEvents()
	if err := <-c.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	for m := range c.msgs {
		t.Errorf("after the disconnect: %+v", m)
	}
}

// The end of the input ends the session cleanly.
func TestEndOfInput(t *testing.T) {
	c := startInProcess(t)
	c.do("initialize", nil, nil)
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Errorf("Serve at the end of its input: %v", err)
	}
}

// `weft dap`, the process: a report saved by `weft check --json` replays
// its bug; a changed model is refused with a message that says so.
func TestProcessReplaysReport(t *testing.T) {
	bin := buildWeft(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "examples", "lost_update.weft"))
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "lost_update.weft")
	if err := os.WriteFile(model, src, 0o644); err != nil {
		t.Fatal(err)
	}
	check := exec.Command(bin, "check", "--json", "--quiet", "lost_update.weft")
	check.Dir = dir
	out, err := check.Output()
	if code := check.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("weft check: exit %d (%v)", code, err)
	}
	report := filepath.Join(dir, "report.json")
	if err := os.WriteFile(report, out, 0o644); err != nil {
		t.Fatal(err)
	}
	reports, err := replay.ReadReports(report)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, b := range reports[0].Bugs {
		if b.Kind == "assertion" {
			n = i + 1
		}
	}
	if n == 0 {
		t.Fatalf("no assertion in the report:\n%s", out)
	}
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{})

	c := startProcess(t)
	c.launch(map[string]any{"traceFile": report, "bug": n, "program": model}, lineOf(t, model, "join incr[1]"))
	var ws stepBody
	c.event(eventStep, &ws)
	var st godap.StoppedEventBody
	c.event("stopped", &st)
	if ws.Step != 1 || ws.BugID != fmt.Sprintf("report.json#%d", n) || st.Reason != "entry" {
		t.Errorf("entry: %+v %+v", ws, st)
	}
	var doc replay.Document
	c.do(requestTrace, nil, &doc)
	if doc.File != model || doc.Kind != "assertion" || len(doc.Steps) != ws.Steps {
		t.Errorf("the document: file %q kind %q, %d steps", doc.File, doc.Kind, len(doc.Steps))
	}
	c.do("continue", nil, nil)
	c.event(eventStep, &ws)
	c.event("stopped", &st)
	if st.Reason != "breakpoint" || doc.Steps[ws.Step-1].Range.Start.Line+1 != lineOf(t, model, "join incr[1]") {
		t.Errorf("continue stopped at step %d: %+v", ws.Step, st)
	}
	c.do("continue", nil, nil)
	c.event(eventStep, &ws)
	c.event("stopped", &st)
	if st.Reason != "exception" || st.Text != ex.bug.Message || ws.Step != ws.Steps {
		t.Errorf("the end: %+v %+v", ws, st)
	}
	c.do("disconnect", nil, nil)
	c.event("terminated", nil)
	if err := <-c.done; err != nil {
		t.Errorf("weft dap: %v", err)
	}

	// The model changed since the check: an error the user sees.
	if err := os.WriteFile(model, append([]byte("// edited\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startProcess(t)
	d.do("initialize", nil, nil)
	m := d.fail("launch", map[string]any{"traceFile": report, "bug": n})
	if !strings.Contains(m.Message, "changed since") {
		t.Errorf("a changed model: %q", m.Message)
	}
	var body struct {
		Error godap.ErrorMessage `json:"error"`
	}
	if err := json.Unmarshal(m.Body, &body); err != nil || !body.Error.ShowUser || body.Error.Format != m.Message {
		t.Errorf("error body %s (%v): want the message, shown to the user", m.Body, err)
	}
	d.do("disconnect", nil, nil)
}

// A deadlock's last step is some thread's; the exception stops on the
// thread the bug blames.
func TestDeadlock(t *testing.T) {
	ex := loadExample(t, "philosophers_deadlock.weft", engine.BugDeadlock, replay.Options{})
	n := len(ex.doc.Steps)
	if ex.doc.Steps[n-1].Thread == ex.bug.Thread {
		t.Fatalf("the last step is by %s, the thread blamed: the test shows nothing", ex.bug.Thread)
	}
	c := startInProcess(t)
	c.launch(map[string]any{"trace": ex.doc})
	c.stopped(ex, 1, "entry")
	c.do("continue", nil, nil)
	if st := c.stopped(ex, n, "exception"); st.Description != "deadlock" {
		t.Errorf("stopped %+v", st)
	}
	c.checkState(ex, n)
	// Every philosopher is blocked at its second lock, the one it waits
	// for, held by its neighbour (not at the lock it made last, and the
	// thread that moved last no differently).
	line := lineOf(t, ex.path, "lock(fork[(i + 1) % N])")
	for k := range 3 {
		name := fmt.Sprintf("phil[%d]", k)
		var frames godap.StackTraceResponseBody
		c.do("stackTrace", godap.StackTraceArguments{ThreadId: tid(ex, name)}, &frames)
		want := fmt.Sprintf("%s: lock fork[%d], held by phil[%d] (blocked)", name, (k+1)%3, (k+1)%3)
		if f := frames.StackFrames[0]; f.Name != want || f.Line != line || f.Source == nil {
			t.Errorf("%s's frame %+v, want %q at line %d", name, f, want, line)
		}
	}
}

// The vars of thread bodies show among the locals (they did not: only
// loop variables did), in the Locals scope and to evaluate.
func TestVarLocals(t *testing.T) {
	ex := loadExample(t, "fig1_racy.weft", engine.BugAssertion, replay.Options{})
	n := len(ex.doc.Steps)
	c := startInProcess(t)
	c.launch(map[string]any{"trace": ex.doc, "program": ex.path})
	c.stopped(ex, 1, "entry")
	c.do(requestGoto, map[string]any{"step": n}, nil)
	c.stopped(ex, n, "exception")
	c.checkState(ex, n)
	var res godap.EvaluateResponseBody
	c.do("evaluate", godap.EvaluateArguments{Expression: "i", FrameId: tid(ex, "master"), Context: "hover"}, &res)
	var x godap.EvaluateResponseBody
	c.do("evaluate", godap.EvaluateArguments{Expression: "c", Context: "hover"}, &x)
	if res.Result == "" || res.Result != x.Result {
		t.Errorf("master's i = %q, want c's value %q", res.Result, x.Result)
	}
}

// A panic in a handler is an error response; the session goes on.
func TestPanicRecovered(t *testing.T) {
	c := startWith(t, Options{Log: testLog{t}, panicOn: "threads"})
	m := c.fail("threads", nil)
	if !strings.Contains(m.Message, "internal error") {
		t.Errorf("a panic answered %q", m.Message)
	}
	c.do("initialize", nil, nil)
	c.event("initialized", nil)
}

// Breakpoints set before the launch (VS Code sends them once initialized,
// maybe before its launch is handled) are verified once the trace is
// loaded, through breakpoint events; configurationDone before the launch
// makes the launch stop at the entry.
func TestBreakpointsBeforeLaunch(t *testing.T) {
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{})
	c := startInProcess(t)
	c.do("initialize", nil, nil)
	c.event("initialized", nil)
	line := lineOf(t, ex.path, "join incr[1]")
	var bps godap.SetBreakpointsResponseBody
	c.do("setBreakpoints", godap.SetBreakpointsArguments{Source: godap.Source{Path: ex.path}, Breakpoints: []godap.SourceBreakpoint{{Line: line}}}, &bps)
	if len(bps.Breakpoints) != 1 || bps.Breakpoints[0].Verified {
		t.Errorf("before the launch: %+v", bps.Breakpoints)
	}
	c.do("setBreakpoints", godap.SetBreakpointsArguments{Source: godap.Source{Path: "/elsewhere/other.weft"}, Breakpoints: []godap.SourceBreakpoint{{Line: line}}}, nil)
	c.do("configurationDone", nil, nil)
	c.do("launch", map[string]any{"trace": ex.doc}, nil)
	c.event("output", nil)
	got := map[bool]godap.Breakpoint{}
	for range 2 {
		var ev godap.BreakpointEventBody
		c.event("breakpoint", &ev)
		got[ev.Breakpoint.Verified] = ev.Breakpoint
	}
	if b := got[true]; b.Id != bps.Breakpoints[0].Id || b.Line != line {
		t.Errorf("the model's breakpoint after the launch: %+v", got)
	}
	if b := got[false]; b.Message != "not the model being replayed" {
		t.Errorf("another file's breakpoint after the launch: %+v", got)
	}
	c.stopped(ex, 1, "entry")
	c.do("continue", nil, nil)
	c.stopped(ex, firstStepOn(ex, line), "breakpoint")
}

// firstStepOn is the first step on a line (1-based).
func firstStepOn(ex *example, line int) int {
	for _, st := range ex.doc.Steps {
		if st.Range.Start.Line+1 == line {
			return st.Step
		}
	}
	return 0
}

// A replay notices that its model's text changed under it (the file on
// disk, or the editor's word through weftSourceChanged): it says so to
// the user, ends, and shows no line from then on. Writing the same text
// again, or saving the very text the counterexample was built from, is
// no change.
func TestModelChanged(t *testing.T) {
	ex := loadExample(t, "lost_update.weft", engine.BugAssertion, replay.Options{})
	src, err := os.ReadFile(ex.path)
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte("// edited\n"), src...)
	for _, c := range []struct {
		name   string
		onDisk []byte // the model file at launch
		inline bool   // launch the document inline (else a report of it)
		hash   bool   // the inline document carries its text's hash
		same   [][]byte
		change func(t *testing.T, c *client, path string)
		want   string
	}{
		{name: "a report's model edited on disk", onDisk: src, same: [][]byte{src},
			change: func(t *testing.T, c *client, path string) { write(t, path, edited) }, want: "changed on disk"},
		{name: "an inline trace's model edited on disk", onDisk: src, inline: true, hash: true, same: [][]byte{src},
			change: func(t *testing.T, c *client, path string) { write(t, path, edited) }, want: "changed on disk"},
		{name: "an inline trace without a hash", onDisk: src, inline: true, same: [][]byte{src},
			change: func(t *testing.T, c *client, path string) { write(t, path, edited) }, want: "changed on disk"},
		{name: "an unsaved buffer saved, then the file edited", onDisk: edited, inline: true, hash: true, same: [][]byte{src, edited},
			change: func(t *testing.T, c *client, path string) { write(t, path, append([]byte("// again\n"), src...)) }, want: "changed on disk"},
		{name: "the editor's buffer changed", onDisk: src, inline: true, hash: true,
			change: func(t *testing.T, c *client, path string) {
				var other map[string]bool
				c.do(requestSourceChanged, map[string]any{"path": filepath.Join(filepath.Dir(path), "other.weft"), "version": 9}, &other)
				if other["stale"] {
					t.Errorf("another file's change ended the replay")
				}
				c.do("next", nil, nil)
				c.event(eventStep, nil)
				c.event("stopped", nil)
				var res map[string]bool
				c.do(requestSourceChanged, map[string]any{"path": path, "uri": replay.FileURI(path), "version": 9}, &res)
				if !res["stale"] {
					t.Errorf("weftSourceChanged answered %v", res)
				}
			}, want: "changed in the editor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "lost_update.weft")
			write(t, path, src)
			doc := *ex.doc
			doc.File, doc.URI = path, replay.FileURI(path)
			doc.SourceSHA256 = ""
			if c.hash {
				doc.SourceSHA256 = replay.SourceHash(src)
			}
			args := map[string]any{"trace": &doc}
			if !c.inline {
				report := filepath.Join(dir, "report.json")
				data, err := json.Marshal(map[string]any{"file": "lost_update.weft", "source_sha256": replay.SourceHash(src),
					"bugs": []any{map[string]any{"kind": ex.bug.Kind, "message": ex.bug.Message, "thread": ex.bug.Thread, "schedule": ex.bug.Schedule}}})
				if err != nil {
					t.Fatal(err)
				}
				write(t, report, data)
				args = map[string]any{"traceFile": report}
			}
			write(t, path, c.onDisk)
			cl := startInProcess(t)
			cl.launch(args)
			cl.event(eventStep, nil)
			cl.event("stopped", nil)
			// The same text written again, or the document's own text
			// saved: the replay goes on.
			for _, text := range c.same {
				time.Sleep(10 * time.Millisecond) // a new modification time
				write(t, path, text)
				cl.do("next", nil, nil)
				cl.event(eventStep, nil)
				cl.event("stopped", nil)
			}
			c.change(t, cl, path)
			if c.want == "changed on disk" {
				m := cl.fail("next", nil)
				if !strings.Contains(m.Message, c.want) {
					t.Errorf("next after the change: %q", m.Message)
				}
			}
			var out godap.OutputEventBody
			cl.event("output", &out)
			if out.Category != "important" || !strings.Contains(out.Output, c.want) || !strings.Contains(out.Output, "Replay the bug again") {
				t.Errorf("the change said %+v", out)
			}
			cl.event("terminated", nil)
			// No line is shown any more, and the replay does not move.
			var frames godap.StackTraceResponseBody
			cl.do("stackTrace", godap.StackTraceArguments{ThreadId: 1}, &frames)
			if f := frames.StackFrames[0]; f.Source != nil || f.Line != 0 || f.PresentationHint != "label" {
				t.Errorf("a frame after the change: %+v", f)
			}
			for _, cmd := range []string{"next", "stepBack", "continue"} {
				if m := cl.fail(cmd, nil); !strings.Contains(m.Message, "no longer match") {
					t.Errorf("%s after the change: %q", cmd, m.Message)
				}
			}
			cl.fail(requestGoto, map[string]any{"step": 1})
			cl.do("disconnect", nil, nil)
			cl.noEvents()
		})
	}
}

// write writes a file, failing the test if it cannot.
func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A launch that replays a long trace takes seconds (a million steps:
// about 20 s): a disconnect, a terminate or a cancel of it sent meanwhile
// stops it, and every request is answered at once.
func TestLongLaunchInterrupted(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "spin.weft")
	src := []byte("var flag int\nvar c int\n\nthread t {\n    while flag == 0 {\n        c = c + 1\n    }\n}\n")
	write(t, model, src)
	schedule := make([]int32, replay.DefaultMaxSteps)
	data, err := json.Marshal(map[string]any{"file": "spin.weft", "source_sha256": replay.SourceHash(src),
		"bugs": []any{map[string]any{"kind": "step-bound", "message": "the step bound", "thread": "t", "schedule": schedule, "no_spin_wait": true}}})
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	write(t, report, data)
	frame := func(seq int, cmd string, args any) []byte {
		b, err := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": cmd, "arguments": args})
		if err != nil {
			t.Fatal(err)
		}
		return framing.Append(nil, b)
	}
	for _, c := range []struct {
		name  string
		start func(t *testing.T) *client
		then  []byte // sent right after the launch
		ends  bool
	}{
		{"disconnect", startInProcess, frame(3, "disconnect", nil), true},
		{"terminate", startInProcess, append(frame(3, "terminate", nil), frame(4, "threads", nil)...), false},
		{"cancel", startInProcess, append(frame(3, "cancel", map[string]any{"requestId": 2}), frame(4, "threads", nil)...), false},
		{"disconnect, weft dap", startProcess, frame(3, "disconnect", nil), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := c.start(t)
			cl.do("initialize", nil, nil)
			cl.event("initialized", nil)
			began := time.Now()
			cl.raw(append(frame(2, "launch", map[string]any{"traceFile": report}), c.then...))
			cl.seq = 4
			launch := cl.response(2)
			if launch.Success || !strings.Contains(launch.Message, "cancelled") {
				t.Errorf("the launch answered %+v, want cancelled", launch)
			}
			if m := cl.response(3); !m.Success {
				t.Errorf("%s answered %+v", c.name, m)
			}
			if !c.ends {
				cl.response(4)
			}
			// Reading the report is not cancelled (a second, more under
			// -race on a busy machine); the replay of its million steps is
			// (16–20 s here when it runs to the end).
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("answered in %v", d)
			}
			if c.ends {
				select {
				case <-cl.done:
				case <-time.After(timeout):
					t.Errorf("the session did not end")
				}
			}
		})
	}
}
