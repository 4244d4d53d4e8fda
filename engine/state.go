package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"weft/engine/interp"
	"weft/engine/ir"
	"weft/source"
)

// StepState is an execution's state right after one of its steps, in
// words: what a trace view or a replay debugger shows at that step.
type StepState struct {
	Step    int // 1-based
	Thread  string
	Op      string       // what the step did: "read c → 1", "lock m"
	Range   source.Range // the statement of the step
	Kind    ir.EventKind // the kind of the step
	Object  string       // what it acted on (see TraceStep.Object)
	Ends    bool         // the thread finished with this step
	Shared  []NamedValue // every shared variable that is not a mutex, in declaration order
	Locks   []LockState  // every mutex (each element of a mutex array), in declaration order
	Threads []ThreadState
}

// NamedValue is a variable and its value in words ("{0, 7, 7}", "true").
type NamedValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// LockState says who holds a mutex ("" when it is free).
type LockState struct {
	Name   string `json:"name"`
	Holder string `json:"holder"` // "" when free
}

// ThreadState is one thread's state after a step.
type ThreadState struct {
	Name   string
	Status string       // "ready", "blocked", "failing", "finished"
	At     source.Range // the statement it runs next (empty once finished)
	// Waits says, for a blocked thread, what it waits for and who holds
	// it up: "lock fork[1], held by phil[1]" (empty for any other).
	Waits string
	// Locals are its body's named locals in scope where it stands in its
	// body's code (at the outermost call in progress while it runs a
	// function).
	Locals []NamedValue
	Calls  []CallState // the function calls in progress, outermost first
}

// CallState is a function call in progress.
type CallState struct {
	Func   string
	Site   source.Range // the call
	Locals []NamedValue // the function's named locals in scope where the call stands
}

// ErrTraceTooLong is returned by StepStates for a schedule past its limit.
var ErrTraceTooLong = errors.New("trace longer than the limit")

// StepStates replays schedule and describes the state after each step.
// Arrays longer than arrayLimit elements are elided (0: never). A schedule
// of more than maxSteps steps is refused with ErrTraceTooLong (0: no
// limit), since each step's state is kept.
func StepStates(ctx context.Context, prog *Program, schedule []int32, ro ReplayOptions, arrayLimit, maxSteps int) ([]StepState, error) {
	if maxSteps > 0 && len(schedule) > maxSteps {
		return nil, ErrTraceTooLong
	}
	var states []StepState
	var ctxErr error
	_, _, err := ReplayContext(ctx, prog, schedule, ro, func(st ReplayStep) {
		if ctxErr != nil {
			return
		}
		if ctxErr = ctx.Err(); ctxErr != nil {
			return
		}
		states = append(states, describeState(prog, st, arrayLimit))
	})
	if ctxErr != nil {
		return nil, ctxErr
	}
	return states, err
}

func describeState(prog *Program, st ReplayStep, arrayLimit int) StepState {
	m := st.M
	s := StepState{Step: st.Index + 1, Thread: st.Trace.Thread, Op: st.Trace.Op, Range: st.Trace.Range,
		Kind: st.Trace.Kind, Object: st.Trace.Object, Ends: st.Trace.Ends}
	for _, sv := range prog.Vars {
		if sv.Size > 0 && prog.Locations[sv.Offset].Mutex {
			continue
		}
		s.Shared = append(s.Shared, NamedValue{sv.Name, FormatWords(prog, m, sv.Offset, sv.Size, sv.Dims, arrayLimit)})
	}
	for loc, l := range prog.Locations {
		if !l.Mutex {
			continue
		}
		holder := ""
		if v := m.Mem[loc]; v > 0 && int(v-1) < len(m.Threads) {
			holder = m.Threads[v-1].Name
		}
		s.Locks = append(s.Locks, LockState{Name: l.Name, Holder: holder})
	}
	for i, th := range m.Threads {
		ts := ThreadState{Name: th.Name, Status: threadStatus(m, i)}
		if ts.Status == "blocked" {
			ts.Waits = waitsFor(prog, m, i)
		}
		if th.Status != interp.Finished && int(th.PC) < len(th.Body.Ranges) {
			ts.At = th.Body.Ranges[th.PC]
		}
		ts.Locals = frameLocals(m, th, th.BaseFrame(), th.Body.Locals, th.BasePC(), arrayLimit)
		for _, c := range th.Calls() {
			ts.Calls = append(ts.Calls, CallState{Func: c.Func.Name, Site: rangeAt(th, c.Site),
				Locals: frameLocals(m, th, c.Frame, c.Func.Locals, c.PC, arrayLimit)})
		}
		s.Threads = append(s.Threads, ts)
	}
	return s
}

