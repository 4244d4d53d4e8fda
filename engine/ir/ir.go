// Package ir is the executable form of a Weft program: a register
// bytecode over a flat frame of int64 slots per thread, a flat shared
// memory of int64 words, the bodies of threads and procs, the locations of
// shared memory, and what each atomic block may access.
//
// It is what lowering (package analysis/lower) produces and what the
// interpreter and the explorations (package engine) run. It knows nothing
// about syntax beyond the source range of each instruction, and nothing of
// how programs are explored. Validate checks the invariants the
// interpreter relies on, so that it needs no bounds checks of its own.
// Liveness says which frame slots are live at each pc; spin detection
// (AnalyzeLoops) and the interpreter's state fingerprint both use it.
package ir

import (
	"fmt"

	"weft/source"
)

// Op is a bytecode operation. Operands A, B and C are frame slot numbers
// unless the operation says otherwise ("imm" marks an immediate).
type Op uint8

const (
	OpNop Op = iota

	// Local computation (invisible).
	OpMov   // A = B
	OpAdd   // A = B + C (overflow is a runtime error)
	OpSub   // A = B - C
	OpMul   // A = B * C
	OpDiv   // A = B / C (division by zero, overflow)
	OpMod   // A = B % C
	OpNeg   // A = -B
	OpNot   // A = !B (0/1)
	OpEq    // A = B == C
	OpNe    // A = B != C
	OpLt    // A = B < C
	OpLe    // A = B <= C
	OpAddI  // A = B + imm C (no overflow check: used for addresses and loop counters within bounds)
	OpMulI  // A = B * imm C (address arithmetic, bounded by the array size)
	OpJmp   // goto A
	OpJz    // if B == 0 goto A
	OpJnz   // if B != 0 goto A
	OpJge   // if B >= C goto A (loop entry guard)
	OpJlt   // if B < C goto A (loop back edge)
	OpCheck // if B < 0 || B >= imm C: runtime error "index out of range"
	OpLdx   // A = frame[imm C + frame[B]] (local array element)
	OpStx   // frame[imm C + frame[B]] = A
	OpAssert
	// OpAssert: if B == 0, the execution stops with an assertion failure; C
	// indexes Body.Messages (-1 for none).
	OpAssume // if B == 0, the execution is discarded
	OpEnd    // the thread finishes
	// OpLoopHead marks the head of a while loop (or of an await): imm A
	// indexes Body.Loops. Reaching it again after an iteration that only
	// read shared state and left the compared slots (Loop.Slots) as they
	// were makes the thread wait (spin detection, language.md v2).
	OpLoopHead
	// OpCall calls function imm C (an index in Body.Funcs) with its
	// arguments in slots B, B+1, … of the caller's frame; the callee runs
	// in a fresh frame (Func.Frame), and its OpRet's value lands in slot A
	// of the caller's frame. A call deeper than the interpreter's bound is
	// a runtime error.
	OpCall
	OpRet // returns frame[A] to the caller (see OpCall)

	// Visible steps.
	OpLoad   // A = shared[frame[B]]
	OpStore  // shared[frame[B]] = A
	OpLock   // lock the mutex at shared[frame[B]]
	OpUnlock // unlock the mutex at shared[frame[B]]
	OpSpawn  // A = tid of a new thread running proc imm C with args in slots B, B+1, …
	OpJoin   // block until the thread frame[B] has finished
	OpAtomic // run up to an OpAtomicEnd as one indivisible step
	// Visible steps of language version 2.
	OpChoose  // A = a value of [frame[B], frame[C]), each explored; a thread-local step independent of every other (an empty or too large range is a runtime error)
	OpTrylock // if the mutex at shared[frame[B]] is free, lock it and A = 1; else A = 0 (never blocks)
	// OpWait releases the mutex at shared[frame[A]] (a runtime error if
	// the thread does not hold it) and makes the thread wait on the
	// condition variable at shared[frame[B]]. The next instruction is an
	// OpWake with the same operands.
	OpWait
	// OpWake is blocked until the thread has been woken by a signal or a
	// broadcast (or at any time, when spurious wake-ups are explored) and
	// the mutex at shared[frame[A]] is free; then it locks that mutex.
	OpWake
	OpSignal    // wakes one thread waiting on the condition variable at shared[frame[B]], each waiter explored; none waiting: nothing happens
	OpBroadcast // wakes every thread waiting on the condition variable at shared[frame[B]]

	OpAtomicEnd // leaves an atomic block; the thread continues at pc A (the next instruction, or a break/continue target)
)

