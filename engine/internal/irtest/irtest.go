// Package irtest builds programs of package ir by hand, for the engine's
// tests: shared locations, threads and procs whose code is written
// instruction by instruction with symbolic labels, constants put in
// frame slots, and a fresh source line for every instruction (so that
// bugs at different instructions have different places). It is test
// support: nothing outside tests imports it.
package irtest

import (
	"fmt"
	"strconv"

	"weft/engine/ir"
	"weft/source"
)

// Kind says what a shared location is.
type Kind uint8

const (
	Plain  Kind = iota
	Atomic      // accesses never race
	Mutex
	Bool
	Cond // a condition variable (a plain word: its number of waiters)
)

// Prog is a program being built.
type Prog struct {
	p      ir.Program
	bodies []*Body
	line   int
	// ExplicitSlots keeps the Loop.Slots given to LoopHeadSlots instead
	// of computing them with ir.Program.AnalyzeLoops.
	ExplicitSlots bool
}

// New returns an empty program.
func New() *Prog { return &Prog{} }

// Var declares a shared variable of one word with an initial value and
// returns its location.
func (p *Prog) Var(name string, kind Kind, init int64) int32 {
	return p.Array(name, 1, kind, init)
}

// Array declares n words, all initialised to init, and returns the first
// location. Its elements are named "name[i]" (a scalar just "name").
func (p *Prog) Array(name string, n int, kind Kind, init int64) int32 {
	lo := int32(len(p.p.Locations))
	vi := len(p.p.Vars)
	sv := ir.SharedVar{Name: name, Offset: int(lo), Size: n}
	if n > 1 {
		sv.Dims = []int{n}
	}
	p.p.Vars = append(p.p.Vars, sv)
	for i := range n {
		ln := name
		if n > 1 {
			ln = name + "[" + strconv.Itoa(i) + "]"
		}
		p.p.Locations = append(p.p.Locations, ir.Location{Name: ln, Var: vi, Atomic: kind == Atomic, Mutex: kind == Mutex, Bool: kind == Bool})
		p.p.Init = append(p.p.Init, init)
	}
	return lo
}

// Thread declares a thread with a body of its own, with the given
// arguments (the body's parameters: Param(i) is slot i).
func (p *Prog) Thread(name string, args ...int64) *Body {
	b := p.newBody(name, len(args))
	p.p.Threads = append(p.p.Threads, ir.ThreadSpec{Name: name, Body: b.index, Args: args})
	return b
}

// Proc declares a proc of params parameters (slots 0..params-1) and
// returns its body and number (for Spawn).
func (p *Prog) Proc(name string, params int) (*Body, int32) {
	b := p.newBody(name, params)
	p.p.Procs = append(p.p.Procs, b.index)
	return b, int32(len(p.p.Procs) - 1)
}

func (p *Prog) newBody(name string, params int) *Body {
	b := &Body{prog: p, index: len(p.bodies), labels: map[string]int32{}}
	b.b = &ir.Body{Name: name, NumParams: params}
	b.frame = make([]int64, params)
	b.consts = map[int64]int32{}
	p.bodies = append(p.bodies, b)
	p.p.Bodies = append(p.p.Bodies, b.b)
	return b
}

// Build finishes the program: an end at the end of every body that does
// not end with one, labels resolved, loop slots computed (unless
// ExplicitSlots), and the result validated.
func (p *Prog) Build() (*ir.Program, error) {
	for _, b := range p.bodies {
		if n := len(b.b.Code); n == 0 || b.b.Code[n-1].Op != ir.OpEnd {
			b.End()
		}
		for _, f := range b.fixups {
			pc, ok := b.labels[f.label]
			if !ok {
				return nil, fmt.Errorf("body %s: no label %q", b.b.Name, f.label)
			}
			b.b.Code[f.pc].A = pc
		}
		b.b.Frame = b.frame
	}
	if !p.ExplicitSlots {
		p.p.AnalyzeLoops()
	}
	prog := p.p
	if err := prog.Validate(); err != nil {
		return nil, err
	}
	return &prog, nil
}

// MustBuild is Build for tests: it panics on an error.
func (p *Prog) MustBuild() *ir.Program {
	prog, err := p.Build()
	if err != nil {
		panic(err)
	}
	return prog
}

