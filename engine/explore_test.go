package engine_test

import (
	"context"
	"testing"
	"time"

	"weft/engine"
)

// Explore's contract beside the exploration itself: cancellation and
// deadlines, bugs streamed through OnBug, the MaxBugs budget.

// TestCancellation: an exploration returns promptly when its context ends,
// says it is incomplete and why, and reports progress meanwhile. How fast
// it returns is measured by BenchmarkCancellationLatency, not asserted: on
// a shared machine a deadline in a test fails for reasons that are not
// bugs.
func TestCancellation(t *testing.T) {
	prog := load(t, "lock counter 12", lockCounterSrc(12)) // 12! executions: far more than fit in the test
	// Cancel at the first progress report; the budget only ends the test
	// if progress is never reported.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := 0
	res, err := engine.Explore(ctx, prog, engine.Options{
		MaxExecutions:    1_000_000,
		ProgressInterval: time.Millisecond,
		OnProgress: func(engine.Stats) {
			progress++
			cancel()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if progress == 0 {
		t.Errorf("no progress reported in %d executions", res.Executions)
	}
	if res.Complete || res.Stopped != "cancelled" {
		t.Errorf("complete=%v stopped=%q, want incomplete, cancelled", res.Complete, res.Stopped)
	}

	// A deadline is reported as a timeout.
	tctx, tcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer tcancel()
	res, err = engine.Explore(tctx, prog, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Stopped != "timeout" {
		t.Errorf("complete=%v stopped=%q, want incomplete, timeout", res.Complete, res.Stopped)
	}
}

// TestBugsStream: OnBug sees each bug once, as it is found, before Explore
// returns.
func TestBugsStream(t *testing.T) {
	prog := load(t, "racy", `
var c int
thread t[i in 0..3] {
    c = c + 1
}
`)
	var streamed []*engine.Bug
	res, err := engine.Explore(context.Background(), prog, engine.Options{OnBug: func(b *engine.Bug) { streamed = append(streamed, b) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(streamed) == 0 || len(streamed) != len(res.Bugs) {
		t.Fatalf("streamed %d bugs, result has %d", len(streamed), len(res.Bugs))
	}
	for i := range streamed {
		if streamed[i].Kind != res.Bugs[i].Kind || streamed[i].Range != res.Bugs[i].Range {
			t.Errorf("bug %d differs", i)
		}
		if len(res.Bugs[i].Schedule) > len(streamed[i].Schedule) {
			t.Errorf("bug %d: the result's trace is longer than the first one found", i)
		}
	}
}

// TestMaxBugs: every mode stops at the N-th distinct bug, incomplete, with
// exactly N bugs, and a budget above the number of bugs changes nothing.
func TestMaxBugs(t *testing.T) {
	prog := load(t, "three bugs", `
var c int
var m mutex
thread a {
    lock(m)
    c = c + 1
    assert c != 1, "a first"
    unlock(m)
}
thread b {
    lock(m)
    c = c + 2
    assert c != 2, "b first"
    unlock(m)
}
thread d {
    lock(m)
    assert c != 0, "d first"
    unlock(m)
}
`)
	for _, algo := range engine.Algorithms {
		full, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if !full.Complete || len(full.Bugs) != 3 {
			t.Fatalf("%s: complete=%v with %d bugs, want a complete run with 3", algo, full.Complete, len(full.Bugs))
		}
		for _, n := range []int{1, 2} {
			res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxBugs: n})
			if err != nil {
				t.Fatal(err)
			}
			if res.Complete || res.Stopped != engine.StoppedMaxBugs || len(res.Bugs) != n {
				t.Errorf("%s, max %d bugs: complete=%v stopped=%q with %d bugs", algo, n, res.Complete, res.Stopped, len(res.Bugs))
			}
		}
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxBugs: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete || len(res.Bugs) != 3 || res.Executions != full.Executions {
			t.Errorf("%s, max 4 bugs: complete=%v, %d bugs, %d executions; want as without: %d executions", algo, res.Complete, len(res.Bugs), res.Executions, full.Executions)
		}
	}
}
