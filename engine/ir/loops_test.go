package ir_test

import (
	"slices"
	"strings"
	"testing"

	"weft/engine/internal/irtest"
	"weft/engine/ir"
	"weft/source"
)

// TestAnalyzeLoops checks Loop.Slots on hand-built loops: what is live at
// the head and can change what the thread does is compared, nothing else.
func TestAnalyzeLoops(t *testing.T) {
	type slotsOf func() (prog *ir.Program, want []int32)
	tests := []struct {
		name  string
		build slotsOf
	}{
		{"a counter nobody reads is not compared", func() (*ir.Program, []int32) {
			p := irtest.New()
			flag := p.Var("flag", irtest.Atomic, 0)
			th := p.Thread("t")
			i, v := th.Local("i"), th.Temp()
			th.Label("top")
			th.LoopHead(false)
			th.Load(v, flag)
			th.AddI(i, i, 1)
			th.Jnz("out", v)
			th.Jmp("top")
			th.Label("out")
			return p.MustBuild(), nil
		}},
		{"a counter read after the loop is compared", func() (*ir.Program, []int32) {
			p := irtest.New()
			flag := p.Var("flag", irtest.Atomic, 0)
			y := p.Var("y", irtest.Plain, 0)
			th := p.Thread("t")
			i, v := th.Local("i"), th.Temp()
			th.Label("top")
			th.LoopHead(false)
			th.Load(v, flag)
			th.AddI(i, i, 1)
			th.Jnz("out", v)
			th.Jmp("top")
			th.Label("out")
			th.Store(y, i)
			return p.MustBuild(), []int32{i}
		}},
		{"a local flag read by the condition is compared", func() (*ir.Program, []int32) {
			p := irtest.New()
			x := p.Var("x", irtest.Atomic, 0)
			th := p.Thread("t")
			done, v, one := th.Local("done"), th.Temp(), th.Const(1)
			th.Label("top")
			th.LoopHead(false)
			th.Jnz("out", done)
			th.Load(v, x)
			th.Op(ir.OpEq, done, v, one)
			th.Jmp("top")
			th.Label("out")
			return p.MustBuild(), []int32{done}
		}},
		{"a relevant slot dead at the head is not compared", func() (*ir.Program, []int32) {
			p := irtest.New()
			x := p.Var("x", irtest.Atomic, 0)
			th := p.Thread("t")
			v := th.Local("v")
			th.Label("top")
			th.LoopHead(false)
			th.Load(v, x) // v is overwritten before any read
			th.Jz("top", v)
			return p.MustBuild(), nil
		}},
		{"a value reaching a divisor is compared", func() (*ir.Program, []int32) {
			p := irtest.New()
			x := p.Var("x", irtest.Atomic, 0)
			th := p.Thread("t")
			d, q, v := th.Local("d"), th.Local("q"), th.Temp()
			th.Set(d, 3)
			th.Label("top")
			th.LoopHead(false)
			th.Op(ir.OpDiv, q, th.Const(10), d) // q is never read
			th.AddI(d, d, -1)
			th.Load(v, x)
			th.Jz("top", v)
			return p.MustBuild(), []int32{d}
		}},
		{"an index into a local array compares the array", func() (*ir.Program, []int32) {
			p := irtest.New()
			x := p.Var("x", irtest.Atomic, 0)
			th := p.Thread("t")
			arr := th.LocalArray("a", 3)
			k, e, v := th.Local("k"), th.Temp(), th.Temp()
			th.Label("top")
			th.LoopHead(false)
			th.Load(v, x)
			th.Emit(ir.OpCheck, 0, v, 3)
			th.Emit(ir.OpStx, k, v, arr) // a[v] = k
			th.Emit(ir.OpLdx, e, k, arr) // e = a[k]
			th.Op(ir.OpMod, k, e, th.Const(3))
			th.Jz("top", e)
			return p.MustBuild(), []int32{arr, arr + 1, arr + 2, k}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, want := tt.build()
			got := slices.Clone(prog.Bodies[0].Loops[0].Slots)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Slots = %v, want %v", got, want)
			}
		})
	}
}

