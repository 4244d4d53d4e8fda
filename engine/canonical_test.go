package engine_test

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"weft/engine"
)

// TestCanonicalReports: in every mode, a result lists its bugs in the
// canonical order (by position, then kind), each bug's schedule is no
// longer than the first one found for it (OnBug), and exploring again
// gives the same report, schedules and choices included.
func TestCanonicalReports(t *testing.T) {
	kindRank := func(k engine.BugKind) int {
		return slices.Index([]engine.BugKind{engine.BugAssertion, engine.BugRuntimeError, engine.BugDeadlock, engine.BugDataRace, engine.BugStepBound}, k)
	}
	forEachRandomProgram(t, func(t *testing.T, name string, prog *engine.Program, src string) {
		for _, algo := range engine.Algorithms {
			if engine.Unsupported(prog, engine.Options{Algorithm: algo}) != nil {
				continue
			}
			first := map[string]int{}
			opts := engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), OnBug: func(b *engine.Bug) {
				first[b.Range.String()+string(b.Kind)+b.Message] = len(b.Schedule)
			}}
			a, err := engine.Explore(context.Background(), prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.OnBug = nil
			b, err := engine.Explore(context.Background(), prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Bugs are listed by the position they are shown at.
			place := func(b *engine.Bug) (int, bool) { return b.Range.Start.Offset, true }
			for i := 1; i < len(a.Bugs); i++ {
				p, q := a.Bugs[i-1], a.Bugs[i]
				pp, ok1 := place(p)
				qp, ok2 := place(q)
				if !ok1 || !ok2 {
					continue
				}
				if c := cmp.Or(cmp.Compare(pp, qp), cmp.Compare(kindRank(p.Kind), kindRank(q.Kind))); c > 0 {
					t.Errorf("%s %s: %s at %v listed before %s at %v", name, algo, p.Kind, p.Range, q.Kind, q.Range)
				}
			}
			for _, bug := range a.Bugs {
				msg := bug.Message
				if bug.FirstMessage != "" {
					msg = bug.FirstMessage
				}
				if n, ok := first[bug.Range.String()+string(bug.Kind)+msg]; ok && len(bug.Schedule) > n {
					t.Errorf("%s %s: %s kept a schedule of %d steps, longer than the %d first found", name, algo, bug.Kind, len(bug.Schedule), n)
				}
			}
			if len(a.Bugs) != len(b.Bugs) {
				t.Fatalf("%s %s: %d bugs, then %d", name, algo, len(a.Bugs), len(b.Bugs))
			}
			for i := range a.Bugs {
				x, y := a.Bugs[i], b.Bugs[i]
				if x.Kind != y.Kind || x.Message != y.Message || x.Range != y.Range || !slices.Equal(x.Schedule, y.Schedule) || !slices.Equal(x.Choices, y.Choices) {
					t.Errorf("%s %s: bug %d differs between two explorations: %s %q %v, then %s %q %v", name, algo, i, x.Kind, x.Message, x.Schedule, y.Kind, y.Message, y.Schedule)
				}
			}
		}
	})
}

// TestMaxDepthCountsOmittedBugs: the longest execution of the statistics
// is never shorter than the trace of a bug found, also one beyond
// MaxTraces, not kept, at which MaxBugs stops the exploration (a review
// found 3 here where the race not kept has a trace of 7 steps).
func TestMaxDepthCountsOmittedBugs(t *testing.T) {
	prog := load(t, "two races", "var x int\nvar y int\nvar z int\n\nthread a {\n    x = 1\n    y = 1\n}\n\nthread b {\n    y = 2\n    z = 1\n    z = 2\n    z = 3\n    x = 2\n}\n")
	res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, MaxBugs: 2, MaxTraces: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != engine.StoppedMaxBugs || len(res.Omitted) != 1 || res.MaxDepth < 7 {
		t.Errorf("stopped %q, omitted %v, max depth %d; want max-bugs, one race omitted, and at least 7 (its trace)", res.Stopped, res.Omitted, res.MaxDepth)
	}
}
