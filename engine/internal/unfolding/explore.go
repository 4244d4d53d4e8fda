package unfolding

import (
	"math"
	"weft/engine/internal/driver"
	"weft/engine/interp"
	"weft/engine/ir"
)

// Alg. 1 of the QPOR paper: Explore(C, D, A), the free choice, pushing and
// popping events, maximal configurations and the step bound.

// qexplorer runs Alg. 1 of the QPOR paper (Explore(C, D, A)) over the
// unfolding of the package doc. The Machine always stands at a linearisation
// of C (its events in the order they were added, stops left out), so going
// from C to C ∪ {e} is one step and coming back one undo. The explorer
// (bug reports, traces, statistics, budgets, callbacks) is shared with the
// other modes.
type qexplorer struct {
	x     *driver.Worker
	k     int // k-partial alternatives; 0: optimal (every event of D)
	u     *unfolding
	c     config
	d     []*uevent // D, in the order events were added
	dAt   []int32   // parallel to d: the size of C in the call that added it (it stays in D until that call returns)
	uidOf []int32   // machine thread index → uid
	midx  []int32   // uid → machine thread index (-1: not in the execution)
	tmp   interp.Event

	deltaBuf  []*uevent
	seenBuf   []position
	posBuf    []position
	enBuf     [][]*uevent // en(C), per size of C
	pruneGen  int         // how many times U was pruned
	keptBuf   []*uevent   // scratch for prune
	pushes    int         // events pushed so far
	enNew     []enRecord  // per uid: t's event in en(C), found by addExtensions at push number .push
	tmStack   [][]*uevent // scratch per-thread maxima, one per recursion level of enumerate
	genBuf    []*uevent
	candBuf   []*uevent
	runBuf    []int32              // scratch for enumerate
	memos     map[enumKey]enumMemo // enumerations remembered (see remembered)
	refused   int                  // events refused beyond the step bound so far
	hidden    [][]hiddenCand       // per size of C: spike candidates out of their lists until C is smaller
	deadAt    int32                // set by deltaC: the size of C below which a rejected event may fit again
	deadD     bool                 // set with deadAt: it may come from an event of D or of C in the candidate's past (see outlive)
	effort    effort
	pruneAt   int
	pruneMin  int
	stamp     int32
	stopBuf   []stopAt  // scratch for maximal
	dPlain    []*uevent // scratch for prune: D newest first, without its chooses
	choiceBuf []int32   // scratch for the alternatives of a step (choices)
	// cvWaiters holds, for the events of U that write a condition
	// variable, the uids of the threads waiting on it after them (see
	// noteWaiters).
	cvWaiters map[*uevent][]int32
}

// Mode is qpor with k-partial alternatives (k > 0) or optimal (k = 0).
// pruneAlways prunes U after every call of Explore (tests).
func Mode(k int, pruneAlways bool) driver.Mode {
	return driver.Mode{
		Coarse: true,
		Clocks: driver.RaceClocks, // only data races need clocks here
		Explore: func(w *driver.Worker) {
			pruneMin := qporPruneMin
			if pruneAlways {
				pruneMin = 0
			}
			runExplorer(w, k, pruneMin)
		},
	}
}

// runExplorer explores with k-partial alternatives (0: optimal), U never
// pruned below pruneMin events; it returns the explorer, for the tests to
// read its effort.
func runExplorer(x *driver.Worker, k, pruneMin int) *qexplorer {
	q := &qexplorer{x: x, k: k}
	for i := range x.M().Threads {
		q.uidOf = append(q.uidOf, int32(i))
		q.midx = append(q.midx, int32(i))
	}
	q.u = newUnfolding(x.Prog, x.M(), q.uidFn)
	q.u.bound = int32(min(x.Opts.MaxSteps, math.MaxInt32))
	q.c.locs = make([][]*uevent, len(x.Prog.Locations))
	q.c.nextOn = make([][]position, len(x.Prog.Locations))
	q.c.runs = make([][]run, len(x.Prog.Locations))
	q.c.wpos = make([][]int32, len(x.Prog.Locations))
	q.c.grow(q.u.nuid)
	for t, a := range q.u.starts {
		if a != nil && !q.u.startFin[t] {
			q.probe(int32(t), a)
			q.c.addPos(int32(t), nil, a)
		}
	}
	q.pruneMin = pruneMin
	q.pruneAt = q.pruneMin
	q.explore(nil, false)
	return q
}

