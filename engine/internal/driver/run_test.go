package driver

import (
	"context"
	"sync"
	"testing"

	"weft/engine/ir"
	"weft/source"
)

// TestRunWithoutWorker: a mode with no machine (a symbolic one) uses a
// run alone: its bugs go through the same sink (one per key, the
// canonical schedule kept, OnBug once per bug), and its stop reasons
// and budgets are the run's.
func TestRunWithoutWorker(t *testing.T) {
	var delivered []*Found
	r := NewRun(context.Background(), &ir.Program{}, Config{MaxTraces: 10, MaxBugs: 2, OnBug: func(b *Found) { delivered = append(delivered, b) }})
	at := func(off int) source.Range { return source.Range{Start: source.Pos{Offset: off}} }
	r.Report(&Found{Kind: BugAssertion, Message: "long", Range: at(5), Schedule: []int32{0, 1, 0, 1}}, "a", 5, "")
	r.Report(&Found{Kind: BugAssertion, Message: "short", Range: at(5), Schedule: []int32{1, 0}}, "a", 5, "")
	if r.Stopped() != NotStopped {
		t.Fatalf("stopped %d after one distinct bug of MaxBugs 2", r.Stopped())
	}
	r.Report(&Found{Kind: BugDeadlock, Message: "d", Range: at(1), Schedule: []int32{0}}, "d", 1, "")
	if r.Stopped() != StopMaxBugs {
		t.Errorf("stopped %d after two distinct bugs, want StopMaxBugs", r.Stopped())
	}
	out := r.Outcome()
	if len(delivered) != 2 || delivered[0].Message != "long" {
		t.Errorf("OnBug got %d bugs (first %q), want each once, as first found", len(delivered), delivered[0].Message)
	}
	if len(out.Bugs) != 2 || out.Bugs[0].Kind != BugDeadlock || out.Bugs[1].Message != "short" || out.Bugs[1].FirstMessage != "long" {
		t.Errorf("outcome %+v %+v: want the deadlock (earlier position) first, then the assertion with its shorter schedule", out.Bugs[0], out.Bugs[1])
	}
	if out.Complete {
		t.Errorf("complete after a stop")
	}
}

// TestRunConcurrentReports: workers of one run report from several
// goroutines (run with -race): every distinct bug is kept once, with its
// canonical schedule, and every count flushed is counted once.
func TestRunConcurrentReports(t *testing.T) {
	r := NewRun(context.Background(), &ir.Program{}, Config{MaxTraces: 100})
	sched := func(g, i int) []int32 {
		s := make([]int32, 2+(i+g)%5)
		s[0] = int32(g)
		return s
	}
	want := map[string][]int32{}
	for g := 0; g < 4; g++ {
		for i := 0; i < 200; i++ {
			key, s := string(rune('a'+i%20)), sched(g, i)
			if w, ok := want[key]; !ok || compareSchedules(s, nil, w, nil) < 0 {
				want[key] = s
			}
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				r.Report(&Found{Kind: BugAssertion, Range: source.Range{Start: source.Pos{Offset: i % 20}}, Schedule: sched(g, i)}, string(rune('a'+i%20)), i%20, "")
				r.flush(&Counters{Executions: 1}, r.start)
			}
		}()
	}
	wg.Wait()
	out := r.Outcome()
	if len(out.Bugs) != 20 || out.Executions != 800 {
		t.Fatalf("%d bugs, %d executions; want 20, 800", len(out.Bugs), out.Executions)
	}
	for _, b := range out.Bugs {
		if compareSchedules(b.Schedule, nil, want[b.key], nil) != 0 {
			t.Errorf("%s kept %v, want the canonical %v", b.key, b.Schedule, want[b.key])
		}
	}
}
