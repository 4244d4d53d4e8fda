package interp_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"weft/analysis/lower"
	"weft/engine/interp"
)

// snapshot is everything of a machine's state that a step may change.
func snapshot(m *interp.Machine) string {
	s := fmt.Sprint(m.Mem, m.StepCount(), m.Depth(), len(m.Threads))
	for _, th := range m.Threads {
		s += fmt.Sprint("|", th.Name, th.PC, th.Status, th.Steps, th.Frame)
	}
	return s
}

// TestUndoRestores walks random schedules of the example models, coarse
// and fine, and checks that undoing each step gives back exactly the
// state before it (backtracking relies on it).
func TestUndoRestores(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.weft")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ld := lower.Load(f, src)
		if ld.Exec == nil {
			t.Fatalf("%s: %v", f, ld.Diagnostics)
		}
		for seed := int64(0); seed < 20; seed++ {
			r := rand.New(rand.NewSource(seed))
			m := interp.NewMachine(ld.Exec, 0)
			m.Coarse = seed%2 == 1
			var before []string
			var ev interp.Event
			for step := 0; step < 200; step++ {
				var enabled []int
				for i := range m.Threads {
					if m.Enabled(i) {
						enabled = append(enabled, i)
					}
				}
				if len(enabled) == 0 {
					break
				}
				before = append(before, snapshot(m))
				if !m.Step(enabled[r.Intn(len(enabled))], &ev) {
					m.Undo()
					if got := snapshot(m); got != before[len(before)-1] {
						t.Fatalf("%s seed %d: undoing a stop changed the state", f, seed)
					}
					before = before[:len(before)-1]
					break
				}
			}
			for len(before) > 0 {
				m.Undo()
				if got, want := snapshot(m), before[len(before)-1]; got != want {
					t.Fatalf("%s seed %d: after undoing step %d:\n got %s\nwant %s", f, seed, len(before), got, want)
				}
				before = slices.Delete(before, len(before)-1, len(before))
			}
		}
	}
}
