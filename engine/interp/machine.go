// Package interp is the interpreter of Weft's program form (package ir):
// the state of an execution (shared memory, threads with their frames and
// program counters) and the Machine that advances one thread at a time to
// its next visible step, reports that step as an Event, and undoes steps
// in reverse order, so that an exploration backtracks at the cost of the
// undone suffix only. Local computation between visible steps runs
// eagerly after each step, bounded by a budget, and long stretches of it
// are memoised. The interpreter knows nothing of how executions are
// explored.
//
// # State fingerprint
//
// A machine made with Config.Fingerprint keeps a 128-bit hash of its
// state (Machine.Fingerprint), for an exploration that keeps a set of
// visited states: shared memory, each thread's body, status, pc, call
// depth, condition-variable wait and pending failure, the live slots of
// each of its frames (ir.Liveness: a slot that is dead where the thread
// stands does not count, so states that differ only in dead slots hash
// equal), and the spin records that can still make a thread spin, with
// the staleness of their reads. It is a sum of one mixed term per part,
// updated after each step from the words the undo logs record and
// restored by Undo; history (step counts, spawn counters, who woke a
// waiter, the memo) is not hashed. RecomputeFingerprint computes it from
// scratch, for tests. "State fingerprint" in fingerprint.go says what
// exactly is hashed, what it costs, and why 128 bits.
//
// # Exact state encoding
//
// Machine.AppendState writes the same content as canonical bytes, for a
// visited set that stores states exactly (--exact-states): two states
// have equal encodings iff the fingerprint's terms are equal, so it
// identifies the states the fingerprint identifies, without collisions.
// It works with or without Config.Fingerprint, costs time in the size of
// the state, and allocates nothing when its buffer has room. "Exact state
// encoding" in encode.go gives the layout.
package interp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

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
	// Spinning: the thread is parked at a loop head, repeating an
	// iteration that changes nothing (see "Spin loops wait" in spin.go). It
	// never runs again in this execution.
	Spinning
)

// StopKind says why a step stops the execution.
type StopKind uint8

const (
	NoStop StopKind = iota
	StopAssertion
	StopAssume
	StopRuntimeError
	StopStepBound
	// StopMemory: the step would take the machine past its memory budget
	// (Machine.MemoryBudget). It is no bug of the program: the exploration
	// must end, incomplete.
	StopMemory
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
	case StopMemory:
		return "memory"
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
	Body *ir.Body
	PC   int32
	// Frame is the thread's current frame: its locals, temporaries and
	// constants (see ir.Body), or while it runs a function that function's
	// (see BaseFrame, Calls). It belongs to the machine: read it, never
	// write it.
	Frame  []int64
	Status ThreadStatus
	fail   failure
	// saved has bit s set when the current step has saved Frame[s] in the
	// undo log (see "Frame undo log").
	saved []uint64

	// Identity, stable across executions: the spawning thread (-1 for
	// declared threads) and how many threads it had spawned before.
	Parent     int32
	SpawnIndex int32
	Proc       int32 // proc number for spawned threads, -1 for declared ones
	Name       string
	Steps      int32 // visible steps executed so far
	spawned    int32 // threads this thread has spawned
	// calls holds its function frames (see "Function calls"); nil until
	// its first call.
	calls *callStack
	spin  spinState
	cond  condState
}

