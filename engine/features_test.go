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

// TestUnsupportedFeatures: qpor and optimal refuse to explore spurious
// wake-ups, with an error that names them, the line of the first
// wake-up and the modes that explore them; they explore condition
// variables without them, and choose, trylock and spin-waiting; dfs and
// sdpor explore everything.
func TestUnsupportedFeatures(t *testing.T) {
	const want = "spurious wake-ups (line 3) are explored by dfs, sdpor, cdpor and stateful; qpor and optimal do not support them yet"
	prog := featureProgram(ir.OpWait)
	if err := prog.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, algo := range []engine.Algorithm{engine.QPOR, engine.Optimal} {
		opts := engine.Options{Algorithm: algo, SpuriousWakeups: true}
		res, err := engine.Explore(context.Background(), prog, opts)
		var u *engine.UnsupportedError
		if !errors.As(err, &u) {
			t.Fatalf("%s: Explore = %v, %v; want an *UnsupportedError", algo, res, err)
		}
		if err.Error() != want {
			t.Errorf("%s: %q, want %q", algo, err, want)
		}
		if u.Algorithm != algo || u.Range.Start.Line != 2 || len(u.Modes) != 4 {
			t.Errorf("%s: %+v", algo, u)
		}
		if got := engine.Unsupported(prog, opts); got == nil || got.Error() != want {
			t.Errorf("Unsupported(%s) = %v", algo, got)
		}
	}
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR, ""} {
		if u := engine.Unsupported(prog, engine.Options{Algorithm: algo, SpuriousWakeups: true}); u != nil {
			t.Errorf("Unsupported(%q, spurious wake-ups) = %v, want nil", algo, u)
		}
	}
	// Without the option, and every other feature, in every mode.
	for _, op := range []ir.Op{ir.OpNop, ir.OpLoopHead, ir.OpTrylock, ir.OpChoose, ir.OpWait, ir.OpSignal, ir.OpBroadcast} {
		prog := featureProgram(op)
		if op == ir.OpLoopHead {
			prog.Bodies[0].Loops = []ir.Loop{{}}
			prog.Bodies[1].Loops = []ir.Loop{{}}
			for _, b := range prog.Bodies {
				b.Code[1] = ir.Instr{Op: ir.OpLoopHead}
			}
		}
		for _, algo := range engine.Algorithms {
			if u := engine.Unsupported(prog, engine.Options{Algorithm: algo}); u != nil {
				t.Errorf("%s: Unsupported(%s) = %v", op, algo, u)
			}
		}
	}
}
