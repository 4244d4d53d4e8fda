package dpor

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine/internal/driver"
	"weft/engine/interp"
)

// TestTset checks the windowed bitset against a map, with members near
// each other and far apart (the window moves, grows down and up).
func TestTset(t *testing.T) {
	for _, spread := range []int{10, 70, 300, 100_000} {
		for seed := int64(0); seed < 20; seed++ {
			t.Run(fmt.Sprintf("spread=%d/%d", spread, seed), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				var s, o tset
				want, other := map[int]bool{}, map[int]bool{}
				for step := 0; step < 500; step++ {
					x := rng.Intn(spread)
					switch r := rng.Intn(100); {
					case r < 50:
						s.add(x)
						want[x] = true
					case r < 70:
						s.remove(x)
						delete(want, x)
					case r < 73:
						s.clear()
						clear(want)
					case r < 75:
						// As enter fills a node's enabled set.
						lo := rng.Intn(spread)
						hi := lo + rng.Intn(spread-lo)
						s.clear()
						s.cover(lo, hi)
						clear(want)
						for k := rng.Intn(5); k > 0; k-- {
							y := lo + rng.Intn(hi-lo+1)
							s.set(y)
							want[y] = true
						}
					case r < 85:
						o.add(x)
						other[x] = true
					case r < 90:
						s.union(&o)
						for y := range other {
							want[y] = true
						}
					case r < 93:
						s.copyFrom(&o)
						want = map[int]bool{}
						for y := range other {
							want[y] = true
						}
					default:
						o.clear()
						clear(other)
					}
					for y := range want {
						if !s.has(y) {
							t.Fatalf("step %d: %d missing", step, y)
						}
					}
					var members []int
					for y := s.next(0); y >= 0; y = s.next(y + 1) {
						if !want[y] {
							t.Fatalf("step %d: %d is not a member", step, y)
						}
						members = append(members, y)
					}
					if len(members) != len(want) || s.empty() != (len(want) == 0) {
						t.Fatalf("step %d: members %v, want %v", step, members, want)
					}
					words := map[int]uint64{}
					for y := range want {
						words[y/64] |= 1 << (y % 64)
					}
					for w := max(s.lo-1, 0); w <= s.lo+len(s.w); w++ {
						if s.wordAt(w) != words[w] {
							t.Fatalf("step %d: word %d is %x, want %x", step, w, s.wordAt(w), words[w])
						}
					}
				}
			})
		}
	}
}

// TestLiveThreads checks the list of live threads against a sorted slice
// through random steps (spawning, finishing) and their undoing.
func TestLiveThreads(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(5)
		var l liveThreads
		l.reset(n, func(t int) bool { return t != 1 })
		var want []int32
		for i := 0; i < n; i++ {
			if i != 1 {
				want = append(want, int32(i))
			}
		}
		stack := [][]int32{slices.Clone(want)}
		threads := n
		counts := []int{threads}
		for step := 0; step < 300; step++ {
			if len(stack) > 1 && rng.Intn(3) == 0 {
				l.undo()
				stack = stack[:len(stack)-1]
				counts = counts[:len(counts)-1]
				want = slices.Clone(stack[len(stack)-1])
				threads = counts[len(counts)-1]
			} else {
				added, removed := int32(-1), int32(-1)
				if rng.Intn(3) == 0 {
					added = int32(threads)
					threads++
					want = append(want, added)
				}
				if len(want) > 0 && rng.Intn(2) == 0 {
					removed = want[rng.Intn(len(want))]
					if removed == added && rng.Intn(2) == 0 {
						removed = -1
					}
					if i := slices.Index(want, removed); removed >= 0 {
						want = slices.Delete(want, i, i+1)
					}
				}
				l.stepped(added, removed)
				stack = append(stack, slices.Clone(want))
				counts = append(counts, threads)
			}
			var got []int32
			for x := l.first; x >= 0; x = l.next[x] {
				got = append(got, x)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, step %d: live %v, want %v", seed, step, got, want)
			}
		}
	}
}

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
