package access

import (
	"context"
	"testing"
	"time"
	"weft/analysis/internal/benchmodel"
)

func TestGeneratedModel(t *testing.T) {
	ld, s := load(t, benchmodel.Generate(1000))
	if n := len(ld.Program.Threads); n < 100 {
		t.Errorf("%d threads", n)
	}
	queryAll(t, ld, s)
}

// BenchmarkAnalyze1000 is Analyze on a 1,000-line model (parsing,
// checking and lowering excluded).
func BenchmarkAnalyze1000(b *testing.B) {
	ld, _ := load(b, benchmodel.Generate(1000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(context.Background(), ld.Program, ld.Exec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInterferenceAll is Interference at every statement of the
// 1,000-line model: what hovering over each would cost in all.
func BenchmarkInterferenceAll(b *testing.B) {
	_, s := load(b, benchmodel.Generate(1000))
	b.ReportAllocs()
	for b.Loop() {
		for _, st := range s.Statements() {
			s.Interference(st)
		}
	}
}

// TestManyInstances analyzes a thread array of the most instances the
// checker allows, each instance evaluated on its own, and queries it:
// bounded work, whatever the instance count.
func TestManyInstances(t *testing.T) {
	src := `
var x [100]int
var y int
var m [7]mutex
thread t[i in 0..10000] {
    x[i % 100] = i
    lock(m[i % 7])
    y++
    unlock(m[i % 7])
}
`
	start := time.Now()
	ld, s := load(t, src)
	if s.bodies[0].rows != 10000 {
		t.Errorf("%d rows, want one per instance", s.bodies[0].rows)
	}
	queryAll(t, ld, s)
	st := s.Statements()[0]
	if got := s.Interference(st); len(got) != 1 || got[0].Threads.String() != "t[0..10000]" {
		t.Errorf("x[i %% 100] = i: %v", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