// effort counts the steps of the parts of the exploration that once made
// spin loops quadratic: the spike candidates alt looks at, the candidate
// buckets it walks, the histories enumerate builds and the entries of C
// latestDeps passes. The tests check that they grow linearly with the
// length of a spin.
type effort struct {
	considered, buckets, histories, deps int64
}

func (f effort) total() int64 { return f.considered + f.buckets + f.histories + f.deps }

func (q *qexplorer) uidFn(mi int) int32 { return q.uidOf[mi] }

// present reports whether thread t exists in C.
func (q *qexplorer) present(t int32) bool {
	return int(t) < len(q.x.Prog.Threads) || (int(t) < len(q.c.spawnerOf) && q.c.spawnerOf[t] != nil)
}

// nextOf is thread t's action after p (its start if p is nil), or nil.
func (q *qexplorer) nextOf(t int32, p *uevent) *action {
	if p != nil {
		if p.stop {
			return nil
		}
		return p.next
	}
	if int(t) < len(q.x.Prog.Threads) {
		if q.u.startFin[t] {
			return nil
		}
		return q.u.starts[t]
	}
	sp := q.c.spawnerOf[t]
	if sp == nil || sp.childFin {
		return nil
	}
	return sp.childNext
}

// probe learns the accesses of an atomic block by running it and undoing
// it: thread t must stand at the action on the machine.
func (q *qexplorer) probe(t int32, a *action) {
	if a.probed {
		return
	}
	m := q.x.M()
	mi := int(q.midx[t])
	th := m.Threads[mi]
	if fp := th.Body.Atomics[th.PC]; fp != nil && !fp.Stable {
		// The locations depend on values: use everything it may access,
		// which no history changes.
		acc := fp.Accesses()
		a.acc, a.probed, a.unstable = acc, true, true
		return
	}
	q.x.Probe(mi, &q.tmp)
	a.acc = append([]ir.Access(nil), q.tmp.Acc...)
	a.probed = true
}

// explore is Explore(C, D, A) of Alg. 1; C and D are q.c and q.d. If
// known, the caller has put en(C) into q.enBuf (otherwise it is computed
// here). A spin loop to a step bound of n makes C, and so this
// recursion, n deep: en(C) is not kept in its frame but in q.enBuf, one
// per size of C.
func (q *qexplorer) explore(A []*uevent, known bool) {
	x := q.x
	// What U holds counts against the run's memory budget.
	x.SetExplorationBytes(q.u.bytes())
	if x.Halted() || x.Cancelled() {
		return
	}
	depth := len(q.c.events)
	en := q.enBuffer(depth)
	if !known {
		en = q.enabled(en[:0])
		q.enBuf[depth] = en
	}
	gen := q.pruneGen
	if len(en) == 0 {
		q.maximal()
		return
	}
	if x.Long() {
		// A resource bound, not a cut (see "The step bound"): this
		// branch is not explored further, and the exploration will say
		// it is incomplete.
		x.ExecutionDone()
		return
	}
	var e *uevent
	if len(A) > 0 {
		for _, a := range A {
			if q.enabledIn(en, a) {
				e = a
				break
			}
		}
		if e == nil {
			// Cannot happen (the minimal events of J \ C are enabled at
			// C); should it, fall back to the free choice of line 7.
			q.x.Anomaly("a clue none of whose events is enabled")
			A = nil
		}
	}
	if e == nil {
		if e = q.choose(en); e == nil {
			x.Stats.SSB++
			return
		}
	}
	if q.push(e) {
		q.enBuf[depth+1] = q.enabledAfter(en, e, q.enBuffer(depth + 1)[:0])
		q.explore(removeEv(A, e), true)
	}
	q.pop(e)
	if x.Halted() {
		return
	}
	e.inD++
	noteD(e, true)
	dpos := e.dpos
	e.dpos = int32(len(q.d))
	q.d = append(q.d, e)
	q.dAt = append(q.dAt, int32(depth))
	if J := q.alt(q.enBuf[depth], e); J != nil {
		// en(C) again, unless pruning may have dropped some of its events.
		q.explore(J, q.pruneGen == gen)
	}
	q.d[len(q.d)-1] = nil
	q.d = q.d[:len(q.d)-1]
	q.dAt = q.dAt[:len(q.dAt)-1]
	e.dpos = dpos
	e.inD--
	noteD(e, false)
	if len(q.u.all) > q.pruneAt {
		q.prune()
	}
}

