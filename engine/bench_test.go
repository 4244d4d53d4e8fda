package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"weft/engine"
)

func lockCounterSrc(n int) string {
	return fmt.Sprintf(`
var c int
var m mutex
thread inc[i in 0..%d] {
    lock(m)
    c++
    unlock(m)
}
`, n)
}

const localLoop = `
var out int
thread t {
    var s int
    for i in 0..5000 {
        s = s + i * 2
    }
    out = s
}
`

func benchExplore(b *testing.B, src string, algo engine.Algorithm, want int64) {
	prog := load(b, "bench", src)
	b.ResetTimer()
	var execs int64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			b.Fatal(err)
		}
		if want > 0 && res.Executions != want {
			b.Fatalf("%d executions, want %d", res.Executions, want)
		}
		execs += res.Executions
		elapsed += res.Elapsed
	}
	b.ReportMetric(float64(execs)/elapsed.Seconds(), "execs/s")
}

// BenchmarkSDPORLockCounter8: 8 threads incrementing a counter under one
// lock: 8! = 40,320 traces.
func BenchmarkSDPORLockCounter8(b *testing.B) {
	benchExplore(b, lockCounterSrc(8), engine.SDPOR, 40320)
}

// BenchmarkSDPORFig1N10: the QPOR paper's Fig. 1 program with 10 writers:
// 20 traces, many sleep-set-blocked executions.
func BenchmarkSDPORFig1N10(b *testing.B) {
	benchExplore(b, fig1(10), engine.SDPOR, 20)
}

// BenchmarkLocalLoop5000: one execution of a thread that runs a
// 5,000-iteration local loop before its only visible step.
func BenchmarkLocalLoop5000(b *testing.B) {
	benchExplore(b, localLoop, engine.SDPOR, 1)
}

// BenchmarkRestoreVsReplay compares how the explorer gets back to a
// branching point (undoing steps) with re-running each execution from the
// initial state, on the lock counter with N = 7.
func BenchmarkRestoreVsReplay(b *testing.B) {
	prog := load(b, "bench", lockCounterSrc(7))
	var schedules [][]int32
	opts := engine.Options{Algorithm: engine.SDPOR, OnExecution: func(events []engine.Event, _ *engine.Machine) {
		s := make([]int32, len(events))
		for i := range events {
			s[i] = events[i].Thread
		}
		schedules = append(schedules, s)
	}}
	if _, err := engine.Explore(context.Background(), prog, opts); err != nil {
		b.Fatal(err)
	}
	b.Run("undo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.SDPOR}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replay-from-start", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, s := range schedules {
				if _, _, err := engine.Replay(prog, s, engine.ReplayOptions{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkCancellationLatency: how long an exploration takes to return
// once its context is cancelled (the context is checked every 64 steps),
// reported as the custom metric latency-µs, on the lock counter with
// N = 12 (far too many executions to finish).
func BenchmarkCancellationLatency(b *testing.B) {
	prog := load(b, "lock counter 12", lockCounterSrc(12))
	var total time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		done := make(chan time.Time)
		go func() {
			var once sync.Once
			res, err := engine.Explore(ctx, prog, engine.Options{
				OnProgress:       func(engine.Stats) { once.Do(func() { close(started) }) },
				ProgressInterval: time.Millisecond,
			})
			end := time.Now()
			if err != nil || res.Stopped != "cancelled" {
				b.Errorf("err %v, stopped %q", err, res.Stopped)
			}
			done <- end
		}()
		<-started
		cancelled := time.Now()
		cancel()
		total += (<-done).Sub(cancelled)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "latency-µs")
}
