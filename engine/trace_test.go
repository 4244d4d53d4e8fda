package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
)

// Every bug's trace, built by the exploration (from coarse steps and
// their tails, in the POR modes; Options.KeepTraces), says of each step
// what a fine replay of its schedule says: its kind, what it acted on,
// whether its thread ended with it; and it is exactly the trace Bug.Trace
// rebuilds from the schedule when the trace is not kept (the default).
// The kind agrees with the words of the op, and a thread ends with
// exactly its last step once it has finished.
func TestTraceEvents(t *testing.T) {
	checked := 0
	check := func(t *testing.T, name string, prog *engine.Program, src string) {
		for _, algo := range engine.Algorithms {
			if err := refusal(prog, algo); err != nil {
				t.Logf("not checked in %s: %v", algo, err)
				continue
			}
			res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), MaxExecutions: 2000, KeepTraces: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range res.Bugs {
				checkTraceEvents(t, prog, b)
				checked++
			}
		}
	}
	// A thread that ends with plain accesses after its last
	// synchronisation: in the POR modes they are the tail of its unlock,
	// and the last of them ends the thread.
	t.Run("tail", func(t *testing.T) {
		check(t, "tail", load(t, "tail", tailModel), tailModel)
	})
	forEachExample(t, check)
	forEachRandomProgram(t, check)
	if checked < 20 {
		t.Errorf("only %d bugs checked", checked)
	}
}

const tailModel = `var w int
var z int
var m mutex

thread a {
    lock(m)
    w = 1
    unlock(m)
    z = 1
    z = z + 1
}

thread b {
    lock(m)
    assert w == 0, "a went first"
    unlock(m)
}
`

func checkTraceEvents(t *testing.T, prog *engine.Program, b *engine.Bug) {
	t.Helper()
	states, err := engine.StepStates(context.Background(), prog, b.Schedule, b.ReplayOptions(), 0, 0)
	if err != nil {
		t.Fatalf("%s: %v", b.Message, err)
	}
	trace := traceOf(t, b)
	rebuilt := *b
	rebuilt.SetTrace(nil)
	if again := traceOf(t, &rebuilt); !slices.Equal(trace, again) {
		t.Errorf("%s: the trace kept when found differs from the one rebuilt from the schedule:\n%v\n%v", b.Message, trace, again)
	}
	if len(states) != len(trace) {
		t.Fatalf("%s: %d states for %d steps", b.Message, len(states), len(trace))
	}
	lastOf := map[string]int{}
	for i, st := range states {
		tr := trace[i]
		if tr.Kind != st.Kind || tr.Object != st.Object || tr.Ends != st.Ends || tr.Op != st.Op {
			t.Errorf("%s: step %d: traced %v %q ends %v (%q), replayed %v %q ends %v (%q)", b.Message, i+1,
				tr.Kind, tr.Object, tr.Ends, tr.Op, st.Kind, st.Object, st.Ends, st.Op)
		}
		word, _, _ := strings.Cut(st.Op, " ")
		word, _, _ = strings.Cut(word, "(") // "wait(cv, m)", "signal(cv) wakes t"
		word = strings.TrimSuffix(word, ":")
		if st.Kind == ir.EvWake && strings.HasPrefix(st.Op, "spurious wake-up ") {
			word = "wake"
		}
		switch st.Kind {
		case ir.EvStop:
			if st.Object != "" {
				t.Errorf("%s: step %d, a stop, acts on %q", b.Message, i+1, st.Object)
			}
		case ir.EvAtomic:
		default:
			if word != st.Kind.String() || st.Object == "" || !strings.Contains(st.Op, st.Object) {
				t.Errorf("%s: step %d %q: kind %v object %q", b.Message, i+1, st.Op, st.Kind, st.Object)
			}
		}
		lastOf[st.Thread] = i
	}
	final := states[len(states)-1]
	for _, th := range final.Threads {
		last := lastOf[th.Name]
		for i, st := range states {
			if st.Thread == th.Name && st.Ends != (th.Status == "finished" && i == last) {
				t.Errorf("%s: step %d of %s (%s): ends %v", b.Message, i+1, th.Name, th.Status, st.Ends)
			}
		}
	}
}

// traceOf is b's trace in words, rebuilt from its schedule.
func traceOf(t testing.TB, b *engine.Bug) []engine.TraceStep {
	t.Helper()
	steps, err := b.Trace()
	if err != nil {
		t.Fatalf("%s: %v", b.Message, err)
	}
	return steps
}
