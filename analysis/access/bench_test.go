package access

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// generate writes an error-free model of about lines lines: thread arrays
// and single threads with locks, loops, branches, constant and computed
// indexes, atomic blocks, spawns and joins of procs.
func generate(lines int) string {
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	line("const N = 8")
	line("var data [N][N]int")
	line("var sums [N]int")
	line("var flags [N]bool")
	line("var total atomic int")
	line("var locks [N]mutex")
	line("var big mutex")
	line("proc helper(k int) {")
	line("    lock(locks[k %% N])")
	line("    sums[k %% N] += k")
	line("    unlock(locks[k %% N])")
	line("}")
	for t := 0; n < lines; t++ {
		if t%2 == 0 {
			line("thread worker%d[w in 0..N] {", t)
		} else {
			line("thread single%d {", t)
			line("    var w int = %d %% N", t)
		}
		line("    var acc int")
		line("    var h tid = spawn helper(w)")
		line("    for i in 0..N {")
		line("        lock(locks[w])")
		line("        data[w][i] = data[w][i] + i * %d", t%5+1)
		line("        acc += data[i][w]")
		line("        unlock(locks[w])")
		line("        if acc > 100 && !flags[w] {")
		line("            flags[w] = true")
		line("            break")
		line("        } else if acc < 0 {")
		line("            continue")
		line("        }")
		line("    }")
		line("    atomic {")
		line("        total += acc")
		line("        sums[(w + %d) %% N]++", t)
		line("    }")
		line("    join h")
		line("    lock(big)")
		line("    sums[0] = sums[0] + total")
		line("    unlock(big)")
		line("}")
	}
	return b.String()
}

func TestGeneratedModel(t *testing.T) {
	ld, s := load(t, generate(1000))
	if n := len(ld.Program.Threads); n < 100 {
		t.Errorf("%d threads", n)
	}
	queryAll(t, ld, s)
}

// BenchmarkAnalyze1000 is Analyze on a 1,000-line model (parsing,
// checking and lowering excluded).
func BenchmarkAnalyze1000(b *testing.B) {
	ld, _ := load(b, generate(1000))
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
	_, s := load(b, generate(1000))
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
