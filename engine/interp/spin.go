package interp

import (
	"fmt"
	"slices"
	"unsafe"

	"weft/engine/ir"
)

// Spin loops wait
//
// A loop iteration whose visible steps changed no shared word (reads,
// writes that stored the value their word held, atomic blocks whose every
// write did, trylocks that found their mutex held: "pure" steps, see
// "Writes that change nothing") and that came back to the loop head with
// the slots that can change the next iteration (ir.Loop.Slots) as they
// were, would repeat itself, reading the same values, until some other
// thread changes a word it accessed. The machine parks such a thread
// at the head with the status Spinning: it is not enabled, and it never
// runs again in this execution ("spin-assume", as GenMC and Nidhugg do).
// The executions in which its reads come after the writes that let it out
// are other executions, which an exploration reaches by reversing the
// races of those reads with those writes, as for any read. So each spin
// contributes one iteration: the one that reads the final values.
//
// Each thread remembers the innermost loop head it arrived at (its pc and
// the call depth, the values of the loop's Slots then), whether every
// visible step since was pure, and which locations it accessed since (its
// reads; a no-op write or a failed trylock counts as a read of the value
// the word held), with the number of changes each location had had then
// (Machine.writes). Arriving at the same head again with nothing but pure
// steps since and the same slot values, the thread spins. Arriving at another head, or after anything
// else, it starts over from there. A loop with no visible step at all
// between two arrivals at its head with the same slots (`while true {}`)
// spins too: it could only go on forever.
//
// When no thread can move and some spinning thread read a location that
// has been changed since (Machine.StaleSpin), the execution is
// spin-blocked: in it the spinner would have read the new value and gone
// on; that execution is explored elsewhere, with the read after the
// write. Otherwise the spinners spin forever: a deadlock.
//
// Writes that change nothing
//
// A write that stores the value its word already holds (a test-and-set
// `atomic { old = flag; flag = true }` finding the flag set, `x = x`)
// and a trylock that finds its mutex held leave shared memory as it was.
// For spin detection they are pure: the iteration that made them, back at
// its head with the same slots, is a stutter (the whole state after it is
// the state before it, dead slots and history aside), and run again it
// would make the same steps: each read returns the same value as no word
// it accessed has changed, so each write computes the same value from the
// same locals and finds the same value there, and the trylock finds the
// same owner. Only a change of one of those words by another thread can
// make it do anything else, which is the case of a read-only loop with
// the no-op writes counted as reads of the value they found. They remain
// writes for everything else: their footprint (ir.Footprint), and so the
// dependence relation and sleep sets, data races, happens-before (an
// atomic no-op write still releases) and the events of a trace; the
// exploration reorders the spinner's last iteration after another
// thread's change of such a word as it does after a change of a word the
// iteration read (a write of a word and another write of it, and a
// trylock and the lock or unlock of its mutex, are dependent).
//
// Machine.writes counts, per location, the steps that changed it: the
// first write of a step to a location that stores another value than the
// location holds increments it (a step that changes a location and then
// puts its value back still counts), and no-op writes do not count. So a
// spinner's own no-op write after its read of the same word does not make
// that read look stale, and neither does another thread's no-op write.
// Both are sound: staleness asks whether the spinner, reading again after
// the write, could read another value than it did, and a write of the
// value the word holds leaves it as the spinner would read it (any write
// between the read and the no-op write that changed the word counts
// itself). Declaring such an execution a deadlock rather than
// spin-blocked is what it is: every thread waits, and the spinner, run
// again, would make the same no-op steps forever, which wake no one (a
// lock waits for its mutex's value, a spinner for a change, a join for a
// thread to finish, a wait for a signal, which is not pure). Which steps
// change which words is fixed by the order of the writes of each word,
// which every linearisation of a trace shares, so the classification does
// not depend on the linearisation (as the unfolding's doc requires); and
// two no-op writes of one word, or a no-op write and a read of it, which
// cdpor may find independent ("No-op swaps" there), leave every count as
// it was in either order.
//
// Machine.NoSpinWait turns spinning off for while loops (the thread goes
// on looping, up to the step bound); an await (ir.Loop.Await) always
// waits.
//
// Everything here is undone with the step: a step that changes the moving
// thread's record saves it first (auxSave); the slot values and the reads
// live in two stacks of the machine (spinSlots, spinReads) that Undo
// truncates to their size before the step; the per-location write counts
// are decremented for each location the step wrote (one memUndo entry
// each).