// choose is the free choice of line 7 of Alg. 1: an event of en(C) \ D,
// or nil. Any choice is correct; the choice shapes the exploration tree
// and how deep the alternatives lie. We go on with the thread of C's last
// event if we can (fewer context switches in the traces), and otherwise
// start the thread with the most code left after its program counter,
// the first one on ties. A long thread tends to meet its conflicts late:
// run first, the conflicting events of the short threads stay enabled
// beside its events, so the alternatives to its events are those enabled
// events. Run last, the alternatives to the short threads' events lie
// deep in the long thread, behind its earlier steps, and every later call
// must find such a deep event for each of them that stays in D and
// enabled. (MPAT(6): 1.46M spike candidates looked at with declaration
// order, 95k with this choice, whichever kind of thread is declared
// first.)
func (q *qexplorer) choose(en []*uevent) *uevent {
	var last int32 = -1
	if n := len(q.c.events); n > 0 {
		last = q.c.events[n-1].thread
	}
	var e *uevent
	most := int32(-1)
	for _, f := range en {
		if f.inD != 0 && hasChoices(f) {
			f = q.freeAlternative(f)
		}
		if f == nil || f.inD != 0 {
			continue
		}
		if f.thread == last {
			return f
		}
		th := q.x.M().Threads[q.midx[f.thread]]
		if left := int32(len(th.Body.Code)) - th.PC; left > most {
			most, e = left, f
		}
	}
	return e
}

func containsEv(s []*uevent, e *uevent) bool {
	for _, f := range s {
		if f == e {
			return true
		}
	}
	return false
}

// removeEv removes e from s, in place.
func removeEv(s []*uevent, e *uevent) []*uevent {
	out := s[:0]
	for _, f := range s {
		if f != e {
			out = append(out, f)
		}
	}
	return out
}

