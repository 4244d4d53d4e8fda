package clocks

import (
	"weft/engine/interp"
	"weft/engine/ir"
)

// Trylocks and condition variables (language version 2).
//
// Every operation on a mutex writes it (ir.Footprint), so its chain is
// totally ordered by dependence: a new record's dependence clock joins
// that of the chain's latest record. An acquire (a lock, a trylock that
// takes the mutex, a wake-up's lock) finds the mutex free, so the latest
// record is the release (an unlock, a wait's release) it synchronises
// with; a release and a failed trylock (accTry) may follow failed
// trylocks of other threads, which they depend on without synchronising.
//
// The races on a mutex: an acquire that could block (a lock, a wake-up)
// races with the previous acquire, whose critical section had to end
// first (it could not have run before the release in between); a trylock,
// which never blocks, a release and a failed trylock race with the
// record just before theirs, like two writes.
//
// A condition variable's word is read and written by dependence only:
// wait, signal and broadcast write it, a wake-up reads it (writes it, if
// spurious). Its records are on the dependence chain and never on the
// race chain (they are made with may set: no data race can involve
// them). A wake-up is enabled by the signal that woke it (Event.Waker),
// so that pair is no race: the wake-up could not come first.

// mutexOf is the mutex of a mutex operation of kind (ev's).
func mutexOf(kind ir.EventKind, ev *interp.Event) int32 {
	switch kind {
	case ir.EvWait:
		return ev.Acc[0].Loc
	case ir.EvWake:
		return ev.Acc[1].Loc
	}
	return ev.Loc
}

// acquires reports whether a mutex operation acquires its mutex.
func acquires(kind ir.EventKind, ev *interp.Event) bool {
	return kind == ir.EvWake || kind == ir.EvTrylock && ev.Value != 0
}

// mutexPreds returns, for an unlock, trylock, wait or wake-up being
// pushed, the event whose clocks it joins (an acquire: the release it
// synchronises with) and the one whose dependence clock only it joins
// (the others: the latest record of the mutex's chain); -1 for none.
func (c *Clocks) mutexPreds(kind ir.EventKind, ev *interp.Event) (both, depOnly int32) {
	h := c.depHead[mutexOf(kind, ev)]
	if h < 0 {
		return -1, -1
	}
	e := c.accs[h].ev
	if acquires(kind, ev) {
		return e, -1
	}
	if c.evs[e].thread == ev.Thread {
		return -1, -1 // its own acquire: program order has it already
	}
	return -1, e
}

// syncAccesses records the accesses of a trylock, wait, wake-up, signal or
// broadcast (event d), joining into dep the clocks of the accesses of its
// condition variable's word that it depends on.
func (c *Clocks) syncAccesses(d int32, kind ir.EventKind, ev *interp.Event, dep *Clock) {
	switch kind {
	case ir.EvTrylock:
		k := accTry
		if ev.Value != 0 {
			k = accLock
		}
		c.addAcc(d, ev.Loc, k, false, false, false)
	case ir.EvWait:
		c.addAcc(d, ev.Acc[0].Loc, accUnlock, false, false, false)
		c.access(d, ev.Loc, accWrite, false, true, dep)
	case ir.EvWake:
		c.addAcc(d, ev.Acc[1].Loc, accLock, false, false, false)
		c.access(d, ev.Loc, kindOf(ev.Acc[0]), false, true, dep)
	case ir.EvSignal, ir.EvBroadcast:
		c.access(d, ev.Loc, accWrite, false, true, dep)
	}
}

// syncRaces appends to out (whose candidates start at lo) the races of
// event d, an unlock, trylock, wait, wake-up, signal or broadcast of
// thread t whose previous event's dependence clock is base (see above).
func (c *Clocks) syncRaces(d int32, ev *interp.Event, t int32, base Clock, out []int32, lo int) []int32 {
	cand := func(e int32) {
		if e >= 0 && c.evs[e].thread != t && !c.Before(e, base) {
			out = appendUnique(out, lo, e)
		}
	}
	if ev.Kind == ir.EvWake {
		return c.wakeRaces(d, ev, t, base, out, lo)
	}
	for i := c.evs[d].accLo; i < int32(len(c.accs)); i++ {
		r := &c.accs[i]
		if r.ev != d || !r.inDep {
			break
		}
		if r.kind >= accLock {
			if h := r.dep.prev; h >= 0 {
				cand(c.accs[h].ev)
			}
			continue
		}
		c.cvRaces(r, cand)
	}
	return out
}

// cvRaces calls cand with the events whose accesses to a condition
// variable's word are the immediate dependence predecessors of r's: the
// latest write for a read, for a write the reads since and that write.
func (c *Clocks) cvRaces(r *accRec, cand func(int32)) {
	h := r.dep.out
	if r.kind == accRead {
		if h >= 0 && c.accs[h].kind != accWrite {
			h = c.accs[h].dep.prevW
		}
		if h >= 0 {
			c.hops++
			cand(c.accs[h].ev)
		}
		return
	}
	for h >= 0 {
		c.hops++
		p := &c.accs[h]
		cand(p.ev)
		if p.kind == accWrite {
			break
		}
		h = p.dep.skip
	}
}

// wakeRaces is syncRaces for a wake-up (event d), which both acquires a
// mutex (it blocks, as a lock does) and reads its condition variable's
// word (writes it, if spurious). Its candidates:
//
//   - on the mutex, the previous acquire L, as for a lock, unless L
//     happens before the signal that woke the thread: then the wake-up
//     cannot come before L;
//   - on the condition variable, the immediate predecessors of its
//     access, except the signal that woke it (which enables it) and the
//     steps of L's critical section (a wait that released the mutex to
//     it, a signal made holding the mutex): the wake-up could only come
//     before them by coming before L, which is L's race. Left among the
//     candidates, such a step would also hide L's race, since L happens
//     before it.
//
// With spurious wake-ups a signal does not enable the wake-up (it could
// have happened without it, spuriously): neither exception for the waker
// holds.
func (c *Clocks) wakeRaces(d int32, ev *interp.Event, t int32, base Clock, out []int32, lo int) []int32 {
	lock, release := int32(-1), int32(-1) // L, and the release that ended its critical section
	for i := c.evs[d].accLo; i < int32(len(c.accs)); i++ {
		r := &c.accs[i]
		if r.ev != d || !r.inDep {
			break
		}
		if r.kind >= accLock {
			for h := r.dep.prev; h >= 0; h = c.accs[h].dep.prev {
				if k := c.accs[h].kind; k == accUnlock && release < 0 {
					release = c.accs[h].ev
				} else if k == accLock {
					lock = c.accs[h].ev
					break
				}
			}
		}
	}
	waker := ev.Waker
	if c.SpuriousWakeups {
		waker = -1
	}
	if lock >= 0 && waker >= 0 && c.Before(lock, c.evs[waker].dep) {
		lock = -1
	}
	cand := func(e int32) {
		if e < 0 || c.evs[e].thread == t || c.Before(e, base) || e == waker {
			return
		}
		if e != lock && lock >= 0 && e > lock && e <= release && c.evs[e].thread == c.evs[lock].thread {
			return // in L's critical section
		}
		out = appendUnique(out, lo, e)
	}
	cand(lock)
	for i := c.evs[d].accLo; i < int32(len(c.accs)); i++ {
		r := &c.accs[i]
		if r.ev != d || !r.inDep {
			break
		}
		if r.kind < accLock {
			c.cvRaces(r, cand)
		}
	}
	return out
}
