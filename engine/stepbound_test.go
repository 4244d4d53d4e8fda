package engine_test

import (
	"testing"
)

// Programs some of whose executions reach the step bound: every mode
// against dfs, on bugs only (checkBugsUnderStepBound).

// TestStepBoundPrograms: programs some of whose executions run into the
// step bound, where modes are compared on their bugs only
// (checkBugsUnderStepBound).
func TestStepBoundPrograms(t *testing.T) {
	tests := []struct{ name, src string }{
		{"spin until set", `// max-steps: 500
var x int
thread spinner {
    var spins int
    while x == 0 {
        spins++
    }
    assert spins >= 0
}
thread setter {
    x = 1
}
`},
		// The unfolding modes once cut the execution at the bound: the
		// consumer spun to it before the producer moved, the producer's
		// second step was never discovered, and the assertion (or, with
		// a plain data, the race) was never found.
		{"spin on an atomic flag set after a second step", `// max-steps: 40
var flag atomic int
var data atomic int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var spins int
    while flag == 0 {
        spins++
    }
    assert spins >= 0
    assert data != 42, "the consumer saw the data"
}
`},
		{"spin on an atomic flag, plain data", `// max-steps: 40
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var spins int
    while flag == 0 {
        spins++
    }
    assert spins >= 0
    assert data != 42, "the consumer saw the data"
}
`},
		{"spin until a locked counter reaches two", `// max-steps: 30
var c int
var m mutex

thread inc[i in 0..2] {
    lock(m)
    c = c + 1
    unlock(m)
}

thread waiter {
    var v int
    while v < 2 {
        lock(m)
        v = c
        unlock(m)
    }
    assert false, "both increments seen"
}
`},
		{"retry loop", `// max-steps: 30
var x atomic int
var turn atomic int

thread a {
    x = 1
    x = 2
    turn = 1
}

thread b {
    var r int
    var spins int
    while turn != 1 {
        r = x
        spins++
    }
    assert spins >= 0
    assert r != 1, "b saw the intermediate value"
}
`},
		// The review of the causal-past bound found these: an event
		// beyond the bound dropped with no step-bound report, the run
		// then "verified" (with or without a stop elsewhere); two long
		// independent threads that never cut each other; a coarse tail
		// counted in the past of another thread's event, hiding its
		// assertion three steps in.
		{"a read whose past reaches the bound", `// max-steps: 11
var a atomic int
var b atomic int
var x atomic int

thread A {
    for i in 0..5 {
        a = i
    }
    x = 1
}

thread B {
    for i in 0..5 {
        b = i
    }
    assert x == 0, "B saw A's write"
}
`},
		{"a read whose past reaches the bound, beside an assume", `// max-steps: 11
var a atomic int
var b atomic int
var x atomic int

thread A {
    for i in 0..5 {
        a = i
    }
    x = 1
}

thread Z {
    assume false
}

thread B {
    for i in 0..5 {
        b = i
    }
    assert x == 0, "B saw A's write"
}
`},
		{"two independent threads longer than the bound together", `// max-steps: 11
var a atomic int
var b atomic int

thread A {
    for i in 0..6 {
        a = i
    }
}

thread B {
    for i in 0..6 {
        b = i
    }
}
`},
		{"a tail beside a short thread", `// max-steps: 4
var y atomic int
var x int

thread t0 {
    y = 1
    x = 1
    x = 2
}

thread t1 {
    var r int = y
    assert r == 0, "t1 saw y"
}
`},
		// From the review of SDPOR's causal-past bound: every thread of a
		// node cut one after the other (b's lock must still race with
		// x's). Here and below the looping thread changes its word in
		// every iteration: one that wrote a constant would wait after
		// its first iteration ("Writes that change nothing" in
		// engine/interp/spin.go), not run to the bound.
		{"threads cut one after the other beside a blocked lock", `// max-steps: 6
var w atomic int
var m mutex

thread x {
    lock(m)
    while true {
        w = 1 - w
    }
}

thread b {
    lock(m)
    assert false, "b got m"
}

thread y {
    while true {
        if w == 7 {
            break
        }
    }
}
`},
		{"a failure beside a loop", `
var x atomic int
thread looper {
    while true {
        x = 1 - x
    }
}
thread checker {
    var l int = 1
    assert l == 2, "fails whenever checker runs"
}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if !maxStepsDirective.MatchString(src) && !longRun() {
				// A program without a bound of its own runs to the
				// tests' default, 2,000 steps, in the long run; 200 by
				// default (a failure beside a loop took 3 s at 2,000 in
				// the unfolding modes).
				src = "// max-steps: 200\n" + src
			}
			prog := load(t, tc.name, src)
			if ref := dfsReference(t, prog, src, dfsBudget); !hitStepBound(ref.res) {
				t.Fatalf("dfs does not hit the step bound: bugs %v", bugKeys(ref.res))
			}
			t.Run("sdpor", func(t *testing.T) { compareModes(t, tc.name, prog, src) })
			t.Run("unfolding", func(t *testing.T) { compareQPOR(t, tc.name, prog, src) })
		})
	}
}
