// Package interp is the interpreter of Weft's program form (package ir):
// the state of an execution (shared memory, threads with their frames and
// program counters) and the Machine that advances one thread at a time to
// its next visible step, reports that step as an Event, and undoes steps
// in reverse order, so that an exploration backtracks at the cost of the
// undone suffix only. Local computation between visible steps runs
// eagerly after each step, bounded by a budget, and long stretches of it
// are memoised. The interpreter knows nothing of how executions are
// explored.
package interp

import (
	"fmt"
	"math"
	"strconv"

	"weft/engine/ir"
)

// ThreadStatus is what a thread is doing between steps.
type ThreadStatus uint8

const (
	// Ready: the thread is paused at a visible instruction (which may be
	// blocked: a lock of a held mutex, a join of a running thread).
	Ready ThreadStatus = iota
	// Failing: the thread's local computation hit an assertion failure, a
	// failed assume, a runtime error or the local step bound; its next step
	// stops the execution.
	Failing
	// Finished: the thread has ended.
	Finished
)

// StopKind says why a step stops the execution.
type StopKind uint8

const (
	NoStop StopKind = iota
	StopAssertion
	StopAssume
	StopRuntimeError
	StopStepBound
)

func (k StopKind) String() string {
	switch k {
	case StopAssertion:
		return "assertion"
	case StopAssume:
		return "assume"
	case StopRuntimeError:
		return "runtime-error"
	case StopStepBound:
		return "step-bound"
	}
	return ""
}

// failure is a pending stop of a thread.
type failure struct {
	kind StopKind
	pc   int32
	msg  string
}

// Thread is the state of one thread of an execution.
type Thread struct {
	Body   *ir.Body
	PC     int32
	Frame  []int64
	Status ThreadStatus
	fail   failure

	// Identity, stable across executions: the spawning thread (-1 for
	// declared threads) and how many threads it had spawned before.
	Parent     int32
	SpawnIndex int32
	Proc       int32 // proc number for spawned threads, -1 for declared ones
	Name       string
	Steps      int32 // visible steps executed so far
	spawned    int32 // threads this thread has spawned
}

// EventKind is the kind of a visible step (see ir.EventKind).
type EventKind = ir.EventKind

const (
	EvRead   = ir.EvRead
	EvWrite  = ir.EvWrite
	EvLock   = ir.EvLock
	EvUnlock = ir.EvUnlock
	EvSpawn  = ir.EvSpawn
	EvJoin   = ir.EvJoin
	EvAtomic = ir.EvAtomic
	EvStop   = ir.EvStop
)

// Event is one executed visible step.
type Event struct {
	Thread   int32
	Kind     EventKind
	Stop     StopKind    // non-zero if this step stopped the execution
	Finished bool        // the thread finished with this step
	Loc      int32       // location for reads, writes, locks and unlocks; thread for spawn and join
	Value    int64       // value read or written
	PC       int32       // the instruction (in the thread's body) that made the step
	Index    int32       // the step's index in its thread (0-based)
	Message  string      // for stops: what went wrong
	Acc      []ir.Access // for atomic steps: every access, in order
	// Tail holds, on a machine in coarse mode, the plain accesses glued to
	// this step (see Machine.Coarse); they follow it in the thread, with
	// indices Index+1, Index+2, ….
	Tail []TailStep
}

// TailStep is a plain shared access that a coarse machine ran as part of
// the step before it.
type TailStep struct {
	ir.Access
	PC int32 // its instruction
}

// Steps is the number of visible steps the event stands for: itself and
// its tail.
func (ev *Event) Steps() int { return 1 + len(ev.Tail) }

// FineEvent is the step a tail access of thread t would be on a fine
// machine (Index and Finished aside).
func (a *TailStep) FineEvent(t int32) *Event {
	kind := EvRead
	if a.Write {
		kind = EvWrite
	}
	return &Event{Thread: t, Kind: kind, Loc: a.Loc, Value: a.Value, PC: a.PC}
}

