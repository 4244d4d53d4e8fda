package engine_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"weft/engine"
)

// tasLockSrc is a test-and-set spin lock of three threads that counts
// its failed attempts in a shared word: `while tas() { tries++ }` changes
// a word on every turn, so no spin waits and every thread can loop to the
// step bound. (Without the count a failed attempt writes l over itself
// and changes nothing: the thread would wait, see "Writes that change
// nothing" in engine/interp/spin.go.)
const tasLockSrc = `
var l atomic bool
var c int
var tries atomic int

func tas() bool {
    var old bool
    atomic {
        old = l
        l = true
    }
    return old
}

thread t[i in 0..3] {
    while tas() {
        tries++
    }
    c = c + 1
    l = false
}
`

// storesSrc is a thread of n distinct stores to x beside a thread that
// writes x once: n distinct data races, each with a trace of up to n
// steps.
func storesSrc(n int) string {
	var b strings.Builder
	b.WriteString("var x int\nthread a {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    x = %d\n", i)
	}
	b.WriteString("}\nthread b {\n    x = 1\n}\n")
	return b.String()
}

// selfSpawnSrc spawns without end.
const selfSpawnSrc = "proc p() {\n    spawn p()\n}\nthread main {\n    spawn p()\n}\n"

// TestMaxDepthCountsBugExecutions (issue 3): the longest execution of the
// statistics is never shorter than a bug's trace, also when the
// exploration stops at the bug (MaxBugs) or cuts the execution there (the
// step bound of the POR modes).
func TestMaxDepthCountsBugExecutions(t *testing.T) {
	tas := load(t, "tas", tasLockSrc)
	lost := load(t, "lost update", lostUpdateSrc)
	tests := []struct {
		name     string
		prog     *engine.Program
		maxBugs  int
		maxSteps int
		maxExecs int64
	}{
		{"tas lock, first bug", tas, 1, 300, 0},
		{"tas lock, 500 executions", tas, 0, 40, 500},
		{"lost update, first bug", lost, 1, 0, 0},
	}
	for _, tt := range tests {
		for _, algo := range engine.Algorithms {
			t.Run(tt.name+"/"+string(algo), func(t *testing.T) {
				res, err := engine.Explore(context.Background(), tt.prog, engine.Options{Algorithm: algo, MaxBugs: tt.maxBugs, MaxSteps: tt.maxSteps, MaxExecutions: tt.maxExecs})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Bugs) == 0 {
					t.Fatal("no bug found")
				}
				for _, b := range res.Bugs {
					if len(b.Schedule) > res.MaxDepth || len(traceOf(t, b)) > res.MaxDepth {
						t.Errorf("longest execution %d steps, but the %s bug's trace has %d", res.MaxDepth, b.Kind, len(traceOf(t, b)))
					}
				}
			})
		}
	}
}

const lostUpdateSrc = `
var c int

thread incr[k in 0..2] {
    c = c + 1
}

thread main {
    join incr[0]
    join incr[1]
    assert c == 2, "an increment was lost"
}
`