// push adds e ∈ en(C) to C: executes it, learns its label the first time,
// reports what it finds, and adds the new extensions to U. It returns
// false if the execution ends here (the exploration must stop).
func (q *qexplorer) push(e *uevent) bool {
	x := q.x
	mi := int(q.midx[e.thread])
	d, steps := x.M().Depth(), x.M().StepCount()
	x.GrowEvents(d)
	ev := &x.Evs[d]
	ok := q.step(e, ev)
	x.Stats.Events += int64(ev.Steps())
	x.CheckDataRaces(int32(d), ev)
	first := !e.executed
	if first {
		e.executed = true
		e.stop = !ok
		e.stopKind = ev.Stop
		e.finished = ev.Finished
		e.tsteps = e.predSteps()
		if ok {
			e.tsteps += int32(ev.Steps())
		}
		if ev.Kind == ir.EvAtomic && !e.act.unstable && !sameAccesses(ev.Acc, e.act.acc) {
			x.Anomaly("a Stable atomic block's accesses changed") // cannot happen
		}
		if mx := e.mutex(); mx >= 0 {
			if h := x.M().Mem[mx]; h > 0 {
				e.holder = q.uidOf[h-1] + 1
			}
		}
		q.noteWaiters(e, ev)
	}
	if !ok {
		q.x.ReportStop(d, ev)
		x.Undo()
	} else if ev.Kind == ir.EvSpawn {
		child := int(ev.Loc)
		if first {
			e.childUID = q.u.childUID(e.thread, x.M().Threads[child].SpawnIndex)
		}
		for len(q.uidOf) <= child {
			q.uidOf = append(q.uidOf, -1)
		}
		q.uidOf[child] = e.childUID
		for int32(len(q.midx)) < q.u.nuid {
			q.midx = append(q.midx, -1)
		}
		q.midx[e.childUID] = int32(child)
		if first {
			e.childNext = peekAction(x.M(), child, q.uidFn)
			e.childFin = x.M().Threads[child].Status == interp.Finished
			if e.childNext != nil {
				q.probe(e.childUID, e.childNext)
			}
		}
	}
	if first && ok && !ev.Finished {
		e.next = peekAction(x.M(), mi, q.uidFn)
		if e.next != nil {
			q.probe(e.thread, e.next) // config.nextOn needs its locations
		}
	}
	q.c.grow(q.u.nuid)
	q.c.push(e)
	q.pushes++
	for len(q.enNew) < len(q.c.tmax) {
		q.enNew = append(q.enNew, enRecord{})
	}
	q.addExtensions(e)
	if ok && q.nearBound(steps) && e.pastOf()+e.tsteps-e.predSteps() >= q.u.bound {
		x.ReportStepBound(x.M().Depth())
	}
	return !x.Halted()
}

// step executes e on the machine (which stands at a linearisation of C,
// e enabled there; ev is x.evs at the machine's depth) and pushes its
// clocks. It returns false if e stops. A coarse tail ends where e's past
// and e together reach the step bound, so that e's steps are the same in
// every linearisation.
func (q *qexplorer) step(e *uevent, ev *interp.Event) bool {
	x := q.x
	tailBound := 0                                            // the step bound
	if x.M().StepCount()+1+interp.MaxTail >= int(q.u.bound) { // q.nearBound, inlined
		tailBound = x.M().StepCount() + int(q.u.bound-e.pastOf())
	}
	return x.StepBounded(int(q.midx[e.thread]), q.machineAlt(e), tailBound, ev)
}

// nearBound reports whether an event pushed when C has steps fine steps
// may reach the step bound ([e) ⊆ C, and e has at most 1+maxTail steps):
// only then is its past counted.
func (q *qexplorer) nearBound(steps int) bool {
	return int64(steps)+1+interp.MaxTail >= int64(q.u.bound)
}

// The step bound
//
// DFS and SDPOR cut an execution when it reaches Options.MaxSteps steps.
// The unfolding modes bound each event's past instead: an event is in U
// only if fewer than MaxSteps (fine) steps are in its strict causal past
// [e), and reaching the bound with e's own steps is a step-bound bug (a
// linearisation of [e] is an execution of MaxSteps steps). The events
// within the bound form a causally closed part of the unfolding, on which
// Alg. 1 is complete: every configuration of at most MaxSteps steps is in
// it, so every bug an execution of at most MaxSteps steps reaches is found,
// as DFS finds it. Cutting whole executions instead, as the other modes
// do, is not sound here: a thread spinning to the bound would end the
// execution before the thread it waits for moved, and the events of that
// thread after its first would never be discovered, so no alternative
// could ever bring them in. The price: an execution of these modes may be
// longer than the bound, when threads independent of the one cut go on;
// without limit, in a program that spawns threads in a tree. So a
// configuration is not extended past the bound times its threads plus
// one, at most eight times the bound (driver.Long),
// and an exploration that met one that long ends incomplete
// (StoppedExecutionLength): a resource bound, never a silent cut.