// Event is one executed visible step.
type Event struct {
	Thread   int32
	Kind     ir.EventKind
	Stop     StopKind    // non-zero if this step stopped the execution
	Finished bool        // the thread finished with this step
	Loc      int32       // location for reads, writes, locks, unlocks and trylocks; thread for spawn and join; condition variable for wait, wake, signal and broadcast
	Value    int64       // value read or written; a choose's value; 1 if a trylock took its mutex; for wait and wake the waiters left; the woken thread + 1 of a signal (0: none); the threads a broadcast woke
	Alt      int32       // the alternative taken (see Machine.Alternatives)
	Waker    int32       // for a wake: the index of the step that woke the thread, -1 for a spurious wake-up
	PC       int32       // the instruction (in the thread's body) that made the step
	Index    int32       // the step's index in its thread (0-based)
	Message  string      // for stops: what went wrong
	Acc      []ir.Access // for atomic steps: every access, in order; for wait: the mutex and the condition variable; for wake: the condition variable and the mutex
	// Tail holds, on a machine in coarse mode, the plain accesses glued to
	// this step (see Machine.Coarse); they follow it in the thread, with
	// indices Index+1, Index+2, ….
	Tail []TailStep
	// Stutter, if positive, says that this step ended a loop iteration
	// that changed nothing, the thread's last Stutter steps with this
	// one, after which the thread started the loop over instead of
	// spinning (see "Looping again"): a schedule without those steps
	// reaches the same state.
	Stutter int32
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
	kind := ir.EvRead
	if a.Write {
		kind = ir.EvWrite
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
	frameLo  int   // saved frame words of the moving thread in Machine.frameUndo[frameLo:]
	memLo    int   // saved memory words in Machine.memUndo[memLo:]
	newChild bool  // the step spawned a thread (removed on undo)
	procCnt  int32 // proc whose spawn count was incremented, or -1
	total    int   // Machine.total before the step
	// aux indexes Machine.aux: the spin and condition-variable state to
	// restore, for a step that changed them; -1 for the others.
	aux int32
}

// word is a word of memory or of a frame, by its index: in the undo logs
// the value it had before a step, in a memo entry the value a local
// computation left.
type word struct {
	at int32
	v  int64
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

	// NoSpinWait makes while loops run on where they would spin (see
	// "Spin loops wait"); awaits wait all the same.
	NoSpinWait bool
	// SpuriousWakeups lets a thread waiting on a condition variable wake
	// up without a signal (see "Condition variables" in cond.go).
	SpuriousWakeups bool

	// loopAgain, when set (SetLoopAgain), says per location whether an
	// iteration that accessed it may start over instead of spinning (see
	// "Looping again" in spin.go); parkAlways turns that off for a while
	// (SetParkAlways); stutter is the current step's Event.Stutter.
	loopAgain  []bool
	parkAlways bool
	stutter    int32

	wokeUndo []wokeRec // see condState
	waitBuf  []int32

	writes      []int64 // per location: the steps that changed it in this execution (see "Writes that change nothing")
	stepChanged bool    // the current step (or tail access) wrote a value another than the word held
	spinSlots   []int64 // see spinState
	spinReads   []spinRead
	stepSlotsLo int32 // len(spinSlots) when the current step started
	passedHead  bool  // the current local run arrived at a loop head
	aux         []auxRec
	auxAt       int32   // the current step's entry in aux; -1: none yet; -2: not in a step
	mover       *Thread // the thread making the current step

	total      int // visible steps executed, tails included
	undo       []undoRecord
	frameUndo  []fword   // frame words a step overwrote, first write only (see save); call records
	memUndo    []mword   // memory words a step overwrote, first write only
	memSaved   []uint64  // bit l: the current step has saved location l in memUndo
	memChanged []uint64  // bit l: the current step has changed location l (see "Writes that change nothing")
	procSpawns []int32   // per proc: spawns so far in this execution (for names)
	freeThread []*Thread // recycled thread objects

	// MemoryBudget, if positive, bounds Bytes: a spawn whose frame would
	// not fit does not happen, and a step after which the machine holds
	// more is a stop step too (StopMemory). NewBoundedMachine sets it.
	MemoryBudget int64
	frameBytes   int64 // bytes of every thread's frame and bits, recycled ones included
	bigSteps     int   // see BigSteps

	hot       map[memoKey]bool // (body, pc) whose local runs are long; hash unset
	memo      map[memoKey][]*memoEntry
	memoSize  int // entries
	memoWords int // words held by the entries

	fp     *fingerprint // the state fingerprint, nil unless Config.Fingerprint
	encTab *fpTables    // AppendState's tables when fp is nil, made at its first call
}

// DefaultLocalBudget is the default bound on local instructions between
// two visible steps of a thread.
const DefaultLocalBudget = 50_000_000

// ErrMemoryBudget is what NewBoundedMachine's error wraps when the
// initial state does not fit in the memory budget.
var ErrMemoryBudget = errors.New("memory budget exhausted")

// NewMachine returns a machine in the initial state of prog: shared memory
// initialised and every declared thread advanced to its first visible step,
// with a bound on local instructions between visible steps (0:
// DefaultLocalBudget); the bound applies from the
// initial local computations on. Its memory is not bounded.
func NewMachine(prog *ir.Program, localBudget int) *Machine {
	m, _ := NewBoundedMachine(prog, localBudget, 0)
	return m
}

// NewBoundedMachine is NewMachine with a memory budget in bytes
// (MemoryBudget; 0: none). If the shared memory and the frames of the
// declared threads alone take more, it allocates no frame and returns
// an error wrapping ErrMemoryBudget.
func NewBoundedMachine(prog *ir.Program, localBudget int, memoryBudget int64) (*Machine, error) {
	return NewMachineConfig(prog, Config{LocalBudget: localBudget, MemoryBudget: memoryBudget})
}

// Config is what a machine is made with (see the Machine fields of the
// same names); the zero value is NewMachine's defaults.
type Config struct {
	LocalBudget     int   // 0: DefaultLocalBudget
	MemoryBudget    int64 // 0: none
	NoSpinWait      bool
	SpuriousWakeups bool
	// Fingerprint makes the machine keep a hash of its state, updated at
	// every Step and Undo (Machine.Fingerprint; see "State fingerprint").
	Fingerprint bool
	// Stopped, if set, is asked between the threads' frames (each may be
	// megabytes to copy, and their initial local runs long): when it
	// says true, NewMachineConfig gives up with an error wrapping
	// ErrStopped, so that a deadline holds while the machine is made.
	Stopped func() bool
}

// ErrStopped is what NewMachineConfig's error wraps when Config.Stopped
// said to give up.
var ErrStopped = errors.New("stopped while making the initial state")

// NewMachineConfig is NewBoundedMachine with every setting of a machine:
// those that change what the initial local computations do (a thread
// that starts with `while true {}` spins there, unless NoSpinWait) must be
// given before they run.
func NewMachineConfig(prog *ir.Program, cfg Config) (*Machine, error) {
	localBudget, memoryBudget := cfg.LocalBudget, cfg.MemoryBudget
	if localBudget <= 0 {
		localBudget = DefaultLocalBudget
	}
	need := wordsBytes(len(prog.Init))
	for _, spec := range prog.Threads {
		need += wordsBytes(len(prog.Bodies[spec.Body].Frame))
	}
	if memoryBudget > 0 && need > memoryBudget {
		return nil, fmt.Errorf("the initial state takes %d bytes, more than the budget of %d: %w", need, memoryBudget, ErrMemoryBudget)
	}
	m := &Machine{
		Prog:         prog,
		Mem:          append([]int64(nil), prog.Init...),
		memSaved:     make([]uint64, bitWords(len(prog.Init))),
		memChanged:   make([]uint64, bitWords(len(prog.Init))),
		writes:       make([]int64, len(prog.Init)),
		LocalBudget:  localBudget,
		procSpawns:   make([]int32, len(prog.Procs)),
		MemoryBudget: memoryBudget,
		NoSpinWait:   cfg.NoSpinWait,
		auxAt:        -2,
	}
	m.SpuriousWakeups = cfg.SpuriousWakeups
	stopped := func() bool { return cfg.Stopped != nil && cfg.Stopped() }
	for _, spec := range prog.Threads {
		if stopped() {
			return nil, fmt.Errorf("copying the frame of %s: %w", spec.Name, ErrStopped)
		}
		body := prog.Bodies[spec.Body]
		t := &Thread{
			Body: body, Frame: append([]int64(nil), body.Frame...), saved: make([]uint64, bitWords(len(body.Frame))),
			Parent: -1, Proc: -1, Name: spec.Name,
		}
		m.frameBytes += frameBytes(t)
		copy(t.Frame[body.ArgSlot:], spec.Args)
		m.Threads = append(m.Threads, t)
	}
	for i, t := range m.Threads {
		if stopped() {
			return nil, fmt.Errorf("running %s to its first step: %w", t.Name, ErrStopped)
		}
		fill(t.saved) // no step to undo: nothing to save
		m.runLocal(int32(i))
		t.created()
	}
	if cfg.Fingerprint {
		m.fp = newFingerprint(m)
	}
	return m, nil
}

// bitWords is the number of words of a bit set of n bits.
func bitWords(n int) int { return (n + 63) / 64 }

// fill sets every bit of a bit set.
func fill(bits []uint64) {
	for i := range bits {
		bits[i] = ^uint64(0)
	}
}

// wordsBytes is what the machine holds for n words of a frame or of
// shared memory: the words and their bits.
func wordsBytes(n int) int64 { return 8 * int64(n+bitWords(n)) }

func frameBytes(t *Thread) int64 { return threadBytes(t) }

// Bytes is about how much memory the machine holds: shared memory, the
// frames of its threads (live and recycled), the undo log and the memo
// of local computations. It takes constant time.
func (m *Machine) Bytes() int64 {
	const rec, w, fw = int64(unsafe.Sizeof(undoRecord{})), int64(unsafe.Sizeof(mword{})), int64(unsafe.Sizeof(fword{}))
	n := wordsBytes(len(m.Mem)) + 8*int64(len(m.memChanged)) + m.frameBytes + rec*int64(cap(m.undo)) +
		fw*int64(cap(m.frameUndo)) + w*int64(cap(m.memUndo)) + int64(unsafe.Sizeof(int64(0)))*int64(m.memoWords) + m.auxBytes()
	if m.fp != nil {
		n += m.fp.bytes()
	}
	return n
}

// bigStep is the number of words a step must save for Step to check the
// memory budget after it (smaller steps leave it to the exploration's
// periodic check of the heap).
const bigStep = 4096

// BigSteps counts the steps that saved many words (bigStep) in the undo
// log, undone ones included: an exploration that bounds the memory of the
// whole process measures it when the count changes, as such steps make
// garbage fast (the log's old copies as it grows).
func (m *Machine) BigSteps() int { return m.bigSteps }

// outOfMemory makes ev a stop for lack of memory; Step returns its result.
func outOfMemory(ev *Event, what string) bool {
	ev.Stop = StopMemory
	ev.Message = what + " would take the machine past its memory budget"
	return false
}

// Depth is the number of steps executed (and not undone); in coarse mode
// a step and its tail count as one.
func (m *Machine) Depth() int { return len(m.undo) }

// ReserveSteps makes room in the undo log for n more steps at once, for
// a caller that knows how many it will run (a replay of a schedule):
// growing it step by step copied it over and over, most of a long
// replay's time.
func (m *Machine) ReserveSteps(n int) {
	m.undo = slices.Grow(m.undo, n)
}

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
	case Finished, Spinning:
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
	case ir.OpWake:
		return m.wakeEnabled(th, in)
	}
	return true
}

