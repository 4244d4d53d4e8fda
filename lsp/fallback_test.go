package lsp

import (
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// TestModeFor: a check planned with qpor or optimal runs sdpor on a model
// that uses a feature they do not explore, and its status says so; any
// other model runs the mode planned.
func TestModeFor(t *testing.T) {
	prog := func(op ir.Op) *engine.Program {
		r := source.Range{Start: source.Pos{Offset: 20, Line: 4}, End: source.Pos{Offset: 25, Line: 4, Col: 5}}
		return &engine.Program{
			Bodies: []*ir.Body{{
				Name:   "t",
				Frame:  []int64{0, 1},
				Code:   []ir.Instr{{Op: op, A: 0, B: 0, C: 1}, {Op: ir.OpEnd}},
				Ranges: []source.Range{r, r},
			}},
			Threads:   []engine.ThreadSpec{{Name: "t", Body: 0}},
			Locations: []engine.Location{{Name: "m", Mutex: true}},
			Init:      []int64{0},
		}
	}
	for _, algo := range []engine.Algorithm{engine.QPOR, engine.Optimal, engine.SDPOR, engine.DFS} {
		got, why := modeFor(prog(ir.OpWait), algo)
		unfolding := algo == engine.QPOR || algo == engine.Optimal
		if unfolding {
			if got != engine.SDPOR || !strings.Contains(why, "condition variables (line 5) are explored by dfs and sdpor") {
				t.Errorf("%s on wait: %s, %q; want sdpor and why", algo, got, why)
			}
		} else if got != algo || why != "" {
			t.Errorf("%s on wait: %s, %q; want %s", algo, got, why, algo)
		}
		if got, why := modeFor(prog(ir.OpNop), algo); got != algo || why != "" {
			t.Errorf("%s without features: %s, %q", algo, got, why)
		}
	}
	_, why := modeFor(prog(ir.OpSignal), engine.Optimal)
	st := status{State: stateVerified, Algorithm: "sdpor", Executions: 3, Complete: true, Fallback: why}
	if w := st.words(); !strings.HasPrefix(w, "✓ Verified: 3 executions, sdpor") || !strings.HasSuffix(w, "— condition variables (line 5) are explored by dfs and sdpor; qpor and optimal do not support them yet") {
		t.Errorf("words: %q", w)
	}
}