// undoRecord restores the state before one step.
type undoRecord struct {
	thread   int32
	pc       int32
	status   ThreadStatus
	fail     failure
	steps    int32
	spawned  int32
	frameLo  int   // saved frame in Machine.frames[frameLo : frameLo+len(frame)]
	memLo    int   // saved memory words in Machine.memUndo[memLo:]
	newChild bool  // the step spawned a thread (removed on undo)
	procCnt  int32 // proc whose spawn count was incremented, or -1
	total    int   // Machine.total before the step
}

type memWord struct {
	loc int32
	old int64
}

// Machine is the state of one execution: shared memory and threads, with an
// undo log so that an exploration can go back any number of steps at the
// cost of the steps undone.
type Machine struct {
	Prog    *ir.Program
	Mem     []int64
	Threads []*Thread

	// LocalBudget bounds the instructions a thread may run between two
	// visible steps; past it the thread stops with a step-bound failure.
	LocalBudget int

	// Coarse makes Step glue to each step the run of plain accesses that
	// follow it in its thread: reads and writes of non-atomic locations,
	// up to the next step of another kind, the thread's end, a pending
	// failure, or MaxTail accesses. The explorations use it on the
	// assumption that the program has no data race; see "Coarse steps" in
	// explore.go.
	Coarse bool
	// TailBound, if positive, stops a tail when StepCount reaches it, so
	// that an exploration's step bound falls where it would on a fine
	// machine.
	TailBound int

	total      int // visible steps executed, tails included
	undo       []undoRecord
	frames     []int64
	memUndo    []memWord
	procSpawns []int32   // per proc: spawns so far in this execution (for names)
	freeThread []*Thread // recycled thread objects

	hot      map[memoKey]bool // (body, pc) whose local runs are long; hash unset
	memo     map[memoKey][]*memoEntry
	memoSize int
}

// DefaultLocalBudget is the default bound on local instructions between
// two visible steps of a thread.
const DefaultLocalBudget = 50_000_000

// NewMachine returns a machine in the initial state of prog: shared memory
// initialised and every declared thread advanced to its first visible step,
// with a bound on local instructions between visible steps (0:
// DefaultLocalBudget); the bound applies from the
// initial local computations on.
func NewMachine(prog *ir.Program, localBudget int) *Machine {
	if localBudget <= 0 {
		localBudget = DefaultLocalBudget
	}
	m := &Machine{
		Prog:        prog,
		Mem:         append([]int64(nil), prog.Init...),
		LocalBudget: localBudget,
		procSpawns:  make([]int32, len(prog.Procs)),
	}
	for _, spec := range prog.Threads {
		body := prog.Bodies[spec.Body]
		t := &Thread{
			Body: body, Frame: append([]int64(nil), body.Frame...),
			Parent: -1, Proc: -1, Name: spec.Name,
		}
		copy(t.Frame[body.ArgSlot:], spec.Args)
		m.Threads = append(m.Threads, t)
	}
	for i := range m.Threads {
		m.runLocal(int32(i))
	}
	return m
}

// Depth is the number of steps executed (and not undone); in coarse mode
// a step and its tail count as one.
func (m *Machine) Depth() int { return len(m.undo) }

// StepCount is the number of visible steps executed (and not undone),
// each access of a tail counted.
func (m *Machine) StepCount() int { return m.total }

// MaxTail bounds the accesses glued to one step in coarse mode, so that a
// spin loop on a plain location still gives the other threads a turn.
const MaxTail = 64

// Enabled reports whether thread t can make a step now.
func (m *Machine) Enabled(t int) bool {
	th := m.Threads[t]
	switch th.Status {
	case Finished:
		return false
	case Failing:
		return true
	}
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLock:
		owner := m.Mem[th.Frame[in.B]]
		return owner == 0 || owner == int64(t)+1 // re-locking is a runtime error, which is a step
	case ir.OpJoin:
		tid := th.Frame[in.B]
		if tid <= 0 || tid > int64(len(m.Threads)) || tid == int64(t)+1 {
			return tid != int64(t)+1 // an invalid tid is a runtime error; joining oneself blocks forever
		}
		return m.Threads[tid-1].Status == Finished
	}
	return true
}

