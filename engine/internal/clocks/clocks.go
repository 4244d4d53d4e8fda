// Package clocks keeps the happens-before of the execution being explored,
// event by event as the machine steps and undoes: vector clocks of
// dependence (for Source-DPOR's races) and of synchronisation (for data
// races), and per location the chain of accesses. Every exploration asks
// it for data races; SDPOR also for its races.
package clocks

import (
	"weft/engine/interp"
	"weft/engine/ir"
)

// Clocks keeps, for the execution being explored, two vector clocks per
// event and, per shared location, the chain of accesses to it:
//
//   - the dependence clock: happens-before induced by program order, spawn,
//     join, and every pair of dependent events (same location, one a write;
//     same mutex). Source-DPOR finds its races with it.
//   - the synchronisation clock: happens-before induced by program order,
//     spawn→child, unlock→later lock of the same mutex and thread end→join
//     only. Data races are unordered conflicting accesses under it.
//
// Everything is a stack that follows the explored execution: push when a
// step is executed, pop when it is undone.
//
// A clock maps a thread to the number of its events that happen before (or
// are) the event, so e happens before f iff clock(f)[thread(e)] > index(e).
type Clocks struct {
	stride int     // clock width: at least the number of threads
	dep    []int32 // dependence clock of event i at [i*stride : (i+1)*stride]
	sync   []int32
	// What is kept: the unfolding modes need the synchronisation clock
	// only (for data races), and nothing at all when no location can
	// race; then push and pop do nothing (and dataRaces must not be
	// asked: explorer.checkDataRaces does not).
	NoDep, Off bool

	thread []int32 // per event: its thread
	index  []int32 // per event: its index in its thread
	prevTh []int32 // per event: the previous event of the same thread, or -1
	accLo  []int32 // per event: first access record

	lastEv []int32 // per thread: its latest event, or -1
	baseEv []int32 // per thread: the event that spawned it, or -1

	accs   []accRec
	head   []int32 // per location: latest access record, or -1
	curPC  int32   // pc of the step being pushed
	curIdx int32   // index in its thread of the step being pushed
	steps  []int32 // per event: the visible steps it stands for (interp.Event.Steps)

	zero    []int32
	scratch []int32 // the dependence clock being computed, with noDep
}

type accKind uint8

const (
	accRead accKind = iota
	accWrite
	accLock
	accUnlock
)

type accRec struct {
	ev     int32
	loc    int32
	kind   accKind
	atomic bool  // made inside an atomic block
	may    bool  // not made: an access the step may make (for dependence only)
	tail   bool  // made in the step's tail (coarse mode): for data races only
	pc     int32 // the instruction of the step
	idx    int32 // the access's index in its thread (a tail's follow its head's)
	prev   int32 // previous access record of the same location, or -1
	// skip is, for a read, the latest earlier record of the same location
	// that is not a read of the same thread at the same pc, or -1 (for
	// other records: prev). Walking a chain by skip passes over a run of
	// reads of one statement by one thread (a spin loop) in one jump: of
	// such a run only the latest matters, since the others happen before
	// it in program order and have the same source range.
	skip int32
}

func New(threads, locations int) *Clocks {
	c := &Clocks{stride: 8}
	for c.stride < threads {
		c.stride *= 2
	}
	c.head = make([]int32, locations)
	for i := range c.head {
		c.head[i] = -1
	}
	c.zero = make([]int32, c.stride)
	c.scratch = make([]int32, c.stride)
	for i := 0; i < threads; i++ {
		c.lastEv = append(c.lastEv, -1)
		c.baseEv = append(c.baseEv, -1)
	}
	return c
}

func (c *Clocks) depth() int { return len(c.thread) }

func (c *Clocks) DepClock(e int32) []int32 {
	return c.dep[int(e)*c.stride : int(e+1)*c.stride]
}

func (c *Clocks) syncClock(e int32) []int32 {
	return c.sync[int(e)*c.stride : int(e+1)*c.stride]
}

// Before reports whether event e happens before the point whose clock is vc.
func (c *Clocks) Before(e int32, vc []int32) bool {
	return vc[c.thread[e]] > c.index[e]
}

// grow widens every clock so that n threads fit.
func (c *Clocks) grow(n int) {
	for len(c.lastEv) < n {
		c.lastEv = append(c.lastEv, -1)
		c.baseEv = append(c.baseEv, -1)
	}
	if n <= c.stride {
		return
	}
	stride := c.stride
	for stride < n {
		stride *= 2
	}
	widen := func(old []int32) []int32 {
		events := len(old) / c.stride
		nw := make([]int32, events*stride, (events+16)*stride)
		for i := 0; i < events; i++ {
			copy(nw[i*stride:], old[i*c.stride:(i+1)*c.stride])
		}
		return nw
	}
	c.dep = widen(c.dep)
	c.sync = widen(c.sync)
	c.stride = stride
	c.zero = make([]int32, stride)
	c.scratch = make([]int32, stride)
}

