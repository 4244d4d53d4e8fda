package engine_test

import (
	"strings"
	"testing"

	"weft/engine"
)

// compareStateful checks every stateful reduction against dfs (the same
// bugs; where dfs hits the step bound, at least its bugs but the
// step-bound one, which the stateful mode may verify away) and against
// the stateful mode without reduction (exactly its bugs), every bug
// reproducing.
func compareStateful(t *testing.T, name string, prog *engine.Program, src string) {
	ref := dfsReference(t, prog, src, dfsBudget)
	var none *engine.Result
	for _, por := range engine.StatefulPORs() {
		out := exploreWith(t, prog, engine.Options{Algorithm: engine.Stateful, MaxSteps: maxSteps(prog), Stateful: engine.StatefulOptions{POR: por}}, false)
		checkReproduce(t, name, "stateful-"+string(por), prog, out.res)
		if por == engine.StatefulNone {
			none = out.res
		} else if a, b := strings.Join(bugKeys(none), "\n"), strings.Join(bugKeys(out.res), "\n"); a != b {
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