// Peek describes the step thread t would make next without making it: its
// kind and location (for atomic blocks, only the kind is known in advance).
func (m *Machine) Peek(t int) (EventKind, int32) {
	th := m.Threads[t]
	if th.Status == Failing {
		return EvStop, -1
	}
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLoad:
		return EvRead, int32(th.Frame[in.B])
	case ir.OpStore:
		return EvWrite, int32(th.Frame[in.B])
	case ir.OpLock:
		return EvLock, int32(th.Frame[in.B])
	case ir.OpUnlock:
		return EvUnlock, int32(th.Frame[in.B])
	case ir.OpSpawn:
		return EvSpawn, -1
	case ir.OpJoin:
		return EvJoin, int32(th.Frame[in.B] - 1)
	case ir.OpAtomic:
		return EvAtomic, -1
	}
	return EvStop, -1
}

// Step executes the next visible step of thread t (which must be enabled
// and not finished), then runs t's local computation up to its following
// visible step, and fills ev. It returns false if the step stopped the
// execution (ev.Stop says why).
func (m *Machine) Step(t int, ev *Event) bool {
	th := m.Threads[t]
	rec := undoRecord{
		thread: int32(t), pc: th.PC, status: th.Status, fail: th.fail, steps: th.Steps,
		spawned: th.spawned, frameLo: len(m.frames), memLo: len(m.memUndo), procCnt: -1,
		total: m.total,
	}
	m.frames = append(m.frames, th.Frame...)
	accBuf, tailBuf := ev.Acc[:0], ev.Tail[:0]
	*ev = Event{Thread: int32(t), PC: th.PC, Index: th.Steps, Loc: -1}
	th.Steps++
	m.total++
	if th.Status == Failing {
		ev.Kind = EvStop
		ev.Stop = th.fail.kind
		ev.PC = th.fail.pc
		ev.Message = th.fail.msg
		m.undo = append(m.undo, rec)
		return false
	}
	in := th.Body.Code[th.PC]
	ok := true
	switch in.Op {
	case ir.OpLoad, ir.OpStore:
		a := m.loadStore(th, in)
		ev.Kind, ev.Loc, ev.Value = EvRead, a.Loc, a.Value
		if a.Write {
			ev.Kind = EvWrite
		}
	case ir.OpLock:
		loc := th.Frame[in.B]
		ev.Kind, ev.Loc = EvLock, int32(loc)
		if m.Mem[loc] == int64(t)+1 {
			ev.Stop, ev.Message = StopRuntimeError, "lock of mutex "+m.Prog.Locations[loc].Name+" already held by this thread"
			ok = false
		} else {
			m.write(int32(loc), int64(t)+1)
		}
	case ir.OpUnlock:
		loc := th.Frame[in.B]
		ev.Kind, ev.Loc = EvUnlock, int32(loc)
		if m.Mem[loc] != int64(t)+1 {
			msg := "unlock of mutex " + m.Prog.Locations[loc].Name + " that is not locked"
			if m.Mem[loc] != 0 {
				msg = "unlock of mutex " + m.Prog.Locations[loc].Name + " held by " + m.Threads[m.Mem[loc]-1].Name
			}
			ev.Stop, ev.Message = StopRuntimeError, msg
			ok = false
		} else {
			m.write(int32(loc), 0)
		}
	case ir.OpSpawn:
		child := m.spawn(int32(t), in)
		rec.newChild = true
		rec.procCnt = in.C
		ev.Kind, ev.Loc = EvSpawn, child
		th.Frame[in.A] = int64(child) + 1
		ev.Value = int64(child) + 1
	case ir.OpJoin:
		tid := th.Frame[in.B]
		ev.Kind, ev.Loc = EvJoin, int32(tid-1)
		if tid <= 0 || tid > int64(len(m.Threads)) {
			ev.Stop, ev.Message = StopRuntimeError, "join of an invalid thread handle ("+strconv.FormatInt(tid, 10)+")"
			ok = false
		}
	case ir.OpAtomic:
		ev.Kind = EvAtomic
		ev.Acc = accBuf
		ok = m.runAtomic(th, ev)
	default:
		panic(fmt.Sprintf("engine: thread %s at pc %d is not at a visible step (%s)", th.Name, th.PC, in.Op))
	}
	m.undo = append(m.undo, rec)
	if !ok {
		return false
	}
	if in.Op != ir.OpAtomic {
		th.PC++
	}
	m.runLocal(int32(t))
	if m.Coarse {
		ev.Tail = m.runTail(th, int32(t), tailBuf)
	}
	if th.Status == Finished {
		ev.Finished = true
	}
	return true
}

