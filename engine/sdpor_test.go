package engine_test

import (
	"testing"

	"weft/engine"
)

// sdporRegressions are programs on which sdpor once missed traces, with
// their exact number of Mazurkiewicz traces (dfs agrees: compareModes).
var sdporRegressions = []knownCase{
	// t1 locks m1 then m0, t2 m0 then m1 (and keeps them). Five traces:
	// t1's critical sections first (t0's write of z before or after
	// t2's), t2's first (likewise), or the deadlock. sdpor found four:
	// under t1's first step (read y) with t0 asleep, the deadlock of t2's
	// lock(m0) after t1's lock(m1) was sleep-set blocked, and the race of
	// t2's blocked lock(m1) with t1's lock(m1), the only race whose
	// reversal lets t2 go first there, was not looked at: blocked locks
	// raced only at deadlocks, stops and the step bound.
	{"sleep-set-blocked deadlock", `
var y atomic int
var z atomic int
var m0 mutex
var m1 mutex
thread t0 {
    z = 1
}
thread t1 {
    var l int
    l = y
    lock(m1)
    lock(m0)
    unlock(m0)
    unlock(m1)
}
thread t2 {
    lock(m0)
    lock(m1)
    z = 0
    unlock(m1)
    unlock(m0)
}
`, 5},
	// The same with a data race (t0's atomic write of z, t2's plain
	// one), so the exploration restarts with fine steps: the program the
	// random test shrank to.
	{"sleep-set-blocked deadlock, racy", `
var y int
var z int
var m0 mutex
var m1 mutex
thread t0 {
    var l int
    atomic {
        z = l + 1
    }
}
thread t1 {
    var l int
    l = y
    lock(m1)
    lock(m0)
    unlock(m0)
    unlock(m1)
}
thread t2 {
    lock(m0)
    lock(m1)
    z = 0
}
`, 5},
	// Four threads, shrunk from another random program (its retry loop
	// runs once: y == l at first): 14 traces, of which sdpor found 12, for
	// the same reason.
	{"sleep-set-blocked deadlock, retry loop", `
var y int
var m0 mutex
var m1 mutex
thread t0 {
    var l int
    l = y
}
thread t1 {
    var l int
    var b bool
    lock(m1)
    while !b {
        lock(m0)
        if y == l {
            y = l + 1
            b = true
        }
    }
}
thread t2 {
    lock(m0)
    lock(m1)
    unlock(m1)
    unlock(m0)
}
thread t3 {
    lock(m0)
    lock(m1)
    unlock(m1)
    unlock(m0)
}
`, 14},
}

// TestSDPORRegressions: sdpor explores exactly one execution per trace of
// the programs it once got wrong, and agrees with dfs on them.
func TestSDPORRegressions(t *testing.T) {
	for _, tc := range sdporRegressions {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			o := explore(t, prog, engine.SDPOR, true)
			if !o.res.Complete {
				t.Fatalf("incomplete")
			}
			if n := o.res.Executions - int64(o.stops); n != tc.traces || len(o.traces) != int(tc.traces) {
				t.Errorf("sdpor: %d executions (%d that did not stop) covering %d traces, want %d traces",
					o.res.Executions, n, len(o.traces), tc.traces)
			}
			compareModes(t, tc.name, prog, tc.src)
		})
	}
}
