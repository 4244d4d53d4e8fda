package engine

import (
	"fmt"
	"weft/engine/internal/clocks"
)

// Reproduce replays a bug's schedule and checks that the bug happens
// again: the last step stops with the same kind of failure, or the final
// state is a deadlock, or the last step is in a data race.
func Reproduce(prog *Program, bug *Bug) error {
	events, m, err := Replay(prog, bug.Schedule, bug.ReplayOptions(), nil)
	if err != nil {
		return err
	}
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
		c.DataRaces(int32(len(events)-1), prog.Locations, func(int32, int32) { found = true })
		if !found {
			return fmt.Errorf("the last step is in no data race")
		}
	default:
		return fmt.Errorf("unknown bug kind %q", bug.Kind)
	}
	return nil
}
