package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine"
)

// FuzzExplore runs the whole pipeline (parse, check, lower, explore with
// small budgets) on arbitrary text: whatever the input, nothing panics,
// lowered programs validate, and every bug found reproduces.
func FuzzExplore(f *testing.F) {
	for _, dir := range []string{"../examples", "../benchmarks", "../benchmarks/cdpor"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.weft"))
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte(fig1(2)))
	f.Fuzz(func(t *testing.T, src []byte) {
		ld := lower.Load("fuzz.weft", src)
		if ld.Exec == nil {
			return
		}
		for _, algo := range engine.Algorithms {
			if refusal(ld.Exec, algo) != nil {
				continue // a feature this mode does not explore: refused, as it should be
			}
			// With these budgets no input needs a minute: running out of
			// it is a hang (a runaway exploration), not slowness. The step
			// bound is 150, not more: a proc that spawns itself without
			// end makes a thread every few steps, and the unfolding modes'
			// cost grows faster than the square of the threads (the
			// mergesort seed e69cbe…, with 300 steps, took 3 s in each of
			// qpor and optimal, 14 s in the fuzzing build, past the 10 s
			// after which go test -fuzz declares its worker hung).
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := engine.Explore(ctx, ld.Exec, engine.Options{
				Algorithm: algo, MaxExecutions: 30, MaxSteps: 150, LocalBudget: 20000,
			})
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
			if res.Stopped == "timeout" {
				t.Fatalf("%s: still exploring after a minute with budgets of 30 executions of 150 steps", algo)
			}
			for _, b := range res.Bugs {
				if err := engine.Reproduce(ld.Exec, b); err != nil {
					t.Fatalf("%s: %s bug does not reproduce: %v", algo, b.Kind, err)
				}
			}
		}
	})
}

// FuzzResourceHungry explores programs built to exhaust resources (many
// threads, long code, big arrays, deep spawning, spinning) under a small
// memory budget: whatever the sizes, no mode panics or runs away, and a
// program whose declared threads' arrays alone exceed the budget ends
// incomplete with "memory", never complete.
func FuzzResourceHungry(f *testing.F) {
	f.Add(uint8(100), uint16(10), uint32(1<<20), uint8(0), false)
	f.Add(uint8(4), uint16(5000), uint32(1), uint8(0), false)
	f.Add(uint8(2), uint16(1), uint32(1), uint8(200), false)
	f.Add(uint8(3), uint16(2), uint32(64), uint8(3), true)
	f.Add(uint8(64), uint16(100), uint32(4096), uint8(20), true)
	f.Fuzz(func(t *testing.T, threads uint8, lines uint16, words uint32, depth uint8, spin bool) {
		nt := 1 + int(threads)%100
		nl := int(lines) % 5001
		nw := 1 + int(words)%(1<<20)
		nd := int(depth) % 201
		src := hungryProgram(nt, nl, nw, nd, spin)
		ld := lower.Load("hungry.weft", []byte(src))
		if ld.Exec == nil {
			t.Fatalf("the generated program does not load: %v\n%.500s", ld.Diagnostics, src)
		}
		const budget = 64 << 20
		for _, algo := range engine.Algorithms {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := engine.Explore(ctx, ld.Exec, engine.Options{
				Algorithm: algo, MaxExecutions: 3, MaxSteps: 300, MaxMemory: budget,
			})
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
			if res.Stopped == "timeout" {
				t.Fatalf("%s: still exploring after a minute with budgets of 3 executions of 300 steps", algo)
			}
			if arrays := int64(nt) * int64(nw) * 8; arrays > budget && res.Stopped != engine.StoppedMemory {
				t.Errorf("%s: %d threads × %d words exceed the %d-byte budget, yet complete=%v stopped=%q", algo, nt, nw, budget, res.Complete, res.Stopped)
			}
		}
	})
}

// hungryProgram is a model of threads declared threads, each with a local
// array of words words and lines straight-line writes, spawning a chain
// of depth procs, and spinning on a flag no one sets if spin.
func hungryProgram(threads, lines, words, depth int, spin bool) string {
	var b strings.Builder
	b.WriteString("var c atomic int\nvar m mutex\nvar x int\n")
	b.WriteString("proc p(d int) {\n    if d > 0 {\n        spawn p(d - 1)\n    }\n    lock(m)\n    x = x + 1\n    unlock(m)\n}\n")
	fmt.Fprintf(&b, "thread t[i in 0..%d] {\n    var a [%d]int\n    a[i %% %d] = i\n", threads, words, words)
	for l := 0; l < lines; l++ {
		fmt.Fprintf(&b, "    c = %d\n", l)
	}
	fmt.Fprintf(&b, "    spawn p(%d)\n", depth)
	if spin {
		b.WriteString("    while c != -1 {\n    }\n")
	}
	b.WriteString("}\n")
	return b.String()
}