// OperandKind says what an instruction's operand A, B or C is.
type OperandKind uint8

const (
	NoOperand    OperandKind = iota
	ReadSlot                 // a frame slot the instruction reads
	WriteSlot                // a frame slot it writes
	BaseSlot                 // the first slot of a local array (addressed through an index slot)
	ArgSlots                 // the first of a spawned proc's argument slots, read
	Target                   // a pc to jump to
	Immediate                // a constant
	MessageIndex             // an index in Body.Messages, -1 for none
	ProcIndex                // an index in Program.Procs
	CallArgSlots             // the first of a called function's argument slots, read (the function is operand C)
	FuncIndex                // an index in Body.Funcs
	LoopIndex                // an index in Body.Loops
)

// IsSlot reports whether an operand of this kind names a frame slot.
func (k OperandKind) IsSlot() bool { return k >= ReadSlot && k <= ArgSlots || k == CallArgSlots }

// OpInfo describes an operation: its name and what its operands are.
// Everything that reads or rewrites instructions generically (Validate,
// lowering's slot numbering, the taint analysis of atomic blocks) reads
// this table, so a new operation is described once.
type OpInfo struct {
	Name    string
	A, B, C OperandKind
}

// Operands returns the kinds of A, B and C.
func (i *OpInfo) Operands() [3]OperandKind { return [3]OperandKind{i.A, i.B, i.C} }

var opInfo = [...]OpInfo{
	OpNop:       {"nop", NoOperand, NoOperand, NoOperand},
	OpMov:       {"mov", WriteSlot, ReadSlot, NoOperand},
	OpAdd:       {"add", WriteSlot, ReadSlot, ReadSlot},
	OpSub:       {"sub", WriteSlot, ReadSlot, ReadSlot},
	OpMul:       {"mul", WriteSlot, ReadSlot, ReadSlot},
	OpDiv:       {"div", WriteSlot, ReadSlot, ReadSlot},
	OpMod:       {"mod", WriteSlot, ReadSlot, ReadSlot},
	OpNeg:       {"neg", WriteSlot, ReadSlot, NoOperand},
	OpNot:       {"not", WriteSlot, ReadSlot, NoOperand},
	OpEq:        {"eq", WriteSlot, ReadSlot, ReadSlot},
	OpNe:        {"ne", WriteSlot, ReadSlot, ReadSlot},
	OpLt:        {"lt", WriteSlot, ReadSlot, ReadSlot},
	OpLe:        {"le", WriteSlot, ReadSlot, ReadSlot},
	OpAddI:      {"addi", WriteSlot, ReadSlot, Immediate},
	OpMulI:      {"muli", WriteSlot, ReadSlot, Immediate},
	OpJmp:       {"jmp", Target, NoOperand, NoOperand},
	OpJz:        {"jz", Target, ReadSlot, NoOperand},
	OpJnz:       {"jnz", Target, ReadSlot, NoOperand},
	OpJge:       {"jge", Target, ReadSlot, ReadSlot},
	OpJlt:       {"jlt", Target, ReadSlot, ReadSlot},
	OpCheck:     {"check", NoOperand, ReadSlot, Immediate},
	OpLdx:       {"ldx", WriteSlot, ReadSlot, BaseSlot},
	OpStx:       {"stx", ReadSlot, ReadSlot, BaseSlot},
	OpAssert:    {"assert", NoOperand, ReadSlot, MessageIndex},
	OpAssume:    {"assume", NoOperand, ReadSlot, NoOperand},
	OpEnd:       {"end", NoOperand, NoOperand, NoOperand},
	OpLoad:      {"load", WriteSlot, ReadSlot, NoOperand},
	OpStore:     {"store", ReadSlot, ReadSlot, NoOperand},
	OpLock:      {"lock", NoOperand, ReadSlot, NoOperand},
	OpUnlock:    {"unlock", NoOperand, ReadSlot, NoOperand},
	OpSpawn:     {"spawn", WriteSlot, ArgSlots, ProcIndex},
	OpJoin:      {"join", NoOperand, ReadSlot, NoOperand},
	OpAtomic:    {"atomic", NoOperand, NoOperand, NoOperand},
	OpLoopHead:  {"loop-head", LoopIndex, NoOperand, NoOperand},
	OpCall:      {"call", WriteSlot, CallArgSlots, FuncIndex},
	OpRet:       {"ret", ReadSlot, NoOperand, NoOperand},
	OpChoose:    {"choose", WriteSlot, ReadSlot, ReadSlot},
	OpTrylock:   {"trylock", WriteSlot, ReadSlot, NoOperand},
	OpWait:      {"wait", ReadSlot, ReadSlot, NoOperand},
	OpWake:      {"wake", ReadSlot, ReadSlot, NoOperand},
	OpSignal:    {"signal", NoOperand, ReadSlot, NoOperand},
	OpBroadcast: {"broadcast", NoOperand, ReadSlot, NoOperand},
	OpAtomicEnd: {"atomic-end", Target, NoOperand, NoOperand},
}

