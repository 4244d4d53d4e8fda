package engine

import (
	"fmt"
	"strconv"
	"strings"
	"weft/engine/interp"
)

// BuildTrace describes the steps of an execution in words. events are the
// executed steps in order; m is a machine standing after them (or later in
// the same execution), used for thread names.
func BuildTrace(prog *Program, events []Event, m *Machine) []TraceStep {
	steps := make([]TraceStep, 0, len(events))
	for i := range events {
		ev := &events[i]
		th := m.Threads[ev.Thread]
		r := th.Body.Ranges
		st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: DescribeEvent(prog, m, ev)}
		if int(ev.PC) < len(r) {
			st.Range = r[ev.PC]
		}
		steps = append(steps, st)
		for _, a := range ev.Tail { // the accesses a coarse step ran
			st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: DescribeEvent(prog, m, a.FineEvent(ev.Thread))}
			if int(a.PC) < len(r) {
				st.Range = r[a.PC]
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// DescribeEvent says what a step did, in words: "read c → 1", "write c = 1",
// "lock mx[2]", "spawn worker#1", "join worker#0", "atomic: read x → 0,
// write x = 1", "assertion failed: …".
func DescribeEvent(prog *Program, m *Machine, ev *Event) string {
	name := func(loc int32) string {
		if loc >= 0 && int(loc) < len(prog.Locations) {
			return prog.Locations[loc].Name
		}
		return "?"
	}
	value := func(loc int32, v int64) string { return formatValue(prog, m, loc, v) }
	threadName := func(t int32) string {
		if t >= 0 && int(t) < len(m.Threads) {
			return m.Threads[t].Name
		}
		return "thread " + strconv.Itoa(int(t)+1)
	}
	var s string
	switch ev.Kind {
	case EvRead:
		s = "read " + name(ev.Loc) + " → " + value(ev.Loc, ev.Value)
	case EvWrite:
		s = "write " + name(ev.Loc) + " = " + value(ev.Loc, ev.Value)
	case EvLock:
		s = "lock " + name(ev.Loc)
	case EvUnlock:
		s = "unlock " + name(ev.Loc)
	case EvSpawn:
		s = "spawn " + threadName(ev.Loc)
	case EvJoin:
		s = "join " + threadName(ev.Loc)
	case EvAtomic:
		parts := make([]string, 0, len(ev.Acc))
		for _, a := range ev.Acc {
			if a.Write {
				parts = append(parts, "write "+name(a.Loc)+" = "+value(a.Loc, a.Value))
			} else {
				parts = append(parts, "read "+name(a.Loc)+" → "+value(a.Loc, a.Value))
			}
		}
		s = "atomic"
		if len(parts) > 0 {
			s += ": " + strings.Join(parts, ", ")
		}
	case EvStop:
		s = ""
	}
	switch ev.Stop {
	case StopAssertion:
		s = joinWords(s, "assertion failed: "+ev.Message)
	case StopAssume:
		s = joinWords(s, "assume failed")
	case StopRuntimeError:
		s = joinWords(s, "runtime error: "+ev.Message)
	case StopStepBound:
		s = joinWords(s, ev.Message)
	}
	return s
}

func joinWords(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func formatValue(prog *Program, m *Machine, loc int32, v int64) string {
	if loc >= 0 && int(loc) < len(prog.Locations) {
		l := prog.Locations[loc]
		return formatWord(m, l.Bool, l.Tid, v)
	}
	return strconv.FormatInt(v, 10)
}

// formatWord renders one word as a bool, a thread handle or an integer.
func formatWord(m *Machine, isBool, isTid bool, v int64) string {
	switch {
	case isBool:
		return strconv.FormatBool(v != 0)
	case isTid:
		if v == 0 {
			return "no thread"
		}
		if m != nil && v > 0 && int(v) <= len(m.Threads) {
			return m.Threads[v-1].Name
		}
	}
	return strconv.FormatInt(v, 10)
}

// ReplayStep is one step of a replayed execution, with the machine as it
// stands right after the step.
type ReplayStep struct {
	Index int
	Event *Event
	Trace TraceStep
	M     *Machine
}

// Replay re-executes schedule from the initial state of prog, calling
// visit after each step (visit may be nil). localBudget is the bound on
// local instructions between visible steps that the schedule was found
// with (0: DefaultLocalBudget). It returns the events and an error if the
// schedule does not fit the program (a thread that does not exist or
// cannot move).
func Replay(prog *Program, schedule []int32, localBudget int, visit func(ReplayStep)) ([]Event, *Machine, error) {
	if err := prog.Validate(); err != nil {
		return nil, nil, err
	}
	m := interp.NewMachine(prog, localBudget)
	events := make([]Event, 0, len(schedule))
	for i, t := range schedule {
		if t < 0 || int(t) >= len(m.Threads) {
			return events, m, fmt.Errorf("step %d: no thread %d", i+1, t)
		}
		if !m.Enabled(int(t)) {
			return events, m, fmt.Errorf("step %d: thread %s cannot move", i+1, m.Threads[t].Name)
		}
		events = append(events, Event{})
		ev := &events[len(events)-1]
		ok := m.Step(int(t), ev)
		if visit != nil {
			tr := BuildTrace(prog, events[i:i+1], m)[0]
			visit(ReplayStep{Index: i, Event: ev, Trace: tr, M: m})
		}
		if !ok && i != len(schedule)-1 {
			return events, m, fmt.Errorf("step %d: the execution stopped early (%s)", i+1, ev.Message)
		}
	}
	return events, m, nil
}
