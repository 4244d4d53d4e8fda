package engine_test

import (
	"slices"
	"strings"
	"testing"

	"weft/engine"
)

// TestNoRaceCheck: with Options.NoRaceCheck every mode reports no data
// race and exactly the other bugs dfs finds with races checked (every
// access a step: the sequentially consistent semantics), on every
// example and on random programs; the verdict assumes no data races
// exactly when the model has a plain shared variable. A mode whose
// coarse steps glued racing accesses would miss the lost update.
func TestNoRaceCheck(t *testing.T) {
	check := func(t *testing.T, name string, prog *engine.Program, src string) {
		ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS}, false)
		if !ref.res.Complete {
			t.Skipf("dfs does not complete (%s): nothing to compare", ref.res.Stopped)
		}
		want := strings.Join(withoutRaces(bugKeys(ref.res)), "\n")
		plain := slices.ContainsFunc(prog.Locations, func(l engine.Location) bool { return !l.Atomic && !l.Mutex })
		for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR, engine.CDPOR, engine.QPOR, engine.Optimal, engine.Stateful} {
			out := exploreWith(t, prog, engine.Options{Algorithm: algo, NoRaceCheck: true}, false)
			if !out.res.Complete {
				t.Errorf("%s: incomplete (%s)", algo, out.res.Stopped)
				continue
			}
			if got := strings.Join(bugKeys(out.res), "\n"); got != want {
				t.Errorf("%s with NoRaceCheck: bugs\n%s\nwant dfs's but its data races\n%s", algo, got, want)
			}
			if got := slices.Contains(out.res.Assumptions, engine.AssumeNoDataRaces); got != plain {
				t.Errorf("%s: assumes no data races %v, want %v (a plain shared variable: %v)", algo, got, plain, plain)
			}
		}
	}
	t.Run("lost update", func(t *testing.T) {
		src := "var c int\nthread incr[k in 0..2] {\n    c = c + 1\n}\nthread main {\n    join incr[0]\n    join incr[1]\n    assert c == 2, \"lost\"\n}\n"
		check(t, "lost", load(t, "lost", src), src)
	})
	t.Run("examples", func(t *testing.T) { forEachExample(t, check) })
	t.Run("random", func(t *testing.T) { forEachRandomProgram(t, check) })
}
