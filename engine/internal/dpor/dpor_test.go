package dpor

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine/internal/driver"
	"weft/engine/interp"
)

// TestManyThreads: explorations of programs with thousands of threads
// take memory that follows their steps, not threads × steps (issue 14:
// dense clocks and per-node thread sets took gigabytes, or ran out of
// memory, on these programs at 10,000 threads).
func TestManyThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of threads")
	}
	tests := []struct {
		name     string
		src      string
		maxSteps int
		// maxBytes bounds the bytes allocated in all (growth included;
		// sdpor explores twice, coarse then fine). Dense clocks alone
		// took 8 bytes × threads × steps: 140 MB for the chain, 3.2 GB
		// for the spawns, 360 MB for the pool, 290 MB for the declared
		// threads.
		maxBytes uint64
	}{
		{"spawn+join chain", `
proc p(n int) {
    if n > 0 {
        var t tid = spawn p(n - 1)
        join t
    }
}
thread main {
    spawn p(3000)
}`, 0, 60 << 20},
		{"spawns without end", `
proc p() {
    spawn p()
}
thread main {
    spawn p()
}`, 20000, 250 << 20},
		{"pool", `
var m mutex
var x int
proc worker(i int) {
    lock(m)
    x = x + 1
    unlock(m)
}
thread main {
    for i in 0..3000 {
        spawn worker(i)
    }
}`, 0, 150 << 20},
		{"declared threads", `
var m mutex
var x int
thread w[k in 0..3000] {
    lock(m)
    x = x + 1
    unlock(m)
}`, 0, 150 << 20},
	}
	for _, tc := range tests {
		for _, algo := range []Algorithm{SDPOR, DFS} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, algo), func(t *testing.T) {
				ld := lower.Load(tc.name, []byte(tc.src))
				if ld.Exec == nil {
					t.Fatalf("not lowered: %v", ld.Diagnostics)
				}
				opts := driver.Config{
					MaxSteps: tc.maxSteps, MaxExecutions: 1, MaxTraces: 100,
					ProgressInterval: time.Second, LocalBudget: interp.DefaultLocalBudget,
				}
				if opts.MaxSteps == 0 {
					opts.MaxSteps = 100_000
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				res := driver.Explore(ctx, ld.Exec, opts, Mode(algo, nil))
				runtime.ReadMemStats(&after)
				if res.Stopped == driver.StopTimeout {
					t.Fatalf("no execution in a minute")
				}
				alloc := after.TotalAlloc - before.TotalAlloc
				t.Logf("%d steps, %d threads: %.1f MB allocated", res.Events, res.MaxThreads, float64(alloc)/(1<<20))
				if alloc > tc.maxBytes {
					t.Errorf("%.1f MB allocated, more than %d MB", float64(alloc)/(1<<20), tc.maxBytes>>20)
				}
			})
		}
	}
}
