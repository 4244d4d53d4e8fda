package unfolding

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine/internal/driver"
	"weft/engine/ir"
)

// spinShape is a spin-wait of one of the kinds engine/gen_test.go's
// spinProgram makes (a flag that is atomic, plain, or read under a
// mutex), with what the unfolding modes must find at a step bound of n:
// the number of executions (one per Mazurkiewicz trace within the bound
// on causal pasts: the modes agree on it) and the kinds of the bugs.
type spinShape struct {
	name  string
	src   string
	execs func(n int64) int64
	bugs  string // sorted kinds, space-separated
}

// spinShapes: their counts are those the earlier, quadratic,
// implementation found (checked against DFS at small bounds by the
// differential tests). The two simplest: a racy flag has n+1 executions
// (the write after each of the n reads the bound lets the loop make but
// the last, then the waiter's read of 1; or no write within the bound);
// an atomic flag set by the fourth step of its thread, n-2 (the write's
// past holds three steps of its thread).
var spinShapes = []spinShape{
	{"atomic flag set after three steps", `var flag atomic int
var data atomic int

thread producer {
    data = 1
    data = 2
    data = 42
    flag = 1
}

thread consumer {
    while flag == 0 {
    }
    assert data == 42, "the consumer saw the data"
}
`, func(n int64) int64 { return n - 2 }, "step-bound"},
	{"racy flag", `var flag int

thread waiter {
    while flag == 0 {
    }
}

thread setter {
    flag = 1
}
`, func(n int64) int64 { return n + 1 }, "data-race step-bound"},
	{"racy flag set after three steps", `var flag int
var data int

thread waiter {
    while flag == 0 {
    }
    assert data == 42, "the waiter saw the data"
}

thread setter {
    data = 1
    data = 2
    data = 42
    flag = 1
}
`, func(n int64) int64 { return n - 2 }, "data-race step-bound"},
	{"flag read under a mutex", `var flag int
var data int
var m mutex

thread waiter {
    var l int
    while true {
        lock(m)
        l = flag
        unlock(m)
        if l != 0 {
            break
        }
    }
    lock(m)
    assert data == 42, "the waiter saw the data"
    unlock(m)
}

thread setter {
    lock(m)
    data = 1
    data = 42
    flag = 1
    unlock(m)
}
`, func(n int64) int64 { return (n + 5) / 3 }, "step-bound"},
	{"atomic flag, a read in the loop", `var flag atomic int
var data atomic int
var other atomic int

thread producer {
    data = 1
    data = 2
    data = 42
    flag = 1
}

thread consumer {
    var l int
    while flag == 0 {
        l = other
    }
    assert data == 42, "the consumer saw the data"
}
`, func(n int64) int64 { return (n + 1) / 2 }, "step-bound"},
	{"atomic flag, a third thread on the data", `var flag atomic int
var data atomic int
var z atomic int

thread producer {
    data = 1
    data = 42
    flag = 1
}

thread consumer {
    while flag == 0 {
    }
    assert data == 42, "the consumer saw the data"
}

thread other {
    z = 1
    data = 3
    z = 2
}
`, func(n int64) int64 { return 4*n - 11 }, "assertion step-bound"},
}

// spinModes are the unfolding modes (pruning after every call is
// quadratic by design, and left out).
var spinModes = []struct {
	name string
	k    int // 0: optimal
}{
	{"qpor-k1", 1},
	{"qpor-k2", 2},
	{"optimal", 0},
}

// loadSpin loads a spin shape.
func loadSpin(tb testing.TB, sh spinShape) *ir.Program {
	tb.Helper()
	ld := lower.Load(sh.name, []byte(sh.src))
	for _, d := range ld.Diagnostics {
		if d.Severity == 1 {
			tb.Fatalf("%s: %s", sh.name, d)
		}
	}
	if ld.Exec == nil {
		tb.Fatalf("%s: not lowered", sh.name)
	}
	return ld.Exec
}