// ThreadClocks returns the clocks a new event of thread t starts from: its
// previous event's, or its spawn event's, or zero.
func (c *Clocks) ThreadClocks(t int32) (dep, sync []int32) {
	e := c.lastEv[t]
	if e < 0 {
		e = c.baseEv[t]
	}
	switch {
	case e < 0:
		return c.zero, c.zero
	case c.NoDep:
		return nil, c.syncClock(e)
	}
	return c.DepClock(e), c.syncClock(e)
}

func join(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// Push records event ev (just executed, with index d == depth()) and
// computes its clocks. numThreads is the number of threads after the step.
// may, if not nil, lists the accesses an atomic step may make (see
// AtomicFootprint): dependence uses them on top of the executed ones.
func (c *Clocks) Push(ev *interp.Event, numThreads int, may []ir.Access) {
	if c.Off {
		return
	}
	c.grow(numThreads)
	d := int32(len(c.thread))
	t := ev.Thread
	c.thread = append(c.thread, t)
	c.index = append(c.index, ev.Index)
	c.prevTh = append(c.prevTh, c.lastEv[t])
	c.accLo = append(c.accLo, int32(len(c.accs)))
	c.steps = append(c.steps, int32(ev.Steps()))

	baseDep, baseSync := c.ThreadClocks(t)
	c.sync = append(c.sync, baseSync...)
	sync := c.syncClock(d)
	dep := c.scratch[:c.stride]
	if !c.NoDep {
		c.dep = append(c.dep, baseDep...)
		dep = c.DepClock(d)
	}
	c.curPC, c.curIdx = ev.PC, ev.Index

	kind := ev.Kind
	if ev.Stop != interp.NoStop && (kind == ir.EvLock || kind == ir.EvUnlock || kind == ir.EvJoin) {
		kind = ir.EvStop // a failed lock, unlock or join did not happen
	}
	switch kind {
	case ir.EvRead:
		c.access(d, ev.Loc, accRead, false, dep)
	case ir.EvWrite:
		c.access(d, ev.Loc, accWrite, false, dep)
	case ir.EvLock:
		if h := c.head[ev.Loc]; h >= 0 { // the last unlock (or nothing)
			e := c.accs[h].ev
			if !c.NoDep {
				join(dep, c.DepClock(e))
			}
			join(sync, c.syncClock(e))
		}
		c.addAcc(d, ev.Loc, accLock, false)
	case ir.EvUnlock:
		c.addAcc(d, ev.Loc, accUnlock, false)
	case ir.EvJoin:
		if ev.Loc >= 0 && int(ev.Loc) < len(c.lastEv) {
			var e int32 = c.lastEv[ev.Loc]
			if e < 0 {
				e = c.baseEv[ev.Loc]
			}
			if e >= 0 {
				if !c.NoDep {
					join(dep, c.DepClock(e))
				}
				join(sync, c.syncClock(e))
				if e == c.lastEv[ev.Loc] {
					// The whole last step of the thread, tail included,
					// happens before the join.
					end := c.index[e] + c.steps[e]
					dep[ev.Loc] = max(dep[ev.Loc], end)
					sync[ev.Loc] = max(sync[ev.Loc], end)
				}
			}
		}
	case ir.EvSpawn:
		c.baseEv[ev.Loc] = d
	case ir.EvAtomic:
		for _, a := range ev.Acc {
			c.access(d, a.Loc, kindOf(a), true, dep)
		}
		for _, a := range may {
			c.access(d, a.Loc, kindOf(a), true, dep)
			c.accs[len(c.accs)-1].may = true
		}
	}
	// A tail is invisible to dependence: only data races look at it.
	for j, a := range ev.Tail {
		c.curPC, c.curIdx = a.PC, ev.Index+1+int32(j)
		c.addAcc(d, a.Loc, kindOf(a.Access), false)
		c.accs[len(c.accs)-1].tail = true
	}
	dep[t] = ev.Index + 1
	sync[t] = ev.Index + 1
	c.lastEv[t] = d
}

// access joins into dep the clocks of the accesses that the new access
// depends on, and records it.
func (c *Clocks) access(d, loc int32, k accKind, atomic bool, dep []int32) {
	for h := c.head[loc]; h >= 0 && !c.NoDep; {
		r := &c.accs[h]
		if r.ev == d || r.tail {
			h = r.prev // an earlier access of the same atomic step, or of a tail
			continue
		}
		if k == accWrite || r.kind == accWrite {
			join(dep, c.DepClock(r.ev))
		}
		if r.kind == accWrite {
			break // everything earlier is ordered before this write
		}
		h = r.skip
	}
	c.addAcc(d, loc, k, atomic)
}

func kindOf(a ir.Access) accKind {
	if a.Write {
		return accWrite
	}
	return accRead
}

func (c *Clocks) addAcc(d, loc int32, k accKind, atomic bool) {
	h := c.head[loc]
	skip := h
	if h >= 0 && k == accRead && c.accs[h].kind == accRead && c.accs[h].ev != d &&
		c.thread[c.accs[h].ev] == c.thread[d] && c.accs[h].pc == c.curPC {
		skip = c.accs[h].skip
	}
	c.accs = append(c.accs, accRec{ev: d, loc: loc, kind: k, atomic: atomic, pc: c.curPC, idx: c.curIdx, prev: h, skip: skip})
	c.head[loc] = int32(len(c.accs) - 1)
}

// Pop forgets the latest event.
func (c *Clocks) Pop() {
	if c.Off {
		return
	}
	d := int32(len(c.thread) - 1)
	lo := c.accLo[d]
	for i := int32(len(c.accs)) - 1; i >= lo; i-- {
		c.head[c.accs[i].loc] = c.accs[i].prev
	}
	c.accs = c.accs[:lo]
	t := c.thread[d]
	c.lastEv[t] = c.prevTh[d]
	for i := range c.baseEv {
		if c.baseEv[i] == d {
			c.baseEv[i] = -1
		}
	}
	c.thread = c.thread[:d]
	c.index = c.index[:d]
	c.steps = c.steps[:d]
	c.prevTh = c.prevTh[:d]
	c.accLo = c.accLo[:d]
	if !c.NoDep {
		c.dep = c.dep[:int(d)*c.stride]
	}
	c.sync = c.sync[:int(d)*c.stride]
}

// Races appends to out the earlier events that are in a race with event d
// (already pushed): dependent, of another thread, ordered before d, with no
// other event in between in the dependence order. For a lock, the race is
// with the previous lock of the same mutex (whose critical section must
// end before d can start); reversing that pair is what explores the other
// order of the two critical sections.
func (c *Clocks) Races(d int32, ev *interp.Event, out []int32) []int32 {
	t := c.thread[d]
	var base []int32
	if e := c.prevTh[d]; e >= 0 {
		base = c.DepClock(e)
	} else if e := c.baseEv[t]; e >= 0 {
		base = c.DepClock(e)
	} else {
		base = c.zero
	}
	lo := len(out)
	switch ev.Kind {
	case ir.EvRead, ir.EvWrite, ir.EvAtomic:
		for i := c.accLo[d]; i < int32(len(c.accs)); i++ {
			r := c.accs[i]
			if r.tail {
				break
			}
			for h := r.prev; h >= 0; {
				p := &c.accs[h]
				if p.ev == d || p.tail {
					h = p.prev
					continue
				}
				if r.kind == accWrite || p.kind == accWrite {
					if c.thread[p.ev] != t && !c.Before(p.ev, base) {
						out = appendUnique(out, lo, p.ev)
					}
				}
				if p.kind == accWrite {
					break
				}
				h = p.skip
			}
		}
	case ir.EvLock:
		if lo := c.accLo[d]; int(lo) == len(c.accs) || c.accs[lo].kind != accLock {
			break // a failed lock did not happen
		}
		for h := c.accs[c.accLo[d]].prev; h >= 0; h = c.accs[h].prev {
			p := &c.accs[h]
			if p.kind != accLock {
				continue
			}
			if c.thread[p.ev] != t && !c.Before(p.ev, base) {
				out = append(out, p.ev)
			}
			break
		}
	}
	// Keep only immediate predecessors: drop a candidate that happens
	// before another candidate.
	cand := out[lo:]
	if len(cand) > 1 {
		keep := cand[:0]
		for i, e := range cand {
			covered := false
			for j, f := range cand {
				if i != j && e != f && c.Before(e, c.DepClock(f)) {
					covered = true
					break
				}
			}
			if !covered {
				keep = append(keep, e)
			}
		}
		out = out[:lo+len(keep)]
	}
	return out
}

func appendUnique(out []int32, lo int, e int32) []int32 {
	for _, x := range out[lo:] {
		if x == e {
			return out
		}
	}
	return append(out, e)
}

// DataRaces calls report for each earlier access that forms a data race
// with an access of event d: same non-atomic location, another thread, at
// least one a write, not both inside atomic blocks, and unordered by the
// synchronisation clock.
func (c *Clocks) DataRaces(d int32, locs []ir.Location, report func(other int32, loc int32)) {
	sync := c.syncClock(d)
	t := c.thread[d]
	for i := c.accLo[d]; i < int32(len(c.accs)); i++ {
		r := c.accs[i]
		if r.kind == accLock || r.kind == accUnlock || r.may || locs[r.loc].Atomic {
			continue
		}
		for h := r.prev; h >= 0; {
			p := &c.accs[h]
			if p.ev == d || p.may {
				h = p.prev
				continue
			}
			conflict := r.kind == accWrite || p.kind == accWrite
			ordered := sync[c.thread[p.ev]] > p.idx
			if conflict && c.thread[p.ev] != t && !ordered && !(r.atomic && p.atomic) {
				report(p.ev, r.loc)
			}
			if p.kind == accWrite && ordered {
				break // earlier accesses are ordered before it, or raced with it
			}
			h = p.skip
		}
	}
}

// Thread is the thread of event e.
func (c *Clocks) Thread(e int32) int32 { return c.thread[e] }

// LastLock is the last lock of the mutex at loc among the events pushed,
// or -1.
func (c *Clocks) LastLock(loc int32) int32 {
	for h := c.head[loc]; h >= 0; h = c.accs[h].prev {
		if p := &c.accs[h]; p.kind == accLock {
			return p.ev
		}
	}
	return -1
}
