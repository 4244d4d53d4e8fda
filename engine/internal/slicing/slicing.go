// Package slicing cuts a counterexample down to its causal past: the
// steps of the execution that the failing step (or steps) depend on,
// directly or through other steps, in the trace's order. The rest is left
// out: it happens after, or beside, the failure, and no step shown needs
// it.
//
// # The order
//
// A step e is in the past of a step f (e ≤ f) when e comes before f in
// the execution and a chain of steps leads from e to f, each one before
// the next and dependent with it:
//
//   - program order: two steps of one thread;
//   - a spawn and every step of the thread it spawns, and any two spawns
//     (a spawn takes the next thread index, which the thread's handle and
//     name, NAME#K, are made of: keeping a later spawn without an earlier
//     one would renumber the threads);
//   - the step that finishes a thread and a join of it;
//   - two accesses of one shared word, at least one a write; a lock,
//     unlock, trylock (taken or not), wait or wake-up of a mutex writes
//     it; a wait, wake-up, signal or broadcast of a condition variable
//     accesses its word (a wait, a signal, a broadcast and a spurious
//     wake-up write it, a signalled wake-up reads it);
//   - nothing else: a choose and a stop step (the pending failure of a
//     thread's local computation) touch no shared word.
//
// This is the dependence (Mazurkiewicz) order, not only
// synchronisation: a read is after the writes it could see.
//
// # Why the slice reaches the same failure
//
// Let P be the past of the targets, a set of steps closed downwards
// under the order, and R the rest. Take the execution's steps in order
// and move the steps of P to the front, each group keeping its order.
// No step of R moves past a step of P it depends on: if r in R came
// before p in P and were dependent with it, r would be in p's past, so
// in P. So the new order is got from the old by swapping adjacent steps
// that are independent, and two independent steps of different threads
// commute on the machine: each is enabled after the other as it was
// before it, and both orders reach the same state. (Independent steps
// touch disjoint shared words or only read a common one; enabledness is
// a function of the moving thread and the words its step touches: a lock
// of its mutex's word, a wake-up of its mutex and condition variable, a
// join of its target's status, a parked spinner of nothing, for it never
// runs again; the thread indices and names follow the spawns, which are
// all ordered.) So P alone, in its order, is an execution, and each of
// its steps does what it did in the full one: it reads the values of the
// same writes, as every write a read depends on is before it in P and no
// write of the same word is left out from between them (a write left
// out is in R, after the read or independent of it). Every thread ends P
// in the local state it had after its last step in P.
//
// The targets, per kind of bug:
//
//   - an assertion or a runtime error: the step that fails, whose
//     message is made from the failing thread's state (and, for a step
//     that fails itself, from the words it touches: the holder of a
//     mutex unlocked by another thread, of the mutex a wait finds not
//     held, which is counted as touched);
//   - a data race: its later access, the last step. Its earlier access
//     conflicts with it, so it is in the past. They stay unordered by
//     synchronisation: the synchronisation edges between steps of P are
//     edges of the full execution (an unlock → lock pair of P is one in
//     the full execution, every operation on the mutex before the lock
//     being in its past; an atomic read reads the same write), so P
//     orders no pair the full execution did not;
//   - a deadlock: the pending step of every thread that has not
//     finished, counted as a step after the last that touches what its
//     enabledness reads (the mutex of a lock, the target of a join, the
//     mutex and condition variable of a wake-up). Every write of those
//     words is then in P, so the words end P as they end the full
//     execution, and the step is still blocked: the mutex is held by the
//     same thread (whose lock is in P), the thread joined has not
//     finished, the waiter has not been signalled. A parked spinner
//     keeps all its steps, so its last iteration, with the reads that
//     parked it, and no word it read is changed after them in P (none
//     was in the full execution). The threads that were not blocked may
//     be left partly or wholly out: their remaining steps, run after P,
//     lead to the full execution's end, where no thread can move;
//   - a step-bound bug: none, it is not sliced (the bound is on the
//     length of the execution).
//
// # Corner cases
//
//   - Spurious wake-ups: a wake-up that no signal caused writes the
//     condition variable, as the wait did, so the signals around it are
//     ordered with it and the set of waiters each signal sees, and so
//     the waiter its alternative picks, is the same in P.
//   - choose: local; its alternative (the value) is kept with its step.
//   - Stop steps: the explorations count a stop as dependent with every
//     step (it disables them); here it touches nothing: there is one, the
//     last, and its failure depends on its thread's state only.
//   - A thread blocked on a lock held by a thread whose lock step is in
//     P: the lock is in the pending step's past, and so the holder's
//     steps up to it; the holder's later steps are not needed.
//   - Condition variables: a signal and the wait it wakes, and the
//     wake-up, all touch the condition variable's word, so a wake-up in
//     P has its signal in P, and a signal its waiters.
//   - Spin loops (package interp, "Spin loops wait"): whether an
//     iteration parks its thread depends on the values its steps read
//     and on whether its writes changed their words, both the same in P;
//     a parked spinner is kept whole (above).
//   - Step counts: each thread makes a prefix of its steps, so its step
//     indices are unchanged; the execution is shorter, so a bound on
//     execution length the full one kept is kept.
package slicing

