package engine

import (
	"context"
	"fmt"
	"weft/engine/internal/driver"
	"weft/engine/interp"
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
	return driver.Replay(ctx, prog, schedule, ro, step)
}

// BuildTrace describes the steps of an execution in words. events are the
// executed steps in order; m is a machine standing after them (or later in
// the same execution), used for thread names.
func BuildTrace(prog *Program, events []Event, m *Machine) []TraceStep {
	return driver.BuildTrace(prog, events, m)
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
