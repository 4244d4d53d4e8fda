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

	// Visible steps.
	OpLoad      // A = shared[frame[B]]
	OpStore     // shared[frame[B]] = A
	OpLock      // lock the mutex at shared[frame[B]]
	OpUnlock    // unlock the mutex at shared[frame[B]]
	OpSpawn     // A = tid of a new thread running proc imm C with args in slots B, B+1, …
	OpJoin      // block until the thread frame[B] has finished
	OpAtomic    // run up to an OpAtomicEnd as one indivisible step
	OpAtomicEnd // leaves an atomic block; the thread continues at pc A (the next instruction, or a break/continue target)
)

var opNames = [...]string{
	OpNop: "nop", OpMov: "mov", OpAdd: "add", OpSub: "sub", OpMul: "mul", OpDiv: "div",
	OpMod: "mod", OpNeg: "neg", OpNot: "not", OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le",
	OpAddI: "addi", OpMulI: "muli", OpJmp: "jmp", OpJz: "jz", OpJnz: "jnz", OpJge: "jge", OpJlt: "jlt",
	OpCheck: "check", OpLdx: "ldx", OpStx: "stx", OpAssert: "assert", OpAssume: "assume",
	OpEnd: "end", OpLoad: "load", OpStore: "store", OpLock: "lock", OpUnlock: "unlock",
	OpSpawn: "spawn", OpJoin: "join", OpAtomic: "atomic", OpAtomicEnd: "atomic-end",
}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// IsVisible reports whether the operation is a visible step when executed
// outside an atomic block.
func (o Op) IsVisible() bool { return o >= OpLoad && o <= OpAtomic }

// Instr is one instruction.
type Instr struct {
	Op      Op
	A, B, C int32
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
	Name  string
	Slot  int
	Size  int   // number of slots (arrays are flattened)
	Dims  []int // array dimensions, outermost first; empty for scalars
	Bool  bool  // element type is bool
	Tid   bool  // element type is tid
	Scope source.Range
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
	for bi, b := range p.Bodies {
		if len(b.Ranges) != len(b.Code) {
			return fmt.Errorf("program: body %s: %d ranges for %d instructions", b.Name, len(b.Ranges), len(b.Code))
		}
		n := int32(len(b.Frame))
		slot := func(pc int, s int32) error {
			if s < 0 || s >= n {
				return fmt.Errorf("program: body %d (%s) pc %d: slot %d outside frame of %d", bi, b.Name, pc, s, n)
			}
			return nil
		}
		target := func(pc int, t int32) error {
			if t < 0 || int(t) >= len(b.Code) {
				return fmt.Errorf("program: body %s pc %d: jump to %d outside code", b.Name, pc, t)
			}
			return nil
		}
		if b.NumParams > 0 && (b.ArgSlot < 0 || b.ArgSlot+b.NumParams > len(b.Frame)) {
			return fmt.Errorf("program: body %s: arguments outside the frame", b.Name)
		}
		if len(b.Code) == 0 || b.Code[len(b.Code)-1].Op != OpEnd {
			return fmt.Errorf("program: body %s does not end with end", b.Name)
		}
		for pc, in := range b.Code {
			var errs []error
			switch in.Op {
			case OpMov, OpNeg, OpNot:
				errs = append(errs, slot(pc, in.A), slot(pc, in.B))
			case OpAdd, OpSub, OpMul, OpDiv, OpMod, OpEq, OpNe, OpLt, OpLe:
				errs = append(errs, slot(pc, in.A), slot(pc, in.B), slot(pc, in.C))
			case OpAddI, OpMulI:
				errs = append(errs, slot(pc, in.A), slot(pc, in.B))
			case OpJmp:
				errs = append(errs, target(pc, in.A))
			case OpJz, OpJnz:
				errs = append(errs, target(pc, in.A), slot(pc, in.B))
			case OpJge, OpJlt:
				errs = append(errs, target(pc, in.A), slot(pc, in.B), slot(pc, in.C))
			case OpCheck, OpAssume, OpJoin, OpLock, OpUnlock:
				errs = append(errs, slot(pc, in.B))
			case OpLdx, OpStx:
				errs = append(errs, slot(pc, in.A), slot(pc, in.B), slot(pc, in.C))
				// C is the base slot of the local array; the index was checked.
			case OpAssert:
				errs = append(errs, slot(pc, in.B))
				if in.C >= int32(len(b.Messages)) {
					errs = append(errs, fmt.Errorf("program: body %s pc %d: message %d missing", b.Name, pc, in.C))
				}
			case OpLoad, OpStore:
				errs = append(errs, slot(pc, in.A), slot(pc, in.B))
			case OpSpawn:
				errs = append(errs, slot(pc, in.A))
				if in.C < 0 || int(in.C) >= len(p.Procs) {
					errs = append(errs, fmt.Errorf("program: body %s pc %d: proc %d missing", b.Name, pc, in.C))
				} else if np := p.Bodies[p.Procs[in.C]].NumParams; np > 0 {
					errs = append(errs, slot(pc, in.B), slot(pc, in.B+int32(np)-1))
					if p.Bodies[p.Procs[in.C]].ArgSlot != 0 {
						errs = append(errs, fmt.Errorf("program: proc body %d takes arguments at slot %d, not 0", p.Procs[in.C], p.Bodies[p.Procs[in.C]].ArgSlot))
					}
				}
			case OpAtomicEnd:
				errs = append(errs, target(pc, in.A))
			}
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
		}
	}
	for _, pi := range p.Procs {
		if pi < 0 || pi >= len(p.Bodies) {
			return fmt.Errorf("program: proc body %d missing", pi)
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