// TestAnalyzeLoopsFunction checks a loop inside a function: its slots are
// the function frame's, and the caller's code is another region.
func TestAnalyzeLoopsFunction(t *testing.T) {
	// Caller: s0 = call f(s1); end. f (frame: 0 param n, 1 i, 2 v, 3 const
	// loc 0, 4 const 1): loop head; v = load x; n = n + 1; i = i + 1;
	// jz head, v; ret n.
	b := &ir.Body{
		Name:  "t",
		Frame: []int64{0, 5},
		Code: []ir.Instr{
			{Op: ir.OpCall, A: 0, B: 1, C: 0},
			{Op: ir.OpEnd},
			{Op: ir.OpLoopHead, A: 0},
			{Op: ir.OpLoad, A: 2, B: 3},
			{Op: ir.OpAdd, A: 0, B: 0, C: 4},
			{Op: ir.OpAdd, A: 1, B: 1, C: 4},
			{Op: ir.OpJz, A: 2, B: 2},
			{Op: ir.OpRet, A: 0},
		},
		Loops: []ir.Loop{{}},
		Funcs: []ir.Func{{Name: "f", Entry: 2, End: 8, Frame: []int64{0, 0, 0, 0, 1}, NumParams: 1}},
	}
	b.Ranges = make([]source.Range, len(b.Code))
	prog := &ir.Program{Bodies: []*ir.Body{b}, Threads: []ir.ThreadSpec{{Name: "t", Body: 0}},
		Locations: []ir.Location{{Name: "x"}}, Init: []int64{0}}
	if err := prog.Validate(); err != nil {
		t.Fatal(err)
	}
	ir.AnalyzeLoops(b)
	// n is returned (relevant) and live; i is a counter nobody reads.
	if got := b.Loops[0].Slots; !slices.Equal(got, []int32{0}) {
		t.Errorf("Slots = %v, want [0]", got)
	}
}

// TestAnalyzeLoopsSpawnArguments: a spawn's arguments are read by it; the
// body alone does not say how many, so AnalyzeLoops counts every slot
// from the first to the end of the frame, and Program.AnalyzeLoops only
// the proc's parameters.
func TestAnalyzeLoopsSpawnArguments(t *testing.T) {
	p := irtest.New()
	x := p.Var("x", irtest.Atomic, 0)
	_, proc := p.Proc("w", 1)
	th := p.Thread("t")
	arg, later, v, h := th.Local("arg"), th.Local("later"), th.Temp(), th.Temp()
	th.Label("top")
	th.LoopHead(false)
	th.AddI(arg, arg, 1)
	th.AddI(later, later, 1)
	th.Load(v, x)
	th.Jz("top", v)
	th.Spawn(h, proc, arg)
	prog := p.MustBuild()
	if got := prog.Bodies[1].Loops[0].Slots; !slices.Equal(got, []int32{arg}) {
		t.Errorf("Program.AnalyzeLoops: Slots = %v, want [%d]", got, arg)
	}
	ir.AnalyzeLoops(prog.Bodies[1])
	got := prog.Bodies[1].Loops[0].Slots
	if !slices.Contains(got, arg) || !slices.Contains(got, later) {
		t.Errorf("AnalyzeLoops: Slots = %v, want %d and %d among them", got, arg, later)
	}
}

// TestValidateWaitWake: a wait must be followed by the wake with its
// operands (the interpreter leaves a waiting thread there).
func TestValidateWaitWake(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("cv", irtest.Cond, 0)
	th := p.Thread("t")
	th.Lock(mx)
	th.Wait(cv, mx)
	prog := p.MustBuild()
	b := prog.Bodies[0]
	b.Code[2].Op = ir.OpNop
	if err := prog.Validate(); err == nil || !strings.Contains(err.Error(), "not followed by its wake") {
		t.Errorf("Validate: %v", err)
	}
}
