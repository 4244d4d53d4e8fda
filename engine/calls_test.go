package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// Hand-built programs with function calls (see engine/interp/call_test.go
// for the interpreter's own tests).

func in(op ir.Op, a, b, c int32) ir.Instr { return ir.Instr{Op: op, A: a, B: b, C: c} }

type testFunc struct {
	name   string
	frame  []int64
	params int
	code   []ir.Instr
	locals []ir.LocalVar
	at     int // source offset of its first instruction's range (one offset an instruction)
}

// body assembles a body from its own code (ranges from offset at, one an
// instruction) and its functions' code, whose jump targets are relative
// to each function's start.
func body(name string, frame []int64, at int, code []ir.Instr, locals []ir.LocalVar, funcs ...testFunc) *ir.Body {
	b := &ir.Body{Name: name, Frame: frame, Code: slices.Clone(code), Locals: locals}
	rng := func(off int) source.Range {
		return source.Range{Start: source.Pos{Offset: off}, End: source.Pos{Offset: off + 1}}
	}
	for i := range code {
		b.Ranges = append(b.Ranges, rng(at+i))
	}
	for _, f := range funcs {
		entry := int32(len(b.Code))
		for i, ins := range f.code {
			for k := range 3 {
				if p, kind := ins.Operand(k); kind == ir.Target {
					*p += entry
				}
			}
			b.Code = append(b.Code, ins)
			b.Ranges = append(b.Ranges, rng(f.at+i))
		}
		b.Funcs = append(b.Funcs, ir.Func{Name: f.name, Entry: entry, End: int32(len(b.Code)), Frame: f.frame, NumParams: f.params, Locals: f.locals})
	}
	return b
}

func program(t *testing.T, locs []string, bodies ...*ir.Body) *engine.Program {
	t.Helper()
	p := &engine.Program{Bodies: bodies, Init: make([]int64, len(locs))}
	for i, l := range locs {
		p.Locations = append(p.Locations, ir.Location{Name: l, Var: i})
		p.Vars = append(p.Vars, ir.SharedVar{Name: l, Offset: i, Size: 1})
	}
	for i, b := range bodies {
		p.Threads = append(p.Threads, ir.ThreadSpec{Name: b.Name, Body: i})
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCallsExploreLikeInlined explores, in every mode, a program whose
// threads increment x through (recursive) function calls, and the same
// program with the functions inlined: same executions, same bugs.
//
//	a: r = rep(2); y = r     (rep(n) = n <= 1 ? inc() : (inc(); rep(n-1)), inc() = (x = x + 1; x))
//	b: inc()
//	c: assert y <= x         (fails when b's lost update comes after a's)
func TestCallsExploreLikeInlined(t *testing.T) {
	inc := testFunc{name: "inc", frame: []int64{0, 0, 0, 1}, code: []ir.Instr{
		// slots: 0 t, 1 r, 2 &x, 3 const 1
		in(ir.OpLoad, 0, 2, 0),
		in(ir.OpAdd, 1, 0, 3),
		in(ir.OpStore, 1, 2, 0),
		in(ir.OpRet, 1, 0, 0),
	}}
	rep := testFunc{name: "rep", frame: []int64{0, 1, 0, 0, 0}, params: 1, code: []ir.Instr{
		// slots: 0 n, 1 const 1, 2 cond, 3 n-1, 4 r
		in(ir.OpLe, 2, 0, 1),
		in(ir.OpJz, 4, 2, 0),
		in(ir.OpCall, 4, 0, 0),
		in(ir.OpRet, 4, 0, 0),
		in(ir.OpCall, 4, 0, 0),
		in(ir.OpSub, 3, 0, 1),
		in(ir.OpCall, 4, 3, 1),
		in(ir.OpRet, 4, 0, 0),
	}}
	c := body("c", []int64{0, 0, 0, 1, 0}, 0, []ir.Instr{
		// slots: 0 a, 1 b, 2 &x, 3 &y, 4 cond
		in(ir.OpLoad, 0, 3, 0),
		in(ir.OpLoad, 1, 2, 0),
		in(ir.OpLe, 4, 0, 1),
		in(ir.OpAssert, 0, 4, -1),
		in(ir.OpEnd, 0, 0, 0),
	}, nil)
	incCode := []ir.Instr{in(ir.OpLoad, 0, 2, 0), in(ir.OpAdd, 1, 0, 3), in(ir.OpStore, 1, 2, 0)}
	inlined := program(t, []string{"x", "y"},
		body("a", []int64{0, 0, 0, 1, 1}, 0, slices.Concat(incCode, incCode, []ir.Instr{in(ir.OpStore, 1, 4, 0), in(ir.OpEnd, 0, 0, 0)}), nil),
		body("b", []int64{0, 0, 0, 1}, 0, append(slices.Clone(incCode), in(ir.OpEnd, 0, 0, 0)), nil),
		c)
	calls := program(t, []string{"x", "y"},
		body("a", []int64{0, 1, 2}, 0, []ir.Instr{
			// slots: 0 r, 1 &y, 2 const 2
			in(ir.OpCall, 0, 2, 1),
			in(ir.OpStore, 0, 1, 0),
			in(ir.OpEnd, 0, 0, 0),
		}, nil, inc, rep),
		body("b", []int64{0}, 0, []ir.Instr{in(ir.OpCall, 0, 0, 0), in(ir.OpEnd, 0, 0, 0)}, nil, inc),
		c)
	summary := func(res *engine.Result) string {
		var bugs []string
		for _, b := range res.Bugs {
			bugs = append(bugs, fmt.Sprintf("%s %s %q %d steps", b.Kind, b.Thread, b.Message, len(b.Schedule)))
		}
		slices.Sort(bugs)
		execs := fmt.Sprintf("%d executions, ", res.Executions)
		if res.Algorithm == engine.Stateful {
			// A state holds the call's frame: the paths to states differ
			// in number, not the bugs.
			execs = ""
		}
		return fmt.Sprintf("%scomplete %v, bugs:\n%s", execs, res.Complete, strings.Join(bugs, "\n"))
	}
	for _, algo := range engine.Algorithms {
		t.Run(string(algo), func(t *testing.T) {
			var got [2]string
			for i, prog := range []*engine.Program{inlined, calls} {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxBugs: 100})
				if err != nil {
					t.Fatal(err)
				}
				got[i] = summary(res)
				found := false
				for _, b := range res.Bugs {
					found = found || b.Kind == engine.BugAssertion
					// Every bug replays to itself.
					if err := engine.Reproduce(prog, b); err != nil {
						t.Errorf("%s: %v", b.Message, err)
					}
				}
				if !found || !res.Complete {
					t.Errorf("%s", got[i])
				}
			}
			t.Log(got[1])
			if got[0] != got[1] {
				t.Errorf("inlined:\n%s\nwith calls:\n%s", got[0], got[1])
			}
		})
	}
}

