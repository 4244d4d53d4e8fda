package engine

import (
	"context"
	"fmt"
	"weft/engine/interp"
	"weft/engine/ir"
)

// ReplayStep is one step of a replayed execution, with the machine as it
// stands right after the step.
type ReplayStep struct {
	Index int
	Event *Event
	Trace TraceStep
	M     *Machine
}

// Replay re-executes schedule from the initial state of prog, calling
// visit after each step (visit may be nil). ro are the settings the
// schedule was found with (a bug's ReplayOptions): the bound on local
// instructions between visible steps, whether spin loops wait. It returns
// the events and an error if the schedule does not fit the program (a
// thread that does not exist or cannot move).
func Replay(prog *Program, schedule []int32, ro ReplayOptions, visit func(ReplayStep)) ([]Event, *Machine, error) {
	return ReplayContext(context.Background(), prog, schedule, ro, visit)
}

// ReplayContext is Replay that stops when ctx ends (looked at every 1,024
// steps), returning ctx's error: replaying a million steps takes seconds.
func ReplayContext(ctx context.Context, prog *Program, schedule []int32, ro ReplayOptions, visit func(ReplayStep)) ([]Event, *Machine, error) {
	if err := prog.Validate(); err != nil {
		return nil, nil, err
	}
	if ro.Choices != nil && len(ro.Choices) != len(schedule) {
		return nil, nil, fmt.Errorf("%d choices for a schedule of %d steps", len(ro.Choices), len(schedule))
	}
	var step func(int, *Event, *Machine)
	if visit != nil {
		step = func(i int, ev *Event, m *Machine) {
			tr := BuildTrace(prog, []Event{*ev}, m)[0]
			visit(ReplayStep{Index: i, Event: ev, Trace: tr, M: m})
		}
	}
	events := make([]Event, 0, len(schedule))
	m, err := replay(ctx, prog, schedule, ro, func(int) *Event {
		events = append(events, Event{})
		return &events[len(events)-1]
	}, step)
	return events, m, err
}

// replay is Replay, each step's event stored where at says (which may
// give the same scratch event again and again for the steps the caller
// does not keep).
func replay(ctx context.Context, prog *Program, schedule []int32, ro ReplayOptions, at func(i int) *Event, visit func(i int, ev *Event, m *Machine)) (*Machine, error) {
	m, err := interp.NewMachineConfig(prog, interp.Config{LocalBudget: ro.LocalBudget, NoSpinWait: ro.NoSpinWait, SpuriousWakeups: ro.SpuriousWakeups})
	if err != nil {
		return nil, err
	}
	if ro.Choices != nil && len(ro.Choices) < len(schedule) {
		return m, fmt.Errorf("%d choices for a schedule of %d steps", len(ro.Choices), len(schedule))
	}
	m.ReserveSteps(len(schedule))
	for i, t := range schedule {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return m, err
			}
		}
		if t < 0 || int(t) >= len(m.Threads) {
			return m, fmt.Errorf("step %d: no thread %d", i+1, t)
		}
		if !m.Enabled(int(t)) {
			return m, fmt.Errorf("step %d: thread %s cannot move", i+1, m.Threads[t].Name)
		}
		alt := 0
		if ro.Choices != nil {
			alt = int(ro.Choices[i])
		}
		if n := m.Alternatives(int(t)); alt < 0 || alt >= n {
			return m, fmt.Errorf("step %d: thread %s's step has %d alternatives, not %d", i+1, m.Threads[t].Name, n, alt+1)
		}
		ev := at(i)
		ok := m.StepAlt(int(t), alt, ev)
		if visit != nil {
			visit(i, ev, m)
		}
		if !ok && i != len(schedule)-1 {
			return m, fmt.Errorf("step %d: the execution stopped early (%s)", i+1, ev.Message)
		}
	}
	return m, nil
}

// BuildTrace describes the steps of an execution in words. events are the
// executed steps in order; m is a machine standing after them (or later in
// the same execution), used for thread names.
func BuildTrace(prog *Program, events []Event, m *Machine) []TraceStep {
	steps := make([]TraceStep, 0, len(events))
	for i := range events {
		ev := &events[i]
		th := m.Threads[ev.Thread]
		r := th.Body.Ranges
		st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: interp.DescribeEvent(prog, m, ev),
			Kind: ev.Kind, Object: eventObject(prog, m, ev), Choice: ev.Alt}
		if int(ev.PC) < len(r) {
			st.Range = r[ev.PC]
		}
		steps = append(steps, st)
		for _, a := range ev.Tail { // the accesses a coarse step ran
			fine := a.FineEvent(ev.Thread)
			st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: interp.DescribeEvent(prog, m, fine),
				Kind: fine.Kind, Object: eventObject(prog, m, fine)}
			if int(a.PC) < len(r) {
				st.Range = r[a.PC]
			}
			steps = append(steps, st)
		}
		// A coarse step's thread finishes after its tail, if it has one.
		steps[len(steps)-1].Ends = ev.Finished
	}
	return steps
}

// eventObject names what a step acted on (see TraceStep.Object).
func eventObject(prog *Program, m *Machine, ev *Event) string {
	loc := ev.Loc
	switch ev.Kind {
	case ir.EvSpawn, ir.EvJoin:
		if loc >= 0 && int(loc) < len(m.Threads) {
			return m.Threads[loc].Name
		}
		return ""
	case ir.EvAtomic:
		loc = -1
		for _, a := range ev.Acc {
			if loc >= 0 && a.Loc != loc {
				return ""
			}
			loc = a.Loc
		}
	case ir.EvStop:
		return ""
	}
	if loc >= 0 && int(loc) < len(prog.Locations) {
		return prog.Locations[loc].Name
	}
	return ""
}

// DescribeEvent says what a step did, in words ("read c → 1").
func DescribeEvent(prog *Program, m *Machine, ev *Event) string {
	return interp.DescribeEvent(prog, m, ev)
}

// FormatWords renders size words of shared memory from offset (an array
// with dims, or a scalar) for display: "3", "{0, 7, 7}".
func FormatWords(prog *Program, m *Machine, offset, size int, dims []int, limit int) string {
	return interp.FormatWords(prog, m, offset, size, dims, limit)
}

// FormatLocal renders a local variable of a thread.
func FormatLocal(m *Machine, th *Thread, lv LocalVar, limit int) string {
	return interp.FormatLocal(m, th, lv, limit)
}

// FormatFrameLocal renders a local variable of a frame: a function's (a
// CallFrame's) or a body's (Thread.BaseFrame).
func FormatFrameLocal(m *Machine, frame []int64, lv LocalVar, limit int) string {
	return interp.FormatFrameLocal(m, frame, lv, limit)
}
