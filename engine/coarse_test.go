package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine"
)

// TestCoarseRaceFreePrograms: on random programs without data races, every
// POR mode explores with coarse steps from start to end (no restart), and
// still agrees with dfs (checkAgainstDFS), whose traces are those of the
// fine semantics.
func TestCoarseRaceFreePrograms(t *testing.T) {
	forEachProgram(t, raceFreeProgram, func(t *testing.T, name string, prog *engine.Program, src string) {
		t.Helper()
		ref := dfsReference(t, prog, src, dfsBudget)
		for _, b := range ref.res.Bugs {
			if b.Kind == engine.BugDataRace {
				t.Fatalf("%s: the generator made a racy program\n%s", name, src)
			}
		}
		modes := append([]struct {
			name  string
			algo  engine.Algorithm
			k     int
			prune bool
		}{{"sdpor", engine.SDPOR, 0, false}}, qporModes...)
		for _, mode := range modes {
			got := exploreK(t, prog, mode.algo, mode.k, mode.prune)
			if got.restarts != 0 {
				t.Errorf("%s: %s restarted with fine steps on a race-free program\n%s", name, mode.name, src)
			}
			checkAgainstDFS(t, name, mode.name, prog, src, ref, got)
		}
	})
}

// TestCoarseRestartsOnRace: a race hidden in the tail of a step (after a
// spawn, after an unlock) is found, and the exploration starts over with
// fine steps, so that the count is the fine semantics' one.
func TestCoarseRestartsOnRace(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		traces int64
	}{
		{"write after spawn", `
var a int
proc child() {
    var l int
    l = a
}
thread main {
    spawn child()
    a = 1
}
`, 2},
		{"write after unlock", `
var a int
var m mutex
thread t0 {
    lock(m)
    unlock(m)
    a = 1
}
thread t1 {
    var l int
    lock(m)
    l = a
    unlock(m)
}
`, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			for _, algo := range []engine.Algorithm{engine.SDPOR, engine.QPOR, engine.Optimal} {
				o := explore(t, prog, algo, true)
				if o.restarts != 1 {
					t.Errorf("%s: %d restarts, want 1", algo, o.restarts)
				}
				if o.res.Executions != tc.traces || len(o.res.Bugs) != 1 || o.res.Bugs[0].Kind != engine.BugDataRace {
					t.Errorf("%s: %d executions, bugs %v; want %d executions and one data race", algo, o.res.Executions, bugKeys(o.res), tc.traces)
				}
			}
		})
	}
}

// TestCoarseTrace: a bug found with coarse steps has a trace and a
// schedule of fine steps, one per access.
func TestCoarseTrace(t *testing.T) {
	prog := load(t, "coarse trace", `
var a int
var b int
var m mutex
thread t0 {
    lock(m)
    a = 1
    b = a + 1
    unlock(m)
}
thread t1 {
    var l int
    lock(m)
    l = b
    unlock(m)
    assert l != 2
}
`)
	o := explore(t, prog, engine.Optimal, false)
	if o.restarts != 0 || len(o.res.Bugs) != 1 {
		t.Fatalf("restarts %d, bugs %v", o.restarts, bugKeys(o.res))
	}
	b := o.res.Bugs[0]
	var ops []string
	for _, s := range traceOf(t, b) {
		ops = append(ops, s.Thread+": "+s.Op)
	}
	want := "t0: lock m; t0: write a = 1; t0: read a → 1; t0: write b = 2; t0: unlock m; t1: lock m; t1: read b → 2; t1: unlock m; t1: assertion failed: assertion l != 2 failed"
	if got := strings.Join(ops, "; "); got != want {
		t.Errorf("trace\n%s\nwant\n%s", got, want)
	}
	if len(b.Schedule) != len(traceOf(t, b)) {
		t.Errorf("schedule of %d steps for a trace of %d", len(b.Schedule), len(traceOf(t, b)))
	}
	if err := engine.Reproduce(prog, b); err != nil {
		t.Error(err)
	}
}