// frameLocals renders the locals of a frame that are in scope at pc.
func frameLocals(m *Machine, th *Thread, frame []int64, locals []LocalVar, pc int32, arrayLimit int) []NamedValue {
	var vs []NamedValue
	var at source.Range // a finished thread stands nowhere
	if th.Status != interp.Finished {
		at = rangeAt(th, pc)
	}
	for _, lv := range locals {
		if at.Start.Offset < lv.Scope.Start.Offset || at.Start.Offset > lv.Scope.End.Offset {
			continue
		}
		if lv.Decl != (source.Range{}) && at.Start.Offset >= lv.Decl.Start.Offset && at.Start.Offset < lv.Decl.End.Offset {
			continue // it stands at the declaration, which has not run yet
		}
		vs = append(vs, NamedValue{lv.Name, interp.FormatFrameLocal(m, frame, lv, arrayLimit)})
	}
	return vs
}

func rangeAt(th *Thread, pc int32) source.Range {
	if pc >= 0 && int(pc) < len(th.Body.Ranges) {
		return th.Body.Ranges[pc]
	}
	return source.Range{}
}

func threadStatus(m *Machine, i int) string {
	switch m.Threads[i].Status {
	case interp.Finished:
		return "finished"
	case interp.Failing:
		return "failing"
	}
	if !m.Enabled(i) {
		return "blocked"
	}
	return "ready"
}

// waitsFor says what blocked thread i waits for, in words: the operation
// it stands at and what holds it up.
func waitsFor(prog *Program, m *Machine, i int) string {
	th := m.Threads[i]
	loc := func(l int64) string {
		if l >= 0 && int(l) < len(prog.Locations) {
			return prog.Locations[l].Name
		}
		return fmt.Sprintf("location %d", l)
	}
	thread := func(tid int64) string {
		if tid > 0 && int(tid) <= len(m.Threads) {
			return m.Threads[tid-1].Name
		}
		return fmt.Sprintf("thread %d", tid)
	}
	held := func(mutex int64) string {
		if mutex < 0 || int(mutex) >= len(m.Mem) || m.Mem[mutex] == 0 {
			return "free"
		}
		return "held by " + thread(m.Mem[mutex])
	}
	if th.Status == interp.Spinning {
		var reads []string
		for _, r := range m.SpinReads(i) {
			reads = append(reads, fmt.Sprintf("%s = %d", loc(int64(r.Loc)), r.Value))
		}
		if len(reads) == 0 {
			return "spins: its loop changes nothing until another thread writes what it reads"
		}
		return "spins until another thread writes what it reads (" + strings.Join(reads, ", ") + ")"
	}
	if th.Status != interp.Ready || int(th.PC) >= len(th.Body.Code) {
		return ""
	}
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLock:
		mutex := th.Frame[in.B]
		return fmt.Sprintf("lock %s, %s", loc(mutex), held(mutex))
	case ir.OpJoin:
		tid := th.Frame[in.B]
		if tid == int64(i)+1 {
			return "join " + th.Name + ": a thread that joins itself waits forever"
		}
		return fmt.Sprintf("join %s, which has not finished", thread(tid))
	case ir.OpWake:
		cv, mutex := th.Frame[in.B], th.Frame[in.A]
		if m.Waiting(i) {
			return fmt.Sprintf("wait(%s), not signalled yet", loc(cv))
		}
		return fmt.Sprintf("wait(%s), signalled: relock %s, %s", loc(cv), loc(mutex), held(mutex))
	}
	return ""
}