// Body is the code of a thread or proc being built.
type Body struct {
	prog   *Prog
	b      *ir.Body
	index  int
	frame  []int64
	consts map[int64]int32
	labels map[string]int32
	fixups []fixup
}

type fixup struct {
	pc    int32
	label string
}

// IR is the body being built.
func (b *Body) IR() *ir.Body { return b.b }

// PC is the pc of the next instruction.
func (b *Body) PC() int32 { return int32(len(b.b.Code)) }

// Param is the slot of parameter i.
func (b *Body) Param(i int) int32 { return int32(i) }

// Local declares a named local of one slot (for display) and returns it.
func (b *Body) Local(name string) int32 {
	s := b.Temp()
	b.b.Locals = append(b.b.Locals, ir.LocalVar{Name: name, Slot: int(s), Size: 1,
		Scope: source.Range{Start: source.Pos{}, End: source.Pos{Offset: 1 << 30, Line: 1 << 20}}})
	return s
}

// LocalArray declares a named local array of n slots and returns its
// first slot.
func (b *Body) LocalArray(name string, n int) int32 {
	s := int32(len(b.frame))
	b.frame = append(b.frame, make([]int64, n)...)
	b.b.Locals = append(b.b.Locals, ir.LocalVar{Name: name, Slot: int(s), Size: n, Dims: []int{n},
		Scope: source.Range{Start: source.Pos{}, End: source.Pos{Offset: 1 << 30, Line: 1 << 20}}})
	return s
}

// Temp returns a fresh slot (0 initially).
func (b *Body) Temp() int32 {
	b.frame = append(b.frame, 0)
	return int32(len(b.frame) - 1)
}

// Const returns a slot holding v (one per value).
func (b *Body) Const(v int64) int32 {
	if s, ok := b.consts[v]; ok {
		return s
	}
	b.frame = append(b.frame, v)
	s := int32(len(b.frame) - 1)
	b.consts[v] = s
	return s
}

// Label defines label name at the next instruction.
func (b *Body) Label(name string) { b.labels[name] = b.PC() }

// Emit appends an instruction with its own source line and returns its pc.
func (b *Body) Emit(op ir.Op, x, y, z int32) int32 {
	pc := b.PC()
	b.b.Code = append(b.b.Code, ir.Instr{Op: op, A: x, B: y, C: z})
	l := b.prog.line
	b.prog.line++
	b.b.Ranges = append(b.b.Ranges, source.Range{Start: source.Pos{Offset: l * 100, Line: l}, End: source.Pos{Offset: l*100 + 10, Line: l, Col: 10}})
	return pc
}

func (b *Body) jump(op ir.Op, label string, y, z int32) int32 {
	pc := b.Emit(op, 0, y, z)
	b.fixups = append(b.fixups, fixup{pc, label})
	return pc
}

// Jmp jumps to label.
func (b *Body) Jmp(label string) int32 { return b.jump(ir.OpJmp, label, 0, 0) }

// Jz jumps to label if slot s is 0.
func (b *Body) Jz(label string, s int32) int32 { return b.jump(ir.OpJz, label, s, 0) }

// Jnz jumps to label if slot s is not 0.
func (b *Body) Jnz(label string, s int32) int32 { return b.jump(ir.OpJnz, label, s, 0) }

// Op is a local computation: dst = x op y.
func (b *Body) Op(op ir.Op, dst, x, y int32) int32 { return b.Emit(op, dst, x, y) }

// Mov is dst = src.
func (b *Body) Mov(dst, src int32) int32 { return b.Emit(ir.OpMov, dst, src, 0) }

// Set is dst = v.
func (b *Body) Set(dst int32, v int64) int32 { return b.Mov(dst, b.Const(v)) }

// AddI is dst = src + imm.
func (b *Body) AddI(dst, src int32, imm int32) int32 { return b.Emit(ir.OpAddI, dst, src, imm) }

// Load reads shared location loc into dst.
func (b *Body) Load(dst, loc int32) int32 { return b.Emit(ir.OpLoad, dst, b.Const(int64(loc)), 0) }

// Store writes slot src to loc.
func (b *Body) Store(loc, src int32) int32 { return b.Emit(ir.OpStore, src, b.Const(int64(loc)), 0) }

// StoreConst writes v to loc.
func (b *Body) StoreConst(loc int32, v int64) int32 { return b.Store(loc, b.Const(v)) }

