package unfolding

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"weft/engine/internal/driver"
	"weft/engine/interp"
	"weft/engine/ir"
)

// qexplorer runs Alg. 1 of the QPOR paper (Explore(C, D, A)) over the
// unfolding of unfolding.go. The Machine always stands at a linearisation
// of C (its events in the order they were added, stops left out), so going
// from C to C ∪ {e} is one step and coming back one undo. The explorer
// (bug reports, traces, statistics, budgets, callbacks) is shared with the
// other modes.
type qexplorer struct {
	x     *driver.Driver
	k     int // k-partial alternatives; 0: optimal (every event of D)
	u     *unfolding
	c     config
	d     []*uevent // D, in the order events were added
	uidOf []int32   // machine thread index → uid
	midx  []int32   // uid → machine thread index (-1: not in the execution)
	tmp   interp.Event

	deltaBuf []*uevent
	seenBuf  []position
	posBuf   []position
	enBuf    [][]*uevent // en(C), per size of C
	pruneGen int         // how many times U was pruned
	keptBuf  []*uevent   // scratch for prune
	pushes   int         // events pushed so far
	enNew    []enRecord  // per uid: t's event in en(C), found by addExtensions at push number .push
	tmStack  [][]*uevent // scratch per-thread maxima, one per recursion level of enumerate
	genBuf   []*uevent
	candBuf  []*uevent
	runBuf   []int32        // scratch for enumerate
	hidden   [][]hiddenCand // per size of C: spike candidates out of their lists until C is smaller
	deadAt   int32          // set by deltaC: the size of C below which a rejected event may fit again
	pruneAt  int
	pruneMin int
	stamp    int32
	stopBuf  []stopAt // scratch for maximal

	lengthCap int  // fine steps beyond which a configuration is not extended
	truncated bool // some configuration reached lengthCap
}

// Run explores with the unfolding: qpor with k-partial alternatives
// (x.Opts.K) or optimal, as x.Opts.Algorithm says.
func Run(x *driver.Driver) {
	q := &qexplorer{x: x}
	// Only data races need clocks here, and none can happen if every
	// location is a mutex or atomic.
	x.Clk.NoDep, x.Clk.Off = true, true
	for _, l := range x.Prog.Locations {
		if !l.Mutex && !l.Atomic {
			x.Clk.Off = false
			break
		}
	}
	if x.Opts.Algorithm == driver.QPOR {
		q.k = x.Opts.K
		if q.k <= 0 {
			q.k = 1
		}
	}
	for i := range x.M.Threads {
		q.uidOf = append(q.uidOf, int32(i))
		q.midx = append(q.midx, int32(i))
	}
	q.u = newUnfolding(x.Prog, x.M, q.uidFn)
	q.u.bound = int32(min(x.Opts.MaxSteps, math.MaxInt32))
	q.lengthCap = int(min(int64(x.Opts.MaxSteps), math.MaxInt32/lengthCapFactor) * lengthCapFactor)
	q.c.locs = make([][]*uevent, len(x.Prog.Locations))
	q.c.nextOn = make([][]position, len(x.Prog.Locations))
	q.c.jump = make([][]int32, len(x.Prog.Locations))
	q.c.wpos = make([][]int32, len(x.Prog.Locations))
	q.c.grow(q.u.nuid)
	for t, a := range q.u.starts {
		if a != nil && !q.u.startFin[t] {
			q.probe(int32(t), a)
			q.c.addPos(int32(t), nil, a)
		}
	}
	q.pruneMin = qporPruneMin
	if x.Opts.PruneAlways {
		q.pruneMin = 0
	}
	q.pruneAt = q.pruneMin
	q.explore(nil, nil)
	if q.truncated && x.StopReason == "" {
		x.StopReason = driver.StoppedExecutionLength
	}
	x.Finish()
}

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
	m := q.x.M
	mi := int(q.midx[t])
	th := m.Threads[mi]
	if fp := th.Body.Atomics[th.PC]; fp != nil && !fp.Stable {
		// The locations depend on values: use everything it may access,
		// which no history changes.
		acc := fp.Accesses()
		a.acc, a.probed, a.unstable = acc, true, true
		return
	}
	m.Step(mi, &q.tmp)
	a.acc = append([]ir.Access(nil), q.tmp.Acc...)
	a.probed = true
	m.Undo()
}