// runTail runs, in coarse mode, the plain accesses that follow a step of
// th (each with the local computation after it) and returns them appended
// to tail. It stops before any other step, so that a pending failure, a
// lock, an atomic location… is a step of its own.
func (m *Machine) runTail(th *Thread, t int32, tail []TailStep) []TailStep {
	for len(tail) < MaxTail && th.Status == Ready && (m.TailBound <= 0 || m.total < m.TailBound) {
		in := th.Body.Code[th.PC]
		if in.Op != ir.OpLoad && in.Op != ir.OpStore {
			break
		}
		if m.Prog.Locations[th.Frame[in.B]].Atomic {
			break
		}
		tail = append(tail, TailStep{Access: m.loadStore(th, in), PC: th.PC})
		th.Steps++
		m.total++
		th.PC++
		m.runLocal(t)
	}
	return tail
}

// loadStore performs the read (ir.OpLoad) or write (ir.OpStore) in of thread
// th and returns it.
func (m *Machine) loadStore(th *Thread, in ir.Instr) ir.Access {
	a := ir.Access{Loc: int32(th.Frame[in.B]), Write: in.Op == ir.OpStore}
	if a.Write {
		a.Value = th.Frame[in.A]
		m.write(a.Loc, a.Value)
	} else {
		a.Value = m.Mem[a.Loc]
		th.Frame[in.A] = a.Value
	}
	return a
}

func (m *Machine) write(loc int32, v int64) {
	m.memUndo = append(m.memUndo, memWord{loc, m.Mem[loc]})
	m.Mem[loc] = v
}

// spawn creates the thread of an ir.OpSpawn and runs it to its first visible
// step. It returns the new thread's index.
func (m *Machine) spawn(parent int32, in ir.Instr) int32 {
	pt := m.Threads[parent]
	body := m.Prog.Bodies[m.Prog.Procs[in.C]]
	var t *Thread
	if n := len(m.freeThread); n > 0 {
		t = m.freeThread[n-1]
		m.freeThread = m.freeThread[:n-1]
		frame := append(t.Frame[:0], body.Frame...)
		*t = Thread{Frame: frame}
	} else {
		t = &Thread{Frame: append([]int64(nil), body.Frame...)}
	}
	t.Body = body
	t.Parent = parent
	t.SpawnIndex = pt.spawned
	t.Proc = in.C
	pt.spawned++
	copy(t.Frame[:body.NumParams], pt.Frame[in.B:int(in.B)+body.NumParams])
	k := m.procSpawns[in.C]
	m.procSpawns[in.C]++
	t.Name = body.Name + "#" + strconv.Itoa(int(k))
	m.Threads = append(m.Threads, t)
	idx := int32(len(m.Threads) - 1)
	m.runLocal(idx)
	return idx
}

// Undo reverts the last step.
func (m *Machine) Undo() {
	n := len(m.undo) - 1
	rec := &m.undo[n]
	if rec.newChild {
		last := len(m.Threads) - 1
		m.freeThread = append(m.freeThread, m.Threads[last])
		m.Threads = m.Threads[:last]
		m.procSpawns[rec.procCnt]--
	}
	for i := len(m.memUndo) - 1; i >= rec.memLo; i-- {
		w := m.memUndo[i]
		m.Mem[w.loc] = w.old
	}
	m.memUndo = m.memUndo[:rec.memLo]
	th := m.Threads[rec.thread]
	copy(th.Frame, m.frames[rec.frameLo:])
	m.frames = m.frames[:rec.frameLo]
	th.PC, th.Status, th.fail, th.Steps, th.spawned = rec.pc, rec.status, rec.fail, rec.steps, rec.spawned
	m.total = rec.total
	m.undo = m.undo[:n]
}

// UndoTo reverts steps until Depth() == depth.
func (m *Machine) UndoTo(depth int) {
	for len(m.undo) > depth {
		m.Undo()
	}
}