// auxRec is what Undo restores of a step that changed some thread's spin
// or condition-variable state (most steps change none, and leave none):
// the moving thread's states, and the sizes of the machine's stacks of
// them, before the step.
type auxRec struct {
	spin                             spinState
	cond                             condState
	spinSlotsLo, spinReadsLo, wokeLo int32
}

// auxSave saves, the first time in a step, what undoing it needs of the
// spin and condition-variable state: every change to them calls it
// first. Outside steps (the initial local runs) nothing is saved.
func (m *Machine) auxSave() {
	if m.auxAt != -1 {
		return
	}
	m.auxAt = int32(len(m.aux))
	m.aux = append(m.aux, auxRec{spin: m.mover.spin, cond: m.mover.cond,
		spinSlotsLo: m.stepSlotsLo, spinReadsLo: int32(len(m.spinReads)), wokeLo: int32(len(m.wokeUndo))})
}

// auxBytes is what the machine holds for spin detection and condition
// variables: the write counts and the stacks.
func (m *Machine) auxBytes() int64 {
	return 8*int64(cap(m.writes)+cap(m.spinSlots)) + int64(unsafe.Sizeof(spinRead{}))*int64(cap(m.spinReads)) +
		int64(unsafe.Sizeof(auxRec{}))*int64(cap(m.aux)) + int64(unsafe.Sizeof(wokeRec{}))*int64(cap(m.wokeUndo))
}

// undoAux restores, undoing a step of th, the state saved in aux[i].
func (m *Machine) undoAux(th *Thread, i int32) {
	a := &m.aux[i]
	th.spin, th.cond = a.spin, a.cond
	for j := len(m.wokeUndo) - 1; j >= int(a.wokeLo); j-- {
		w := m.wokeUndo[j]
		m.Threads[w.thread].cond = w.old
	}
	m.wokeUndo = m.wokeUndo[:a.wokeLo]
	m.spinSlots = m.spinSlots[:a.spinSlotsLo]
	m.spinReads = m.spinReads[:a.spinReadsLo]
	m.aux = m.aux[:i]
}

// spinState is a thread's record of the innermost loop head it arrived at.
type spinState struct {
	at     int32 // 1 + the pc of the head; 0: none yet
	depth  int32 // the call depth then
	pure   bool  // every visible step since was pure (see "Writes that change nothing")
	slotLo int32 // the values of the loop's Slots then: Machine.spinSlots[slotLo:slotLo+slotN]
	slotN  int32
	reads  int32 // the last read since, in Machine.spinReads; -1: none
	steps  int32 // the pure visible steps since
	plain  bool  // one of them accessed a location loopAgain does not allow, or released (spinRelease)
	// readsLo is len(Machine.spinReads) at the arrival: every read of
	// the thread at that index or later is one of this record's while it
	// stays pure (the state fingerprint tells live reads by it).
	readsLo int32
}

// spinRead is a read made since the last arrival at a loop head, or a
// write that stored the value its word held (see "Writes that change
// nothing").
type spinRead struct {
	loc    int32
	prev   int32 // the previous read of the same thread since that arrival, or -1
	value  int64
	writes int64 // Machine.writes[loc] at the read
	write  bool  // a write of the value the word held
}

// SpinRead is a location a spinning thread read in its last iteration,
// the value it read, and whether that location has been changed since
// (Machine.SpinReads). Write says that the iteration only wrote the
// location, the value it already held (see "Writes that change
// nothing"), and did not read it.
type SpinRead struct {
	Loc   int32
	Value int64
	Stale bool
	Write bool
}

// spinDepth is the call depth of th's current activation, which tells
// arrivals at the same head in nested activations of a function apart
// (a recursive call reaches the loop's head again in a deeper frame).
// Two activations one after the other at the same depth are told apart by
// the return between them, which forgets the last arrival (Machine.ret).
func spinDepth(th *Thread) int32 { return th.depth() }

