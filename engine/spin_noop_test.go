package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/engine"
)

// Locks whose failed attempts change nothing: a test-and-set lock (an
// atomic block that reads the flag and sets it) and a trylock lock
// (`while !trylock(m) {}`). A failed attempt writes the flag over itself
// or finds the mutex held, so the waiting thread spins (see "Writes that
// change nothing" in engine/interp/spin.go) instead of running into the
// step bound: the correct locks are verified, complete, in every mode, and
// the broken ones get the right bug in every mode.

// noopLockModel is a lock model for n workers, each taking the lock,
// writing its index to a plain owner and asserting it reads it back
// (mutual exclusion), then releasing it. Variants of the test-and-set
// lock ("tas"): "tas, flag not set" (the block only reads the flag),
// "tas, never released", "tas, released early" (before the critical
// section); of the trylock lock ("trylock"): "trylock, never unlocked",
// "trylock, result ignored" (it enters whether or not it took the mutex).
func noopLockModel(variant string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// max-steps: 100\nvar flag atomic bool\nvar m mutex\nvar owner int\n\nthread worker[i in 0..%d] {\n", n)
	tas := strings.HasPrefix(variant, "tas")
	switch {
	case tas:
		set := "            flag = true\n"
		if variant == "tas, flag not set" {
			set = ""
		}
		b.WriteString("    while true {\n        var old bool\n        atomic {\n            old = flag\n" + set +
			"        }\n        if !old {\n            break\n        }\n    }\n")
		if variant == "tas, released early" {
			b.WriteString("    flag = false\n")
		}
	case variant == "trylock, result ignored":
		b.WriteString("    var got bool = trylock(m)\n")
	default:
		b.WriteString("    while !trylock(m) {\n    }\n")
	}
	b.WriteString("    owner = i\n    assert owner == i, \"mutual exclusion\"\n")
	switch variant {
	case "tas", "tas, flag not set":
		b.WriteString("    flag = false\n")
	case "trylock":
		b.WriteString("    unlock(m)\n")
	case "trylock, result ignored":
		b.WriteString("    if got {\n        unlock(m)\n    }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// TestNoOpSpinLocksEveryMode: each lock model in dfs, sdpor, cdpor, qpor
// and optimal, compared with dfs as checkAgainstDFS (and checkCDPOR) say,
// with the bugs it must have, complete, no step bound met; sdpor, qpor and
// optimal count the same executions and the same spin-blocked ones.
func TestNoOpSpinLocksEveryMode(t *testing.T) {
	cases := []struct {
		variant string
		bugs    string
	}{
		{"tas", ""},
		{"tas, flag not set", "assertion data-race"},
		{"tas, never released", "deadlock"},
		{"tas, released early", "assertion data-race"},
		{"trylock", ""},
		{"trylock, never unlocked", "deadlock"},
		{"trylock, result ignored", "assertion data-race"},
	}
	for _, c := range cases {
		for _, n := range []int{2, 3} {
			name := fmt.Sprintf("%s, %d threads", c.variant, n)
			t.Run(name, func(t *testing.T) {
				src := noopLockModel(c.variant, n)
				prog := load(t, name, src)
				ref := dfsReference(t, prog, src, 2_000_000)
				if got := bugKinds(ref.res); got != c.bugs {
					t.Errorf("dfs: bugs %q, want %q\n%s", got, c.bugs, src)
				}
				if hitStepBound(ref.res) {
					t.Fatalf("dfs met the step bound: %v\n%s", bugKeys(ref.res), src)
				}
				checkReproduce(t, name, "dfs", prog, ref.res)
				sd := explore(t, prog, engine.SDPOR, true)
				checkAgainstDFS(t, name, "sdpor", prog, src, ref, sd)
				cd := checkCDPOR(t, name, prog, src, engine.Options{}, ref, sd)
				for mode, res := range map[string]*engine.Result{"dfs": ref.res, "sdpor": sd.res, "cdpor": cd} {
					if !res.Complete {
						t.Errorf("%s: incomplete (%s)", mode, res.Stopped)
					}
				}
				for _, mode := range qporModes {
					got := exploreK(t, prog, mode.algo, mode.k, mode.prune)
					checkAgainstDFS(t, name, mode.name, prog, src, ref, got)
					if n := engine.Anomalies(got.res); n != 0 {
						t.Errorf("%s: %d anomalies; the first: %s", mode.name, n, engine.FirstAnomaly(got.res))
					}
					if !got.res.Complete {
						t.Errorf("%s: incomplete (%s)", mode.name, got.res.Stopped)
					}
					if ref.stops == 0 && got.res.Executions != sd.res.Executions || got.res.SpinBlocked != sd.res.SpinBlocked {
						t.Errorf("%s: %d executions and %d spin-blocked; sdpor %d and %d", mode.name,
							got.res.Executions, got.res.SpinBlocked, sd.res.Executions, sd.res.SpinBlocked)
					}
				}
				t.Logf("dfs %d executions (%d spin-blocked); sdpor %d (%d spin-blocked, %d ssb); %d traces",
					ref.res.Executions, ref.res.SpinBlocked, sd.res.Executions, sd.res.SpinBlocked, sd.res.SSB, len(ref.traces))
			})
		}
	}
}

// TestNoOpSpinLocksNoSpinWait: NoSpinWait keeps its meaning: the correct
// locks' failed attempts then loop on, into the step bound.
func TestNoOpSpinLocksNoSpinWait(t *testing.T) {
	for _, variant := range []string{"tas", "trylock"} {
		prog := load(t, variant, noopLockModel(variant, 2))
		for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
			res := exploreWith(t, prog, engine.Options{Algorithm: algo, NoSpinWait: true, MaxSteps: 20}, false).res
			if !hitStepBound(res) {
				t.Errorf("%s, %s with NoSpinWait: bugs %v, want a step-bound bug", variant, algo, bugKeys(res))
			}
		}
	}
}

// TestNoOpSpinMessage: the deadlock of a thread that spins on a no-op
// write says it wrote the location, not that it read it; a test-and-set
// that also read the flag says it read it.
func TestNoOpSpinMessage(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"write of a constant", "var x int = 1\nthread a {\n    while true {\n        x = 1\n    }\n}\n",
			"deadlock: a spins forever at line 3 (wrote x = 1 (unchanged), which no thread changes again)"},
		{"test-and-set never released", noopLockModel("tas, never released", 2),
			"deadlock: worker[1] spins forever at line 7 (read flag = true, which no thread changes again)"},
		{"a read and a no-op write", "var x int = 1\nvar y atomic int\nthread a {\n    while y == 0 {\n        x = 1\n    }\n}\n",
			"deadlock: a spins forever at line 4 (read y = 0; wrote x = 1 (unchanged), which no thread changes again)"},
	}
	for _, c := range cases {
		prog := load(t, c.name, c.src)
		for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
			res := exploreWith(t, prog, engine.Options{Algorithm: algo}, false).res
			if len(res.Bugs) == 0 || res.Bugs[0].Kind != engine.BugDeadlock {
				t.Errorf("%s, %s: bugs %v, want a deadlock", c.name, algo, bugKeys(res))
				continue
			}
			if msg := res.Bugs[0].Message; msg != c.want {
				t.Errorf("%s, %s: message %q, want %q", c.name, algo, msg, c.want)
			}
		}
	}
}
