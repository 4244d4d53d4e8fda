package interp

import (
	"fmt"
	"testing"
)

// TestSpinNoOpWrites: a loop iteration whose writes store the value
// their word holds, or whose trylock finds the mutex held, spins like a
// read-only one (see "Writes that change nothing"); its own no-op write
// does not make its read look stale, nor does another thread's; a change
// of the word does. Each case runs its script (a thread index per step;
// -1: the spinner until it cannot move) fine and coarse, with the
// fingerprint checked against its from-scratch value after every step and
// undo, and every step undone at the end restoring the spin state.
func TestSpinNoOpWrites(t *testing.T) {
	const tas = `
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
`
	cases := []struct {
		name   string
		src    string
		script []int
		// What the spinner (thread 0) is then, and whether its spin is
		// stale; reads: SpinReads as "loc=value", (w) when only written,
		// * when stale.
		spinning, stale bool
		reads           string
	}{
		{name: "test-and-set finds the flag set",
			src:    "var flag atomic bool = true\nthread s {" + tas + "}\n",
			script: []int{-1}, spinning: true, reads: "[flag=1]"},
		{name: "test-and-set, then the holder releases",
			src:    "var flag atomic bool = true\nthread s {" + tas + "}\nthread h {\n    flag = false\n}\n",
			script: []int{-1, 1}, spinning: true, stale: true, reads: "[flag=1*]"},
		{name: "test-and-set, then another thread sets the set flag",
			src:    "var flag atomic bool = true\nthread s {" + tas + "}\nthread h {\n    flag = true\n}\n",
			script: []int{-1, 1}, spinning: true, reads: "[flag=1]"},
		{name: "test-and-set, then a change and back in one atomic block",
			src:    "var flag atomic bool = true\nthread s {" + tas + "}\nthread h {\n    atomic {\n        flag = false\n        flag = true\n    }\n}\n",
			script: []int{-1, 1}, spinning: true, stale: true, reads: "[flag=1*]"},
		{name: "trylock finds the mutex held",
			src:    "var m mutex\nthread s {\n    while !trylock(m) {\n    }\n    unlock(m)\n}\nthread h {\n    lock(m)\n    unlock(m)\n}\n",
			script: []int{1, -1}, spinning: true, reads: "[m=2]"},
		{name: "trylock, then the holder unlocks",
			src:    "var m mutex\nthread s {\n    while !trylock(m) {\n    }\n    unlock(m)\n}\nthread h {\n    lock(m)\n    unlock(m)\n}\n",
			script: []int{1, -1, 1}, spinning: true, stale: true, reads: "[m=2*]"},
		{name: "a plain read and a write back of the same word",
			src:    "var x int = 5\nvar go atomic bool\nthread s {\n    while !go {\n        var v int = x\n        x = v\n    }\n}\n",
			script: []int{-1}, spinning: true, reads: "[go=0 x=5]"},
		{name: "a loop that writes what the word holds",
			src:    "var x atomic int = 1\nvar go atomic bool\nthread s {\n    while !go {\n        x = 1\n    }\n}\n",
			script: []int{-1}, spinning: true, reads: "[go=0 x=1(w)]"},
		{name: "a read, then another thread writes the same value",
			src:    "var flag atomic int = 3\nthread s {\n    while flag == 3 {\n    }\n}\nthread h {\n    flag = 3\n}\n",
			script: []int{-1, 1}, spinning: true, reads: "[flag=3]"},
		{name: "a write that changes the word",
			src:    "var x atomic int\nvar go atomic bool\nthread s {\n    while !go {\n        x = 1 - x\n    }\n}\n",
			script: []int{-1}, spinning: false},
		{name: "an atomic block that changes a word and puts it back",
			src:    "var x atomic int\nvar go atomic bool\nthread s {\n    while !go {\n        atomic {\n            x = 1\n            x = 0\n        }\n    }\n}\n",
			script: []int{-1}, spinning: false},
	}
	for _, c := range cases {
		for _, coarse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, coarse %v", c.name, coarse), func(t *testing.T) {
				m, err := NewMachineConfig(loadSrc(t, c.name, c.src), Config{Fingerprint: true})
				if err != nil {
					t.Fatal(err)
				}
				m.Coarse = coarse
				var snaps []string
				var ev Event
				step := func(th int) {
					t.Helper()
					snaps = append(snaps, spinSnapshot(m))
					if !m.Enabled(th) || !m.Step(th, &ev) {
						t.Fatalf("step %d of %s: cannot move or stopped (%s)", len(snaps), m.Threads[th].Name, ev.Message)
					}
					if fp, _ := m.Fingerprint(); fp != m.RecomputeFingerprint() {
						t.Fatalf("step %d: the fingerprint is not the from-scratch one", len(snaps))
					}
				}
				for _, th := range c.script {
					if th >= 0 {
						step(th)
						continue
					}
					for i := 0; m.Enabled(0) && i < 20; i++ {
						step(0)
					}
				}
				if got := m.Threads[0].Status == Spinning; got != c.spinning {
					t.Fatalf("the spinner is %v, want spinning %v", m.Threads[0].Status, c.spinning)
				}
				if !c.spinning {
					if m.Threads[0].Status != Ready {
						t.Errorf("the spinner is %v, want ready", m.Threads[0].Status)
					}
				} else {
					if got := m.StaleSpin(0); got != c.stale {
						t.Errorf("StaleSpin = %v, want %v", got, c.stale)
					}
					var reads []string
					for _, r := range m.SpinReads(0) {
						s := fmt.Sprintf("%s=%d", m.Prog.Locations[r.Loc].Name, r.Value)
						if r.Write {
							s += "(w)"
						}
						if r.Stale {
							s += "*"
						}
						reads = append(reads, s)
					}
					if got := fmt.Sprint(reads); got != c.reads {
						t.Errorf("SpinReads = %s, want %s", got, c.reads)
					}
				}
				for len(snaps) > 0 {
					m.Undo()
					if got, want := spinSnapshot(m), snaps[len(snaps)-1]; got != want {
						t.Fatalf("undoing step %d:\n got %s\nwant %s", len(snaps), got, want)
					}
					if fp, _ := m.Fingerprint(); fp != m.RecomputeFingerprint() {
						t.Fatalf("undoing step %d: the fingerprint is not the from-scratch one", len(snaps))
					}
					snaps = snaps[:len(snaps)-1]
				}
			})
		}
	}
}