// arriveAtHead handles th's arrival at the ir.OpLoopHead at its pc: it
// returns true if the thread spins there (see "Spin loops wait"),
// otherwise it records the arrival.
func (m *Machine) arriveAtHead(th *Thread) bool {
	in := th.Body.Code[th.PC]
	loop := &th.Body.Loops[in.A]
	depth := spinDepth(th)
	s := &th.spin
	frame := th.Frame
	if s.at == th.PC+1 && s.depth == depth && s.pure && int(s.slotN) == len(loop.Slots) {
		same := true
		old := m.spinSlots[s.slotLo : s.slotLo+s.slotN]
		for i, slot := range loop.Slots {
			if frame[slot] != old[i] {
				same = false
				break
			}
		}
		if same && (loop.Await || !m.NoSpinWait) {
			if m.loopAgain == nil || m.parkAlways || s.reads < 0 || s.plain {
				return true
			}
			// Start over (see "Looping again").
			m.stutter = s.steps
		}
	}
	m.auxSave()
	// Start over from this arrival. The values of the last arrival can be
	// overwritten if this step put them on top of the stack.
	if s.at != 0 && s.slotLo >= m.stepSlotsLo && int(s.slotLo+s.slotN) == len(m.spinSlots) {
		m.spinSlots = m.spinSlots[:s.slotLo]
	}
	lo := int32(len(m.spinSlots))
	for _, slot := range loop.Slots {
		m.spinSlots = append(m.spinSlots, frame[slot])
	}
	*s = spinState{at: th.PC + 1, depth: depth, pure: true, slotLo: lo, slotN: int32(len(loop.Slots)), reads: -1, readsLo: int32(len(m.spinReads))}
	return false
}

// spinNote records an access th made in a visible step (or a coarse
// tail) for spin detection: a read, or a write that stored the value the
// word held, is remembered as a read of that value; a write that changed
// the word (changed) makes the iteration impure.
func (m *Machine) spinNote(th *Thread, loc int32, value int64, write, changed bool) {
	s := &th.spin
	if s.at == 0 || !s.pure {
		return
	}
	m.auxSave()
	if changed {
		s.pure = false
		return
	}
	m.spinReads = append(m.spinReads, spinRead{loc: loc, prev: s.reads, value: value, writes: m.writes[loc], write: write})
	s.reads = int32(len(m.spinReads) - 1)
	if m.loopAgain != nil && !m.loopAgain[loc] {
		s.plain = true
	}
}

// spinRelease notes, for looping again, that th's pure step stored the
// value a word held without reading it first in the step: such a store
// still releases, and another thread's read from it is ordered after th
// alone, not after the thread that stored the value before, so a
// schedule without it could lose a data race (see "Looping again"). A
// store after a read of the word in the same step (a failed
// test-and-set) passes on what the read acquired: leaving it out only
// leaves orders out.
func (m *Machine) spinRelease(th *Thread) {
	if s := &th.spin; m.loopAgain != nil && s.at != 0 && s.pure && !s.plain {
		m.auxSave()
		s.plain = true
	}
}

// spinStep records what a visible step of th did, for spin detection;
// changed says whether it changed a shared word.
func (m *Machine) spinStep(th *Thread, ev *Event, changed bool) {
	s := &th.spin
	if s.at == 0 || !s.pure {
		return
	}
	switch {
	case changed:
		m.auxSave()
		s.pure = false
		return
	case ev.Kind == ir.EvRead || ev.Kind == ir.EvWrite:
		m.spinNote(th, ev.Loc, ev.Value, ev.Kind == ir.EvWrite, false)
		if ev.Kind == ir.EvWrite {
			m.spinRelease(th)
		}
	case ev.Kind == ir.EvAtomic:
		// Every access: the reads, and the writes, each of which stored
		// the value its word held.
		for i, a := range ev.Acc {
			m.spinNote(th, a.Loc, a.Value, a.Write, false)
			if a.Write && !slices.ContainsFunc(ev.Acc[:i], func(b ir.Access) bool { return b.Loc == a.Loc && !b.Write }) {
				m.spinRelease(th)
			}
		}
	case ev.Kind == ir.EvTrylock && ev.Value == 0:
		// A trylock that found the mutex held reads its owner.
		m.spinNote(th, ev.Loc, m.Mem[ev.Loc], false, false)
	default:
		m.auxSave()
		s.pure = false
		return
	}
	m.auxSave()
	s.steps++
}

