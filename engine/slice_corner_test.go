package engine_test

import (
	"context"
	"strings"
	"testing"

	"weft/engine"
)

// TestSlicedCorners: hand-written programs with the corner cases the
// random generators do not make (a trylock's result deciding a failure,
// atomic blocks reading several words, spurious wake-ups, broadcasts,
// joins of threads spawned in loops, a failure on a thread's very first
// step, a choose's value feeding a later step), in every mode, with and
// without spurious wake-ups: every bug's slice replays to the same bug
// (checkSlices) and each expected kind of bug is found.
func TestSlicedCorners(t *testing.T) {
	for _, c := range []struct {
		name, src string
		spurious  bool
		want      []engine.BugKind
	}{
		{"trylock result", `var m mutex
var x int
thread a {
    lock(m)
    x = 1
    unlock(m)
}
thread b {
    if trylock(m) {
        assert x == 1, "x set before b got the mutex"
        unlock(m)
    }
}
`, false, []engine.BugKind{engine.BugAssertion}},
		{"atomic reads several words", `var x int
var y int
thread w1 {
    atomic {
        x = 1
    }
}
thread w2 {
    atomic {
        y = 1
    }
}
thread r {
    var a int
    var b int
    atomic {
        a = x
        b = y
    }
    assert a + b != 1, "one write seen without the other"
}
`, false, []engine.BugKind{engine.BugAssertion}},
		{"broadcast", `var m mutex
var c cond
var ready int
thread waiter[i in 0..2] {
    lock(m)
    wait(c, m)
    assert ready == 1, "woken only after ready"
    unlock(m)
}
thread setter {
    lock(m)
    ready = 1
    broadcast(c)
    unlock(m)
}
`, false, []engine.BugKind{engine.BugDeadlock}},
		{"broadcast, spurious", `var m mutex
var c cond
var ready int
thread waiter[i in 0..2] {
    lock(m)
    wait(c, m)
    assert ready == 1, "woken only after ready"
    unlock(m)
}
thread setter {
    lock(m)
    ready = 1
    broadcast(c)
    unlock(m)
}
`, true, []engine.BugKind{engine.BugAssertion}},
		{"signal, spurious", `var m mutex
var c cond
var n int
var z int
thread waiter {
    lock(m)
    while n == 0 {
        wait(c, m)
    }
    unlock(m)
}
thread holder {
    z = 1
    lock(m)
    n = 1
    signal(c)
}
thread other {
    z = 2
}
`, true, []engine.BugKind{engine.BugDeadlock, engine.BugDataRace}},
		{"first step fails, spawned in a loop", `proc worker(id int) {
    assert id != 2, "worker 2 fails at once"
}
thread main {
    var pool [3]tid
    for i in 0..3 {
        pool[i] = spawn worker(i)
    }
    for i in 0..3 {
        join pool[i]
    }
}
`, false, []engine.BugKind{engine.BugAssertion}},
		{"joins in a loop, deadlock", `var m mutex
proc worker(id int) {
    lock(m)
    if id != 1 {
        unlock(m)
    }
}
thread main {
    var pool [3]tid
    for i in 0..3 {
        pool[i] = spawn worker(i)
    }
    for i in 0..3 {
        join pool[i]
    }
}
`, false, []engine.BugKind{engine.BugDeadlock}},
		{"choose feeds a step", `var x [3]int
var y int
thread a {
    var i int = choose 0..2
    x[i] = 1
    y = i
}
thread b {
    var j int = x[1]
    assert j == 0, "x[1] written"
}
`, false, []engine.BugKind{engine.BugAssertion, engine.BugDataRace}},
		{"unlock of another's mutex", `var m mutex
var x int
thread a {
    lock(m)
    x = 1
}
thread b {
    x = 2
    unlock(m)
}
`, false, []engine.BugKind{engine.BugRuntimeError}},
		{"wait without the mutex", `var m mutex
var c cond
thread a {
    lock(m)
}
thread b {
    wait(c, m)
}
`, false, []engine.BugKind{engine.BugRuntimeError}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			var st sliceStats
			for _, algo := range engine.Algorithms {
				if refusal(prog, algo) != nil {
					continue
				}
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), MaxExecutions: 3000, SpuriousWakeups: c.spurious})
				if err != nil && c.spurious && strings.Contains(err.Error(), "do not support them") {
					continue // the unfolding modes refuse spurious wake-ups
				}
				if err != nil {
					t.Fatalf("%s: %v", algo, err)
				}
				checkSlices(t, c.name, string(algo), prog, res, &st)
				kinds := map[engine.BugKind]bool{}
				for _, b := range res.Bugs {
					kinds[b.Kind] = true
				}
				for _, k := range c.want {
					if !kinds[k] && res.Complete {
						t.Errorf("%s: no %s found", algo, k)
					}
				}
			}
			t.Logf("%s", st.String())
		})
	}
}
