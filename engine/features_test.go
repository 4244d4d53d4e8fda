package engine_test

import (
	"context"
	"errors"
	"testing"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// featureProgram is one thread that runs op (with slot operands 0 and 1,
// holding 0 and 1) at line 3 of its source, after a write at line 2; a
// second thread's body has a later use at line 7.
func featureProgram(op ir.Op) *engine.Program {
	at := func(line int) source.Range {
		return source.Range{Start: source.Pos{Offset: 10 * line, Line: line - 1}, End: source.Pos{Offset: 10*line + 5, Line: line - 1, Col: 5}}
	}
	body := func(name string, line int) *ir.Body {
		b := &ir.Body{
			Name:  name,
			Frame: []int64{0, 1, 0},
			Code: []ir.Instr{
				{Op: ir.OpStore, A: 0, B: 0},
				{Op: op, A: 0, B: 0, C: 1},
				{Op: ir.OpEnd},
			},
			Ranges: []source.Range{at(line - 1), at(line), at(line)},
		}
		if op == ir.OpWait {
			// A wait is followed by its wake.
			b.Code = append(b.Code[:2], ir.Instr{Op: ir.OpWake, A: 0, B: 0, C: 1}, ir.Instr{Op: ir.OpEnd})
			b.Ranges = append(b.Ranges, at(line))
		}
		return b
	}
	return &engine.Program{
		// The later use first: the error names the first in the source.
		Bodies:    []*ir.Body{body("late", 7), body("early", 3)},
		Threads:   []engine.ThreadSpec{{Name: "late", Body: 0}, {Name: "early", Body: 1}},
		Locations: []engine.Location{{Name: "m", Mutex: true}},
		Init:      []int64{0},
	}
}

// TestUnsupportedFeatures: qpor and optimal refuse condition variables with an error that names the feature, its first
// line and the modes that explore it; dfs and sdpor accept them.
func TestUnsupportedFeatures(t *testing.T) {
	tests := []struct {
		op   ir.Op
		want string // the error for qpor
	}{
		{ir.OpWait, "condition variables (line 3) are explored by dfs and sdpor; qpor and optimal do not support them yet"},
		{ir.OpSignal, "condition variables (line 3) are explored by dfs and sdpor; qpor and optimal do not support them yet"},
		{ir.OpBroadcast, "condition variables (line 3) are explored by dfs and sdpor; qpor and optimal do not support them yet"},
	}
	for _, tc := range tests {
		t.Run(tc.op.String(), func(t *testing.T) {
			prog := featureProgram(tc.op)
			if err := prog.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, algo := range []engine.Algorithm{engine.QPOR, engine.Optimal} {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
				var u *engine.UnsupportedError
				if !errors.As(err, &u) {
					t.Fatalf("%s: Explore = %v, %v; want an *UnsupportedError", algo, res, err)
				}
				if err.Error() != tc.want {
					t.Errorf("%s: %q, want %q", algo, err, tc.want)
				}
				if u.Algorithm != algo || u.Range.Start.Line != 2 || len(u.Modes) != 2 {
					t.Errorf("%s: %+v", algo, u)
				}
				if got := engine.Unsupported(prog, algo); got == nil || got.Error() != tc.want {
					t.Errorf("Unsupported(%s) = %v", algo, got)
				}
			}
			for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR, ""} {
				if u := engine.Unsupported(prog, algo); u != nil {
					t.Errorf("Unsupported(%q) = %v, want nil", algo, u)
				}
			}
		})
	}
	// Spin-waiting, choose and trylock are explored by every mode, and a
	// program without the features by every mode.
	for _, op := range []ir.Op{ir.OpNop, ir.OpLoopHead, ir.OpTrylock, ir.OpChoose} {
		prog := featureProgram(op)
		if op == ir.OpLoopHead {
			prog.Bodies[0].Loops = []ir.Loop{{}}
			prog.Bodies[1].Loops = []ir.Loop{{}}
			for _, b := range prog.Bodies {
				b.Code[1] = ir.Instr{Op: ir.OpLoopHead}
			}
		}
		for _, algo := range engine.Algorithms {
			if u := engine.Unsupported(prog, algo); u != nil {
				t.Errorf("%s: Unsupported(%s) = %v", op, algo, u)
			}
		}
	}
}