// Peek describes the step thread t would make next without making it: its
// kind and location (for atomic blocks, only the kind is known in advance;
// for wait and wake, the location is the mutex; a choose has none).
func (m *Machine) Peek(t int) (ir.EventKind, int32) {
	th := m.Threads[t]
	if th.Status == Failing {
		return ir.EvStop, -1
	}
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLoad:
		return ir.EvRead, int32(th.Frame[in.B])
	case ir.OpStore:
		return ir.EvWrite, int32(th.Frame[in.B])
	case ir.OpLock:
		return ir.EvLock, int32(th.Frame[in.B])
	case ir.OpUnlock:
		return ir.EvUnlock, int32(th.Frame[in.B])
	case ir.OpSpawn:
		return ir.EvSpawn, -1
	case ir.OpJoin:
		return ir.EvJoin, int32(th.Frame[in.B] - 1)
	case ir.OpAtomic:
		return ir.EvAtomic, -1
	case ir.OpChoose:
		return ir.EvChoose, -1
	case ir.OpTrylock:
		return ir.EvTrylock, int32(th.Frame[in.B])
	case ir.OpWait:
		return ir.EvWait, int32(th.Frame[in.A])
	case ir.OpWake:
		return ir.EvWake, int32(th.Frame[in.A])
	case ir.OpSignal:
		return ir.EvSignal, int32(th.Frame[in.B])
	case ir.OpBroadcast:
		return ir.EvBroadcast, int32(th.Frame[in.B])
	}
	return ir.EvStop, -1
}