// TestOptionLimits (issue 8): every option value the engine cannot honour
// is refused with an error, and the largest ones it accepts give the
// same, exact result as the defaults (no product of an option wraps
// around).
func TestOptionLimits(t *testing.T) {
	prog := load(t, "lost update", lostUpdateSrc)
	for _, algo := range engine.Algorithms {
		ref, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if !ref.Complete || len(ref.Bugs) != 2 {
			t.Fatalf("%s: complete=%v with %d bugs, want complete with 2", algo, ref.Complete, len(ref.Bugs))
		}
		accepted := []struct {
			name string
			opts engine.Options
		}{
			{"MaxSteps = MaxMaxSteps", engine.Options{MaxSteps: engine.MaxMaxSteps}},
			{"MaxExecutions = MaxInt64", engine.Options{MaxExecutions: math.MaxInt64}},
			{"MaxBugs = MaxInt", engine.Options{MaxBugs: math.MaxInt}},
			{"MaxTraces = MaxInt", engine.Options{MaxTraces: math.MaxInt}},
			{"LocalBudget = MaxInt", engine.Options{LocalBudget: math.MaxInt}},
			{"MaxMemory = MaxInt64", engine.Options{MaxMemory: math.MaxInt64}},
		}
		if algo == engine.QPOR {
			accepted = append(accepted, struct {
				name string
				opts engine.Options
			}{"K = MaxInt", engine.Options{QPOR: engine.QPOROptions{K: math.MaxInt}}})
		}
		for _, tt := range accepted {
			opts := tt.opts
			opts.Algorithm = algo
			res, err := engine.Explore(context.Background(), prog, opts)
			if err != nil {
				t.Errorf("%s, %s: %v", algo, tt.name, err)
				continue
			}
			if !res.Complete || len(res.Bugs) != len(ref.Bugs) || res.Executions != ref.Executions || res.Events != ref.Events {
				t.Errorf("%s, %s: complete=%v (%s), %d bugs, %d executions, %d events; want complete, %d, %d, %d",
					algo, tt.name, res.Complete, res.Stopped, len(res.Bugs), res.Executions, res.Events, len(ref.Bugs), ref.Executions, ref.Events)
			}
		}
		refused := []struct {
			name string
			opts engine.Options
		}{
			{"MaxSteps = MaxMaxSteps+1", engine.Options{MaxSteps: engine.MaxMaxSteps + 1}},
			{"MaxSteps = 2^62", engine.Options{MaxSteps: 1 << 62}},
			{"MaxSteps = MaxInt", engine.Options{MaxSteps: math.MaxInt}},
			{"MaxSteps < 0", engine.Options{MaxSteps: -1}},
			{"MaxExecutions < 0", engine.Options{MaxExecutions: -1}},
			{"MaxBugs < 0", engine.Options{MaxBugs: -1}},
			{"MaxTraces < 0", engine.Options{MaxTraces: -1}},
			{"LocalBudget < 0", engine.Options{LocalBudget: -1}},
			{"K < 0", engine.Options{QPOR: engine.QPOROptions{K: -1}}},
		}
		for _, tt := range refused {
			opts := tt.opts
			opts.Algorithm = algo
			if res, err := engine.Explore(context.Background(), prog, opts); err == nil {
				t.Errorf("%s, %s: accepted (complete=%v, %d bugs), want an error", algo, tt.name, res.Complete, len(res.Bugs))
			}
		}
	}
}

// TestBugsBeyondMaxTraces: the bugs past Options.MaxTraces are counted in
// Result.Omitted, per kind and variable, with their lines; with the
// kept ones they are exactly the bugs of an exploration that keeps all.
func TestBugsBeyondMaxTraces(t *testing.T) {
	prog := load(t, "12 stores", storesSrc(12))
	for _, algo := range engine.Algorithms {
		all, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Bugs) != 12 || len(all.Omitted) != 0 {
			t.Fatalf("%s: %d bugs kept, %d summaries; want the 12 races, none", algo, len(all.Bugs), len(all.Omitted))
		}
		some, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxTraces: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(some.Bugs) != 5 || len(some.Omitted) != 1 {
			t.Fatalf("%s: %d bugs kept, %d summaries; want 5 and 1", algo, len(some.Bugs), len(some.Omitted))
		}
		s := some.Omitted[0]
		// The summary covers the races not kept (which are kept does not
		// depend on the order found: see Result.Bugs).
		kept := map[string]bool{}
		for _, b := range some.Bugs {
			kept[b.Range.String()+b.Other.Range.String()] = true
		}
		lines := map[int]bool{}
		for _, b := range all.Bugs {
			if !kept[b.Range.String()+b.Other.Range.String()] {
				lines[b.Range.Start.Line+1] = true
				lines[b.Other.Range.Start.Line+1] = true
			}
		}
		if s.Kind != engine.BugDataRace || s.Variable != "x" || s.Count != 7 || !lines[s.Lines[0]] || !lines[s.Lines[1]] || !lines[s.OtherLines[0]] || !lines[s.OtherLines[1]] {
			t.Errorf("%s: summary %+v (%s), want 7 data races on x among the lines %v", algo, s, s, lines)
		}
		if !some.Complete || some.Executions != all.Executions {
			t.Errorf("%s: complete=%v, %d executions; want complete, %d", algo, some.Complete, some.Executions, all.Executions)
		}
		// MaxBugs counts the bugs not kept too.
		capped, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxTraces: 2, MaxBugs: 4})
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(len(capped.Bugs)) + sumOmitted(capped); capped.Stopped != engine.StoppedMaxBugs || n != 4 {
			t.Errorf("%s: MaxBugs 4 with MaxTraces 2: stopped %q after %d bugs, want %q after 4", algo, capped.Stopped, n, engine.StoppedMaxBugs)
		}
	}
}