// explore is Explore(C, D, A) of Alg. 1; C and D are q.c and q.d. en is
// en(C) when the caller knows it (nil: compute it).
func (q *qexplorer) explore(A, en []*uevent) {
	x := q.x
	if x.StopReason != "" || x.Cancelled() {
		return
	}
	depth := len(q.c.events)
	if en == nil {
		en = q.enabled(q.enBuffer(depth)[:0])
	}
	q.enBuf[depth] = en
	gen := q.pruneGen
	if len(en) == 0 {
		q.maximal()
		return
	}
	if x.M.StepCount() >= q.lengthCap {
		// A resource bound, not a cut (see "The step bound"): this
		// branch is not explored further, and the exploration will say
		// it is incomplete.
		q.truncated = true
		x.ExecutionDone()
		return
	}
	var e *uevent
	if len(A) > 0 {
		for _, a := range A {
			if containsEv(en, a) {
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
		q.explore(removeEv(A, e), q.enabledAfter(en, e, q.enBuffer(depth + 1)[:0]))
	}
	q.pop(e)
	if x.StopReason != "" {
		return
	}
	e.inD++
	dpos := e.dpos
	e.dpos = int32(len(q.d))
	q.d = append(q.d, e)
	if J := q.alt(en, e); J != nil {
		// en(C) again, unless pruning may have dropped some of its events.
		var again []*uevent
		if q.pruneGen == gen {
			again = en
		}
		q.explore(J, again)
	}
	q.d = q.d[:len(q.d)-1]
	e.dpos = dpos
	e.inD--
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
		if f.inD != 0 {
			continue
		}
		if f.thread == last {
			return f
		}
		th := q.x.M.Threads[q.midx[f.thread]]
		if left := int32(len(th.Body.Code)) - th.PC; left > most {
			most, e = left, f
		}
	}
	return e
}

// qporPruneMin is the size of U below which it is never pruned (unless
// Options.pruneAlways, for tests).
const qporPruneMin = 50_000

// prune is line 13 of Alg. 1, U := U ∩ Q_{C,D}, done when U has grown by
// half since the last time (it costs a pass over U). We keep, as Rodríguez et
// al. (CONCUR'15) do, C ∪ D and the local configurations of the events in
// immediate conflict with C ∪ D: the spikes of alt only ever hold events
// in immediate conflict with an event of D. (The paper's #(C ∪ D), with
// inherited conflicts, keeps nearly everything: every event after an
// event of D conflicts with the other events of D.) The events kept stay
// findable with their causal pasts, so that no event is ever created twice
// while an older copy is referenced.
func (q *qexplorer) prune() {
	u := q.u
	q.stamp++
	keep := q.stamp
	keptEvs := q.keptBuf[:0]
	var mark func(e *uevent)
	mark = func(e *uevent) {
		for e != nil && e.stamp != keep {
			e.stamp = keep
			keptEvs = append(keptEvs, e)
			mark(e.spawner)
			for _, m := range e.maxs {
				mark(m)
			}
			e = e.pred
		}
	}
	for _, e := range u.all {
		if e.stamp != keep && (e.inD > 0 || q.c.contains(e) || q.inConflictCD(e)) {
			mark(e)
		}
	}
	// Hidden candidates that go are dropped first, so that their buckets
	// may go too.
	kept := func(e *uevent) bool { return e.stamp == keep }
	for i, hs := range q.hidden {
		out := hs[:0]
		for _, h := range hs {
			if kept(h.e) {
				out = append(out, h)
			} else {
				h.b.nhidden--
			}
		}
		clear(hs[len(out):])
		q.hidden[i] = out
	}
	// When more than half go, the indexes are rebuilt from those kept;
	// otherwise the events that go are taken out of them one by one (each
	// knows where it is), so that the events kept are not visited again.
	n := len(keptEvs)
	if 2*n < len(u.all) {
		// (Reading the list of those kept, not U, again.)
		q.keptBuf = u.compact(kept, keptEvs)
	} else {
		clear(keptEvs)
		q.keptBuf = keptEvs[:0]
		all := u.all[:0]
		for _, e := range u.all {
			if kept(e) {
				all = append(all, e)
			} else {
				u.unlink(e, kept)
			}
		}
		clear(u.all[len(all):])
		u.all = all
	}
	q.pruneGen++
	q.pruneAt = 3 * n / 2
	if q.pruneAt < q.pruneMin {
		q.pruneAt = q.pruneMin
	}
	if q.pruneMin == 0 {
		q.pruneAt = 0 // tests: prune at the end of every call
		if err := q.checkIndexes(); err != nil {
			q.x.Anomaly(fmt.Sprintf("after pruning %d: %v", q.pruneGen, err))
		}
	}
}

// conflictInC returns an event g of C, of another thread than f, that is
// dependent with f and not in the causal past of a (so f and g cannot be
// in one configuration with a), or nil. Per location, C's events are
// scanned newest first up to the latest write, which orders the rest.
// (An event of f's thread is in no conflict with f: an ancestor of f, or
// a sibling, which the callers check.)
func (q *qexplorer) conflictInC(f, a *uevent) *uevent {
	c := &q.c
	var bad *uevent
	f.touches(func(l int32, w bool) bool {
		s := c.locs[l]
		// Past a read g, the reads of g's thread just before it can be
		// skipped: they are f's own, or only reads like f, or below g.
		for i := len(s) - 1; i >= 0; i = int(c.jump[l][i]) {
			g := s[i]
			_, gw := g.access(l)
			if g.thread != f.thread && (w || gw) && !leq(g, a) {
				bad = g
				return true
			}
			if gw {
				break
			}
		}
		return false
	})
	return bad
}

// inConflictCD reports whether e may be in immediate conflict with an
// event g of C ∪ D: they are dependent (or siblings in a thread tree),
// causally unordered, and [e) ∪ [g) passes the per-thread test of
// pastsCompatible (the dependences between the two pasts are not fully
// checked, so this over-approximates immediate conflict, which is safe
// for pruning: it only keeps more). Candidates g in C are found per
// location of e after the last write of it in C that is in [e): every
// earlier event of the location is below that write, hence in [e).
func (q *qexplorer) inConflictCD(e *uevent) bool {
	c := &q.c
	if ch := c.chain[e.thread]; int(e.idx) < len(ch) {
		if g := ch[e.idx]; g != e && g.pred == e.pred && sameLastWrite(e, g) && pastsCompatible(e, g) {
			return true
		}
	}
	found := false
	e.touches(func(l int32, w bool) bool {
		// After the last write of l in C that is in [e), an event of C
		// whose past holds another access of l that e depends on (and
		// that is not in [e)) conflicts with e only by inheritance: so
		// only the first write after it, and (if e writes) the reads
		// before that write, can be immediate conflicts.
		s := c.locs[l]
		var iw int
		switch {
		case !e.hasLastW():
			iw = q.lastWriteBelow(l, e)
		case e.lastW == nil:
			iw = -1
		case c.contains(e.lastW):
			iw = int(e.lastW.lpos)
		default:
			// e's last write of l is outside C: it conflicts with the
			// events of C after the last write in C below e, so e
			// conflicts with them only by inheritance.
			return false
		}
		// The first write after iw of another thread (not below e: none
		// is) ends the events to look at.
		end := len(s)
		wp := c.wpos[l]
		for k := sort.Search(len(wp), func(k int) bool { return int(wp[k]) > iw }); k < len(wp); k++ {
			g := s[wp[k]]
			if g.thread == e.thread || leq(g, e) {
				continue
			}
			if pastsCompatible(e, g) {
				found = true
				return true
			}
			end = int(wp[k])
			break
		}
		if !w {
			return false
		}
		// The reads before it, newest first: past a read of e's thread
		// or below e, the reads of its thread just before it are so too.
		for i := end - 1; i > iw; {
			g := s[i]
			if _, gw := g.access(l); gw {
				i--
				continue
			}
			if g.thread == e.thread || leq(g, e) {
				i = int(c.jump[l][i])
				continue
			}
			if pastsCompatible(e, g) {
				found = true
				return true
			}
			i--
		}
		return false
	})
	if found {
		return true
	}
	if e.fkind == ir.EvStop {
		return true // rare: kept without a closer look
	}
	// Events of D: siblings, or dependent. (A join or a spawn needs no
	// case of its own: it depends only on events always in its past, the
	// joined thread's last event, or its future, the child's first, so it
	// is in immediate conflict only with its thread-tree siblings.)
	for i := len(q.d) - 1; i >= 0; i-- { // newest first: most often the deepest, the likeliest to conflict
		d := q.d[i]
		// sameLastWrite first: it reads no footprint and rules out most.
		if d == e || !sameLastWrite(e, d) || !((d.thread == e.thread && d.pred == e.pred) || (d.thread != e.thread && udep(d, e))) {
			continue
		}
		if !leq(d, e) && !leq(e, d) && pastsCompatible(e, d) {
			return true
		}
	}
	return false
}

// sameLastWrite is false if e and g access one location each, the same,
// after different last writes of it: then they are not in immediate
// conflict (the later of the two writes is in one's past and conflicts
// with the other).
func sameLastWrite(e, g *uevent) bool {
	return !e.hasLastW() || !g.hasLastW() || e.floc != g.floc || e.lastW == g.lastW
}

// pastsCompatible reports whether the causal pasts [a) and [b) have
// ordered maxima on every thread (a necessary condition for [a) ∪ [b) to
// be a configuration).
func pastsCompatible(a, b *uevent) bool {
	n := max(len(a.tmax), len(b.tmax))
	for u := 0; u < n; u++ {
		x, y := pastMax(a, int32(u)), pastMax(b, int32(u))
		if x == nil || y == nil || x == y {
			continue
		}
		if x.idx < y.idx {
			x, y = y, x
		}
		if ancestorAt(x, y.idx) != y {
			return false
		}
	}
	return true
}

// pastMax is the last event of thread u in [e).
func pastMax(e *uevent, u int32) *uevent {
	if u == e.thread {
		return e.pred
	}
	return tmaxAt(e.tmax, u)
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

// enabled appends en(C) to en, by thread: for each thread that can move,
// the event of its next action whose history is the closure of the events
// of C it depends on.
func (q *qexplorer) enabled(en []*uevent) []*uevent {
	for t := int32(0); t < int32(len(q.c.tmax)); t++ {
		if f := q.enabledOf(t); f != nil {
			en = append(en, f)
		}
	}
	return en
}

// enabledAfter appends en(C) to out, given en = en(C \ {e}) (e is C's last
// event): the event of a thread other than e's whose action does not
// depend on e keeps its history, and a thread disabled before e and
// independent of it stays disabled.
func (q *qexplorer) enabledAfter(en []*uevent, e *uevent, out []*uevent) []*uevent {
	i := 0
	for t := int32(0); t < int32(len(q.c.tmax)); t++ {
		var f *uevent
		for i < len(en) && en[i].thread < t {
			i++
		}
		if i < len(en) && en[i].thread == t {
			f = en[i]
		}
		switch {
		case t == e.thread || t == e.childUID:
			f = q.enabledNew(t)
		case f != nil:
			// f's footprint is its action's (f is enabled: its atomic
			// block was probed); events carry it, so no action to read.
			if f.fkind != ir.EvJoin && f.fkind != ir.EvAtomic && e.fkind != ir.EvAtomic {
				lf, wf := f.single()
				le, we := e.single()
				if lf >= 0 && lf == le && (wf || we) {
					f = q.enabledNew(t)
				}
			} else if actDep(f.act, e) {
				f = q.enabledNew(t)
			}
		default:
			if a := q.nextOf(t, q.c.tmax[t]); a != nil && a.probed && actDep(a, e) {
				f = q.enabledNew(t)
			}
		}
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

// enRecord is an event found by addExtensions for the last push.
type enRecord struct {
	push int
	ev   *uevent
}

// enabledNew is enabledOf(t) after a push, taken from what addExtensions
// found if it can.
func (q *qexplorer) enabledNew(t int32) *uevent {
	if r := q.enNew[t]; r.push == q.pushes && r.ev != nil && q.x.M.Enabled(int(q.midx[t])) {
		return r.ev
	}
	return q.enabledOf(t)
}

// enabledOf is thread t's event in en(C), or nil.
func (q *qexplorer) enabledOf(t int32) *uevent {
	if !q.present(t) {
		return nil
	}
	p := q.c.tmax[t]
	a := q.nextOf(t, p)
	if a == nil || !q.x.M.Enabled(int(q.midx[t])) {
		return nil
	}
	q.probe(t, a)
	var sp *uevent
	if p == nil && int(t) >= len(q.x.Prog.Threads) {
		sp = q.c.spawnerOf[t]
	}
	q.genBuf = q.latestDeps(t, a, q.genBuf[:0])
	return q.event(t, p, sp, a, q.genBuf)
}

// enBuffer is the buffer for en(C) when C has depth events.
func (q *qexplorer) enBuffer(depth int) []*uevent {
	for len(q.enBuf) <= depth {
		q.enBuf = append(q.enBuf, nil)
	}
	return q.enBuf[depth]
}

// latestDeps appends the last events of C (of other threads) that action a
// of thread t depends on: every event of C it depends on is below one of
// them.
func (q *qexplorer) latestDeps(t int32, a *action, out []*uevent) []*uevent {
	if a.kind == ir.EvJoin {
		if T := a.loc; T >= 0 && int(T) < len(q.c.tmax) {
			if f := q.c.tmax[T]; f != nil && f.finished {
				out = append(out, f)
			}
		}
		return out
	}
	fp := a.footprint()
	fp.Touches(func(l int32, w bool) bool {
		s := q.c.locs[l]
		// Past a read, the reads of its thread just before it are below
		// it.
		for i := len(s) - 1; i >= 0; i = int(q.c.jump[l][i]) {
			f := s[i]
			if f.thread == t {
				continue
			}
			_, fw := f.access(l)
			if fw {
				out = append(out, f)
				break
			}
			if w {
				out = append(out, f)
			}
		}
		return false
	})
	return out
}

// push adds e ∈ en(C) to C: executes it, learns its label the first time,
// reports what it finds, and adds the new extensions to U. It returns
// false if the execution ends here (the exploration must stop).
func (q *qexplorer) push(e *uevent) bool {
	x := q.x
	mi := int(q.midx[e.thread])
	d, steps := x.M.Depth(), x.M.StepCount()
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
		if ev.Kind == ir.EvLock || ev.Kind == ir.EvUnlock {
			if h := x.M.Mem[ev.Loc]; h > 0 {
				e.holder = q.uidOf[h-1] + 1
			}
		}
	}
	if !ok {
		q.x.ReportStop(d, ev)
		x.Undo()
	} else if ev.Kind == ir.EvSpawn {
		child := int(ev.Loc)
		if first {
			e.childUID = q.u.childUID(e.thread, x.M.Threads[child].SpawnIndex)
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
			e.childNext = peekAction(x.M, child, q.uidFn)
			e.childFin = x.M.Threads[child].Status == interp.Finished
			if e.childNext != nil {
				q.probe(e.childUID, e.childNext)
			}
		}
	}
	if first && ok && !ev.Finished {
		e.next = peekAction(x.M, mi, q.uidFn)
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
		x.ReportStepBound(x.M.Depth())
	}
	return x.StopReason == ""
}

// step executes e on the machine (which stands at a linearisation of C,
// e enabled there; ev is x.evs at the machine's depth) and pushes its
// clocks. It returns false if e stops. A coarse tail ends where e's past
// and e together reach the step bound, so that e's steps are the same in
// every linearisation.
func (q *qexplorer) step(e *uevent, ev *interp.Event) bool {
	x := q.x
	if x.M.StepCount()+1+interp.MaxTail < int(q.u.bound) { // q.nearBound, inlined
		x.M.TailBound = 0
	} else {
		x.M.TailBound = x.M.StepCount() + int(q.u.bound-e.pastOf())
	}
	ok := x.Step(int(q.midx[e.thread]), ev)
	return ok
}

// nearBound reports whether an event pushed when C has steps fine steps
// may reach the step bound ([e) ⊆ C, and e has at most 1+maxTail steps):
// only then is its past counted.
func (q *qexplorer) nearBound(steps int) bool {
	return int64(steps)+1+interp.MaxTail >= int64(q.u.bound)
}

// lengthCapFactor times the step bound is the length beyond which a
// configuration is not extended (see "The step bound").
const lengthCapFactor = 4

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
// configuration is not extended past lengthCapFactor times the bound,
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

// hiddenCand is a spike candidate taken out of its bucket.
type hiddenCand struct {
	b *candBucket
	e *uevent
}

// pop removes the last event of C.
func (q *qexplorer) pop(e *uevent) {
	q.c.pop()
	if n := len(q.c.events) + 1; n < len(q.hidden) {
		for _, h := range q.hidden[n] {
			h.b.add(h.e)
			h.b.nhidden--
		}
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
	if x.M.StepCount() >= int(q.u.bound) {
		x.ReportStepBound(x.M.Depth())
	}
	if q.c.nstops == 0 {
		if q.cut() {
			x.ExecutionDone()
		} else {
			x.Deadlock(x.M.Depth())
		}
		return
	}
	// The stops with the machine depth each stands at (the number of
	// events of C before it that are not stops), latest first: the
	// machine goes back from one to the next, runs it and takes it back.
	stops := q.stopBuf[:0]
	depth := 0
	for _, e := range q.c.events {
		if e.stop {
			stops = append(stops, stopAt{e, depth})
		} else {
			depth++
		}
	}
	q.stopBuf = stops
	for i := len(stops) - 1; i >= 0; i-- {
		s := stops[i]
		for x.M.Depth() > s.depth {
			x.Undo()
		}
		if x.StopReason != "" {
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
			d := x.M.Depth()
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
	if q.x.M.StepCount() < int(q.u.bound) {
		return false
	}
	for t, p := range q.c.tmax {
		if !q.present(int32(t)) || q.nextOf(int32(t), p) == nil {
			continue
		}
		if mi := q.midx[t]; mi >= 0 && q.x.M.Enabled(int(mi)) {
			return true
		}
	}
	return false
}

// addExtensions adds to U the extensions of C whose history holds e, the
// event just added (see "Extensions" in unfolding.go).
func (q *qexplorer) addExtensions(e *uevent) {
	q.enumerate(e.thread, e, nil, e)
	spawned := int32(-1)
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 && q.c.spawnerOf[e.childUID] == e {
		spawned = e.childUID
		q.enumerate(spawned, nil, e, e)
	}
	// The other positions whose next action depends on e, from the
	// index of C's positions by location (config.nextOn).
	nd := int32(len(q.x.Prog.Threads))
	multi := e.fkind == ir.EvAtomic
	seen := q.seenBuf[:0]
	// excluded reports whether pos is of e's thread or spawned, or
	// before the last event of its thread in [e]: its successor in C is
	// below e, so no history there can hold e. The earlier positions of
	// its thread are then excluded too.
	excluded := func(pos position) bool {
		t := pos.t
		if t == e.thread || t == spawned {
			return true
		}
		m := tmaxAt(e.tmax, t)
		return m != nil && (pos.p == nil || pos.p.idx < m.idx)
	}
	visit := func(pos position) {
		t := pos.t
		if multi {
			for _, o := range seen {
				if o.t == t && o.p == pos.p {
					return
				}
			}
			seen = append(seen, pos)
		}
		var sp *uevent
		if pos.p == nil && t >= nd {
			sp = q.c.spawnerOf[t]
		}
		q.enumerate(t, pos.p, sp, e)
	}
	// The positions of a list are gathered newest first, skipping the
	// runs of one thread's excluded positions (a spin loop makes long
	// ones), and visited oldest first.
	gather := func(s []position, l int32, we bool) {
		mark := len(q.posBuf)
		for i := len(s) - 1; i >= 0; {
			pos := s[i]
			if excluded(pos) {
				i = int(pos.skip)
				continue
			}
			if l < 0 {
				q.posBuf = append(q.posBuf, pos)
			} else if _, wa := pos.a.access(l); we || wa {
				q.posBuf = append(q.posBuf, pos)
			}
			i--
		}
		for k := len(q.posBuf) - 1; k >= mark; k-- {
			visit(q.posBuf[k])
		}
		clear(q.posBuf[mark:])
		q.posBuf = q.posBuf[:mark]
	}
	e.touches(func(l int32, we bool) bool {
		gather(q.c.nextOn[l], l, we)
		return false
	})
	if e.finished && int(e.thread) < len(q.c.joinOn) {
		gather(q.c.joinOn[e.thread], -1, false)
	}
	q.seenBuf = seen[:0]
}

// enumerate adds the events of thread t after p (or at its start, spawned
// by sp) whose history holds e as a maximal event.
func (q *qexplorer) enumerate(t int32, p, sp, e *uevent) {
	a := q.nextOf(t, p)
	if a == nil {
		return
	}
	ch := q.c.chain[t]
	j := 0
	if p != nil {
		j = int(p.idx) + 1
	}
	var nprime *uevent
	if j < len(ch) {
		nprime = ch[j]
	}
	if !a.probed {
		if nprime != nil {
			return // cannot happen: nprime's action was probed before it was created
		}
		q.probe(t, a)
	}
	base := q.scratch(0)
	if p != nil {
		base = mergeInto(base, p)
	}
	if sp != nil {
		base = mergeInto(base, sp)
	}
	gen := q.genBuf[:0]
	if e != p && e != sp {
		if p != nil && leq(e, p) {
			return
		}
		if nprime != nil && leq(nprime, e) {
			return
		}
		gen = append(gen, e)
		base = mergeInto(base, e)
	}
	q.tmStack[0] = base
	ngen0 := len(gen)
	// Candidates for M: events of C' that a depends on, not in base, not
	// after nprime. Per location, C's events are scanned newest first up
	// to the first write in base: it orders every earlier event of the
	// location below it.
	cand := q.candBuf[:0]
	// Only an atomic block's scans over several locations may meet an
	// event twice: stamps mark those candidates.
	multi := a.kind == ir.EvAtomic
	if multi {
		q.stamp++
	}
	stamp := q.stamp
	add := func(f *uevent) {
		if f.thread == t || f == e || (multi && f.stamp == stamp) || (nprime != nil && leq(nprime, f)) {
			return
		}
		if multi {
			f.stamp = stamp
		}
		cand = append(cand, f)
	}
	if a.kind == ir.EvJoin {
		if T := a.loc; T >= 0 && int(T) < len(q.c.tmax) {
			if f := q.c.tmax[T]; f != nil && f.finished && !leqView(f, base) {
				add(f)
			}
		}
	} else {
		fp := a.footprint()
		fp.Touches(func(l int32, w bool) bool {
			s := q.c.locs[l]
			for i := len(s) - 1; i >= 0; i-- {
				f := s[i]
				_, fw := f.access(l)
				if !w && !fw {
					i = int(q.c.jump[l][i]) + 1 // the reads of f's thread before it do not matter either
					continue
				}
				if leqView(f, base) {
					if fw {
						break
					}
					i = int(q.c.jump[l][i]) + 1 // nor those below it
					continue
				}
				add(f)
			}
			return false
		})
	}
	q.candBuf = cand
	// By thread, newest first: an antichain M holds at most one event of
	// a thread, and once it holds one, the thread's other candidates are
	// below it. runEnd[i] is the first candidate of another thread after
	// i, so a spin loop's thousands of reads cost one step each, not one
	// per pair.
	if len(cand) > 1 {
		slices.SortFunc(cand, func(f, g *uevent) int {
			if f.thread != g.thread {
				return int(f.thread - g.thread)
			}
			return int(g.idx - f.idx)
		})
	}
	runEnd := q.runBuf[:0]
	for i := range cand { // (one thread: every entry is len(cand))
		runEnd = append(runEnd, int32(len(cand)))
		if i > 0 && cand[i].thread != cand[i-1].thread {
			for j := i - 1; j >= 0 && runEnd[j] == int32(len(cand)); j-- {
				runEnd[j] = int32(i)
			}
		}
	}
	q.runBuf = runEnd
	// At the end of t's events in C', the history holding every
	// candidate is that of t's event in en(C') (see enabledAfter).
	atEnd := p == q.c.tmax[t]
	var rec func(i, depth int, tm []*uevent)
	rec = func(i, depth int, tm []*uevent) {
		if i == len(cand) {
			f := q.emit(t, p, sp, a, gen, tm)
			if atEnd && f != nil {
				all := true
				for j := 0; j < len(cand); j = int(runEnd[j]) {
					if !leqView(cand[j], tm) { // the newest of its thread
						all = false
						break
					}
				}
				if all {
					q.enNew[t] = enRecord{q.pushes, f}
				}
			}
			return
		}
		rec(i+1, depth, tm)
		f := cand[i]
		if leqView(f, tm) {
			return
		}
		for _, g := range gen[ngen0:] {
			if leq(g, f) {
				return
			}
		}
		tm2 := append(q.scratch(depth+1), tm...)
		tm2 = mergeInto(tm2, f)
		q.tmStack[depth+1] = tm2
		gen = append(gen, f)
		rec(int(runEnd[i]), depth+1, tm2)
		gen = gen[:len(gen)-1]
	}
	rec(0, 0, base)
	q.genBuf = gen[:0]
}

// scratch returns the empty scratch buffer of per-thread maxima number
// depth (enumerate's recursion keeps one per level).
func (q *qexplorer) scratch(depth int) []*uevent {
	for len(q.tmStack) <= depth {
		q.tmStack = append(q.tmStack, nil)
	}
	return q.tmStack[depth][:0]
}

// emit adds ⟨a, H⟩ to U if a is enabled at state(H); H is given by its
// generators and its per-thread maxima tm.
func (q *qexplorer) emit(t int32, p, sp *uevent, a *action, gen, tm []*uevent) *uevent {
	switch a.kind {
	case ir.EvLock:
		h := q.holderIn(a.loc, tm)
		if h != 0 && h != int64(t)+1 {
			return nil
		}
	case ir.EvJoin:
		T := a.loc
		if T == t {
			return nil
		}
		if T >= 0 {
			if f := tmaxAt(tm, T); f != nil {
				if !f.finished {
					return nil
				}
			} else if !q.finishedAtStart(T, tm) {
				return nil
			}
		}
	}
	return q.event(t, p, sp, a, gen)
}

// event is unfolding.event; a new event is indexed by the last write of
// each location it touches in its history (a subset of C).
func (q *qexplorer) event(t int32, p, sp *uevent, a *action, gen []*uevent) *uevent {
	n := q.u.events
	e := q.u.event(t, p, sp, a, gen, q.x.M.StepCount() >= int(q.u.bound))
	if e == nil {
		if q.u.beyond {
			// Its past is a configuration of C of at least MaxSteps
			// steps: an execution that reaches the bound, which DFS
			// reports too.
			q.u.beyond = false
			q.x.ReportStepBound(q.x.M.Depth())
		}
		return nil
	}
	if e.id < n {
		return e
	}
	if e.hasLastW() {
		e.lastW = q.lastWriteOf(e)
		q.index(e, e.floc, e.lastW)
		return e
	}
	last := int32(-1)
	e.touches(func(l int32, _ bool) bool {
		if l != last {
			last = l
			var w *uevent
			if i := q.lastWriteBelow(l, e); i >= 0 {
				w = q.c.locs[l][i]
			}
			q.index(e, l, w)
		}
		return false
	})
	return e
}

// index adds e, which accesses l after its last write w (or nil), to the
// spike candidates.
func (q *qexplorer) index(e *uevent, l int32, w *uevent) {
	b := q.u.group(l, w, true).list(e.thread).bucket(e.idx)
	if e.hasLastW() {
		e.bucket = b
	} else {
		q.u.multi[e] = append(q.u.multi[e], b)
	}
	b.add(e)
}

// lastWriteOf is the last write of e's location l in e's history (a
// subset of C), for a new single-location event e. Every event of maxs
// depends on e's action, so accesses l; the last write W is found through
// them: if W is in [m], it is m (a write) or m's own last write (a read),
// and if W is in no [m], every m is below W (they are dependent), hence
// below e's predecessor, which maxs excludes. So W is the latest of those
// candidates, or, when maxs is empty, comes from the predecessor if it
// accesses l. Otherwise C's events on l are scanned.
func (q *qexplorer) lastWriteOf(e *uevent) *uevent {
	l := e.floc
	var best *uevent
	note := func(g *uevent) bool {
		touch, write := g.access(l)
		if !touch || !g.hasLastW() {
			return false
		}
		w := g.lastW
		if write {
			w = g
		}
		if w != nil && (best == nil || w.lpos > best.lpos) {
			best = w
		}
		return true
	}
	known := len(e.maxs) > 0
	for _, m := range e.maxs {
		known = note(m) && known
	}
	if !known && len(e.maxs) == 0 && e.pred != nil {
		best = nil
		known = note(e.pred)
	}
	if !known {
		best = nil
		if i := q.lastWriteBelow(l, e); i >= 0 {
			best = q.c.locs[l][i]
		}
	}
	return best
}

// lastWriteBelow is the index in C's events on l of the last write of l
// in C that is in [e], or -1.
func (q *qexplorer) lastWriteBelow(l int32, e *uevent) int {
	s, wp := q.c.locs[l], q.c.wpos[l]
	for k := len(wp) - 1; k >= 0; k-- {
		if i := wp[k]; leq(s[i], e) {
			return int(i)
		}
	}
	return -1
}

// lastWriteC is the last write of l in C, or nil.
func (q *qexplorer) lastWriteC(l int32) *uevent {
	if i := q.c.lastWritePos(l); i >= 0 {
		return q.c.locs[l][i]
	}
	return nil
}

// holderIn is the holder (uid+1, or 0) of mutex loc after the events of C
// in the configuration with maxima tm.
func (q *qexplorer) holderIn(loc int32, tm []*uevent) int64 {
	s := q.c.locs[loc]
	for i := len(s) - 1; i >= 0; i-- {
		if leqView(s[i], tm) {
			return int64(s[i].holder)
		}
	}
	return 0
}

func (q *qexplorer) finishedAtStart(T int32, tm []*uevent) bool {
	if int(T) < len(q.x.Prog.Threads) {
		return q.u.startFin[T]
	}
	if int(T) < len(q.c.spawnerOf) {
		if sp := q.c.spawnerOf[T]; sp != nil && leqView(sp, tm) {
			return sp.childFin
		}
	}
	return false
}

type spike struct {
	ev    *uevent
	delta []*uevent // [ev] \ C
}

// alt computes a clue to D after C (D already holds e) with the comb of
// Sec. 5: k events of D enabled at C (e first, then the most recent), a
// spike per event of the events of U in immediate conflict with it that
// are compatible with C and avoid D, and a combination of pairwise
// compatible events. It returns J \ C, or nil.
func (q *qexplorer) alt(en []*uevent, e *uevent) []*uevent {
	// The events of D enabled at C, most recently added first (by
	// their last place in D: the stack q.d can be deep, en(C) is small).
	dl := []*uevent{e}
	for _, d := range en {
		if d != e && d.inD > 0 {
			j := len(dl)
			dl = append(dl, d)
			for ; j > 1 && dl[j-1].dpos < d.dpos; j-- {
				dl[j] = dl[j-1]
			}
			dl[j] = d
		}
	}
	if q.k > 0 && len(dl) > q.k {
		dl = dl[:q.k]
	}
	// The spikes of all but the last picked event are built in full; the
	// last one is scanned lazily, stopping at its first element that
	// completes a combination.
	spikes := make([][]spike, len(dl))
	chosen := make([]int, len(dl))
	last := len(dl) - 1
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(dl) {
			return true
		}
		for j := range spikes[i] {
			ok := true
			for h := 0; h < i && ok; h++ {
				ok = deltaCompat(spikes[h][chosen[h]].delta, spikes[i][j].delta)
			}
			if ok {
				chosen[i] = j
				if rec(i + 1) {
					return true
				}
			}
		}
		return false
	}
	found := false
	for i, d := range dl {
		q.stamp++
		stamp := q.stamp
		// consider adds a to the spike if it belongs there; it returns
		// true if a is in C, incompatible with C or above an event of D,
		// which stays so until C shrinks (D only shrinks then too).
		consider := func(a *uevent) bool {
			if a.stamp == stamp {
				return false
			}
			a.stamp = stamp
			if q.c.contains(a) {
				q.deadAt = a.cpos + 1
				return true
			}
			if a == d || (a.thread != d.thread && !udep(a, d)) {
				return false
			}
			// Cheaply first: the first event of a's thread after C in [a]
			// is in D (a spin loop makes many such candidates).
			if int(a.thread) < len(q.c.tmax) {
				cm := q.c.tmax[a.thread]
				if b := ancestorAt(a, firstIdxAfter(cm)); b != nil && b.pred == cm && b.inD > 0 {
					q.deadAt = int32(len(q.c.events))
					return true
				}
			}
			delta, ok := q.deltaC(a)
			if !ok {
				return true
			}
			for _, f := range delta {
				if f.inD > 0 {
					q.deadAt = int32(len(q.c.events))
					return true
				}
			}
			if i < last {
				spikes[i] = append(spikes[i], spike{a, delta})
			} else {
				spikes[i] = []spike{{a, delta}}
				found = rec(0)
			}
			return false
		}
		// The lazily read spike looks first at the events of en(C)
		// dependent with d: in immediate conflict with it (both are
		// enabled at C), compatible with C, and the nearest to C. (A
		// spin loop makes buckets with one such event among many above
		// d.)
		if i == last {
			for _, f := range en {
				if f.thread != d.thread && udep(f, d) {
					consider(f)
					if found {
						break
					}
				}
			}
			if found {
				break
			}
		}
		// Candidates: for every spike element there is one below it in
		// these buckets (see "Alternatives" in unfolding.go).
		// scan considers the candidates of b that access l after its
		// last write w, one of them a write.
		scan := func(b *candBucket, l int32, w *uevent, dw bool) bool {
			for j := 0; j < len(b.ev); {
				a := b.ev[j]
				if at, aw := a.access(l); at && (aw || dw) && (!a.hasLastW() || a.lastW == w) && consider(a) {
					q.hide(b, j)
					continue
				}
				if found {
					return true
				}
				j++
			}
			return false
		}
		d.touches(func(l int32, dw bool) bool {
			w := q.lastWriteC(l)
			g := q.u.group(l, w, false)
			if g == nil {
				return false
			}
			for _, cl := range g.lists {
				if cl.thread == d.thread {
					continue
				}
				// A candidate compatible with C extends C's events of
				// its thread: it comes right after the last one, cm (a
				// child of cm), or later.
				from := int32(0)
				if int(cl.thread) < len(q.c.tmax) {
					if cm := q.c.tmax[cl.thread]; cm != nil {
						from = cm.idx + 2
						if scan(&cm.kids, l, w, dw) {
							return true
						}
					}
				}
				for _, b := range cl.buckets {
					if b.idx >= from && scan(b, l, w, dw) {
						return true
					}
				}
			}
			return false
		})
		if len(spikes[i]) == 0 || (i == last && !found) {
			return nil
		}
	}
	var J []*uevent
	for i := range dl {
		for _, f := range spikes[i][chosen[i]].delta {
			if !containsEv(J, f) {
				J = append(J, f)
			}
		}
	}
	return J
}

// hide takes the j-th candidate of b out of it until C is shorter than
// q.deadAt (see qexplorer.hidden).
func (q *qexplorer) hide(b *candBucket, j int) {
	a := b.removeAt(j)
	b.nhidden++
	for int(q.deadAt) >= len(q.hidden) {
		q.hidden = append(q.hidden, nil)
	}
	q.hidden[q.deadAt] = append(q.hidden[q.deadAt], hiddenCand{b, a})
}

// deltaC returns [a] \ C if [a] ∪ C is a configuration. If not, it sets
// q.deadAt to 1 + the position in C of the earliest event of C that a is
// found to conflict with: a stays incompatible until C loses it. Every
// thread of [a] is checked for that, not just up to the first conflict, so
// that a rejected candidate is not taken up again too early (on MPAT(6)
// this halves the calls).
func (q *qexplorer) deltaC(a *uevent) ([]*uevent, bool) {
	c := &q.c
	var dead int32 = -1
	note := func(p int32) {
		if dead < 0 || p < dead {
			dead = p
		}
	}
	// a's own thread first: a must extend C's events of its thread, cm
	// the last, through b, the first event after cm in [a]; they part at
	// the first event of the thread in C that is not an ancestor of a.
	cm := c.tmax[a.thread]
	if cm != nil && a.idx <= cm.idx {
		note(q.parting(a, a.idx))
	} else if b := ancestorAt(a, firstIdxAfter(cm)); b.pred != cm {
		note(q.parting(a, cm.idx))
	} else if b != a && b.hasLastW() {
		// If b missed a write of its location that C holds, it
		// conflicts with that write (common: a is often a version of
		// an event after a version of b that C has overtaken).
		if w2 := q.nextWriteInC(b); w2 != nil {
			note(w2.cpos + 1)
		}
	}
	delta := q.deltaBuf[:0]
	for ui, x := range a.tmax {
		if x == nil || (int32(ui) == a.thread && dead >= 0) {
			continue
		}
		var cm *uevent
		if ui < len(c.tmax) {
			cm = c.tmax[ui]
		}
		if cm != nil && x.idx <= cm.idx {
			if c.chain[ui][x.idx] != x {
				note(q.parting(x, x.idx))
			}
			continue
		}
		if cm != nil && ancestorAt(x, cm.idx) != cm {
			note(q.parting(x, cm.idx))
			continue
		}
		if b := ancestorAt(x, firstIdxAfter(cm)); b.inD > 0 {
			// a is above an event of D (for as long as D holds it: the
			// current call's subtree). Checked before the walk below: a
			// thread spinning past D's event makes long walks.
			q.deadAt = int32(len(c.events))
			return nil, false
		}
		for y := x; y != nil && (cm == nil || y.idx > cm.idx); y = y.pred {
			delta = append(delta, y)
		}
	}
	q.deltaBuf = delta
	if dead >= 0 {
		q.deadAt = dead
		return nil, false
	}
	q.deadAt = int32(len(c.events))
	for _, f := range delta {
		if g := q.conflictInC(f, a); g != nil {
			// Incompatible while g is in C (f cannot join C before g
			// leaves).
			note(g.cpos + 1)
		}
	}
	if dead >= 0 {
		q.deadAt = dead
		return nil, false
	}
	return append([]*uevent(nil), delta...), true
}

// firstIdxAfter is the index of the event after cm in its thread (0 if
// cm is nil).
func firstIdxAfter(cm *uevent) int32 {
	if cm == nil {
		return 0
	}
	return cm.idx + 1
}

// nextWriteInC returns, for a single-location event b outside C whose last
// write w of its location l is in C, the first write of l in C after w:
// b and it are in conflict. It returns nil if there is none.
func (q *qexplorer) nextWriteInC(b *uevent) *uevent {
	l := b.floc
	s := q.c.locs[l]
	i := 0
	if w := b.lastW; w != nil {
		if !q.c.contains(w) {
			return nil
		}
		i = int(w.lpos) + 1
	}
	for ; i < len(s); i++ {
		if _, gw := s[i].access(l); gw && s[i].thread != b.thread {
			return s[i]
		}
	}
	return nil
}

// parting returns 1 + the position in C of the first event of x's thread
// in C that is not an ancestor of x (C's event at index hi is not): as
// long as C holds it, x is incompatible with C.
func (q *qexplorer) parting(x *uevent, hi int32) int32 {
	ch := q.c.chain[x.thread]
	lo := int32(0)
	for lo < hi {
		mid := (lo + hi) / 2
		if ancestorAt(x, mid) != ch[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return ch[hi].cpos + 1
}

// deltaCompat reports whether C ∪ X ∪ Y is a configuration, given that
// C ∪ X and C ∪ Y are (X, Y disjoint from C).
func deltaCompat(X, Y []*uevent) bool {
	for _, f := range X {
		if containsEv(Y, f) {
			continue
		}
		for _, g := range Y {
			if containsEv(X, g) {
				continue
			}
			if f.thread == g.thread || udep(f, g) {
				return false
			}
		}
	}
	return true
}
