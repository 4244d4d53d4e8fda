package engine_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"weft/engine"
)

// Every kind of bug, found by every mode, each trace reproducing.

func TestBugKinds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []engine.BugKind
	}{
		{"philosophers deadlock", `
var fork [3]mutex
thread phil[i in 0..3] {
    lock(fork[i])
    lock(fork[(i + 1) % 3])
    unlock(fork[(i + 1) % 3])
    unlock(fork[i])
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"lost update", `
var c int
thread t[i in 0..2] {
    c = c + 1
}
thread check {
    join t[0]
    join t[1]
    assert c == 2, "lost update"
}
`, []engine.BugKind{engine.BugAssertion, engine.BugDataRace}},
		{"division by zero", `
var d int = 1
thread a {
    atomic {
        d = d - 1
    }
}
thread b {
    var x int
    atomic {
        x = 10 / d
    }
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"unlock not held", `
var m mutex
thread a {
    unlock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"relock", `
var m mutex
thread a {
    lock(m)
    lock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"index out of range", `
var x [2]int
var i int
thread a {
    i = 2
}
thread b {
    var k int = i
    x[k] = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugRuntimeError}},
		{"overflow", `
var x int = 9223372036854775807
thread a {
    x = x + 1
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"step bound", `
var x int
thread a {
    while true {
        x = 1 - x
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"a loop that writes what the word holds", `
var x int
thread a {
    while true {
        x = 1
    }
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"spin until set", `// max-steps: 500
var x int
thread spinner {
    while x == 0 {
    }
}
thread setter {
    x = 1
}
`, []engine.BugKind{engine.BugDataRace}},
		{"spin counting its rounds", `// max-steps: 500
var x int
thread spinner {
    var n int
    while x == 0 {
        n++
    }
    assert n >= 0
}
thread setter {
    x = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugStepBound}},
		{"local infinite loop", `
thread a {
    var i int
    while true {
        i = 1 - i
    }
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"local loop that never ends", `
thread a {
    var i int
    while i >= 0 {
        i = 1 - i
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"join self deadlock", `
thread a {
    join a
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"assume is not a bug", `
var x atomic int
thread a {
    x = 1
}
thread b {
    assume x == 1
}
`, nil},
		{"atomic accesses do not race", `
var x int
thread a {
    atomic {
        x = 1
    }
}
thread b {
    atomic {
        x = 2
    }
}
`, nil},
		{"atomic variables do not race", `
var x atomic int
thread a {
    x = 1
}
thread b {
    x = 2
}
`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			for _, algo := range engine.Algorithms {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 500, LocalBudget: 1_000_000})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[engine.BugKind]bool{}
				for _, b := range res.Bugs {
					kinds[b.Kind] = true
					if err := engine.Reproduce(prog, b); err != nil {
						t.Errorf("%s: %s bug does not reproduce: %v", algo, b.Kind, err)
					}
				}
				var got []engine.BugKind
				for k := range kinds {
					got = append(got, k)
				}
				sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
				want := tc.want
				if algo == engine.Stateful && tc.name == "step bound" {
					// Its loop goes round two states: the stateful mode
					// explores them once and verifies it.
					want = nil
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: bug kinds %v, want %v", algo, got, want)
				}
			}
		})
	}
}
