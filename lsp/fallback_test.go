package lsp

import (
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// TestModeFor: a check planned with qpor or optimal runs sdpor on a model
// that uses a feature they do not explore with its options (spurious
// wake-ups: the server does not ask for them, a tool might), and its
// status says so; any other model runs the mode planned.
func TestModeFor(t *testing.T) {
	r := source.Range{Start: source.Pos{Offset: 20, Line: 4}, End: source.Pos{Offset: 25, Line: 4, Col: 5}}
	prog := &engine.Program{
		Bodies: []*ir.Body{{
			Name:  "t",
			Frame: []int64{0, 1},
			Code: []ir.Instr{{Op: ir.OpLock, B: 0}, {Op: ir.OpWait, A: 0, B: 0}, {Op: ir.OpWake, A: 0, B: 0},
				{Op: ir.OpEnd}},
			Ranges: []source.Range{r, r, r, r},
		}},
		Threads:   []engine.ThreadSpec{{Name: "t", Body: 0}},
		Locations: []engine.Location{{Name: "m", Mutex: true}},
		Init:      []int64{0},
	}
	if err := prog.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, algo := range []engine.Algorithm{engine.QPOR, engine.Optimal, engine.SDPOR, engine.DFS} {
		got, why := modeFor(prog, engine.Options{Algorithm: algo, SpuriousWakeups: true})
		unfolding := algo == engine.QPOR || algo == engine.Optimal
		if unfolding {
			if got != engine.SDPOR || !strings.Contains(why, "spurious wake-ups (line 5) are explored by dfs, sdpor, cdpor and stateful") {
				t.Errorf("%s with spurious wake-ups: %s, %q; want sdpor and why", algo, got, why)
			}
		} else if got != algo || why != "" {
			t.Errorf("%s with spurious wake-ups: %s, %q; want %s", algo, got, why, algo)
		}
		if got, why := modeFor(prog, engine.Options{Algorithm: algo}); got != algo || why != "" {
			t.Errorf("%s: %s, %q", algo, got, why)
		}
	}
	_, why := modeFor(prog, engine.Options{Algorithm: engine.Optimal, SpuriousWakeups: true})
	st := status{State: stateVerified, Algorithm: "sdpor", Executions: 3, Complete: true, Fallback: why}
	if w := st.words(); !strings.HasPrefix(w, "✓ Verified: 3 executions, sdpor") || !strings.Contains(w, "— spurious wake-ups (line 5) are explored by dfs, sdpor, cdpor and stateful; ") || !strings.HasSuffix(w, "do not support them yet") {
		t.Errorf("words: %q", w)
	}
}