// Info describes o (a zero OpInfo for an unknown operation).
func (o Op) Info() *OpInfo {
	if int(o) < len(opInfo) {
		return &opInfo[o]
	}
	return &OpInfo{}
}

func (o Op) String() string {
	if n := o.Info().Name; n != "" {
		return n
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// IsVisible reports whether the operation is a visible step when executed
// outside an atomic block.
func (o Op) IsVisible() bool { return o >= OpLoad && o <= OpBroadcast }

// Instr is one instruction.
type Instr struct {
	Op      Op
	A, B, C int32
}

// Operand returns operand i (0: A, 1: B, 2: C) and its kind.
func (in *Instr) Operand(i int) (*int32, OperandKind) {
	info := in.Op.Info()
	switch i {
	case 0:
		return &in.A, info.A
	case 1:
		return &in.B, info.B
	}
	return &in.C, info.C
}

// Body is the code of one thread or proc.
type Body struct {
	Name      string
	Code      []Instr
	Ranges    []source.Range // the source range of each instruction (the statement or expression it comes from)
	Frame     []int64        // the initial frame: constants in their slots, zeros elsewhere
	NumParams int            // arguments a thread of this body starts with (a proc's parameters, a thread array's index)
	ArgSlot   int            // arguments occupy slots ArgSlot..ArgSlot+NumParams-1
	Messages  []string       // assertion messages
	Locals    []LocalVar     // named locals, for display
	// Atomics describes the atomic blocks, by the pc of their OpAtomic.
	Atomics map[int32]*AtomicFootprint
	// Loops describes the while loops and awaits (OpLoopHead's operand).
	Loops []Loop
	// Funcs are the functions this body calls, directly or not. Their
	// code is part of Code, after the body's own (which ends at the first
	// function's Entry), each in its own frame: the slots of an
	// instruction in [Entry, End) are slots of the function's frame.
	Funcs []Func
}

// Loop is what spin detection needs to know of a while loop or an await.
type Loop struct {
	// Slots are the frame slots compared between two arrivals at the
	// head: an iteration that changed none of them (and made no step but
	// reads of shared state) would repeat itself until another thread
	// writes what it read. They are the slots live at the head whose
	// values can reach a condition, an assertion, a shared write, an
	// address or a call (an iteration counter that nothing reads is not
	// one of them).
	Slots []int32
	Await bool // an await statement (always a wait, whatever the options)
}

// Func is a function's code within a Body.
type Func struct {
	Name       string
	Entry, End int32   // its code is Code[Entry:End]
	Frame      []int64 // its initial frame: constants in their slots, zeros elsewhere
	NumParams  int     // parameters occupy slots 0..NumParams-1
	Locals     []LocalVar
}

// AtomicFootprint is what an atomic block may access. A block is Stable
// when the locations it accesses are fixed by the thread's frame when it
// starts: straight-line code whose addresses do not depend on values it
// reads. Then its executed accesses are its footprint, like any other
// step's. An unstable block (a branch or a loop inside, or an address
// computed from a value read inside) may access different locations
// depending on the values it reads, so dependence uses everything it may
// read and write: Reads and Writes, ranges of shared locations.
type AtomicFootprint struct {
	Stable        bool
	Reads, Writes []LocRange
}

// Accesses lists every access the block may make, one per location of
// Reads and Writes.
func (a *AtomicFootprint) Accesses() []Access {
	var acc []Access
	for _, r := range a.Reads {
		for l := r.Lo; l < r.Hi; l++ {
			acc = append(acc, Access{Loc: l})
		}
	}
	for _, r := range a.Writes {
		for l := r.Lo; l < r.Hi; l++ {
			acc = append(acc, Access{Loc: l, Write: true})
		}
	}
	return acc
}

// Access is one shared-memory access of a step.
type Access struct {
	Loc   int32
	Write bool
	Value int64 // the value read or written
}

// LocRange is the range [Lo, Hi) of shared locations.
type LocRange struct{ Lo, Hi int32 }

// HasUnstableAtomics reports whether some atomic block of the program is
// not Stable (see AtomicFootprint).
func (p *Program) HasUnstableAtomics() bool {
	for _, b := range p.Bodies {
		for _, a := range b.Atomics {
			if !a.Stable {
				return true
			}
		}
	}
	return false
}

// LocalVar names a range of frame slots, for showing local state.
type LocalVar struct {
	Name string
	Slot int
	Size int   // number of slots (arrays are flattened)
	Dims []int // array dimensions, outermost first; empty for scalars
	Bool bool  // element type is bool
	Tid  bool  // element type is tid
	// Scope is where the variable may be used: a `var` from its
	// declaration to the end of the block that holds it, a loop
	// variable its loop, a parameter its function or proc.
	Scope source.Range
	// Decl is a `var`'s declaration statement (empty for loop variables
	// and parameters): a thread that stands there has not declared it
	// yet, so its slots hold nothing of it (zero, or what a variable of
	// an earlier scope left in a shared slot).
	Decl source.Range
}

// Location describes one word of shared memory.
type Location struct {
	Name   string // "x", "x[2]", "m[1][0]"
	Var    int    // index in Program.Vars
	Atomic bool   // accesses never race
	Mutex  bool
	Bool   bool
	Tid    bool
}

// SharedVar is a shared variable as declared (for display and hover).
type SharedVar struct {
	Name   string
	Offset int
	Size   int
	Dims   []int
	Range  source.Range
}

// ThreadSpec is a thread that exists when the program starts.
type ThreadSpec struct {
	Name string // "writer[0]", "master"
	Body int    // index in Program.Bodies
	Args []int64
}

// Program is the executable form of a checked Weft program.
type Program struct {
	Bodies    []*Body
	Procs     []int // body index of each proc, indexed by proc number
	Threads   []ThreadSpec
	Locations []Location
	Vars      []SharedVar
	Init      []int64 // initial shared memory
}

// Validate checks the structural invariants the interpreter relies on
// (slot numbers within frames, jump targets within code, locations within
// memory), so that a lowering bug shows up as an error and not as a panic
// in the middle of an exploration.
func (p *Program) Validate() error {
	if len(p.Init) != len(p.Locations) {
		return fmt.Errorf("program: %d initial words for %d locations", len(p.Init), len(p.Locations))
	}
	for _, pi := range p.Procs {
		if pi < 0 || pi >= len(p.Bodies) {
			return fmt.Errorf("program: proc body %d missing", pi)
		}
	}
	for _, b := range p.Bodies {
		if len(b.Ranges) != len(b.Code) {
			return fmt.Errorf("program: body %s: %d ranges for %d instructions", b.Name, len(b.Ranges), len(b.Code))
		}
		if b.NumParams > 0 && (b.ArgSlot < 0 || b.ArgSlot+b.NumParams > len(b.Frame)) {
			return fmt.Errorf("program: body %s: arguments outside the frame", b.Name)
		}
		own := len(b.Code)
		if len(b.Funcs) > 0 {
			own = int(b.Funcs[0].Entry)
		}
		if own <= 0 || own > len(b.Code) || b.Code[own-1].Op != OpEnd {
			return fmt.Errorf("program: body %s does not end with end", b.Name)
		}
		next := int32(own)
		for _, f := range b.Funcs {
			if f.Entry != next || f.End <= f.Entry || int(f.End) > len(b.Code) || b.Code[f.End-1].Op != OpRet {
				return fmt.Errorf("program: body %s: function %s's code [%d, %d) is not the next one ending with ret", b.Name, f.Name, f.Entry, f.End)
			}
			if f.NumParams > len(f.Frame) {
				return fmt.Errorf("program: body %s: function %s has %d params for a frame of %d", b.Name, f.Name, f.NumParams, len(f.Frame))
			}
			next = f.End
		}
		if int(next) != len(b.Code) {
			return fmt.Errorf("program: body %s: code after its last function", b.Name)
		}
		for pc, in := range b.Code {
			if pc < own && in.Op == OpRet {
				return fmt.Errorf("program: body %s pc %d: ret outside a function", b.Name, pc)
			}
			if pc >= own && in.Op == OpEnd {
				return fmt.Errorf("program: body %s pc %d: end inside a function", b.Name, pc)
			}
			info := in.Op.Info()
			if info.Name == "" {
				return fmt.Errorf("program: body %s pc %d: unknown operation %d", b.Name, pc, in.Op)
			}
			for i, kind := range info.Operands() {
				if err := p.checkOperand(b, pc, kind, [3]int32{in.A, in.B, in.C}[i], in.C); err != nil {
					return err
				}
			}
			if in.Op == OpWait && (pc+1 >= len(b.Code) || b.Code[pc+1] != Instr{Op: OpWake, A: in.A, B: in.B, C: in.C}) {
				return fmt.Errorf("program: body %s pc %d: a wait not followed by its wake", b.Name, pc)
			}
		}
		for pc, fp := range b.Atomics {
			for _, r := range append(append([]LocRange(nil), fp.Reads...), fp.Writes...) {
				if r.Lo < 0 || r.Hi < r.Lo || int(r.Hi) > len(p.Locations) {
					return fmt.Errorf("program: body %s pc %d: atomic footprint [%d, %d) outside the %d locations", b.Name, pc, r.Lo, r.Hi, len(p.Locations))
				}
			}
		}
	}
	for _, t := range p.Threads {
		if t.Body < 0 || t.Body >= len(p.Bodies) {
			return fmt.Errorf("program: thread %s: body %d missing", t.Name, t.Body)
		}
		if len(t.Args) != p.Bodies[t.Body].NumParams {
			return fmt.Errorf("program: thread %s: %d args for %d params", t.Name, len(t.Args), p.Bodies[t.Body].NumParams)
		}
	}
	return nil
}

// checkOperand checks one operand v of kind at pc of body b (c is the
// instruction's C, the proc of a spawn's argument slots).
func (p *Program) checkOperand(b *Body, pc int, kind OperandKind, v, c int32) error {
	frame, lo, hi := len(b.Frame), int32(0), int32(len(b.Code))
	if len(b.Funcs) > 0 {
		hi = b.Funcs[0].Entry
	}
	for _, f := range b.Funcs {
		if int32(pc) >= f.Entry && int32(pc) < f.End {
			frame, lo, hi = len(f.Frame), f.Entry, f.End
		}
	}
	slot := func(s int32) error {
		if s < 0 || s >= int32(frame) {
			return fmt.Errorf("program: body %s pc %d: slot %d outside frame of %d", b.Name, pc, s, frame)
		}
		return nil
	}
	switch kind {
	case ReadSlot, WriteSlot, BaseSlot:
		// A BaseSlot's element is addressed through an index that an
		// OpCheck has bounded.
		return slot(v)
	case Target:
		if v < lo || v >= hi {
			return fmt.Errorf("program: body %s pc %d: jump to %d outside its code [%d, %d)", b.Name, pc, v, lo, hi)
		}
	case MessageIndex:
		if v >= int32(len(b.Messages)) {
			return fmt.Errorf("program: body %s pc %d: message %d missing", b.Name, pc, v)
		}
	case ProcIndex:
		if v < 0 || int(v) >= len(p.Procs) {
			return fmt.Errorf("program: body %s pc %d: proc %d missing", b.Name, pc, v)
		}
	case LoopIndex:
		if v < 0 || int(v) >= len(b.Loops) {
			return fmt.Errorf("program: body %s pc %d: loop %d missing", b.Name, pc, v)
		}
	case FuncIndex:
		if v < 0 || int(v) >= len(b.Funcs) {
			return fmt.Errorf("program: body %s pc %d: function %d missing", b.Name, pc, v)
		}
	case CallArgSlots:
		if c < 0 || int(c) >= len(b.Funcs) {
			return nil // reported as the FuncIndex operand
		}
		if n := b.Funcs[c].NumParams; n > 0 {
			if err := slot(v); err != nil {
				return err
			}
			return slot(v + int32(n) - 1)
		}
	case ArgSlots:
		if c < 0 || int(c) >= len(p.Procs) {
			return nil // reported as the ProcIndex operand
		}
		proc := p.Bodies[p.Procs[c]]
		if proc.NumParams == 0 {
			return nil
		}
		if proc.ArgSlot != 0 {
			return fmt.Errorf("program: proc body %d takes arguments at slot %d, not 0", p.Procs[c], proc.ArgSlot)
		}
		if err := slot(v); err != nil {
			return err
		}
		return slot(v + int32(proc.NumParams) - 1)
	}
	return nil
}