import (
	"weft/engine/interp"
	"weft/engine/ir"
)

// Target says which steps a slice is the past of.
type Target uint8

const (
	// None: no slicing (a step-bound bug).
	None Target = iota
	// Last: the last step (an assertion, a runtime error, the later
	// access of a data race).
	Last
	// Blocked: the pending steps of the threads that have not finished
	// (a deadlock).
	Blocked
)

// TargetOf is what the slice of a bug of the kind named is the past of
// (the engine's bug kinds: "assertion", "runtime-error", "data-race",
// "deadlock"; any other is not sliced).
func TargetOf(kind string) Target {
	switch kind {
	case "assertion", "runtime-error", "data-race":
		return Last
	case "deadlock":
		return Blocked
	}
	return None
}

// Slicer computes slices; its buffers are reused from one call to the
// next. The zero value is ready.
type Slicer struct {
	need       []bool // per thread: a later step of it is in the slice
	read, wrte []bool // per word (shared, then the spawn counter, then one status per thread): a later step of the slice reads, writes it
	acc        []access
	keepBuf    []bool
	ord        orderBufs
	// Schedule's: per fine step, its thread and alternative.
	pieceThread, pieceAlt []int32
}

type access struct {
	loc   int32
	write bool
}

// Slice returns the slice of the execution evs for target: the indices
// of the fine steps of evs (a coarse event's tail accesses are steps of
// their own, after it) in its past, in the order the slice runs them
// (see "The order of a slice"). m is the machine standing right after
// evs (the last of them is its latest step). With target None every step
// is kept, in order. The slice is valid until the next call.
func (s *Slicer) Slice(prog *ir.Program, evs []interp.Event, m *interp.Machine, target Target) []int {
	keep, _ := s.Keep(prog, evs, m, target)
	return s.Order(prog, evs, m, target, keep)
}

// Keep returns, for each fine step of evs, whether it is in the past of
// target (see Slice), and how many are; the answer is valid until the
// next call.
func (s *Slicer) Keep(prog *ir.Program, evs []interp.Event, m *interp.Machine, target Target) (keep []bool, n int) {
	keep = s.keep(prog, evs, m, target)
	for _, k := range keep {
		if k {
			n++
		}
	}
	return keep, n
}