// StaleSpin reports whether thread t spins and some location it read in
// its last iteration has been changed since (a write that stored the
// value the location held does not count: see "Writes that change
// nothing").
func (m *Machine) StaleSpin(t int) bool {
	th := m.Threads[t]
	if th.Status != Spinning {
		return false
	}
	for r := th.spin.reads; r >= 0; r = m.spinReads[r].prev {
		if m.writes[m.spinReads[r].loc] > m.spinReads[r].writes {
			return true
		}
	}
	return false
}

// SpinReads lists what thread t read in the iteration since its last
// arrival at a loop head (for a spinning thread: the iteration it repeats
// forever), in the order of the reads, each location once (its last read
// or no-op write; Write if it made no read of it).
func (m *Machine) SpinReads(t int) []SpinRead {
	th := m.Threads[t]
	if th.spin.at == 0 {
		return nil
	}
	var out []SpinRead
	for r := th.spin.reads; r >= 0; r = m.spinReads[r].prev {
		rd := &m.spinReads[r]
		if i := slices.IndexFunc(out, func(x SpinRead) bool { return x.Loc == rd.loc }); i >= 0 {
			out[i].Write = out[i].Write && rd.write
			continue
		}
		out = append(out, SpinRead{Loc: rd.loc, Value: rd.value, Stale: m.writes[rd.loc] > rd.writes, Write: rd.write})
	}
	slices.Reverse(out)
	return out
}

// SpinLoop is the loop a spinning thread spins in.
func (m *Machine) SpinLoop(t int) *ir.Loop {
	th := m.Threads[t]
	if th.Status != Spinning {
		return nil
	}
	return &th.Body.Loops[th.Body.Code[th.PC].A]
}

// SpinsAlone reports whether thread t, having arrived at a loop head and
// made no visible step since, would spin there on its very next step:
// the step is pure and brings it back to the same head with the same
// slots (see "Spin loops wait"), so that in this state its next step is
// a stutter that changes nothing, and it can do nothing else until
// another thread changes a word that step accessed. The step is made and
// taken back (ev receives it); the machine is left as it was. A thread in
// the middle of an iteration, or whose iteration has more than one
// visible step, does not spin alone: another thread's write between its
// steps could send it elsewhere.
func (m *Machine) SpinsAlone(t int, ev *Event) bool {
	th := m.Threads[t]
	if th.Status != Ready || th.spin.at == 0 || !th.spin.pure || th.spin.reads != -1 {
		return false
	}
	switch kind, _ := m.Peek(t); kind {
	case ir.EvRead, ir.EvWrite, ir.EvAtomic, ir.EvTrylock:
	default:
		return false
	}
	park := m.parkAlways
	m.parkAlways = true
	m.Step(t, ev)
	spins := th.Status == Spinning
	m.parkAlways = park
	m.Undo()
	return spins
}

