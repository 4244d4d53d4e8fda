package engine

import (
	"fmt"
	"strings"
	"weft/engine/internal/clocks"
)

// Reproduce replays a bug's schedule and checks that the bug happens
// again: the last step stops with the same kind of failure, or the final
// state is a deadlock, or the last step is in a data race.
func Reproduce(prog *Program, bug *Bug) error {
	events, m, err := Replay(prog, bug.Schedule, bug.LocalBudget, nil)
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
		c := clocks.New(len(prog.Threads), len(prog.Locations))
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

// FormatWords renders size words of shared memory from offset (an array
// with dims, or a scalar) for display: "3", "{0, 7, 7}", "{{1, 2}, {3, 4}}".
func FormatWords(prog *Program, m *Machine, offset, size int, dims []int) string {
	words := m.Mem[offset : offset+size]
	return formatNested(words, dims, func(i int, v int64) string {
		return formatValue(prog, m, int32(offset+i), v)
	})
}

// FormatLocal renders a local variable of a thread.
func FormatLocal(m *Machine, th *Thread, lv LocalVar) string {
	if lv.Slot+lv.Size > len(th.Frame) {
		return "?"
	}
	words := th.Frame[lv.Slot : lv.Slot+lv.Size]
	return formatNested(words, lv.Dims, func(_ int, v int64) string {
		return formatWord(m, lv.Bool, lv.Tid, v)
	})
}

func formatNested(words []int64, dims []int, elem func(int, int64) string) string {
	if len(dims) == 0 {
		if len(words) == 0 {
			return "?"
		}
		return elem(0, words[0])
	}
	var sb strings.Builder
	var rec func(lo int, d int)
	rec = func(lo int, d int) {
		sb.WriteByte('{')
		stride := 1
		for _, n := range dims[d+1:] {
			stride *= n
		}
		for i := 0; i < dims[d]; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			if d == len(dims)-1 {
				sb.WriteString(elem(lo+i, words[lo+i]))
			} else {
				rec(lo+i*stride, d+1)
			}
		}
		sb.WriteByte('}')
	}
	rec(0, 0)
	return sb.String()
}
