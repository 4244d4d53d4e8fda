package engine_test

import (
	"context"
	"runtime"
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
		// in the undo log, and the 14th is stopped (a few steps under
		// -short, the race run, whose budget of 16 MB cuts it from 105 s
		// to under 30: each step is 300,000 iterations interpreted).
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
`, int64(size(t, "")) << 20},
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

// TestMemoryBudgetIsPerExploration: Options.MaxMemory bounds what one
// exploration holds, not the process's heap, so that a check beside a
// big one (the language server runs several) is not stopped for the
// other's memory; Options.HeapLimit guards the heap as a whole. Before,
// the budget was measured against the whole heap: with 256 MB held
// elsewhere in the process, every check with a 64 MB budget stopped with
// "memory" at once.
func TestMemoryBudgetIsPerExploration(t *testing.T) {
	ballast := make([]byte, 256<<20) // another check's memory
	// Every page written (by copies that double, one instrumented access
	// each under -race, where a loop over the bytes took seconds).
	ballast[0] = 1
	for n := 1; n < len(ballast); n *= 2 {
		copy(ballast[n:], ballast[:n])
	}
	defer runtime.KeepAlive(ballast)
	prog := load(t, "lock counter 5", lockCounterSrc(5))
	for _, algo := range engine.Algorithms {
		free := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxMemory: -1}, false)
		beside := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxMemory: 64 << 20, HeapLimit: 4 << 30}, false)
		if !beside.res.Complete || beside.res.Executions != free.res.Executions {
			t.Errorf("%s beside 256 MB of another check: complete=%v stopped=%q, %d executions; want complete, %d",
				algo, beside.res.Complete, beside.res.Stopped, beside.res.Executions, free.res.Executions)
		}
		// The heap limit is the last guard: at the budget's size (its
		// default), the heap is over it.
		guarded := exploreWith(t, prog, engine.Options{Algorithm: algo, MaxMemory: 64 << 20}, false)
		if guarded.res.Stopped != engine.StoppedMemory {
			t.Errorf("%s with a heap limit of 64 MB beside 256 MB: stopped=%q, want %q", algo, guarded.res.Stopped, engine.StoppedMemory)
		}
	}
	// What an exploration holds is counted without the heap: with a heap
	// limit far away, the exploration's own memory still stops it.
	tests := []struct {
		name   string
		src    string
		algos  []engine.Algorithm
		budget int64
	}{
		{"declared frames", "thread t[k in 0..100] {\n    var a [100000]int\n    a[k] = k\n}\n", engine.Algorithms, 64 << 20},
		// Threads spawned until the budget runs out: the unfolding modes'
		// cost grows faster than the square of the threads (qpor and
		// optimal took 5 s each at 4 MiB, 0.3 s at 1 MiB).
		{"spawned threads", selfSpawnSrc, engine.Algorithms, int64(size(t, "")) << 10},
		{"the unfolding", lockCounterSrc(8), []engine.Algorithm{engine.QPOR, engine.Optimal}, 4 << 20},
	}
	for _, tt := range tests {
		prog := load(t, tt.name, tt.src)
		for _, algo := range tt.algos {
			// (The default step bound: the spawns go on until memory ends.)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: algo, MaxMemory: tt.budget, HeapLimit: 8 << 30})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if res.Stopped != engine.StoppedMemory {
				t.Errorf("%s/%s: stopped=%q after %d executions, want %q", tt.name, algo, res.Stopped, res.Executions, engine.StoppedMemory)
			}
		}
	}
}