// TestStepStatesInFunction checks that the state of a thread running a
// function shows its body's locals (from the body's frame, in scope at
// the call) and the function's (from its frame, in scope where it
// stands).
func TestStepStatesInFunction(t *testing.T) {
	// f(n): k = n * 3; x = k; x = n; return k      (code at offsets 100…)
	// t:    var a = 7; r = f(a); x = r            (code at offsets 10…)
	scope := func(lo, hi int) source.Range {
		return source.Range{Start: source.Pos{Offset: lo}, End: source.Pos{Offset: hi}}
	}
	f := testFunc{name: "f", frame: []int64{0, 0, 0, 3}, params: 1, at: 100, code: []ir.Instr{
		// slots: 0 n, 1 k, 2 &x, 3 const 3
		in(ir.OpMul, 1, 0, 3),
		in(ir.OpStore, 1, 2, 0),
		in(ir.OpStore, 0, 2, 0),
		in(ir.OpRet, 1, 0, 0),
	}, locals: []ir.LocalVar{{Name: "n", Slot: 0, Size: 1, Scope: scope(100, 150)}, {Name: "k", Slot: 1, Size: 1, Scope: scope(100, 150)}}}
	prog := program(t, []string{"x"}, body("t", []int64{7, 0, 0}, 10, []ir.Instr{
		// slots: 0 a, 1 r, 2 &x
		in(ir.OpCall, 1, 0, 0),
		in(ir.OpStore, 1, 2, 0),
		in(ir.OpEnd, 0, 0, 0),
	}, []ir.LocalVar{{Name: "a", Slot: 0, Size: 1, Scope: scope(10, 50)}, {Name: "r", Slot: 1, Size: 1, Scope: scope(10, 50)}}, f))
	states, err := engine.StepStates(context.Background(), prog, []int32{0, 0, 0}, engine.ReplayOptions{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	show := func(ts engine.ThreadState) string {
		s := fmt.Sprintf("at %d %v", ts.At.Start.Offset, ts.Locals)
		for _, c := range ts.Calls {
			s += fmt.Sprintf(" | %s@%d %v", c.Func, c.Site.Start.Offset, c.Locals)
		}
		return s
	}
	want := []string{
		"at 102 [{a 7} {r 0}] | f@10 [{n 7} {k 21}]", // after x = k, inside f
		"at 11 [{a 7} {r 21}]",                       // after x = n, f returned
		"at 0 []",                                    // finished
	}
	for i, st := range states {
		if got := show(st.Threads[0]); got != want[i] {
			t.Errorf("step %d: %s, want %s", i+1, got, want[i])
		}
	}
}