// exploreSpin explores prog at step bound n, U pruned from pruneMin
// events, and returns the result and the effort of its explorers (two if
// the exploration started over with fine steps at a data race).
func exploreSpin(prog *ir.Program, k, n, pruneMin int) (*driver.Outcome, effort) {
	var f effort
	// These spins run to the step bound: spin-waiting off (it would
	// park each spinner after one iteration).
	cfg := driver.Config{MaxSteps: n, MaxTraces: 100, ProgressInterval: time.Second, NoSpinWait: true}
	mode := Mode(k, false)
	mode.Explore = func(x *driver.Worker) {
		e := runExplorer(x, k, pruneMin).effort
		f.considered += e.considered
		f.buckets += e.buckets
		f.histories += e.histories
		f.deps += e.deps
	}
	res := driver.Explore(context.Background(), prog, cfg, mode)
	return res, f
}

func bugKinds(res *driver.Outcome) string {
	seen := map[string]bool{}
	var kinds []string
	for _, b := range res.Bugs {
		if k := string(b.Kind); !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return strings.Join(kinds, " ")
}

// TestSpinCounts: spin loops to a step bound of a few thousand steps, in
// every unfolding mode, find exactly their executions and bugs, complete.
func TestSpinCounts(t *testing.T) {
	const n = 3000
	for _, sh := range spinShapes {
		prog := loadSpin(t, sh)
		for _, mode := range spinModes {
			t.Run(sh.name+"/"+mode.name, func(t *testing.T) {
				res, _ := exploreSpin(prog, mode.k, n, qporPruneMin)
				if want := sh.execs(n); res.Counters.Executions != want || !res.Complete || bugKinds(res) != sh.bugs || res.Anomalies != 0 {
					t.Errorf("%d executions (want %d), complete %v, bugs %q (want %q), anomalies %d %s",
						res.Counters.Executions, want, res.Complete, bugKinds(res), sh.bugs, res.Anomalies, res.FirstAnomaly)
				}
			})
		}
	}
}

// TestSpinEffortLinear: the work of the unfolding modes on a spin loop
// grows linearly with its step bound. Every read of the spin is a
// branch of the exploration, so a cost per branch that grows with the
// spin makes the whole quadratic: candidates above the reads of the
// spin taken up and turned down again at every read, the versions of
// the write that ends it enumerated again at every read, empty buckets
// walked, a lock's own earlier entries passed one by one when en(C) is
// computed anew after a pruning. (With those, four times the bound cost
// from 9 to 16 times the effort.) U is pruned from 200 events here, as
// it is from 50,000 on the longer spins of real use.
func TestSpinEffortLinear(t *testing.T) {
	const n, pruneMin = 500, 200
	for _, sh := range spinShapes {
		prog := loadSpin(t, sh)
		for _, mode := range spinModes {
			t.Run(sh.name+"/"+mode.name, func(t *testing.T) {
				_, small := exploreSpin(prog, mode.k, n, pruneMin)
				_, large := exploreSpin(prog, mode.k, 4*n, pruneMin)
				r := float64(large.total()) / float64(small.total())
				t.Logf("effort %d at bound %d, %d at %d: %.2f times", small.total(), n, large.total(), 4*n, r)
				if r > 5 {
					t.Errorf("effort %d at bound %d, %d at %d: %.1f times (%+v, %+v)", small.total(), n, large.total(), 4*n, r, small, large)
				}
			})
		}
	}
}

// BenchmarkSpin explores the spin shapes at growing step bounds, to show
// how the unfolding modes scale on them (ns/op should grow about as the
// bound; ns/step is per unit of the bound):
//
//	go test ./engine/internal/unfolding -run XXX -bench Spin
func BenchmarkSpin(b *testing.B) {
	for i, sh := range spinShapes {
		prog := loadSpin(b, sh)
		for _, mode := range spinModes {
			if i > 0 && mode.k != 0 {
				continue // the first shape in every mode, the others in optimal
			}
			for _, n := range []int{1_000, 10_000, 100_000} {
				b.Run(fmt.Sprintf("%s/%s/%d", sh.name, mode.name, n), func(b *testing.B) {
					for range b.N {
						res, _ := exploreSpin(prog, mode.k, n, qporPruneMin)
						if want := sh.execs(int64(n)); res.Counters.Executions != want {
							b.Fatalf("%d executions, want %d", res.Counters.Executions, want)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
				})
			}
		}
	}
}
