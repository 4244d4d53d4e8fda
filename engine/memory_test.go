package engine_test

import (
	"context"
	"testing"
	"time"

	"weft/engine"
)

// TestMemoryBudget: a model that needs more than Options.MaxMemory stops,
// in every mode, incomplete with Stopped "memory" and without a crash,
// however the memory runs out: the declared threads' frames, spawned
// frames, the undo log of long steps, or the heap as a whole; and a
// model within the budget is explored as without one.
func TestMemoryBudget(t *testing.T) {
	const budget = 64 << 20
	tests := []struct {
		name   string
		src    string
		budget int64
	}{
		// 100 frames of 100,000 words: 80 MB.
		{"declared frames", `
thread t[k in 0..100] {
    var a [100000]int
    a[k] = k
}
`, budget},
		// The same, spawned: a spawn that would not fit is refused (the
		// ninth, before the first measure of the heap).
		{"spawned frames", `
var x atomic int

proc worker(id int) {
    var a [100000]int
    a[id] = id
    x = a[id]
}

thread main {
    for i in 0..100 {
        spawn worker(i)
    }
}
`, 8 << 20},
		// Every step rewrites an array of 300,000 words: each saves 4.8 MB
		// in the undo log, and the 14th is stopped.
		{"undo log", `
var x atomic int

thread t {
    var a [300000]int
    for j in 0..40 {
        for i in 0..300000 {
            a[i] = j
        }
        x = j
    }
}

thread u {
    x = 1
}
`, budget},
		// The Go heap (the test binary's alone) is over a budget of 64 KiB.
		{"heap", lockCounterSrc(6), 64 << 10},
	}
	for _, tt := range tests {
		prog := load(t, tt.name, tt.src)
		for _, algo := range engine.Algorithms {
			t.Run(tt.name+"/"+string(algo), func(t *testing.T) {
				start := time.Now()
				out := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), MaxMemory: tt.budget}, false)
				if out.res.Complete || out.res.Stopped != engine.StoppedMemory {
					t.Errorf("complete=%v stopped=%q, want incomplete, %q", out.res.Complete, out.res.Stopped, engine.StoppedMemory)
				}
				if len(out.res.Bugs) > 0 {
					t.Errorf("reported %s: %s", out.res.Bugs[0].Kind, out.res.Bugs[0].Message)
				}
				t.Logf("stopped after %d executions, %d events, %v", out.res.Executions, out.res.Events, time.Since(start))
			})
		}
	}

	// A step that runs out of memory and races ends the exploration: it
	// does not start it over with fine steps (see "Coarse steps").
	racy := load(t, "racy step past the budget", `
var x int

thread u {
    x = 1
}

thread t {
    x = 2
    var a [300000]int
    a[1] = x
}
`)
	for _, algo := range engine.Algorithms {
		restarts := 0
		res, err := engine.Explore(context.Background(), racy, engine.Options{Algorithm: algo, MaxMemory: 4 << 20, OnRestart: func() { restarts++ }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != engine.StoppedMemory || restarts > 0 {
			t.Errorf("%s: stopped=%q after %d restarts, want %q and none", algo, res.Stopped, restarts, engine.StoppedMemory)
		}
	}

	// Within the budget, nothing changes.
	prog := load(t, "lock counter 5", lockCounterSrc(5))
	for _, algo := range engine.Algorithms {
		free := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxMemory: -1}, false)
		bounded := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxMemory: budget}, false)
		if !bounded.res.Complete || bounded.res.Executions != free.res.Executions || bounded.res.Events != free.res.Events {
			t.Errorf("%s: within the budget: complete=%v stopped=%q, %d executions and %d events, want complete, %d and %d",
				algo, bounded.res.Complete, bounded.res.Stopped, bounded.res.Executions, bounded.res.Events, free.res.Executions, free.res.Events)
		}
	}
}