// raceFreeProgram generates a small program without data races: x and arr
// are only touched holding m0, y holding m1, z is atomic, and p is only
// touched by t0 and its helper, ordered by spawn and join.
func raceFreeProgram(r *rand.Rand) string {
	var sb strings.Builder
	sb.WriteString("var x int\nvar y int\nvar z atomic int\nvar arr [2]int\nvar p int\nvar m0 mutex\nvar m1 mutex\n")
	useProc := r.Intn(3) == 0
	if useProc {
		sb.WriteString("proc helper(v int) {\n    var l int\n    l = v\n")
		writeRaceFree(&sb, r, 1, "    ", true)
		sb.WriteString("}\n")
	}
	// Small enough for DFS to count every fine interleaving (the test
	// fails when more than 2% of the seeds cannot be compared): three
	// threads get less code each than two.
	threads := 2 + r.Intn(2)
	stmts := 3
	if threads == 3 || useProc {
		stmts = 2
	}
	for t := 0; t < threads; t++ {
		fmt.Fprintf(&sb, "thread t%d {\n    var l int\n", t)
		if useProc && t == 0 {
			sb.WriteString("    p = 1\n    var h tid = spawn helper(1)\n")
		}
		writeRaceFree(&sb, r, 1+r.Intn(stmts), "    ", false)
		if useProc && t == 0 {
			sb.WriteString("    join h\n    l = p\n    assert l != 3\n")
		}
		sb.WriteString("}\n")
	}
	return sb.String()
}

// writeRaceFree writes n statements, each a critical section or an
// access to an atomic (or, in the helper, thread-owned) location.
func writeRaceFree(sb *strings.Builder, r *rand.Rand, n int, ind string, helper bool) {
	for i := 0; i < n; i++ {
		switch r.Intn(6) {
		case 0, 1, 2:
			m := r.Intn(2)
			fmt.Fprintf(sb, "%slock(m%d)\n", ind, m)
			writeSection(sb, r, m, 1+r.Intn(2), ind)
			fmt.Fprintf(sb, "%sunlock(m%d)\n", ind, m)
		case 3:
			fmt.Fprintf(sb, "%sz = z + %d\n", ind, 1+r.Intn(2))
		case 4:
			if helper {
				fmt.Fprintf(sb, "%sp = p + 1\n", ind)
			} else {
				fmt.Fprintf(sb, "%sl = z\n%sassert l != %d\n", ind, ind, 2+r.Intn(3))
			}
		case 5:
			fmt.Fprintf(sb, "%slock(m0)\n%slock(m1)\n", ind, ind)
			writeSection(sb, r, 0, 1, ind)
			writeSection(sb, r, 1, 1, ind)
			fmt.Fprintf(sb, "%sunlock(m1)\n%sunlock(m0)\n", ind, ind)
		}
	}
}

// writeSection writes n statements over the locations mutex m guards.
func writeSection(sb *strings.Builder, r *rand.Rand, m, n int, ind string) {
	ind += "    "
	v := func() string {
		if m == 1 {
			return "y"
		}
		return []string{"x", "arr[0]", "arr[1]"}[r.Intn(3)]
	}
	for i := 0; i < n; i++ {
		switch r.Intn(6) {
		case 0:
			fmt.Fprintf(sb, "%sl = %s\n", ind, v())
		case 1:
			fmt.Fprintf(sb, "%s%s = %d\n", ind, v(), r.Intn(3))
		case 2:
			fmt.Fprintf(sb, "%s%s = %s + 1\n", ind, v(), v())
		case 3:
			fmt.Fprintf(sb, "%sif %s == %d {\n%s    %s = 2\n%s} else {\n%s    l = %s\n%s}\n", ind, v(), r.Intn(2), ind, v(), ind, ind, v(), ind)
		case 4:
			fmt.Fprintf(sb, "%sassert %s != %d\n", ind, v(), 2+r.Intn(3))
		case 5:
			fmt.Fprintf(sb, "%sfor i in 0..2 {\n%s    %s = %s + i\n%s}\n", ind, ind, v(), v(), ind)
		}
	}
}

// TestCoarseStepBound: tails stop at the step bound, so a looping
// thread's step-bound bug has the trace a fine exploration gives it.
func TestCoarseStepBound(t *testing.T) {
	prog := load(t, "loop", `
var x int
thread t {
    while true {
        x = x + 1
    }
}
`)
	for _, algo := range []engine.Algorithm{engine.SDPOR, engine.QPOR, engine.Optimal} {
		for _, every := range []bool{false, true} {
			res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 500, EveryAccess: every})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != engine.BugStepBound {
				t.Fatalf("%s (every access %v): bugs %v", algo, every, bugKeys(res))
			}
			if n := len(traceOf(t, res.Bugs[0])); n != 500 || res.MaxDepth != 500 {
				t.Errorf("%s (every access %v): trace of %d steps, max depth %d; want 500", algo, every, n, res.MaxDepth)
			}
		}
	}
}
