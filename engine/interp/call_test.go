package interp

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine/ir"
	"weft/source"
)

// Hand-built programs with function calls (lowering of functions is
// another piece of work): a body's own code and its functions' code are
// written separately, each with jump targets relative to its own start,
// and assembled as ir.Body wants them.

func I(op ir.Op, a, b, c int32) ir.Instr { return ir.Instr{Op: op, A: a, B: b, C: c} }

type fnDef struct {
	name   string
	frame  []int64
	params int
	code   []ir.Instr
	locals []ir.LocalVar
}

// mkBody assembles a body from its own code and its functions' code.
func mkBody(name string, frame []int64, numParams, argSlot int, code []ir.Instr, funcs ...fnDef) *ir.Body {
	b := &ir.Body{Name: name, Frame: frame, NumParams: numParams, ArgSlot: argSlot, Code: append([]ir.Instr(nil), code...)}
	for _, f := range funcs {
		entry := int32(len(b.Code))
		for _, in := range f.code {
			for i := range 3 {
				if p, kind := in.Operand(i); kind == ir.Target {
					*p += entry
				}
			}
			b.Code = append(b.Code, in)
		}
		b.Funcs = append(b.Funcs, ir.Func{Name: f.name, Entry: entry, End: int32(len(b.Code)), Frame: f.frame, NumParams: f.params, Locals: f.locals})
	}
	b.Ranges = make([]source.Range, len(b.Code))
	return b
}

