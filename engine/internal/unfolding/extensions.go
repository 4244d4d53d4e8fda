package unfolding

import (
	"slices"
	"weft/engine/ir"
)

// Extensions: the events a new event of C enables, and en(C).

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
			if f.fkind != ir.EvJoin && !multiLoc(f.fkind) && !multiLoc(e.fkind) {
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
	if r := q.enNew[t]; r.push == q.pushes && r.ev != nil && q.x.M().Enabled(int(q.midx[t])) {
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
	if a == nil || !q.x.M().Enabled(int(q.midx[t])) {
		return nil
	}
	q.probe(t, a)
	var sp *uevent
	if p == nil && int(t) >= len(q.x.Prog.Threads) {
		sp = q.c.spawnerOf[t]
	}
	if a.kind == ir.EvSignal {
		// The alternative that wakes the first waiter (by uid), if any.
		if ws := q.waitersIn(a.loc, q.c.tmax); len(ws) > 0 {
			a = a.alternative(ws[0] + 1)
		}
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
		// it; t's own entries are passed over a run at a time.
		for i := len(s) - 1; i >= 0; i = int(q.c.runs[l][i].jump) {
			q.effort.deps++
			f := s[i]
			if f.thread == t {
				if i = int(q.c.runs[l][i].other); i < 0 {
					break
				}
				f = s[i]
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

// addExtensions adds to U the extensions of C whose history holds e, the
// event just added (see "Extensions" in the package doc).
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
	multi := multiLoc(e.fkind)
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
	if e.memo && q.remembered(enumKey{t, p, sp, e}) {
		return
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
	multi := multiLoc(a.kind)
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
					i = int(q.c.runs[l][i].jump) + 1 // the reads of f's thread before it do not matter either
					continue
				}
				if leqView(f, base) {
					if fw {
						break
					}
					i = int(q.c.runs[l][i].jump) + 1 // nor those below it
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
	runEnd := q.runBuf[:0]
	switch len(cand) {
	case 0:
	case 1:
		runEnd = append(runEnd, 1)
	default:
		slices.SortFunc(cand, func(f, g *uevent) int {
			if f.thread != g.thread {
				return int(f.thread - g.thread)
			}
			return int(g.idx - f.idx)
		})
		for i := range cand {
			runEnd = append(runEnd, int32(len(cand)))
			if i > 0 && cand[i].thread != cand[i-1].thread {
				for j := i - 1; j >= 0 && runEnd[j] == int32(len(cand)); j-- {
					runEnd[j] = int32(i)
				}
			}
		}
	}
	q.runBuf = runEnd
	// At the end of t's events in C', the history holding every
	// candidate is that of t's event in en(C') (see enabledAfter).
	atEnd := p == q.c.tmax[t]
	histories, refused := q.effort.histories, q.refused
	var rec func(i, depth int, tm []*uevent)
	rec = func(i, depth int, tm []*uevent) {
		if i == len(cand) {
			q.effort.histories++
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
	if q.effort.histories-histories >= memoMin && q.refused == refused {
		q.remember(enumKey{t, p, sp, e})
	}
}

// Enumerations remembered
//
// A spin loop makes positions with thousands of extensions: the write
// that ends the spin, after each of its reads. Alg. 1 adds ex(C) to U in
// every call, and the calls that come back to such a position with a
// smaller C would find every one of them again, so a spin of n reads
// cost n²/2 lookups. The extensions enumerate(t, p, sp, e) adds are the
// events ⟨a, [p] ∪ [sp] ∪ [e] ∪ [M]⟩ for the antichains M of C's events
// that a depends on (see "Extensions" in the package doc), and whether
// one is added depends on its history alone. So if C is a subset of the
// configuration C₀ of an earlier such enumeration (per thread, C's last
// event is C₀'s or an ancestor of it), every M now was an antichain then
// and every event is in U already, unless U was pruned since, or an event
// was refused then as beyond the step bound (it would be again, and the
// step-bound bug reported with the state then). The enumerations of at
// least memoMin events are remembered with C's per-thread maxima.

// memoMin is the number of events an enumeration must yield to be
// remembered (enough to make the check and the memory worth it).
const memoMin = 64

// enumKey names one enumerate call: thread t after p (or spawned by sp)
// with e in the history.
type enumKey struct {
	t        int32
	p, sp, e *uevent
}

// enumMemo is a remembered enumeration: U's pruning generation and C's
// per-thread maxima then.
type enumMemo struct {
	gen  int
	view []*uevent
}

// remember records that the enumeration k was done with the current C.
func (q *qexplorer) remember(k enumKey) {
	if q.memos == nil {
		q.memos = make(map[enumKey]enumMemo)
	}
	m := q.memos[k]
	m.gen = q.pruneGen
	m.view = append(m.view[:0], q.c.tmax...)
	q.memos[k] = m
	k.e.memo = true
}

// remembered reports whether the enumeration k was done with a superset
// of C since U was last pruned.
func (q *qexplorer) remembered(k enumKey) bool {
	m, ok := q.memos[k]
	if !ok || m.gen != q.pruneGen {
		return false
	}
	for t, x := range q.c.tmax {
		if x == nil {
			continue
		}
		y := tmaxAt(m.view, int32(t))
		if y == nil || y.idx < x.idx || ancestorAt(y, x.idx) != x {
			return false
		}
	}
	return true
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
	case ir.EvWake:
		// Enabled once a signal or a broadcast woke the thread (it no
		// longer waits after the last write of the condition variable)
		// and the mutex is free.
		if q.holderIn(a.acc[1].Loc, tm) != 0 || slices.Contains(q.waitersIn(a.acc[0].Loc, tm), t) {
			return nil
		}
	case ir.EvSignal:
		// One event per thread it may wake (see "Condition variables"
		// in the package doc); the first stands for them.
		ws := q.waitersIn(a.loc, tm)
		if len(ws) == 0 {
			return q.event(t, p, sp, a.alternative(0), gen)
		}
		var first *uevent
		for _, w := range ws {
			if f := q.event(t, p, sp, a.alternative(w+1), gen); first == nil {
				first = f
			}
		}
		return first
	}
	return q.event(t, p, sp, a, gen)
}

// event is unfolding.event; a new event is indexed by the last write of
// each location it touches in its history (a subset of C).
func (q *qexplorer) event(t int32, p, sp *uevent, a *action, gen []*uevent) *uevent {
	n := q.u.events
	e := q.u.event(t, p, sp, a, gen, q.x.M().StepCount() >= int(q.u.bound))
	if e == nil {
		if q.u.beyond {
			// Its past is a configuration of C of at least MaxSteps
			// steps: an execution that reaches the bound, which DFS
			// reports too.
			q.u.beyond = false
			q.refused++
			q.x.ReportStepBound(q.x.M().Depth())
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