// Lock locks the mutex at loc.
func (b *Body) Lock(loc int32) int32 { return b.Emit(ir.OpLock, 0, b.Const(int64(loc)), 0) }

// Unlock unlocks the mutex at loc.
func (b *Body) Unlock(loc int32) int32 { return b.Emit(ir.OpUnlock, 0, b.Const(int64(loc)), 0) }

// Trylock tries the mutex at loc; dst is 1 if it took it.
func (b *Body) Trylock(dst, loc int32) int32 {
	return b.Emit(ir.OpTrylock, dst, b.Const(int64(loc)), 0)
}

// Choose sets dst to a value of [lo, hi).
func (b *Body) Choose(dst int32, lo, hi int64) int32 {
	return b.Emit(ir.OpChoose, dst, b.Const(lo), b.Const(hi))
}

// Wait waits on the condition variable at cv, releasing the mutex at m
// (an OpWait and its OpWake); it returns the pc of the OpWait.
func (b *Body) Wait(cv, m int32) int32 {
	pc := b.Emit(ir.OpWait, b.Const(int64(m)), b.Const(int64(cv)), 0)
	b.Emit(ir.OpWake, b.Const(int64(m)), b.Const(int64(cv)), 0)
	return pc
}

// Signal signals the condition variable at cv.
func (b *Body) Signal(cv int32) int32 { return b.Emit(ir.OpSignal, 0, b.Const(int64(cv)), 0) }

// Broadcast broadcasts on the condition variable at cv.
func (b *Body) Broadcast(cv int32) int32 { return b.Emit(ir.OpBroadcast, 0, b.Const(int64(cv)), 0) }

// Spawn spawns proc with args in consecutive slots from first; dst gets
// the tid.
func (b *Body) Spawn(dst int32, proc int32, first int32) int32 {
	return b.Emit(ir.OpSpawn, dst, first, proc)
}

// Join joins the thread whose tid is in slot s.
func (b *Body) Join(s int32) int32 { return b.Emit(ir.OpJoin, 0, s, 0) }

// Assert fails with msg if slot s is 0.
func (b *Body) Assert(s int32, msg string) int32 {
	b.b.Messages = append(b.b.Messages, msg)
	return b.Emit(ir.OpAssert, 0, s, int32(len(b.b.Messages)-1))
}

// Assume discards the execution if slot s is 0.
func (b *Body) Assume(s int32) int32 { return b.Emit(ir.OpAssume, 0, s, 0) }

// LoopHead declares a loop (an await if await is set) and emits its head.
// It returns the loop's index.
func (b *Body) LoopHead(await bool) int32 {
	return b.LoopHeadSlots(await, nil)
}

// LoopHeadSlots is LoopHead with the slots to compare given (kept only
// with Prog.ExplicitSlots).
func (b *Body) LoopHeadSlots(await bool, slots []int32) int32 {
	b.b.Loops = append(b.b.Loops, ir.Loop{Await: await, Slots: slots})
	i := int32(len(b.b.Loops) - 1)
	b.Emit(ir.OpLoopHead, i, 0, 0)
	return i
}

// AtomicBlock emits an atomic block around the code body emits.
func (b *Body) AtomicBlock(body func()) {
	pc := b.Emit(ir.OpAtomic, 0, 0, 0)
	_ = pc
	body()
	end := b.Emit(ir.OpAtomicEnd, 0, 0, 0)
	b.b.Code[end].A = end + 1
	if b.b.Atomics == nil {
		b.b.Atomics = map[int32]*ir.AtomicFootprint{}
	}
	b.b.Atomics[pc] = &ir.AtomicFootprint{Stable: true}
}

// End ends the thread.
func (b *Body) End() int32 { return b.Emit(ir.OpEnd, 0, 0, 0) }

// SpinUntil emits `while loc == 0 {}` (or, with await, `await loc != 0`):
// a loop head, a read of loc, and a jump back while it is 0. It returns
// the pc of the read.
func (b *Body) SpinUntil(loc int32, await bool) int32 {
	top := "spin" + strconv.Itoa(int(b.PC()))
	out := top + "-out"
	v := b.Temp()
	b.Label(top)
	b.LoopHead(await)
	pc := b.Load(v, loc)
	b.Jnz(out, v)
	b.Jmp(top)
	b.Label(out)
	return pc
}