// Step executes the next visible step of thread t (which must be enabled
// and not finished), then runs t's local computation up to its following
// visible step, and fills ev. It returns false if the step stopped the
// execution (ev.Stop says why). It takes the step's first alternative
// (see StepAlt).
func (m *Machine) Step(t int, ev *Event) bool { return m.StepAlt(t, 0, ev) }

// StepAlt is Step with alternative alt of the step (0 ≤ alt <
// Alternatives(t)): the value of a choose, the waiter a signal wakes.
func (m *Machine) StepAlt(t, alt int, ev *Event) bool {
	frameLo, memLo := len(m.frameUndo), len(m.memUndo)
	m.stutter = 0
	ok := m.step(t, alt, ev)
	ev.Stutter, m.stutter = m.stutter, 0
	m.undo[len(m.undo)-1].aux = m.auxAt
	m.auxAt, m.mover = -2, nil
	// Which of the words the step saved it changed, for Undo (and the
	// fingerprint); the bits are cleared one by one, as the bits of other
	// entries may share a word.
	for i := memLo; i < len(m.memUndo); i++ {
		e := &m.memUndo[i]
		w, bit := uint32(e.at)>>6, uint64(1)<<(uint32(e.at)&63)
		e.changed = m.memChanged[w]&bit != 0
		m.memChanged[w] &^= bit
	}
	if m.fp != nil {
		m.fp.afterStep(m, int32(t), frameLo, memLo) // before the saved bits are cleared
	}
	// Clear the bits of the words saved (see "Frame undo log"), whole
	// words of bits at a time: no other bit is set.
	m.Threads[t].endStep(m.frameUndo[frameLo:])
	for i := memLo; i < len(m.memUndo); i++ {
		m.memSaved[uint32(m.memUndo[i].at)>>6] = 0
	}
	if ok && len(m.frameUndo)-frameLo+len(m.memUndo)-memLo >= bigStep {
		m.bigSteps++
		if m.MemoryBudget > 0 && m.Bytes() > m.MemoryBudget {
			return outOfMemory(ev, "the undo log of this step")
		}
	}
	return ok
}

