package engine_test

import (
	"context"
	"fmt"
	"testing"

	"weft/engine"
)

// Programs whose numbers of Mazurkiewicz traces are known by hand,
// checked in sdpor and against dfs (qpor_test.go runs them in the
// unfolding modes).

// knownCase is a program with its number of Mazurkiewicz traces (0:
// unknown, compared with dfs only).
type knownCase struct {
	name   string
	src    string
	traces int64
}

const assumeInAtomicSrc = `
var w atomic int = 1
thread A { atomic { assume w == 0 }; assert false }
thread B { w = 0 }
`

// TestAssumeInAtomicBlock: every mode explores the two traces of
// assumeInAtomicSrc, one of them ended by the failed assume.
func TestAssumeInAtomicBlock(t *testing.T) {
	prog := load(t, "assume in atomic", assumeInAtomicSrc)
	for _, algo := range engine.Algorithms {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if res.Executions != 2 || res.AssumeBlocked != 1 {
			t.Errorf("%s: %d executions, %d ended by assume; want 2 and 1", algo, res.Executions, res.AssumeBlocked)
		}
	}
}

// knownCountCases are the programs whose trace counts are known by hand.
func knownCountCases() []knownCase {
	return []knownCase{
		{"lock counter 2", lockCounterSrc(2), 2},
		{"lock counter 3", lockCounterSrc(3), 6},
		{"lock counter 4", lockCounterSrc(4), 24},
		{"lock counter 5", lockCounterSrc(5), 120},
		{"two reads one write", `
var x atomic int
thread r1 {
    var a int = x
    assert a >= 0
}
thread r2 {
    var a int = x
    assert a >= 0
}
thread w {
    x = 1
}
`, 4},
		{"fig1 N=3", fig1(3), 6},
		{"lock order inversion", `
var m mutex
var n mutex
thread a {
    lock(m)
    lock(n)
    unlock(n)
    unlock(m)
}
thread b {
    lock(n)
    lock(m)
    unlock(m)
    unlock(n)
}
`, 3},
		{"fig1 N=5", fig1(5), 10},
		{"atomic increments", `
var x int
thread t[i in 0..3] {
    atomic {
        x = x + 1
    }
}
`, 6},
		{"spawn and join", `
var x int
var m mutex
proc w(v int) {
    lock(m)
    x = x + v
    unlock(m)
}
thread main {
    var a tid = spawn w(1)
    var b tid = spawn w(2)
    join a
    join b
    assert x == 3
}
`, 2},
		// Two stops in independent threads: an execution ends at the
		// first, whichever it is (AssumeBlocked counts those ending in a
		// failed assume).
		// The unfolding modes once ran A's failed block again at the end
		// of the configuration, after B's write: it passed, and the
		// execution counted as not ended by assume.
		{"failed assume in an atomic block", assumeInAtomicSrc, 0},
		// The N-th step is a stop: no step-bound bug (DFS reports none).
		{"a stop as the last step within the bound", `// max-steps: 3
var x int
thread t {
    x = 1
    x = 2
    assert false
}
`, 0},
		// Independent stops: each ends an execution of its own (counting
		// only the first in C's order lost the failed assume).
		{"independent assert and assume", `
thread A {
    var l int = 1
    assert l == 2, "A fails"
}

thread B {
    var l int = 1
    assume l == 2
}
`, 0},
		{"failed assume beside a failed assertion", `
var x atomic int
thread a {
    x = 1
    var l int = 0
    assume l == 1
}
thread b {
    var l int = x
    assert l == 0
}
`, 0},
		{"failed assumes and an assertion", `
var x atomic int
var y atomic int
thread a {
    x = 1
    var l int = y
    assume l == 1
}
thread b {
    y = 1
    var l int = x
    assume l == 0
}
thread c {
    var l int = x
    assert l != 1 || y == 0
}
`, 0},
		{"readers and writers", `
var x int
var y int
thread w1 {
    x = 1
    y = 1
}
thread w2 {
    y = 2
    x = 2
}
thread r {
    var a int = x
    var b int = y
}
`, 0},
	}
}

func TestKnownCounts(t *testing.T) {
	for _, tc := range knownCountCases() {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			o := explore(t, prog, engine.SDPOR, false)
			if !o.res.Complete {
				t.Fatalf("incomplete")
			}
			for _, b := range o.res.Bugs {
				if b.Kind != engine.BugDeadlock && tc.traces > 0 {
					t.Fatalf("unexpected bug %s: %s", b.Kind, b.Message)
				}
			}
			if tc.traces > 0 && o.res.Executions != tc.traces {
				t.Errorf("sdpor: %d executions, want %d traces", o.res.Executions, tc.traces)
			}
			compareModes(t, tc.name, prog, tc.src)
		})
	}
}

func fig1(n int) string {
	return fmt.Sprintf(`
const N = %d
var x [N]int
var c int
var mc mutex
var mx [N]mutex
thread writer[w in 0..N] {
    lock(mx[w])
    x[w] = 7
    unlock(mx[w])
}
thread count {
    for j in 1..N {
        lock(mc)
        c = c + 1
        unlock(mc)
    }
}
thread master {
    var i int
    lock(mc)
    i = c
    unlock(mc)
    lock(mx[i])
    x[i] = 0
    assert x[i] == 0, "master's write survives"
    unlock(mx[i])
}
`, n)
}