// runAtomic executes an atomic block from the thread's pc (an ir.OpAtomic)
// to the ir.OpAtomicEnd that leaves it, recording every shared access in
// ev.Acc, and leaves the thread at the instruction the block continues
// with. It returns false if the block stopped the execution.
func (m *Machine) runAtomic(th *Thread, ev *Event) bool {
	code := th.Body.Code
	frame := th.Frame
	th.PC++
	budget := m.LocalBudget
	for {
		in := code[th.PC]
		switch in.Op {
		case ir.OpLoad:
			loc := frame[in.B]
			v := m.Mem[loc]
			frame[in.A] = v
			ev.Acc = append(ev.Acc, ir.Access{Loc: int32(loc), Value: v})
			th.PC++
		case ir.OpStore:
			loc := frame[in.B]
			v := frame[in.A]
			m.write(int32(loc), v)
			ev.Acc = append(ev.Acc, ir.Access{Loc: int32(loc), Write: true, Value: v})
			th.PC++
		case ir.OpAtomicEnd:
			th.PC = in.A
			return true
		default:
			if m.exec(th, &budget) {
				ev.Stop, ev.Message, ev.PC = th.fail.kind, th.fail.msg, th.fail.pc
				return false
			}
			if op := code[th.PC].Op; op != ir.OpLoad && op != ir.OpStore && op != ir.OpAtomicEnd {
				panic(fmt.Sprintf("engine: %s inside an atomic block of %s (pc %d)", op, th.Name, th.PC))
			}
		}
	}
}

// runLocal runs thread t's invisible computation until it reaches a
// visible instruction, ends, or fails.
//
// Local computation depends only on the thread's frame, so a long stretch
// of it (a loop that computes before the next visible step, as in the PI
// benchmark) is memoised: once a stretch starting at some pc has run for
// more than memoThreshold instructions, later runs from that pc with an
// identical frame copy the remembered result instead of running again.
func (m *Machine) runLocal(t int32) {
	th := m.Threads[t]
	key := memoKey{body: th.Body, pc: th.PC}
	var input []int64
	if m.hot[key] {
		key.hash = hashFrame(th.Frame)
		for _, e := range m.memo[key] {
			if equalWords(e.in, th.Frame) {
				copy(th.Frame, e.out)
				th.PC, th.Status, th.fail = e.pc, e.status, e.fail
				return
			}
		}
		input = append([]int64(nil), th.Frame...)
	}
	budget := m.LocalBudget
	m.runLocalFrom(th, &budget)
	if m.LocalBudget-budget < memoThreshold {
		return
	}
	if input == nil {
		if m.hot == nil {
			m.hot = make(map[memoKey]bool)
			m.memo = make(map[memoKey][]*memoEntry)
		}
		m.hot[key] = true // remember the next run from here
		return
	}
	if m.memoSize < memoLimit {
		m.memoSize++
		m.memo[key] = append(m.memo[key], &memoEntry{
			in: input, out: append([]int64(nil), th.Frame...), pc: th.PC, status: th.Status, fail: th.fail,
		})
	}
}

func (m *Machine) runLocalFrom(th *Thread, budget *int) {
	for {
		op := th.Body.Code[th.PC].Op
		if op.IsVisible() {
			th.Status = Ready
			return
		}
		if op == ir.OpEnd {
			th.Status = Finished
			return
		}
		if op == ir.OpAtomicEnd { // only reachable through a lowering bug; keep going
			th.PC = th.Body.Code[th.PC].A
			continue
		}
		if m.exec(th, budget) {
			th.Status = Failing
			return
		}
	}
}

// Memoisation of long local computations (see runLocal).
const (
	memoThreshold = 1000 // instructions
	memoLimit     = 4096 // entries per machine
)

type memoKey struct {
	body *ir.Body
	pc   int32
	hash uint64
}

type memoEntry struct {
	in, out []int64
	pc      int32
	status  ThreadStatus
	fail    failure
}

func hashFrame(f []int64) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range f {
		h ^= uint64(w)
		h *= 1099511628211
	}
	return h
}