func (m *Machine) step(t, alt int, ev *Event) bool {
	th := m.Threads[t]
	rec := undoRecord{
		thread: int32(t), pc: th.PC, status: th.Status, fail: th.fail, steps: th.Steps,
		spawned: th.spawned, frameLo: len(m.frameUndo), memLo: len(m.memUndo), procCnt: -1,
		total: m.total, aux: -1,
	}
	m.beginCalls(th)
	m.stepSlotsLo, m.auxAt, m.mover, m.stepChanged = int32(len(m.spinSlots)), -1, th, false
	accBuf, tailBuf := ev.Acc[:0], ev.Tail[:0]
	*ev = Event{Thread: int32(t), PC: th.PC, Index: th.Steps, Loc: -1, Alt: int32(alt)}
	th.Steps++
	m.total++
	if th.Status == Failing {
		ev.Kind = ir.EvStop
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
		ev.Kind, ev.Loc, ev.Value = ir.EvRead, a.Loc, a.Value
		if a.Write {
			ev.Kind = ir.EvWrite
		}
	case ir.OpLock:
		loc := th.Frame[in.B]
		ev.Kind, ev.Loc = ir.EvLock, int32(loc)
		if m.Mem[loc] == int64(t)+1 {
			ev.Stop, ev.Message = StopRuntimeError, "lock of mutex "+m.Prog.Locations[loc].Name+" already held by this thread"
			ok = false
		} else {
			m.write(int32(loc), int64(t)+1)
		}
	case ir.OpUnlock:
		loc := th.Frame[in.B]
		ev.Kind, ev.Loc = ir.EvUnlock, int32(loc)
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
		if m.MemoryBudget > 0 && m.Bytes()+m.spawnBytes(in) > m.MemoryBudget {
			ev.Kind = ir.EvStop
			m.undo = append(m.undo, rec)
			return outOfMemory(ev, "the frame of "+m.Prog.Bodies[m.Prog.Procs[in.C]].Name)
		}
		child := m.spawn(int32(t), in)
		rec.newChild = true
		rec.procCnt = in.C
		ev.Kind, ev.Loc = ir.EvSpawn, child
		m.setSlot(th, in.A, int64(child)+1)
		ev.Value = int64(child) + 1
	case ir.OpJoin:
		tid := th.Frame[in.B]
		ev.Kind, ev.Loc = ir.EvJoin, int32(tid-1)
		if tid <= 0 || tid > int64(len(m.Threads)) {
			ev.Stop, ev.Message = StopRuntimeError, "join of an invalid thread handle ("+strconv.FormatInt(tid, 10)+")"
			ok = false
		}
	case ir.OpAtomic:
		ev.Kind = ir.EvAtomic
		ev.Acc = accBuf
		ok = m.runAtomic(th, ev)
	case ir.OpChoose:
		ok = m.stepChoose(th, in, alt, ev)
	case ir.OpTrylock:
		ok = m.stepTrylock(t, th, in, ev)
	case ir.OpWait:
		ev.Acc = accBuf
		ok = m.stepWait(t, th, in, ev)
	case ir.OpWake:
		ev.Acc = accBuf
		ok = m.stepWake(t, th, in, ev)
	case ir.OpSignal, ir.OpBroadcast:
		m.stepSignal(th, in, alt, ev)
	default:
		panic(fmt.Sprintf("engine: thread %s at pc %d is not at a visible step (%s)", th.Name, th.PC, in.Op))
	}
	m.undo = append(m.undo, rec)
	if !ok {
		return false
	}
	if th.spin.at != 0 && th.spin.pure {
		m.spinStep(th, ev, m.stepChanged)
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

// spawnBytes is what the spawn in would add to the machine's frames.
func (m *Machine) spawnBytes(in ir.Instr) int64 {
	n := len(m.Prog.Bodies[m.Prog.Procs[in.C]].Frame)
	if k := len(m.freeThread); k > 0 && cap(m.freeThread[k-1].Frame) >= n && cap(m.freeThread[k-1].saved) >= bitWords(n) {
		return 0
	}
	return wordsBytes(n)
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
		m.stepChanged = false
		a := m.loadStore(th, in)
		if th.spin.at != 0 && th.spin.pure {
			m.spinNote(th, a.Loc, a.Value, a.Write, a.Write && m.stepChanged)
		}
		tail = append(tail, TailStep{Access: a, PC: th.PC})
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
		m.setSlot(th, in.A, a.Value)
	}
	return a
}

// mword is a memory word a step overwrote: its value before the step,
// and whether the step changed it (see "Writes that change nothing").
type mword struct {
	at      int32
	changed bool
	v       int64
}

// write writes v to shared location loc, saving the old word first if
// the step has not already. A write of another value than the word
// holds sets stepChanged, and the first in the step counts in writes.
func (m *Machine) write(loc int32, v int64) {
	w, bit := uint32(loc)>>6, uint64(1)<<(uint32(loc)&63)
	if m.memSaved[w]&bit == 0 {
		m.memSaved[w] |= bit
		m.memUndo = append(m.memUndo, mword{at: loc, v: m.Mem[loc]})
	}
	if v != m.Mem[loc] {
		m.stepChanged = true
		if m.memChanged[w]&bit == 0 {
			m.memChanged[w] |= bit
			m.writes[loc]++
		}
	}
	m.Mem[loc] = v
}

// Frame undo log
//
// A step saves only the frame words it overwrites, each the first time
// (so a local loop that rewrites a counter a million times saves it
// once), not the frame: a frame holds every constant of its body and
// every element of its local arrays, so copying it made each step cost
// the size of the code or of the arrays, in time and in the memory of the
// undo log. A bit per word (Thread.saved) says it was saved in the
// current step; Step clears the bits of the words it saved when it ends,
// so between steps every bit is clear. The same goes for shared memory
// (Machine.memSaved), so that an atomic block looping over a location
// saves it once. While a thread is being created (the initial threads, a
// spawned child) its bits are all set: its words need no saving, as Undo
// removes it whole; they are cleared once it stands at its first step.
// The frames of function calls follow the same rule (see "Function
// calls").

// setSlot writes v to slot s of th's frame, saving the old word first if
// the step has not already.
func (m *Machine) setSlot(th *Thread, s int32, v int64) {
	if th.saved[uint32(s)>>6]&(1<<(uint32(s)&63)) == 0 {
		m.save(th, s)
	}
	th.Frame[s] = v
}

// save logs the word in slot s of th's current frame (the moving
// thread's) for Undo, and marks it saved in this step.
func (m *Machine) save(th *Thread, s int32) {
	th.saved[uint32(s)>>6] |= 1 << (uint32(s) & 63)
	m.frameUndo = append(m.frameUndo, fword{at: s, d: th.depth(), v: th.Frame[s]})
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
		m.frameBytes -= frameBytes(t)
		cs := t.emptyCalls()
		*t = Thread{Frame: append(t.Frame[:0], body.Frame...), saved: t.saved[:0], calls: cs}
	} else {
		t = &Thread{Frame: append([]int64(nil), body.Frame...)}
	}
	if n := bitWords(len(body.Frame)); cap(t.saved) >= n {
		t.saved = t.saved[:n]
	} else {
		t.saved = make([]uint64, n)
	}
	fill(t.saved) // the child's words need no saving: Undo removes it
	m.frameBytes += frameBytes(t)
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
	t.created()
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
		m.Mem[w.at] = w.v
		if w.changed {
			m.writes[w.at]--
		}
	}
	m.memUndo = m.memUndo[:rec.memLo]
	th := m.Threads[rec.thread]
	th.undoFrames(m.frameUndo[rec.frameLo:])
	m.frameUndo = m.frameUndo[:rec.frameLo]
	th.PC, th.Status, th.fail, th.Steps, th.spawned = rec.pc, rec.status, rec.fail, rec.steps, rec.spawned
	if rec.aux >= 0 {
		m.undoAux(th, rec.aux)
	}
	m.total = rec.total
	m.undo = m.undo[:n]
	if m.fp != nil {
		m.fp.undo()
	}
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
	th.PC++
	budget := m.LocalBudget
	nested := 0 // atomic blocks entered inside this one (in a called function)
	for {
		in := code[th.PC]
		frame := th.Frame // a call or a return inside the block switches frames
		switch in.Op {
		case ir.OpLoad:
			loc := frame[in.B]
			v := m.Mem[loc]
			m.setSlot(th, in.A, v)
			ev.Acc = append(ev.Acc, ir.Access{Loc: int32(loc), Value: v})
			th.PC++
		case ir.OpStore:
			loc := frame[in.B]
			v := frame[in.A]
			m.write(int32(loc), v)
			ev.Acc = append(ev.Acc, ir.Access{Loc: int32(loc), Write: true, Value: v})
			th.PC++
		case ir.OpAtomic:
			nested++
			th.PC++
		case ir.OpAtomicEnd:
			th.PC = in.A
			if nested == 0 {
				return true
			}
			nested--
		case ir.OpCall, ir.OpRet:
			if m.callOrRet(th, &budget) {
				ev.Stop, ev.Message, ev.PC = th.fail.kind, th.fail.msg, th.fail.pc
				return false
			}
		case ir.OpLoopHead:
			// A loop inside an atomic block cannot be waited on: nothing
			// changes what it reads until the block ends.
			th.PC++
		default:
			if m.exec(th, &budget) {
				ev.Stop, ev.Message, ev.PC = th.fail.kind, th.fail.msg, th.fail.pc
				return false
			}
			if op := code[th.PC].Op; op.IsVisible() && op != ir.OpLoad && op != ir.OpStore && op != ir.OpAtomic || op == ir.OpEnd {
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
// more than memoThreshold instructions, and for more instructions than
// the frame has words (looking a frame up costs about that), later runs
// from that pc with an identical frame write the words it changed instead
// of running again. The memo holds at most memoLimit entries and
// memoWordLimit words.
func (m *Machine) runLocal(t int32) {
	th := m.Threads[t]
	if th.depth() > 0 {
		// The computation depends on every frame and may return to the
		// callers: not memoised (see "Function calls").
		budget := m.LocalBudget
		m.runLocalFrom(th, &budget)
		return
	}
	key := memoKey{body: th.Body, pc: th.PC}
	var input []int64
	hot := m.hot[key]
	if hot {
		key.hash = hashFrame(th.Frame)
		for _, e := range m.memo[key] {
			if equalWords(e.in, th.Frame) {
				for _, w := range e.out {
					m.setSlot(th, w.at, w.v)
				}
				th.PC, th.Status, th.fail = e.pc, e.status, e.fail
				return
			}
		}
		if m.memoSize < memoLimit && m.memoWords+len(th.Frame) <= m.memoWordLimit() {
			input = append([]int64(nil), th.Frame...)
		}
	}
	budget := m.LocalBudget
	m.passedHead = false
	m.runLocalFrom(th, &budget)
	if ran := m.LocalBudget - budget; ran < memoThreshold || ran < len(th.Frame) || th.depth() > 0 || m.passedHead {
		// Short; or it stopped inside a function (memo entries hold the
		// body's frame only); or it went through a loop head, which does
		// more than write the frame (see "Spin loops wait").
		return
	}
	if !hot {
		if m.hot == nil {
			m.hot = make(map[memoKey]bool)
			m.memo = make(map[memoKey][]*memoEntry)
		}
		m.hot[key] = true // remember the next run from here
		return
	}
	if input == nil {
		return // the memo is full
	}
	var out []word
	for i, v := range th.Frame {
		if v != input[i] {
			out = append(out, word{int32(i), v})
		}
	}
	m.memoSize++
	m.memoWords += len(input) + 2*len(out)
	m.memo[key] = append(m.memo[key], &memoEntry{in: input, out: out, pc: th.PC, status: th.Status, fail: th.fail})
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
		if op == ir.OpCall || op == ir.OpRet {
			if m.callOrRet(th, budget) {
				th.Status = Failing
				return
			}
			continue
		}
		if op == ir.OpLoopHead {
			m.passedHead = true
			if m.arriveAtHead(th) {
				th.Status = Spinning
				return
			}
			th.PC++
			*budget-- // (exec stops the thread if that was the last)
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
	memoThreshold = 1000    // instructions
	memoLimit     = 4096    // entries per machine
	memoWords     = 1 << 22 // words per machine (32 MiB), at most an eighth of MemoryBudget
)

func (m *Machine) memoWordLimit() int {
	if m.MemoryBudget > 0 {
		return int(min(memoWords, m.MemoryBudget/64))
	}
	return memoWords
}

type memoKey struct {
	body *ir.Body
	pc   int32
	hash uint64
}

// memoEntry is a remembered local computation: from frame in at the key's
// pc, it writes the words out and stops at pc with status and fail.
type memoEntry struct {
	in     []int64
	out    []word
	pc     int32
	status ThreadStatus
	fail   failure
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
// instruction, ir.OpEnd, ir.OpAtomicEnd, ir.OpCall or ir.OpRet is reached
// (it executes at least one instruction, unless it starts at a call or a
// return: see callOrRet). It returns true if the thread failed, with th.fail set.
//
// Every instruction that writes a frame word either jumps back to the top
// of the loop itself or leaves its result in r for slot A, written at the
// bottom, after saving the old word for Undo (see "Frame undo log").
func (m *Machine) exec(th *Thread, budget *int) bool {
	code := th.Body.Code
	pc := th.PC
	n := *budget
	f := th.Frame
	sv := th.saved
	for {
		if n <= 0 {
			th.PC = pc
			th.fail = failure{StopStepBound, pc, "ran " + strconv.Itoa(m.LocalBudget) + " local instructions without a visible step (an infinite local loop?)"}
			*budget = n
			return true
		}
		n--
		in := code[pc]
		var r int64
		switch in.Op {
		case ir.OpNop:
			pc++
			continue
		case ir.OpMov:
			r = f[in.B]
		case ir.OpAdd:
			a, b := f[in.B], f[in.C]
			r = a + b
			if (r > a) != (b > 0) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" + "+strconv.FormatInt(b, 10))
			}
		case ir.OpSub:
			a, b := f[in.B], f[in.C]
			r = a - b
			if (r < a) != (b > 0) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" - "+strconv.FormatInt(b, 10))
			}
		case ir.OpMul:
			a, b := f[in.B], f[in.C]
			r = a * b
			if a != 0 && (r/a != b || (a == -1 && b == math.MinInt64)) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in "+strconv.FormatInt(a, 10)+" * "+strconv.FormatInt(b, 10))
			}
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
				r = 0
			} else if in.Op == ir.OpDiv {
				r = a / b
			} else {
				r = a % b
			}
		case ir.OpNeg:
			a := f[in.B]
			if a == math.MinInt64 {
				return m.fail(th, pc, n, budget, StopRuntimeError, "integer overflow in -("+strconv.FormatInt(a, 10)+")")
			}
			r = -a
		case ir.OpNot:
			r = 1 - f[in.B]
		case ir.OpEq:
			r = b2i(f[in.B] == f[in.C])
		case ir.OpNe:
			r = b2i(f[in.B] != f[in.C])
		case ir.OpLt:
			r = b2i(f[in.B] < f[in.C])
		case ir.OpLe:
			r = b2i(f[in.B] <= f[in.C])
		case ir.OpAddI:
			r = f[in.B] + int64(in.C)
		case ir.OpMulI:
			r = f[in.B] * int64(in.C)
		case ir.OpJmp:
			pc = in.A
			continue
		case ir.OpJz:
			if f[in.B] == 0 {
				pc = in.A
			} else {
				pc++
			}
			continue
		case ir.OpJnz:
			if f[in.B] != 0 {
				pc = in.A
			} else {
				pc++
			}
			continue
		case ir.OpJge:
			if f[in.B] >= f[in.C] {
				pc = in.A
			} else {
				pc++
			}
			continue
		case ir.OpJlt:
			if f[in.B] < f[in.C] {
				pc = in.A
			} else {
				pc++
			}
			continue
		case ir.OpCheck:
			if i := f[in.B]; i < 0 || i >= int64(in.C) {
				return m.fail(th, pc, n, budget, StopRuntimeError, "index "+strconv.FormatInt(i, 10)+" out of range [0, "+strconv.Itoa(int(in.C))+")")
			}
			pc++
			continue
		case ir.OpLdx:
			r = f[int64(in.C)+f[in.B]]
		case ir.OpStx:
			s := int64(in.C) + f[in.B]
			if sv[uint64(s)>>6]&(1<<(uint64(s)&63)) == 0 {
				m.save(th, int32(s))
			}
			f[s] = f[in.A]
			pc++
			continue
		case ir.OpAssert:
			if f[in.B] == 0 {
				msg := "assertion failed"
				if in.C >= 0 {
					msg = th.Body.Messages[in.C]
				}
				return m.fail(th, pc, n, budget, StopAssertion, msg)
			}
			pc++
			continue
		case ir.OpAssume:
			if f[in.B] == 0 {
				return m.fail(th, pc, n, budget, StopAssume, "assumption does not hold")
			}
			pc++
			continue
		default:
			// Visible instruction, ir.OpEnd or ir.OpAtomicEnd: stop here.
			th.PC = pc
			*budget = n
			return false
		}
		if sv[uint32(in.A)>>6]&(1<<(uint32(in.A)&63)) == 0 {
			m.save(th, in.A)
		}
		f[in.A] = r
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
