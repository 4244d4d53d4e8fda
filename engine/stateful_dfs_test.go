package engine_test

import (
	"context"
	"strings"
	"testing"

	"weft/analysis/access"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
)

// statefulFacts are the static facts weft check gives the stateful mode
// for src (whose lowering is prog's).
func statefulFacts(t *testing.T, name, src string, prog *engine.Program) (map[ir.Site]bool, []bool) {
	t.Helper()
	ld := lower.Load(name, []byte(src))
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Skipf("no static facts: %v", err)
	}
	inv, _ := sum.InvisibleSites(context.Background())
	free, _ := sum.RaceFreeWords(context.Background())
	if len(free) != len(prog.Locations) {
		t.Fatalf("%d race-free flags for %d locations", len(free), len(prog.Locations))
	}
	return inv, free
}

// compareStateful checks every stateful reduction against dfs (the same
// bugs; where dfs hits the step bound, at least its bugs but the
// step-bound one, which the stateful mode may verify away) and against
// the stateful mode without reduction and without static facts (exactly
// its bugs), every bug reproducing. Each reduction runs as weft check
// runs it, with the static facts of analysis/access (invisible steps,
// race-free words); none runs without them first, as the reference.
func compareStateful(t *testing.T, name string, prog *engine.Program, src string) {
	ref := dfsReference(t, prog, src, dfsBudget)
	invisible, raceFree := statefulFacts(t, name, src, prog)
	var none *engine.Result
	for i, por := range append([]engine.StatefulPOR{engine.StatefulNone}, engine.StatefulPORs()...) {
		opts := engine.Options{Algorithm: engine.Stateful, MaxSteps: maxSteps(prog), Stateful: engine.StatefulOptions{POR: por}}
		if i > 0 {
			opts.Stateful.Invisible, opts.Stateful.RaceFree = invisible, raceFree
		}
		out := exploreWith(t, prog, opts, false)
		checkReproduce(t, name, "stateful-"+string(por), prog, out.res)
		if i == 0 {
			none = out.res
		} else if a, b := statefulKeys(none), statefulKeys(out.res); a != b {
			t.Errorf("%s %s: bugs differ from none\nnone:\n%s\n%s:\n%s\nprogram:\n%s", name, por, a, por, b, src)
		}
		if hitStepBound(ref.res) {
			got := keySet(bugKeys(out.res))
			for _, k := range withoutStepBound(bugKeys(ref.res)) {
				if !got[k] {
					t.Errorf("%s %s: misses dfs's %s\nprogram:\n%s", name, por, k, src)
				}
			}
			continue
		}
		if a, b := strings.Join(bugKeys(ref.res), "\n"), strings.Join(bugKeys(out.res), "\n"); a != b {
			t.Errorf("%s %s: bugs differ\ndfs:\n%s\nstateful:\n%s\nprogram:\n%s", name, por, a, b, src)
		}
		if !out.res.Complete {
			t.Errorf("%s %s: incomplete %v", name, por, out.res.Stopped)
		}
	}
}

func TestStatefulAgainstDFSExamples(t *testing.T) { forEachExample(t, compareStateful) }
func TestStatefulAgainstDFSRandom(t *testing.T)   { forEachRandomProgram(t, compareStateful) }
func TestStatefulAgainstDFSSpin(t *testing.T)     { forEachProgram(t, spinProgram, compareStateful) }
func TestStatefulAgainstDFSV2(t *testing.T)       { forEachProgram(t, v2Program, compareStateful) }

// statefulKeys are res's bug keys but a step-bound bug: whether a path
// runs past the bound depends on the shape of the search (the path to
// a state, the pending races that tell states apart, the reduction),
// not only on the program; the bugs within the bound must be the same.
func statefulKeys(res *engine.Result) string {
	return strings.Join(withoutStepBound(bugKeys(res)), "\n")
}