// keep returns, for each fine step of evs, whether it is in the past of
// target (see Slice).
func (s *Slicer) keep(prog *ir.Program, evs []interp.Event, m *interp.Machine, target Target) []bool {
	n := 0
	for i := range evs {
		n += evs[i].Steps()
	}
	s.keepBuf = resize(s.keepBuf, n)
	keep := s.keepBuf
	if target == None || n == 0 && target == Last {
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	nth := len(m.Threads)
	for _, ev := range evs {
		nth = max(nth, int(ev.Thread)+1)
	}
	nloc := len(prog.Locations)
	s.need = resize(s.need, nth)
	s.read = resize(s.read, nloc+1+nth)
	s.wrte = resize(s.wrte, nloc+1+nth)
	status := func(t int32) int32 { return int32(nloc) + 1 + t }
	valid := func(t int32) bool { return t >= 0 && int(t) < nth }
	mark := func(a access) {
		if a.write {
			s.wrte[a.loc] = true
		} else {
			s.read[a.loc] = true
		}
	}

	i, j := len(evs)-1, 0 // the event and piece the backward walk starts from
	if i >= 0 {
		j = evs[i].Steps() - 1
	}
	switch target {
	case Last:
		ev := &evs[i]
		s.acc = s.targetAccesses(s.acc[:0], ev, j, m, status, valid)
		for _, a := range s.acc {
			mark(a)
		}
		s.need[ev.Thread] = true
		keep[n-1] = true
		n--
		if j > 0 {
			j--
		} else {
			i--
			if i >= 0 {
				j = evs[i].Steps() - 1
			}
		}
	case Blocked:
		for t, th := range m.Threads {
			if th.Status == interp.Finished {
				continue
			}
			s.need[t] = true
			mark(access{status(int32(t)), false})
			if th.Status != interp.Ready || int(th.PC) >= len(th.Body.Code) {
				continue // a parked spinner: its own steps are all it needs
			}
			in := th.Body.Code[th.PC]
			switch in.Op {
			case ir.OpLock, ir.OpTrylock:
				mark(access{int32(th.Frame[in.B]), false})
			case ir.OpJoin:
				if tid := int32(th.Frame[in.B]) - 1; valid(tid) {
					mark(access{status(tid), false})
				}
			case ir.OpWake, ir.OpWait:
				mark(access{int32(th.Frame[in.A]), false})
				mark(access{int32(th.Frame[in.B]), false})
			}
		}
	}

	// The backward walk: a step is in the past iff it is of a thread
	// with a later step in it, or conflicts with a later step in it.
	for ; i >= 0; i-- {
		ev := &evs[i]
		if j < 0 {
			j = ev.Steps() - 1
		}
		for ; j >= 0; j-- {
			n--
			s.acc = s.pieceAccesses(s.acc[:0], ev, j, status, valid)
			in := s.need[ev.Thread]
			for _, a := range s.acc {
				if in {
					break
				}
				in = s.wrte[a.loc] || a.write && s.read[a.loc]
			}
			if !in {
				continue
			}
			keep[n] = true
			s.need[ev.Thread] = true
			for _, a := range s.acc {
				mark(a)
			}
		}
	}
	return keep
}

// targetAccesses is pieceAccesses for the last step, ev's piece j, with
// what a failing step's failure depends on and it logs not.
func (s *Slicer) targetAccesses(out []access, ev *interp.Event, j int, m *interp.Machine, status func(int32) int32, valid func(int32) bool) []access {
	out = s.pieceAccesses(out, ev, j, status, valid)
	if j == 0 && ev.Stop != 0 && ev.Kind == ir.EvWait && int(ev.Thread) < len(m.Threads) {
		// A wait that fails finds its mutex not held: the mutex's word
		// decides it (and names the holder), but the failed step logs
		// no access.
		th := m.Threads[ev.Thread]
		if th.Status != interp.Finished && int(th.PC) < len(th.Body.Code) && th.Body.Code[th.PC].Op == ir.OpWait {
			out = append(out, access{int32(th.Frame[th.Body.Code[th.PC].A]), true})
		}
	}
	return out
}

// pieceAccesses appends the words piece j of ev touches (0: the event
// itself, k > 0: its k-th tail access), with the thread-table words of
// spawns, joins, a thread's first step and its last.
func (s *Slicer) pieceAccesses(out []access, ev *interp.Event, j int, status func(int32) int32, valid func(int32) bool) []access {
	if j > 0 {
		a := ev.Tail[j-1]
		out = append(out, access{a.Loc, a.Write})
	} else {
		switch ev.Kind {
		case ir.EvRead:
			out = append(out, access{ev.Loc, false})
		case ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock, ir.EvSignal, ir.EvBroadcast:
			if ev.Loc >= 0 {
				out = append(out, access{ev.Loc, true})
			}
		case ir.EvAtomic, ir.EvWait, ir.EvWake:
			for _, a := range ev.Acc {
				out = append(out, access{a.Loc, a.Write})
			}
			if ev.Kind != ir.EvAtomic && ev.Loc >= 0 {
				// The condition variable (a failed wait logs none).
				out = append(out, access{ev.Loc, ev.Kind == ir.EvWait})
			}
		case ir.EvSpawn:
			out = append(out, access{status(-1), true})
			if valid(ev.Loc) {
				out = append(out, access{status(ev.Loc), true})
			}
		case ir.EvJoin:
			if valid(ev.Loc) {
				out = append(out, access{status(ev.Loc), false})
			}
		}
		if ev.Index == 0 {
			out = append(out, access{status(ev.Thread), false})
		}
	}
	if ev.Finished && j == ev.Steps()-1 {
		out = append(out, access{status(ev.Thread), true})
	}
	return out
}

// Schedule is the schedule of the fine steps of evs that order lists,
// in its order, and their choices (nil when every one took its first):
// new slices, the caller's to keep.
func (s *Slicer) Schedule(evs []interp.Event, order []int) (sched, choices []int32) {
	s.pieceThread, s.pieceAlt = s.pieceThread[:0], s.pieceAlt[:0]
	for e := range evs {
		ev := &evs[e]
		s.pieceThread = append(s.pieceThread, ev.Thread)
		s.pieceAlt = append(s.pieceAlt, ev.Alt)
		for range ev.Tail {
			s.pieceThread = append(s.pieceThread, ev.Thread)
			s.pieceAlt = append(s.pieceAlt, 0)
		}
	}
	sched = make([]int32, len(order))
	withChoices := false
	for k, i := range order {
		sched[k] = s.pieceThread[i]
		withChoices = withChoices || s.pieceAlt[i] != 0
	}
	if withChoices {
		choices = make([]int32, len(order))
		for k, i := range order {
			choices[k] = s.pieceAlt[i]
		}
	}
	return sched, choices
}

func resize(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}
