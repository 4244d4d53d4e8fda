package engine

import (
	"fmt"

	"weft/engine/internal/clocks"
	"weft/source"
)

// Reproduce replays a bug's schedule and checks that the bug happens
// again: the last step stops with the same kind of failure and message,
// or the final state is a deadlock, or the last step is in a data race
// with the bug's other access. Of a sliced bug (Bug.Sliced) it replays
// the whole execution too, which must show the bug so, and checks the
// slice against it: the same failure, the same race; for a deadlock,
// each thread blocked at the end of the whole execution blocked at the
// same place at the end of the slice (the other threads may still move
// there: their remaining steps are left out).
func Reproduce(prog *Program, bug *Bug) error {
	if !bug.Sliced() {
		_, err := reproduce(prog, bug, nil)
		return err
	}
	mFull, err := reproduce(prog, bug.Full(), nil)
	if err != nil {
		return fmt.Errorf("the whole execution: %w", err)
	}
	if _, err := reproduce(prog, bug, mFull); err != nil {
		return fmt.Errorf("the slice: %w", err)
	}
	return nil
}

// reproduce is Reproduce for bug's schedule alone. full, for the slice
// of a deadlock, is the machine at the end of the whole execution; it
// returns the machine at the end of bug's schedule.
func reproduce(prog *Program, bug *Bug, full *Machine) (*Machine, error) {
	events, m, err := Replay(prog, bug.Schedule, bug.ReplayOptions(), nil)
	if err != nil {
		return m, err
	}
	return m, reproduced(prog, bug, events, m, full)
}

// reproduced checks that the execution of events, ending in m, shows bug
// (see reproduce).
func reproduced(prog *Program, bug *Bug, events []Event, m *Machine, full *Machine) error {
	var last *Event
	if len(events) > 0 {
		last = &events[len(events)-1]
	}
	switch bug.Kind {
	case BugAssertion, BugRuntimeError:
		want := StopAssertion
		if bug.Kind == BugRuntimeError {
			want = StopRuntimeError
		}
		if last == nil || last.Stop != want {
			return fmt.Errorf("the last step does not fail with %s", bug.Kind)
		}
		if last.Message != bug.Message {
			return fmt.Errorf("the last step fails with %q, not %q", last.Message, bug.Message)
		}
	case BugDeadlock:
		if full != nil {
			return sameBlocked(m, full)
		}
		unfinished := false
		for t, th := range m.Threads {
			if m.Enabled(t) {
				return fmt.Errorf("thread %s can still move", th.Name)
			}
			unfinished = unfinished || th.Status != Finished
			if m.StaleSpin(t) {
				return fmt.Errorf("thread %s spins on a location written since it read it: the execution is spin-blocked, not a deadlock", th.Name)
			}
		}
		if !unfinished {
			return fmt.Errorf("every thread finished")
		}
	case BugStepBound:
		if last != nil && last.Stop == StopStepBound {
			return nil
		}
		if len(bug.Schedule) == 0 {
			return fmt.Errorf("empty schedule")
		}
	case BugDataRace:
		c := clocks.ForProgram(len(prog.Threads), prog.Locations)
		c.FullRaceWalk = true // any earlier access in a race with the last step will do
		found := false
		for i := range events {
			c.Push(&events[i], len(m.Threads), nil)
		}
		if last == nil {
			return fmt.Errorf("empty schedule")
		}
		c.DataRaces(int32(len(events)-1), prog.Locations, func(other int32, _ int32) {
			if o := &events[other]; bug.Other == nil || sameLines(rangeOf(m, o.Thread, o.PC), bug.Other.Range) {
				found = true
			}
		})
		if !found {
			if bug.Other != nil {
				return fmt.Errorf("the last step is in no data race with the access at %v", bug.Other.Range)
			}
			return fmt.Errorf("the last step is in no data race")
		}
	default:
		return fmt.Errorf("unknown bug kind %q", bug.Kind)
	}
	return nil
}

// sameBlocked checks that every thread blocked at the end of the whole
// execution (full) is blocked at the same place in m, the end of its
// slice, and spins on nothing changed since.
func sameBlocked(m, full *Machine) error {
	blocked := 0
	for t, th := range full.Threads {
		if th.Status == Finished {
			continue
		}
		blocked++
		if t >= len(m.Threads) {
			return fmt.Errorf("thread %s, blocked in the whole execution, is not spawned", th.Name)
		}
		st := m.Threads[t]
		switch {
		case st.Name != th.Name:
			return fmt.Errorf("thread %d is %s, not %s", t, st.Name, th.Name)
		case st.Status == Finished || m.Enabled(t):
			return fmt.Errorf("thread %s, blocked in the whole execution, can move", th.Name)
		case st.PC != th.PC || st.Status != th.Status:
			return fmt.Errorf("thread %s is blocked elsewhere than in the whole execution", th.Name)
		case m.StaleSpin(t):
			return fmt.Errorf("thread %s spins on a location written since it read it", th.Name)
		}
	}
	if blocked == 0 {
		return fmt.Errorf("every thread finished")
	}
	return nil
}

// sameLines reports whether two ranges start and end at the same lines
// and columns (a range read back from a report has no byte offsets).
func sameLines(a, b source.Range) bool {
	return a.Start.Line == b.Start.Line && a.Start.Col == b.Start.Col && a.End.Line == b.End.Line && a.End.Col == b.End.Col
}

// rangeOf is the source range of thread t's instruction pc.
func rangeOf(m *Machine, t, pc int32) source.Range {
	if int(t) >= len(m.Threads) {
		return source.Range{}
	}
	if r := m.Threads[t].Body.Ranges; int(pc) < len(r) {
		return r[pc]
	}
	return source.Range{}
}