func sameAccesses(a, b []ir.Access) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Loc != b[i].Loc || a[i].Write != b[i].Write {
			return false
		}
	}
	return true
}

// pop removes the last event of C.
func (q *qexplorer) pop(e *uevent) {
	q.c.pop()
	if n := len(q.c.events) + 1; n < len(q.hidden) {
		for _, h := range q.hidden[n] {
			h.b.unhide(h.e)
		}
		clear(q.hidden[n])
		q.hidden[n] = q.hidden[n][:0]
		if cap(q.hidden[n]) > 1024 {
			// A spin loop can hide thousands at every size of C: keep
			// room only for what is hidden now (each candidate is hidden
			// at most once at a time), not the most ever per size.
			q.hidden[n] = nil
		}
	}
	if e.stop {
		return
	}
	if e.fkind == ir.EvSpawn {
		q.midx[e.childUID] = -1
		q.uidOf = q.uidOf[:len(q.uidOf)-1]
	}
	q.x.Undo()
}

// maximal handles a maximal configuration C.
//
// If C has as many steps as the bound, an execution reached it (DFS would
// report it too).
//
// Without stops, C is an execution: a deadlock if some thread has not
// finished, unless a thread can still move and was only held back by the
// step bound (then C is cut, not deadlocked).
//
// With stops, every stop ends a real execution: the events of C before it
// (in the order C was built, a linearisation), the other stops left out,
// then the stop, at the very state it stopped in when it was pushed
// (stops change nothing). Each is counted (ended by assume or not) and
// handed to OnExecution. Running the stops again at the end of C would be
// wrong: events after a stop in C may change what it reads (a failed
// assume in an atomic block may then pass).
func (q *qexplorer) maximal() {
	x := q.x
	if x.M().StepCount() >= int(q.u.bound) {
		x.ReportStepBound(x.M().Depth())
	}
	if len(q.c.stops) == 0 {
		if q.cut() {
			x.ExecutionDone()
		} else {
			x.Deadlock(x.M().Depth())
		}
		return
	}
	// The stops with the machine depth each stands at (the number of
	// events of C before it that are not stops), latest first: the
	// machine goes back from one to the next, runs it and takes it back.
	stops := q.stopBuf[:0]
	for i, e := range q.c.stops {
		stops = append(stops, stopAt{e, int(e.cpos) - i})
	}
	q.stopBuf = stops
	for i := len(stops) - 1; i >= 0; i-- {
		s := stops[i]
		for x.M().Depth() > s.depth {
			x.Undo()
		}
		if x.Halted() {
			continue // a budget ran out: only come back
		}
		q.step(s.e, &x.Evs[s.depth])
		if s.e.stopKind == interp.StopAssume {
			x.Stats.AssumeBlocked++
		}
		x.ExecutionDone()
		x.Undo()
	}
	for _, e := range q.c.events[stops[0].e.cpos+1:] {
		if !e.stop {
			d := x.M().Depth()
			x.GrowEvents(d)
			q.step(e, &x.Evs[d])
		}
	}
}

// stopAt is a stop of C and the machine depth it stands at.
type stopAt struct {
	e     *uevent
	depth int
}

// cut reports whether a thread of C (a maximal configuration without
// stops) could move but for the step bound: en(C) is empty, so its event
// there is beyond the bound. That event's past is in C: none is unless C
// has reached the bound.
func (q *qexplorer) cut() bool {
	if q.x.M().StepCount() < int(q.u.bound) {
		return false
	}
	for t, p := range q.c.tmax {
		if !q.present(int32(t)) || q.nextOf(int32(t), p) == nil {
			continue
		}
		if mi := q.midx[t]; mi >= 0 && q.x.M().Enabled(int(mi)) {
			return true
		}
	}
	return false
}
