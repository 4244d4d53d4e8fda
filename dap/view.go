package dap

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	godap "github.com/google/go-dap"

	"weft/replay"
)

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
	s.checkModel()
	frames := []godap.StackFrame{}
	if args.StartFrame == 0 {
		frames = append(frames, s.frame(t))
	}
	return godap.StackTraceResponseBody{StackFrames: frames, TotalFrames: 1}, nil
}

// frame is thread t's one frame at the current step (its id is the
// thread's). A blocked thread stands at the operation it waits at, named
// with what it waits for; the thread that moved, unless it is blocked
// now, at the step it made; a ready one at the statement it runs next; a
// finished one at its last step, named so.
func (s *session) frame(t string) godap.StackFrame {
	i := s.pos
	st := &s.doc.Steps[i-1]
	f := godap.StackFrame{Id: s.tid[t]}
	ts := s.state(t, i)
	last := s.lastStep(t, i)
	lastOp := func() string {
		if last == 0 {
			return "no step yet"
		}
		return fmt.Sprintf("last step %d: %s", last, s.doc.Steps[last-1].Op)
	}
	var at *replay.Range
	switch {
	case ts != nil && ts.Status == "blocked":
		what := ts.Waits
		if what == "" {
			what = "waits"
		}
		f.Name, at = t+": "+what+" (blocked)", ts.Range
	case ts != nil && ts.Status == "finished":
		f.Name, f.PresentationHint = t+" (finished; "+lastOp()+")", "subtle"
		if last > 0 {
			at = &s.doc.Steps[last-1].Range
		}
	case t == st.Thread:
		f.Name, at = t+": "+st.Op, &st.Range
		if ts != nil && ts.Status == "failing" {
			f.Name += " (failing)"
		}
	case ts != nil:
		f.Name, at = t+" ("+ts.Status+"; "+lastOp()+")", ts.Range
	case last > 0: // no states: where it last was
		f.Name, at = t+": "+s.doc.Steps[last-1].Op, &s.doc.Steps[last-1].Range
	default:
		f.Name, f.PresentationHint = t+" (not started)", "subtle"
	}
	if s.stale != "" {
		f.Name += " (the text changed: no line shown)"
		at = nil
	}
	if src := s.source(); at != nil && src != nil {
		f.Source = src
		f.Line, f.Column = s.clientLine(at.Start.Line), s.clientColumn(at.Start.Character)
		f.EndLine, f.EndColumn = s.clientLine(at.End.Line), s.clientColumn(at.End.Character)
	} else {
		// No place to show: a label frame, which clients draw as its name
		// alone (VS Code drew any other frame without a source as
		// "Unknown Source 0").
		f.PresentationHint = "label"
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

// evaluate answers an expression over the step's state (evalExpr): its
// names are a local of the frame's thread (or of the thread that moved),
// a shared variable, a mutex (its holder, or "free").
func (s *session) evaluate(req *envelope) (any, error) {
	var args godap.EvaluateArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	expr := strings.TrimSpace(args.Expression)
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
	ts := s.state(t, s.pos)
	lookup := func(name string) (string, bool) {
		if ts != nil {
			for _, v := range ts.Locals {
				if v.Name == name {
					return v.Value, true
				}
			}
		}
		for _, v := range st.Shared {
			if v.Name == name {
				return v.Value, true
			}
		}
		for _, l := range st.Locks {
			if l.Name == name {
				return holder(l.Holder), true
			}
		}
		return "", false
	}
	v, err := evalExpr(expr, lookup)
	var unknown errUnknownName
	switch {
	case errors.As(err, &unknown):
		return nil, errorf("%q is not a variable of %s or a shared variable at step %d", unknown.name, t, s.pos)
	case err != nil:
		return nil, errorf("%s: %v", expr, err)
	}
	return godap.EvaluateResponseBody{Result: v.String()}, nil
}

func (s *session) exceptionInfo() (any, error) {
	if s.doc == nil {
		return nil, errNotLaunched
	}
	return godap.ExceptionInfoResponseBody{ExceptionId: s.doc.Kind, Description: s.doc.Message, BreakMode: "always",
		Details: &godap.ExceptionDetails{Message: s.doc.Message, TypeName: s.doc.Kind}}, nil
}