// mkProg makes a program of bodies and threads (body index, args) over
// shared locations named by locs (a name starting with "m" is a mutex).
func mkProg(t testing.TB, locs []string, bodies []*ir.Body, procs []int, threads ...ir.ThreadSpec) *ir.Program {
	t.Helper()
	p := &ir.Program{Bodies: bodies, Procs: procs, Threads: threads, Init: make([]int64, len(locs))}
	for i, l := range locs {
		p.Locations = append(p.Locations, ir.Location{Name: l, Var: i, Mutex: strings.HasPrefix(l, "m")})
		p.Vars = append(p.Vars, ir.SharedVar{Name: l, Offset: i, Size: 1})
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// fact is factorial(n): slots n, 1, cond, n-1, fact(n-1), result.
var fact = fnDef{name: "fact", frame: []int64{0, 1, 0, 0, 0, 0}, params: 1, code: []ir.Instr{
	I(ir.OpLe, 2, 0, 1),
	I(ir.OpJz, 3, 2, 0),
	I(ir.OpRet, 1, 0, 0),
	I(ir.OpSub, 3, 0, 1),
	I(ir.OpCall, 4, 3, 0), // fact is function 0
	I(ir.OpMul, 5, 0, 4),
	I(ir.OpRet, 5, 0, 0),
}}

// callAndStore is a body that calls function 0 with the argument in slot
// 0 and stores the result (slot 1) to location 0 (slot 2).
func callAndStore(arg int64, funcs ...fnDef) *ir.Body {
	return mkBody("t", []int64{arg, 0, 0}, 0, 0, []ir.Instr{
		I(ir.OpCall, 1, 0, 0),
		I(ir.OpStore, 1, 2, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, funcs...)
}

// run steps thread 0 of a one-thread program to its end and returns the
// machine; it fails the test on a stop.
func runToEnd(t *testing.T, prog *ir.Program) *Machine {
	t.Helper()
	m := NewMachine(prog, 0)
	var ev Event
	for m.Threads[0].Status != Finished {
		if !m.Step(0, &ev) {
			t.Fatalf("stopped: %s", ev.Message)
		}
		checkInvariants(t, m)
	}
	return m
}

func TestCallReturnsValue(t *testing.T) {
	double := fnDef{name: "double", frame: []int64{0, 0, 2}, params: 1, code: []ir.Instr{
		I(ir.OpMul, 1, 0, 2),
		I(ir.OpRet, 1, 0, 0),
	}}
	m := runToEnd(t, mkProg(t, []string{"x"}, []*ir.Body{callAndStore(21, double)}, nil, ir.ThreadSpec{Name: "t", Body: 0}))
	if m.Mem[0] != 42 {
		t.Errorf("x = %d, want 42", m.Mem[0])
	}
	if d := m.Threads[0].CallDepth(); d != 0 {
		t.Errorf("call depth %d after the return", d)
	}
}

func TestRecursion(t *testing.T) {
	m := runToEnd(t, mkProg(t, []string{"x"}, []*ir.Body{callAndStore(10, fact)}, nil, ir.ThreadSpec{Name: "t", Body: 0}))
	if m.Mem[0] != 3628800 {
		t.Errorf("fact(10) = %d, want 3628800", m.Mem[0])
	}
}

// even and odd call each other: even(n) = n == 0 || odd(n-1), odd(n) =
// n != 0 && even(n-1). Slots n, 0, 1, cond, n-1, result.
var evenOdd = []fnDef{
	{name: "even", frame: []int64{0, 0, 1, 0, 0, 0}, params: 1, code: []ir.Instr{
		I(ir.OpEq, 3, 0, 1),
		I(ir.OpJz, 3, 3, 0),
		I(ir.OpRet, 2, 0, 0),
		I(ir.OpSub, 4, 0, 2),
		I(ir.OpCall, 5, 4, 1),
		I(ir.OpRet, 5, 0, 0),
	}},
	{name: "odd", frame: []int64{0, 0, 1, 0, 0, 0}, params: 1, code: []ir.Instr{
		I(ir.OpEq, 3, 0, 1),
		I(ir.OpJz, 3, 3, 0),
		I(ir.OpRet, 1, 0, 0),
		I(ir.OpSub, 4, 0, 2),
		I(ir.OpCall, 5, 4, 0),
		I(ir.OpRet, 5, 0, 0),
	}},
}

func TestMutualRecursion(t *testing.T) {
	for n, want := range map[int64]int64{0: 1, 1: 0, 7: 0, 10: 1, 999: 0} {
		m := runToEnd(t, mkProg(t, []string{"x"}, []*ir.Body{callAndStore(n, evenOdd...)}, nil, ir.ThreadSpec{Name: "t", Body: 0}))
		if m.Mem[0] != want {
			t.Errorf("even(%d) = %d, want %d", n, m.Mem[0], want)
		}
	}
}

// count(n) = n == 0 ? 0 : 1 + count(n-1): a call of count(n) reaches
// depth n+1. Slots n, 0, 1, cond, n-1, count(n-1), result.
var count = fnDef{name: "count", frame: []int64{0, 0, 1, 0, 0, 0, 0}, params: 1, code: []ir.Instr{
	I(ir.OpEq, 3, 0, 1),
	I(ir.OpJz, 3, 3, 0),
	I(ir.OpRet, 1, 0, 0),
	I(ir.OpSub, 4, 0, 2),
	I(ir.OpCall, 5, 4, 0),
	I(ir.OpAdd, 6, 5, 2),
	I(ir.OpRet, 6, 0, 0),
}}

func TestCallDepthBound(t *testing.T) {
	m := runToEnd(t, mkProg(t, []string{"x"}, []*ir.Body{callAndStore(MaxCallDepth-1, count)}, nil, ir.ThreadSpec{Name: "t", Body: 0}))
	if m.Mem[0] != MaxCallDepth-1 {
		t.Errorf("count(%d) = %d", MaxCallDepth-1, m.Mem[0])
	}

	for _, tt := range []struct {
		name string
		body *ir.Body
	}{
		{"one too deep", callAndStore(MaxCallDepth, count)},
		// forever(n) = forever(n+1)
		{"no base case", callAndStore(0, fnDef{name: "forever", frame: []int64{0, 1, 0, 0}, params: 1, code: []ir.Instr{
			I(ir.OpAdd, 2, 0, 1),
			I(ir.OpCall, 3, 2, 0),
			I(ir.OpRet, 3, 0, 0),
		}})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prog := mkProg(t, []string{"x"}, []*ir.Body{tt.body}, nil, ir.ThreadSpec{Name: "t", Body: 0})
			m := NewMachine(prog, 0)
			th := m.Threads[0]
			if th.Status != Failing || th.CallDepth() != MaxCallDepth {
				t.Fatalf("status %v at depth %d, want failing at %d", th.Status, th.CallDepth(), MaxCallDepth)
			}
			before := deepSnapshot(m)
			var ev Event
			if m.Step(0, &ev) {
				t.Fatal("the step did not stop")
			}
			fn := tt.body.Funcs[0].Name
			want := "call depth bound of 1000 exceeded in " + fn + " (unbounded recursion?)"
			if ev.Stop != StopRuntimeError || ev.Message != want {
				t.Errorf("stop %v %q, want runtime-error %q", ev.Stop, ev.Message, want)
			}
			if in := tt.body.Code[ev.PC]; in.Op != ir.OpCall || ev.PC < tt.body.Funcs[0].Entry {
				t.Errorf("the stop is at pc %d (%s), want the recursive call", ev.PC, in.Op)
			}
			if got := DescribeEvent(prog, m, &ev); got != "runtime error: "+want {
				t.Errorf("described as %q", got)
			}
			m.Undo()
			if got := deepSnapshot(m); got != before {
				t.Errorf("undo changed the state:\n got %s\nwant %s", got, before)
			}
		})
	}
}

// deepSnapshot is everything of a machine's state that a step may change,
// every live frame included.
func deepSnapshot(m *Machine) string {
	var sb strings.Builder
	fmt.Fprint(&sb, m.Mem, m.StepCount(), m.Depth(), len(m.Threads))
	for _, th := range m.Threads {
		fmt.Fprint(&sb, "|", th.Name, th.PC, th.Status, th.fail, th.Steps, th.spawned, th.BaseFrame(), th.BasePC(), th.CallDepth())
		for _, c := range th.Calls() {
			fmt.Fprint(&sb, " ", c.Func.Name, "@", c.Site, ":", c.PC, c.Frame)
		}
	}
	return sb.String()
}

// checkInvariants checks what must hold between steps: every saved bit
// clear (see "Frame undo log"), the current frame the innermost one, and
// the machine's count of frame bytes.
func checkInvariants(t *testing.T, m *Machine) {
	t.Helper()
	var bytes int64
	for _, th := range m.Threads {
		bytes += threadBytes(th)
		_, bits := th.frameAt(0)
		for d := 0; ; d++ {
			for i, w := range bits {
				if w != 0 {
					t.Fatalf("%s: bits %x of frame %d (word %d) set between steps", th.Name, w, d, i)
				}
			}
			if th.calls == nil || d >= len(th.calls.bufs) {
				break
			}
			bits = th.calls.bufs[d].bits
		}
		cs := th.calls
		if cs == nil {
			continue
		}
		if cs.hi != cs.mark {
			t.Fatalf("%s: frames (%d, %d] left marked saved", th.Name, cs.mark, cs.hi)
		}
		for d, b := range cs.bufs {
			if b.siteSaved {
				t.Fatalf("%s: call record %d left marked saved", th.Name, d+1)
			}
		}
		if cs.depth > 0 {
			fn := th.Body.Funcs[th.Body.Code[cs.sites[cs.depth-1]].C]
			if len(th.Frame) != len(fn.Frame) || &th.Frame[0] != &cs.bufs[cs.depth-1].words[0] {
				t.Fatalf("%s: the current frame is not %s's", th.Name, fn.Name)
			}
		}
	}
	for _, th := range m.freeThread {
		bytes += threadBytes(th)
	}
	if bytes != m.frameBytes {
		t.Fatalf("frameBytes %d, threads hold %d", m.frameBytes, bytes)
	}
}

// callProgram exercises what the frame undo log must get right with
// calls: visible steps at every depth of a recursion, a step that returns
// from a frame and calls again at the same depth (a different function,
// with a smaller or a larger frame, so that the buffer grows while it
// holds a frame Undo must bring back), local array writes in a function,
// calls of a spawned proc whose first step is inside a function, and a
// function called inside an atomic block.
//
// Locations: x, y, z. Functions (shared by the bodies):
//
//	sum(n)   = n == 0 ? x : (y = n; n + sum(n-1))   (visible steps at each depth)
//	small(v) = (y = 2*v; 2*v)                       (4 slots)
//	big(v)   = (a[v%200] = v; y = a[v%200]; v+1)     (a 200-element array)
//	bump()   = (z = z + 1; z)                        (called in atomic blocks)
func callProgram(t testing.TB) *ir.Program {
	sum := fnDef{name: "sum", frame: []int64{0, 0, 1, 0, 0, 0, 0, 0, 1}, params: 1, code: []ir.Instr{
		// slots: 0 n, 1 const 0, 2 const 1, 3 cond, 4 n-1, 5 r, 6 res, 7 &x, 8 &y
		I(ir.OpEq, 3, 0, 1),
		I(ir.OpJz, 4, 3, 0),
		I(ir.OpLoad, 5, 7, 0),
		I(ir.OpRet, 5, 0, 0),
		I(ir.OpStore, 0, 8, 0),
		I(ir.OpSub, 4, 0, 2),
		I(ir.OpCall, 6, 4, 0),
		I(ir.OpAdd, 6, 6, 0),
		I(ir.OpRet, 6, 0, 0),
	}}
	small := fnDef{name: "small", frame: []int64{0, 2, 0, 1}, params: 1, code: []ir.Instr{
		// slots: 0 v, 1 const 2, 2 t, 3 &y
		I(ir.OpMul, 2, 0, 1),
		I(ir.OpStore, 2, 3, 0),
		I(ir.OpRet, 2, 0, 0),
	}}
	bigFrame := make([]int64, 206)
	bigFrame[1], bigFrame[2], bigFrame[3] = 200, 1, 1
	big := fnDef{name: "big", frame: bigFrame, params: 1, code: []ir.Instr{
		// slots: 0 v, 1 const 200, 2 const 1, 3 &y, 4 i, 5 t, 6.. a
		I(ir.OpMod, 4, 0, 1),
		I(ir.OpCheck, 0, 4, 200),
		I(ir.OpStx, 0, 4, 6),
		I(ir.OpLdx, 5, 4, 6),
		I(ir.OpStore, 5, 3, 0),
		I(ir.OpAdd, 5, 0, 2),
		I(ir.OpRet, 5, 0, 0),
	}}
	bump := fnDef{name: "bump", frame: []int64{2, 0, 1}, code: []ir.Instr{
		// slots: 0 &z, 1 t, 2 const 1
		I(ir.OpLoad, 1, 0, 0),
		I(ir.OpAdd, 1, 1, 2),
		I(ir.OpStore, 1, 0, 0),
		I(ir.OpRet, 1, 0, 0),
	}}
	funcs := []fnDef{sum, small, big, bump}
	// worker(k): r = sum(k+1); x = r; r = small(r); r = big(r);
	// r = sum(r%3); x = r; atomic { r = bump(); y = r }
	// slots: 0 k, 1 n, 2 r, 3 const 1, 4 const 3, 5 &x, 6 &y
	worker := mkBody("worker", []int64{0, 0, 0, 1, 3, 0, 1}, 1, 0, []ir.Instr{
		I(ir.OpAdd, 1, 0, 3),
		I(ir.OpCall, 2, 1, 0),
		I(ir.OpStore, 2, 5, 0),
		I(ir.OpCall, 2, 2, 1),
		I(ir.OpCall, 2, 2, 2),
		I(ir.OpMod, 1, 2, 4),
		I(ir.OpCall, 2, 1, 0),
		I(ir.OpStore, 2, 5, 0),
		I(ir.OpAtomic, 0, 0, 0),
		I(ir.OpCall, 2, 0, 3),
		I(ir.OpStore, 2, 6, 0),
		I(ir.OpAtomicEnd, 12, 0, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, funcs...)
	// main: spawn worker(2); spawn worker(1); x = 7
	// slots: 0 arg 2, 1 arg 1, 2 tid, 3 &x, 4 const 7
	main := mkBody("main", []int64{2, 1, 0, 0, 7}, 0, 0, []ir.Instr{
		I(ir.OpSpawn, 2, 0, 0),
		I(ir.OpSpawn, 2, 1, 0),
		I(ir.OpStore, 4, 3, 0),
		I(ir.OpEnd, 0, 0, 0),
	})
	return mkProg(t, []string{"x", "y", "z"}, []*ir.Body{worker, main}, []int{0},
		ir.ThreadSpec{Name: "w0", Body: 0, Args: []int64{0}},
		ir.ThreadSpec{Name: "w3", Body: 0, Args: []int64{3}},
		ir.ThreadSpec{Name: "main", Body: 1},
	)
}

// TestCallUndoRestores walks random schedules of callProgram, fine and
// coarse, undoing and redoing steps now and then, and checks that every
// undo gives back exactly the state before the step, every live frame
// and call record included, and that the invariants between steps hold.
func TestCallUndoRestores(t *testing.T) {
	prog := callProgram(t)
	maxDepth, steps := 0, 0
	for seed := int64(0); seed < 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		m := NewMachine(prog, 0)
		m.Coarse = seed%3 == 2
		checkInvariants(t, m)
		var before []string
		var ev Event
		for {
			var enabled []int
			for i := range m.Threads {
				if m.Enabled(i) {
					enabled = append(enabled, i)
				}
			}
			if len(enabled) == 0 {
				break
			}
			before = append(before, deepSnapshot(m))
			if !m.Step(enabled[r.Intn(len(enabled))], &ev) {
				t.Fatalf("seed %d: stopped: %s", seed, ev.Message)
			}
			steps++
			checkInvariants(t, m)
			for _, th := range m.Threads {
				maxDepth = max(maxDepth, th.CallDepth())
			}
			for r.Intn(3) == 0 && len(before) > 0 {
				m.Undo()
				checkInvariants(t, m)
				if got, want := deepSnapshot(m), before[len(before)-1]; got != want {
					t.Fatalf("seed %d: undoing step %d:\n got %s\nwant %s", seed, len(before), got, want)
				}
				before = before[:len(before)-1]
			}
		}
		// Every thread ran to its end: the results are sum's.
		for _, th := range m.Threads {
			if th.Status != Finished {
				t.Fatalf("seed %d: %s did not finish", seed, th.Name)
			}
		}
		if m.Mem[2] != 4 {
			t.Errorf("seed %d: z = %d, want 4 (one bump per worker)", seed, m.Mem[2])
		}
		for len(before) > 0 {
			m.Undo()
			checkInvariants(t, m)
			if got, want := deepSnapshot(m), before[len(before)-1]; got != want {
				t.Fatalf("seed %d: after undoing step %d:\n got %s\nwant %s", seed, len(before), got, want)
			}
			before = before[:len(before)-1]
		}
	}
	if maxDepth < 5 {
		t.Errorf("the deepest call was %d deep: the program does not exercise recursion", maxDepth)
	}
	t.Logf("%d steps, calls up to %d deep", steps, maxDepth)
}

// TestCallVisibleSteps runs worker(1) alone, step by step, checking each
// step (visible steps at the depths of sum's recursion and in the other
// functions) and the frames, then undoes every step back to the start.
func TestCallVisibleSteps(t *testing.T) {
	full := callProgram(t)
	prog := *full
	prog.Threads = []ir.ThreadSpec{{Name: "w", Body: 0, Args: []int64{1}}}
	m := NewMachine(&prog, 0)
	m.Mem[0] = 100 // x
	type want struct {
		kind  ir.EventKind
		loc   int32
		value int64
		depth int // after the step
	}
	// sum(2): y = 2 (depth 1), y = 1 (depth 2), read x → 100 (depth 3),
	// x = 103; small(103): y = 206; big(206): y = 206; sum(207%3 = 0):
	// read x → 103; x = 103; atomic (bump: z = 1; y = 1).
	wants := []want{
		{ir.EvWrite, 1, 2, 2}, {ir.EvWrite, 1, 1, 3}, {ir.EvRead, 0, 100, 0}, {ir.EvWrite, 0, 103, 1},
		{ir.EvWrite, 1, 206, 1}, {ir.EvWrite, 1, 206, 1}, {ir.EvRead, 0, 103, 0}, {ir.EvWrite, 0, 103, 0},
		{ir.EvAtomic, -1, 0, 0},
	}
	if d := m.Threads[0].CallDepth(); d != 1 {
		t.Fatalf("the first step stands at depth %d, want 1 (inside sum)", d)
	}
	snaps := []string{deepSnapshot(m)}
	var ev Event
	for i, w := range wants {
		if !m.Step(0, &ev) {
			t.Fatalf("step %d stopped: %s", i, ev.Message)
		}
		checkInvariants(t, m)
		if ev.Kind != w.kind || ev.Loc != w.loc || ev.Value != w.value || m.Threads[0].CallDepth() != w.depth {
			t.Fatalf("step %d: %s (loc %d, value %d) at depth %d, want %v", i, DescribeEvent(&prog, m, &ev), ev.Loc, ev.Value, m.Threads[0].CallDepth(), w)
		}
		snaps = append(snaps, deepSnapshot(m))
	}
	if got := DescribeEvent(&prog, m, &ev); got != "atomic: read z → 0, write z = 1, write y = 1" {
		t.Errorf("the atomic block: %q", got)
	}
	if !ev.Finished {
		t.Error("the thread did not finish")
	}
	for i := len(wants) - 1; i >= 0; i-- {
		m.Undo()
		checkInvariants(t, m)
		if got := deepSnapshot(m); got != snaps[i] {
			t.Fatalf("undoing step %d:\n got %s\nwant %s", i, got, snaps[i])
		}
	}
}

// TestCallInNestedAtomic: a function called inside an atomic block that
// has an atomic block of its own runs as part of the outer block.
func TestCallInNestedAtomic(t *testing.T) {
	inc := fnDef{name: "inc", frame: []int64{0, 0, 1}, code: []ir.Instr{
		// slots: 0 &x, 1 t, 2 const 1
		I(ir.OpAtomic, 0, 0, 0),
		I(ir.OpLoad, 1, 0, 0),
		I(ir.OpAdd, 1, 1, 2),
		I(ir.OpStore, 1, 0, 0),
		I(ir.OpAtomicEnd, 5, 0, 0),
		I(ir.OpRet, 1, 0, 0),
	}}
	body := mkBody("t", []int64{0, 0}, 0, 0, []ir.Instr{
		I(ir.OpAtomic, 0, 0, 0),
		I(ir.OpCall, 1, 0, 0),
		I(ir.OpCall, 1, 0, 0),
		I(ir.OpAtomicEnd, 4, 0, 0),
		I(ir.OpCall, 1, 0, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, inc)
	prog := mkProg(t, []string{"x"}, []*ir.Body{body}, nil, ir.ThreadSpec{Name: "t", Body: 0})
	m := NewMachine(prog, 0)
	var ev Event
	if !m.Step(0, &ev) || ev.Kind != ir.EvAtomic || len(ev.Acc) != 4 || m.Mem[0] != 2 {
		t.Fatalf("outer block: %s, x = %d", DescribeEvent(prog, m, &ev), m.Mem[0])
	}
	if th := m.Threads[0]; th.CallDepth() != 1 || th.Body.Code[th.PC].Op != ir.OpAtomic {
		t.Fatalf("after the outer block: depth %d at %s", th.CallDepth(), th.Body.Code[th.PC].Op)
	}
	if !m.Step(0, &ev) || ev.Kind != ir.EvAtomic || len(ev.Acc) != 2 || m.Mem[0] != 3 || !ev.Finished {
		t.Fatalf("inner block: %s, x = %d", DescribeEvent(prog, m, &ev), m.Mem[0])
	}
	m.UndoTo(0)
	if m.Mem[0] != 0 || m.Threads[0].CallDepth() != 0 || m.Threads[0].PC != 0 {
		t.Errorf("undo: x = %d, depth %d", m.Mem[0], m.Threads[0].CallDepth())
	}
}

// TestCallMemoryBudget: recursion whose frames do not fit in the memory
// budget stops with StopMemory (no bug of the program), at the call that
// would not fit, and Undo takes the step back.
func TestCallMemoryBudget(t *testing.T) {
	const budget = 4 << 20
	// deep(n) = n == 0 ? 0 : deep(n-1), with a frame of 10,000 words: 80
	// KB a call, 40 MB at depth 500.
	frame := make([]int64, 10_000)
	frame[2] = 1
	deep := fnDef{name: "deep", frame: frame, params: 1, code: []ir.Instr{
		I(ir.OpEq, 3, 0, 1),
		I(ir.OpJz, 3, 3, 0),
		I(ir.OpRet, 1, 0, 0),
		I(ir.OpSub, 4, 0, 2),
		I(ir.OpCall, 5, 4, 0),
		I(ir.OpRet, 5, 0, 0),
	}}
	// t: x = 1; x = deep(500)
	body := mkBody("t", []int64{500, 0, 0, 1}, 0, 0, []ir.Instr{
		I(ir.OpStore, 3, 2, 0),
		I(ir.OpCall, 1, 0, 0),
		I(ir.OpStore, 1, 2, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, deep)
	prog := mkProg(t, []string{"x"}, []*ir.Body{body}, nil, ir.ThreadSpec{Name: "t", Body: 0})
	m, err := NewBoundedMachine(prog, 0, budget)
	if err != nil {
		t.Fatal(err)
	}
	start := deepSnapshot(m)
	var ev Event
	if !m.Step(0, &ev) {
		t.Fatalf("x = 1 stopped: %s", ev.Message)
	}
	checkInvariants(t, m)
	th := m.Threads[0]
	if th.Status != Failing || th.fail.kind != StopMemory {
		t.Fatalf("after the call: status %v (%v), want a pending memory stop", th.Status, th.fail.kind)
	}
	if m.Bytes() > budget {
		t.Errorf("the machine holds %d bytes, more than its budget of %d", m.Bytes(), budget)
	}
	depth := th.CallDepth()
	if depth < 10 || depth > budget/80_000 {
		t.Errorf("stopped at depth %d", depth)
	}
	snap := deepSnapshot(m)
	if m.Step(0, &ev) || ev.Stop != StopMemory || !strings.Contains(ev.Message, "frame of deep") {
		t.Fatalf("the next step: %v %q, want a memory stop", ev.Stop, ev.Message)
	}
	m.Undo()
	if deepSnapshot(m) != snap {
		t.Error("undoing the memory stop changed the state")
	}
	m.Undo()
	checkInvariants(t, m)
	if deepSnapshot(m) != start {
		t.Error("undoing every step did not restore the initial state")
	}

	// Unbounded, the same program runs to its end.
	m2 := runToEnd(t, prog)
	if m2.Mem[0] != 0 {
		t.Errorf("x = %d, want deep(500) = 0", m2.Mem[0])
	}
	if b := m2.Bytes(); b < 500*80_000 {
		t.Errorf("Bytes() = %d does not count the 500 frames of 80 KB", b)
	}
}

// TestCallMemo: a long local computation that calls a function is
// memoised when it starts and ends in the body, with the same result as
// running it; one that runs inside a function is not memoised but right.
func TestCallMemo(t *testing.T) {
	// step(s, i) = (s*3 + i) % 1000003
	stepFn := fnDef{name: "step", frame: []int64{0, 0, 3, 1000003, 0}, params: 2, code: []ir.Instr{
		I(ir.OpMul, 4, 0, 2),
		I(ir.OpAdd, 4, 4, 1),
		I(ir.OpMod, 4, 4, 3),
		I(ir.OpRet, 4, 0, 0),
	}}
	// loop(s) = for i in 0..2000 { s = step(s, i) }; x = s; s
	loopFn := fnDef{name: "loop", frame: []int64{0, 0, 2000, 1, 0, 0}, params: 1, code: []ir.Instr{
		// slots: 0 s, 1 i, 2 const 2000, 3 const 1, 4 &x, 5 unused
		I(ir.OpJge, 6, 1, 2),
		I(ir.OpMov, 5, 1, 0), // arguments s, i in slots 0, 1 already: call with B = 0
		I(ir.OpCall, 0, 0, 0),
		I(ir.OpAdd, 1, 1, 3),
		I(ir.OpJmp, 0, 0, 0),
		I(ir.OpNop, 0, 0, 0),
		I(ir.OpStore, 0, 4, 0),
		I(ir.OpRet, 0, 0, 0),
	}}
	// t: s = x % 2; for i in 0..2000 { s = step(s, i) }; x = s; x = loop(s % 2)
	// slots: 0 s, 1 i, 2 const 2000, 3 const 1, 4 &x, 5 const 2, 6 r
	body := mkBody("t", []int64{0, 0, 2000, 1, 0, 2, 0}, 0, 0, []ir.Instr{
		I(ir.OpLoad, 0, 4, 0),
		I(ir.OpMod, 0, 0, 5),
		I(ir.OpJge, 7, 1, 2),
		I(ir.OpCall, 0, 0, 0),
		I(ir.OpAdd, 1, 1, 3),
		I(ir.OpJmp, 2, 0, 0),
		I(ir.OpNop, 0, 0, 0),
		I(ir.OpStore, 0, 4, 0),
		I(ir.OpMod, 0, 0, 5),
		I(ir.OpCall, 6, 0, 1),
		I(ir.OpStore, 6, 4, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, stepFn, loopFn)
	prog := mkProg(t, []string{"x"}, []*ir.Body{body}, nil, ir.ThreadSpec{Name: "t", Body: 0})
	ref := func(s int64) int64 {
		for i := range int64(2000) {
			s = (s*3 + i) % 1000003
		}
		return s
	}
	m := NewMachine(prog, 0)
	var ev Event
	m.Step(0, &ev) // read x: 0, then the loop with calls
	want := append([]int64(nil), m.Threads[0].Frame...)
	if want[0] != ref(0) {
		t.Fatalf("s = %d, want %d", want[0], ref(0))
	}
	for run := 2; run <= 4; run++ {
		m.Undo()
		m.Step(0, &ev)
		checkInvariants(t, m)
		if got := m.Threads[0].Frame; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d: frame %v, want %v", run, got, want)
		}
	}
	if m.memoSize != 1 {
		t.Errorf("%d memo entries, want 1", m.memoSize)
	}
	m.Step(0, &ev) // x = s; then loop(s%2) runs to its store inside loop
	if d := m.Threads[0].CallDepth(); d != 1 {
		t.Fatalf("depth %d, want 1 (at loop's store)", d)
	}
	for run := 0; run < 3; run++ {
		m.Undo()
		m.Step(0, &ev)
		checkInvariants(t, m)
	}
	if m.memoSize != 1 {
		t.Errorf("%d memo entries, want still 1 (a run ending inside a function is not memoised)", m.memoSize)
	}
	m.Step(0, &ev) // x = loop's s
	if ev.Value != ref(ref(0)%2) {
		t.Errorf("loop stored %d, want %d", ev.Value, ref(ref(0)%2))
	}
	m.Step(0, &ev) // x = loop's result
	if !ev.Finished || m.Mem[0] != ref(ref(0)%2) {
		t.Errorf("x = %d, want %d", m.Mem[0], ref(ref(0)%2))
	}
}

// TestCallLogEconomy checks that a recursion within one step logs only
// the frames that states on the undo stack need (see "Function calls"):
// none above the mark, and that Undo brings the mark back.
func TestCallLogEconomy(t *testing.T) {
	// probe(n) = n == 0 ? x : probe(n-1): a read at depth n+1.
	probe := fnDef{name: "probe", frame: []int64{0, 0, 1, 0, 0, 0, 0}, params: 1, code: []ir.Instr{
		// slots: 0 n, 1 const 0 (&x), 2 const 1, 3 cond, 4 n-1, 5 r
		I(ir.OpEq, 3, 0, 1),
		I(ir.OpJz, 4, 3, 0),
		I(ir.OpLoad, 5, 1, 0),
		I(ir.OpRet, 5, 0, 0),
		I(ir.OpSub, 4, 0, 2),
		I(ir.OpCall, 5, 4, 0),
		I(ir.OpRet, 5, 0, 0),
	}}
	count1 := count // function 1 here
	count1.code = append([]ir.Instr(nil), count.code...)
	count1.code[4].C = 1
	// t: r = probe(5); r = count(300); x = r
	// slots: 0 const 5, 1 const 300, 2 r, 3 &x
	body := mkBody("t", []int64{5, 300, 0, 0}, 0, 0, []ir.Instr{
		I(ir.OpCall, 2, 0, 0),
		I(ir.OpCall, 2, 1, 1),
		I(ir.OpStore, 2, 3, 0),
		I(ir.OpEnd, 0, 0, 0),
	}, probe, count1)
	prog := mkProg(t, []string{"x"}, []*ir.Body{body}, nil, ir.ThreadSpec{Name: "t", Body: 0})
	m := NewMachine(prog, 0)
	th := m.Threads[0]
	if th.CallDepth() != 6 || th.calls == nil || th.calls.mark != 0 {
		t.Fatalf("depth %d, mark %d before the first step", th.CallDepth(), th.calls.mark)
	}
	start := deepSnapshot(m)
	var ev Event
	m.Step(0, &ev) // the read, the returns, count(300) down to depth 301 and back, up to x = r
	if ev.Kind != ir.EvRead || th.CallDepth() != 0 || th.calls.mark != 6 {
		t.Fatalf("after the read: depth %d, mark %d", th.CallDepth(), th.calls.mark)
	}
	// The frames and records of depths 1..6 (7 words a frame at most),
	// and the base's result slot; none of the 295 frames above.
	if n := len(m.frameUndo); n > 6*(7+1)+2 {
		t.Errorf("the step logged %d words", n)
	}
	m.Step(0, &ev)
	if ev.Value != 300 || !ev.Finished {
		t.Fatalf("x = %d", ev.Value)
	}
	m.Undo()
	m.Undo()
	if th.calls.mark != 0 || deepSnapshot(m) != start {
		t.Errorf("undo: mark %d, state\n%s\nwant\n%s", th.calls.mark, deepSnapshot(m), start)
	}
	checkInvariants(t, m)
}

// TestReturnOutsideFunction: an ir.OpRet in a body's own code is
// refused by Validate (lowering never makes one); were it run anyway, the
// interpreter makes it a runtime error, not a panic.
func TestReturnOutsideFunction(t *testing.T) {
	body := mkBody("t", []int64{0}, 0, 0, []ir.Instr{I(ir.OpRet, 0, 0, 0), I(ir.OpEnd, 0, 0, 0)})
	p := &ir.Program{Bodies: []*ir.Body{body}, Threads: []ir.ThreadSpec{{Name: "t", Body: 0}}, Init: []int64{0},
		Locations: []ir.Location{{Name: "x"}}, Vars: []ir.SharedVar{{Name: "x", Size: 1}}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "ret outside a function") {
		t.Errorf("Validate() = %v, want ret outside a function", err)
	}
	m := NewMachine(p, 0)
	var ev Event
	if m.Step(0, &ev) || ev.Stop != StopRuntimeError || ev.Message != "return outside a function" {
		t.Errorf("got %v %q", ev.Stop, ev.Message)
	}
}

// TestCallLocalBudget: calls and returns count against the local budget,
// so a loop of calls without a visible step ends with the step bound, as
// a plain local loop does.
func TestCallLocalBudget(t *testing.T) {
	nop := fnDef{name: "nop", frame: []int64{0}, code: []ir.Instr{I(ir.OpRet, 0, 0, 0)}}
	for _, tt := range []struct {
		name string
		code []ir.Instr
	}{
		{"in the body", []ir.Instr{I(ir.OpCall, 0, 0, 0), I(ir.OpJmp, 0, 0, 0), I(ir.OpEnd, 0, 0, 0)}},
		{"in an atomic block", []ir.Instr{I(ir.OpAtomic, 0, 0, 0), I(ir.OpCall, 0, 0, 0), I(ir.OpJmp, 1, 0, 0), I(ir.OpAtomicEnd, 4, 0, 0), I(ir.OpEnd, 0, 0, 0)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prog := mkProg(t, []string{"x"}, []*ir.Body{mkBody("t", []int64{0}, 0, 0, tt.code, nop)}, nil, ir.ThreadSpec{Name: "t", Body: 0})
			m := NewMachine(prog, 1000)
			var ev Event
			if m.Step(0, &ev) || ev.Stop != StopStepBound || !strings.Contains(ev.Message, "ran 1000 local instructions") {
				t.Errorf("got %v %q", ev.Stop, ev.Message)
			}
			m.Undo()
			checkInvariants(t, m)
		})
	}
}