func sumOmitted(res *engine.Result) int64 {
	n := int64(0)
	for _, s := range res.Omitted {
		n += s.Count
	}
	return n
}

// TestBudgetsHoldOnHostileModels (issue 9): on models that pour out bugs
// with long traces, that spin to the step bound through the unfolding's
// longest operations, or that spawn without end, every mode stops within
// a second of its deadline, and within its memory budget.
func TestBudgetsHoldOnHostileModels(t *testing.T) {
	stores := size(t, "")
	// Each exploration runs to its deadline (the memory budget ends the
	// self-spawning one first): 2 s in the long run, 1 s by default.
	deadline := time.Second
	if longRun() {
		deadline = 2 * time.Second
	}
	tests := []struct {
		name     string
		src      string
		algos    []engine.Algorithm
		deadline time.Duration
		budget   int64
		want     []engine.StopReason // acceptable Stopped values ("" : complete)
	}{
		{fmt.Sprintf("%d stores beside one", stores), storesSrc(stores), engine.Algorithms, deadline, 512 << 20, []engine.StopReason{engine.StoppedTimeout, engine.NotStopped}},
		{"test-and-set lock", tasLockSrc, []engine.Algorithm{engine.QPOR, engine.Optimal}, deadline, 512 << 20, []engine.StopReason{engine.StoppedTimeout}},
		// The memory budget, not the deadline, ends it (within 2 s here,
		// but -race is slower).
		{"self-spawning proc", selfSpawnSrc, engine.Algorithms, 30 * time.Second, 64 << 20, []engine.StopReason{engine.StoppedMemory}},
	}
	for _, tt := range tests {
		prog := load(t, tt.name, tt.src)
		for _, algo := range tt.algos {
			t.Run(tt.name+"/"+string(algo), func(t *testing.T) {
				deadline := tt.deadline
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				start := time.Now()
				res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: algo, MaxMemory: tt.budget})
				took := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v: stopped %q, %d executions, %d events, %d bugs kept, %v omitted", took, res.Stopped, res.Executions, res.Events, len(res.Bugs), res.Omitted)
				if took > deadline+time.Second {
					t.Errorf("took %v, more than a second past the deadline of %v", took, deadline)
				}
				ok := false
				for _, w := range tt.want {
					ok = ok || res.Stopped == w
				}
				if !ok {
					t.Errorf("stopped %q, want one of %q", res.Stopped, tt.want)
				}
				if len(res.Bugs) > engine.DefaultMaxTraces {
					t.Errorf("%d bugs kept with their traces, more than %d", len(res.Bugs), engine.DefaultMaxTraces)
				}
				steps := 0
				for _, b := range res.Bugs {
					steps += b.TraceLen()
				}
				// The bugs kept take at most a quarter of the budget: a
				// bug keeps its schedule and choices, 8 bytes a step (its
				// trace in words is rebuilt when shown).
				if max := tt.budget / 4 / 8; int64(steps) > max {
					t.Errorf("the bugs kept have %d trace steps, more than the %d a quarter of the budget holds", steps, max)
				}
			})
		}
	}
}