// Looping again
//
// Spin-assume parks a thread after an iteration that changed nothing, so
// that a stateless exploration ends where the thread would repeat itself.
// A stateful search does not need that: going round the same iteration
// again comes back to a state it has seen. With SetLoopAgain, an
// iteration that would spin, whose visible steps (one or more) accessed
// only locations the given set allows (atomic variables, mutexes, words
// that cannot race: a plain read's data race must be reported from its
// parked state as in the other modes) and stored no value without
// reading its word first in the same step (such a store of the value
// the word held still releases: a thread that reads from it is ordered
// after the storer only, and a schedule without the store would order
// it after the thread that stored the value before, losing a data race
// of the bug the schedule is for; spinRelease), starts over at its loop head
// instead: its record is forgotten and a fresh arrival recorded, as for
// an iteration that changed something. Its last step says so
// (Event.Stutter: the iteration's steps), so that a schedule given to
// the other modes, which would park the thread, leaves the iteration
// out: it changed no word and the thread is back where it started, its
// live slots as they were, so the rest of the schedule makes the same
// steps (every location it accessed cannot race, and its accesses only
// order its own thread after others, or pass on what they acquired: a
// schedule without them has every data race of the schedule with them).
//
// Such a record never decides anything, so it is left out of the state
// (spinKey): two states that differ only in what a thread read since its
// arrival are one. A loop with no visible step still spins (it could
// only go on forever), and so does every loop while SetParkAlways is
// on, which the stateful search turns on to let a thread spin where it
// reports one spinning forever.

// SetLoopAgain makes iterations that would spin on locations allowed
// (allowed[loc]) start over instead, or turns that off (nil); see
// "Looping again". The state fingerprint then leaves out records that
// cannot make a thread spin, so the machine must be in its initial state
// (no step made), where the fingerprint is computed again.
func (m *Machine) SetLoopAgain(allowed []bool) error {
	if len(m.undo) > 0 {
		return fmt.Errorf("SetLoopAgain with %d steps made: only in the initial state", len(m.undo))
	}
	if allowed != nil && len(allowed) < len(m.Mem) {
		return fmt.Errorf("SetLoopAgain: %d locations allowed or not, the program has %d", len(allowed), len(m.Mem))
	}
	m.loopAgain = allowed
	for _, th := range m.Threads {
		th.spin.plain = false // no read yet: no step was made
	}
	if m.fp != nil {
		m.fp.rebuild(m)
	}
	return nil
}

// LoopsAgain reports whether SetLoopAgain is on: only then can a step
// have a Stutter (so callers can skip looking for one).
func (m *Machine) LoopsAgain() bool { return m.loopAgain != nil }

// SetParkAlways makes every iteration that would spin park the thread,
// as without SetLoopAgain, until it is turned off.
func (m *Machine) SetParkAlways(on bool) { m.parkAlways = on }

// spinProbeSteps is how many steps SpinsForever runs a thread alone
// before it may give up at an arrival that does not park it.
const spinProbeSteps = 1024

// SpinsForever reports whether thread t, run alone from here, would
// spin: it parks, with what it read unchanged, within limit steps of its
// own, every one of them pure (a thread in the middle of an iteration
// finishes it). The steps are made and taken back; the machine is left
// as it was.
//
// Past spinProbeSteps steps, the run gives up at the thread's second
// arrival at a loop head that does not park it: a loop whose slots
// change at every arrival (a counter) need not run to the limit. Not
// before the second: a state of the stateful search is matched whatever
// the spin record of a thread that loops again (see "Looping again"),
// and a record taken at an arrival with other slot values than the next
// one (slots set before the iteration's first visible step) does not
// park the thread at the end of its iteration but at the end of the
// next, however long the iteration (the search's stall test, done once
// per state, must see that park from the first record it meets).
func (m *Machine) SpinsForever(t, limit int) bool {
	th := m.Threads[t]
	if th.Status != Ready || th.spin.at == 0 || !th.spin.pure {
		return false
	}
	park := m.parkAlways
	m.parkAlways = true
	var ev Event
	n, arrivals, spins := 0, 0, false
	for n < limit && (n < spinProbeSteps || arrivals < 2) && m.Enabled(t) {
		ok := m.Step(t, &ev)
		n++
		pure := ev.Kind == ir.EvRead || ev.Kind == ir.EvWrite || ev.Kind == ir.EvAtomic || ev.Kind == ir.EvTrylock && ev.Value == 0
		if !ok || m.stepChanged || !pure {
			break // it changed something, or did something else than access memory
		}
		if th.Status == Spinning {
			spins = !m.StaleSpin(t)
			break
		}
		if th.spin.steps == 0 {
			arrivals++ // a pure step counts itself: it arrived at a head since
		}
	}
	m.parkAlways = park
	for ; n > 0; n-- {
		m.Undo()
	}
	return spins
}
