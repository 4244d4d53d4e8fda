package engine_test

import (
	"context"
	"strings"
	"testing"

	"weft/engine"
)

// TestStatefulWaitingAlone: a thread whose next step is an iteration it
// would spin on (a false await, a failed test-and-set or trylock), on
// atomic words, waits in the state instead of parking in a state of its
// own (package stateful, "Waiting alone"), and an iteration of several
// such steps starts over (interp's "Looping again"): the state counts
// are the ones counted by hand here (no reduction stores more), and a
// thread left waiting or spinning forever is the deadlock dfs reports,
// with a schedule that replays to it. A spin on a plain word still
// parks (its races).
func TestStatefulWaitingAlone(t *testing.T) {
	requireStateful(t)
	cases := []struct {
		name, src string
		// states: stored by every reduction. s0 (b waits), a's write,
		// b's read: 3; spin-assume also stores b parked before and
		// after a's write.
		states int64
		bugs   string // the bug keys, sorted, one per line
		msg    string // in the first bug's message
	}{
		{name: "an await released by a write",
			src:    "var f atomic int\nthread a {\n    f = 1\n}\nthread b {\n    await f == 1\n}\n",
			states: 3},
		{name: "an await nobody releases",
			src:    "var f atomic int\nthread b {\n    await f == 1\n}\n",
			states: 1, bugs: "deadlock@3:5-3:17", msg: "b waits forever at the await at line 3 (read f = 0"},
		{name: "an await released by a write of the wrong value",
			src:    "var f atomic int\nthread a {\n    f = 2\n}\nthread b {\n    await f == 1\n}\n",
			states: 2, bugs: "deadlock@6:5-6:17", msg: "b waits forever"},
		{name: "a test-and-set lock",
			src: `var flag atomic bool
var cs int
thread w[i in 0..2] {
    while true {
        var old bool
        atomic {
            old = flag
            flag = true
        }
        if !old {
            break
        }
    }
    cs = cs + 1
    flag = false
}
`,
			// Each worker is taking the flag (T), about to read cs
			// (R), to write it (W), to release (F), or done (D); at
			// most one is in R, W or F, and cs follows: (T,T); w0 in
			// R, W or F with w1 at T, and the mirror: 6; (D,T), then
			// w1 in R, W, F, then (D,D): 5; (T,D) and w0 in R, W, F:
			// 4. Spin-assume adds a parked state for each failed
			// test-and-set and what follows it. The accesses of cs
			// are all ordered through the flag: no pending race
			// tells two of them apart.
			states: 16},
		{name: "a spin of two reads released by a write",
			src: "var f atomic int = 1\nvar g atomic int = 1\nthread s {\n    while f == 1 && g == 1 {\n    }\n}\nthread a {\n    g = 0\n}\n",
			// The spinner at its head (H), about to read g (M) or done
			// (D); a before its write or after: (H,A), (M,A), (H,F),
			// (M,F), (D,F). Looping again, (M,A)'s read of g = 1 comes
			// back to (H,A); spin-assume adds the parked states.
			states: 5},
		{name: "a spin of two reads nobody releases",
			src: "var f atomic int = 1\nvar g atomic int = 1\nthread s {\n    while f == 1 && g == 1 {\n    }\n}\n",
			// At its head, or about to read g; spin-assume adds the
			// parked state.
			states: 2, bugs: "deadlock@4:5-4:27", msg: "s spins forever at line 4"},
		{name: "a spin on a plain word parks and races",
			src:    "var f int\nthread a {\n    f = 1\n}\nthread b {\n    while f == 0 {\n    }\n}\n",
			states: 5, bugs: "data-race@3:5-3:10~6:5-6:17"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS}, false)
			for _, por := range append([]engine.StatefulPOR{engine.StatefulNone}, engine.StatefulPORs()...) {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: por}})
				if err != nil {
					t.Fatalf("%s: %v", por, err)
				}
				if !res.Complete {
					t.Errorf("%s: incomplete (%s)", por, res.Stopped)
				}
				if res.States != c.states && (por == engine.StatefulNone || res.States > c.states) {
					t.Errorf("%s: %d states, want %d (a reduction: at most)", por, res.States, c.states)
				}
				got := strings.Join(bugKeys(res), "\n")
				if got != c.bugs {
					t.Errorf("%s: bugs\n%s\nwant\n%s", por, got, c.bugs)
				}
				if want := strings.Join(bugKeys(ref.res), "\n"); got != want {
					t.Errorf("%s: bugs\n%s\ndfs finds\n%s", por, got, want)
				}
				for i, b := range res.Bugs {
					if err := engine.Reproduce(prog, b); err != nil {
						t.Errorf("%s: bug %d (%s) does not reproduce: %v", por, i+1, b.Message, err)
					}
				}
				if c.msg != "" && (len(res.Bugs) == 0 || !strings.Contains(res.Bugs[0].Message, c.msg)) {
					t.Errorf("%s: first bug %v, want one saying %q", por, res.Bugs, c.msg)
				}
			}
		})
	}
}