func equalWords(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// exec runs local instructions of th from its pc until a visible
// instruction, ir.OpEnd, or ir.OpAtomicEnd is reached (it executes at least one
// instruction). It returns true if the thread failed, with th.fail set.
func (m *Machine) exec(th *Thread, budget *int) bool {
	code := th.Body.Code
	f := th.Frame
	pc := th.PC
	n := *budget
	for {
		if n <= 0 {
			th.PC = pc
			th.fail = failure{StopStepBound, pc, "ran " + strconv.Itoa(m.LocalBudget) + " local instructions without a visible step (an infinite local loop?)"}
			*budget = n
			return true
		}
		n--
		in := code[pc]
		switch in.Op {
		case ir.OpNop:
		case ir.OpMov:
			f[in.A] = f[in.B]
		case ir.OpAdd:
			a, b := f[in.B], f[in.C]
			r := a + b
			if (r > a) != (b > 0) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" + "+strconv.FormatInt(b, 10))
			}
			f[in.A] = r
		case ir.OpSub:
			a, b := f[in.B], f[in.C]
			r := a - b
			if (r < a) != (b > 0) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" - "+strconv.FormatInt(b, 10))
			}
			f[in.A] = r
		case ir.OpMul:
			a, b := f[in.B], f[in.C]
			r := a * b
			if a != 0 && (r/a != b || (a == -1 && b == math.MinInt64)) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" * "+strconv.FormatInt(b, 10))
			}
			f[in.A] = r
		case ir.OpDiv, ir.OpMod:
			a, b := f[in.B], f[in.C]
			if b == 0 {
				what := "division by zero"
				if in.Op == ir.OpMod {
					what = "modulo by zero"
				}
				return m.fail(th, pc, n, budget, StopRuntimeError, what)
			}
			if a == math.MinInt64 && b == -1 {
				if in.Op == ir.OpDiv {
					return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" / -1")
				}
				f[in.A] = 0
			} else if in.Op == ir.OpDiv {
				f[in.A] = a / b
			} else {
				f[in.A] = a % b
			}
		case ir.OpNeg:
			a := f[in.B]
			if a == math.MinInt64 {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in -("+strconv.FormatInt(a, 10)+")")
			}
			f[in.A] = -a
		case ir.OpNot:
			f[in.A] = 1 - f[in.B]
		case ir.OpEq:
			f[in.A] = b2i(f[in.B] == f[in.C])
		case ir.OpNe:
			f[in.A] = b2i(f[in.B] != f[in.C])
		case ir.OpLt:
			f[in.A] = b2i(f[in.B] < f[in.C])
		case ir.OpLe:
			f[in.A] = b2i(f[in.B] <= f[in.C])
		case ir.OpAddI:
			f[in.A] = f[in.B] + int64(in.C)
		case ir.OpMulI:
			f[in.A] = f[in.B] * int64(in.C)
		case ir.OpJmp:
			pc = in.A
			continue
		case ir.OpJz:
			if f[in.B] == 0 {
				pc = in.A
				continue
			}
		case ir.OpJnz:
			if f[in.B] != 0 {
				pc = in.A
				continue
			}
		case ir.OpJge:
			if f[in.B] >= f[in.C] {
				pc = in.A
				continue
			}
		case ir.OpJlt:
			if f[in.B] < f[in.C] {
				pc = in.A
				continue
			}
		case ir.OpCheck:
			if i := f[in.B]; i < 0 || i >= int64(in.C) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "index "+strconv.FormatInt(i, 10)+" out of range [0, "+strconv.Itoa(int(in.C))+")")
			}
		case ir.OpLdx:
			f[in.A] = f[int64(in.C)+f[in.B]]
		case ir.OpStx:
			f[int64(in.C)+f[in.B]] = f[in.A]
		case ir.OpAssert:
			if f[in.B] == 0 {
				msg := "assertion failed"
				if in.C >= 0 {
					msg = th.Body.Messages[in.C]
				}
				return m.fail(th, pc, n, budget, StopAssertion, msg)
			}
		case ir.OpAssume:
			if f[in.B] == 0 {
				return m.fail(th, pc, n, budget, StopAssume, "assumption does not hold")
			}
		default:
			// Visible instruction, ir.OpEnd or ir.OpAtomicEnd: stop here.
			th.PC = pc
			*budget = n
			return false
		}
		pc++
	}
}

func (m *Machine) fail(th *Thread, pc int32, n int, budget *int, kind StopKind, msg string) bool {
	th.PC = pc
	th.fail = failure{kind, pc, msg}
	*budget = n
	return true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
