package unfolding

import (
	"fmt"
	"sort"
	"weft/engine/ir"
)

// Pruning: line 13 of Alg. 1.

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
	// D newest first, without its chooses (see inConflictCD): a choose
	// of many values puts them all in D at one point.
	q.dPlain = q.dPlain[:0]
	for i := len(q.d) - 1; i >= 0; i-- {
		if d := q.d[i]; d.fkind != ir.EvChoose {
			q.dPlain = append(q.dPlain, d)
		}
	}
	for _, e := range u.all {
		// Marking only reads U (stamps are a fresh generation): a
		// deadline or a cancellation met here leaves U as it was. With
		// C a spin loop 100,000 steps deep, this loop took minutes.
		if q.x.Stopping() {
			clear(keptEvs)
			q.keptBuf = keptEvs[:0]
			return
		}
		if e.stamp != keep && (e.inD > 0 || q.c.contains(e) || q.inConflictCD(e)) {
			mark(e)
		}
	}
	// Hidden candidates that go are dropped first, so that their buckets
	// may go too.
	kept := func(e *uevent) bool { return e.stamp == keep }
	for e := range q.cvWaiters {
		if !kept(e) {
			delete(q.cvWaiters, e)
		}
	}
	for i, hs := range q.hidden {
		out := hs[:0]
		for _, h := range hs {
			if kept(h.e) {
				out = append(out, h)
			} else {
				h.b.forget()
			}
		}
		clear(hs[len(out):cap(hs)])
		q.hidden[i] = out
	}
	// When more than half go, the indexes are rebuilt from those kept;
	// otherwise the events that go are taken out of them one by one (each
	// knows where it is), so that the events kept are not visited again.
	// The child lists of the events kept that lose children are filtered
	// once each, before the events that go are unlinked: a write after a
	// spin loop has thousands of children, and taking them out one by one
	// read the list each time.
	n := len(keptEvs)
	if 2*n < len(u.all) {
		// (Reading the list of those kept, not U, again.)
		q.keptBuf = u.compact(kept, keptEvs)
	} else {
		clear(keptEvs)
		q.keptBuf = keptEvs[:0]
		parents := map[*uevent]bool{}
		for _, e := range u.all {
			if p := e.pred; p != nil && !kept(e) && kept(p) && !parents[p] {
				parents[p] = true
				u.keepChildren(p, kept)
			}
		}
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
	clear(q.memos) // they may name events that went
	q.dropStale()
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

// dropStale clears what scratch buffers and the stacks of C, D and en(C)
// still hold beyond their length: stale pointers to pruned events would
// keep them, and their pasts, alive (en(C) is kept for every size C ever
// had: after a spin loop, one per read).
func (q *qexplorer) dropStale() {
	stale := func(s []*uevent) { clear(s[len(s):cap(s)]) }
	for d := len(q.c.events) + 1; d < len(q.enBuf); d++ {
		clear(q.enBuf[d][:cap(q.enBuf[d])])
	}
	for _, s := range q.tmStack {
		clear(s[:cap(s)])
	}
	for _, b := range [][]*uevent{q.deltaBuf, q.genBuf, q.candBuf, q.u.maxBuf, q.c.events, q.c.stops, q.d} {
		stale(b)
	}
	for _, s := range q.c.chain {
		stale(s)
	}
	for _, s := range q.c.locs {
		stale(s)
	}
	for _, s := range [][]position{q.seenBuf, q.posBuf} {
		clear(s[len(s):cap(s)])
	}
	for _, s := range q.c.nextOn {
		clear(s[len(s):cap(s)])
	}
	for _, s := range q.c.joinOn {
		clear(s[len(s):cap(s)])
	}
	clear(q.stopBuf[len(q.stopBuf):cap(q.stopBuf)])
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
			iw = c.posOn(l, e.lastW)
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
		// The reads before it, newest first, a run of one thread's reads
		// at a time: past a read of e's thread or below e, the reads of
		// its thread just before it are so too. Of a run's reads not
		// below e (a suffix of the run) only the first may be in
		// immediate conflict with e: the others have it in their past,
		// and it conflicts with e (e writes l). A spin loop makes runs
		// of thousands.
		for i := end - 1; i > iw; {
			g := s[i]
			if _, gw := g.access(l); gw {
				i--
				continue
			}
			next := int(c.runs[l][i].jump)
			if g.thread == e.thread || leq(g, e) {
				i = next
				continue
			}
			lo, hi := max(next+1, iw+1), i
			for lo < hi {
				mid := (lo + hi) / 2
				if leq(s[mid], e) {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			if pastsCompatible(e, s[lo]) {
				found = true
				return true
			}
			i = next
		}
		return false
	})
	if found {
		return true
	}
	if e.fkind == ir.EvStop {
		// A pending failure accesses nothing: it depends on no event,
		// so it is its predecessor's only child with that action and
		// in immediate conflict with none. (A spin loop that ends in a
		// failed assertion makes one per read, each holding the spin
		// in its past.)
		return false
	}
	if e.fkind == ir.EvChoose {
		// A choose's alternatives depend on nothing: each is in
		// immediate conflict with the others alone (their pasts are
		// one), C's checked above.
		for _, d := range e.act.alternative(0).inD {
			if d != e {
				return true
			}
		}
		return false
	}
	// Events of D: siblings, or dependent. (A join or a spawn needs no
	// case of its own: it depends only on events always in its past, the
	// joined thread's last event, or its future, the child's first, so it
	// is in immediate conflict only with its thread-tree siblings. A
	// choose is in immediate conflict only with its own alternatives:
	// prune leaves the chooses out of dPlain.)
	for _, d := range q.dPlain { // newest first: most often the deepest, the likeliest to conflict
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

// pastsCompatible reports whether a and b pass two necessary conditions
// for their immediate conflict: the causal pasts [a) and [b) have ordered
// maxima on every thread ([a) ∪ [b) must be a configuration), and neither
// has a maximal event of its past that conflicts with the other event
// ([a) ∪ [b] and [a] ∪ [b) must be configurations). The second condition
// prunes the reads of a spin loop after the one a write is in immediate
// conflict with: each of them has the read before it in its past, which
// conflicts with the write too.
func pastsCompatible(a, b *uevent) bool {
	return pastMaximaOrdered(a, b) && !pastConflicts(a, b) && !pastConflicts(b, a)
}

// pastConflicts reports whether a maximal event m of [a) (its
// predecessor, or another of its maximal events) is in conflict with b:
// m is not in [b] and is b's thread's or dependent with b. (Then m and b
// are in conflict, or b < m ≤ a; either way a and b are not in immediate
// conflict.)
func pastConflicts(a, b *uevent) bool {
	hit := func(m *uevent) bool {
		return m != nil && (m.thread == b.thread || udep(m, b)) && !leq(m, b)
	}
	if hit(a.pred) {
		return true
	}
	for _, m := range a.maxs {
		if hit(m) {
			return true
		}
	}
	return false
}

// pastMaximaOrdered reports whether the causal pasts [a) and [b) have
// ordered maxima on every thread (a necessary condition for [a) ∪ [b) to
// be a configuration).
func pastMaximaOrdered(a, b *uevent) bool {
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

// compact keeps in U only the events of all (those kept says so of),
// rebuilding the indexes from them: cheaper than unlink when most events
// go. The events kept are closed under causal pasts, so a group of
// candidates whose last write goes has no candidate left, and a hidden
// candidate kept (whose list stays, see candList.nhidden) has its
// predecessor kept. It returns the former list of U's events, emptied.
func (u *unfolding) compact(kept func(*uevent) bool, all []*uevent) []*uevent {
	old := u.all
	clear(old)
	u.all = all
	clear(u.byKey) // keeps its room for the events to come
	clear(u.wide)  // rebuilt by lookup where still needed
	for _, e := range all {
		e.wide = false
		if e.pred == nil {
			e.hnext, u.byKey[e.hkey] = u.byKey[e.hkey], e
		}
		link := &e.child
		for f := e.child; f != nil; f = f.hnext {
			if kept(f) {
				*link = f
				link = &f.hnext
			}
		}
		*link = nil
		u.widen(e)
	}
	filter := func(b *candBucket) {
		out := b.ev[:0]
		for _, f := range b.ev {
			if kept(f) {
				b.setPos(f, len(out))
				out = append(out, f)
			}
		}
		clear(b.ev[len(out):])
		b.ev = out
	}
	filterGroup := func(g *candGroup) {
		lists := g.lists[:0]
		for _, l := range g.lists {
			l.keep(func(b *candBucket) bool {
				filter(b)
				return len(b.ev) > 0 || (!l.sparse && b.nhidden > 0)
			})
			if l.hi > l.lo || l.nhidden > 0 {
				lists = append(lists, l)
			}
		}
		clear(g.lists[len(lists):])
		g.lists = lists
		if len(lists) == 0 {
			u.dropGroup(g)
		}
	}
	for _, e := range all {
		filter(&e.kids)
		for g := e.wgroups; g != nil; {
			next := g.next
			filterGroup(g)
			g = next
		}
	}
	for _, g := range u.unwritten {
		if g != nil {
			filterGroup(g)
		}
	}
	for e := range u.multi {
		if !kept(e) {
			delete(u.multi, e)
		}
	}
	return old[:0]
}

// keepChildren keeps in p's child list (and wide index) only the children
// kept says so of.
func (u *unfolding) keepChildren(p *uevent, kept func(*uevent) bool) {
	m := u.wide[p]
	if p.wide {
		clear(m)
	}
	link := &p.child
	for f := p.child; f != nil; f = f.hnext {
		if kept(f) {
			*link = f
			link = &f.hnext
			if p.wide && m[f.hkey] == nil {
				m[f.hkey] = f
			}
		}
	}
	*link = nil
}

// unlink takes a pruned event out of U's indexes (its predecessor's child
// list excepted, see keepChildren).
func (u *unfolding) unlink(e *uevent, kept func(*uevent) bool) {
	if e.pred == nil {
		h := e.hkey
		var prev *uevent
		for f := u.byKey[h]; f != nil; prev, f = f, f.hnext {
			if f == e {
				if prev != nil {
					prev.hnext = e.hnext
				} else if e.hnext != nil {
					u.byKey[h] = e.hnext
				} else {
					delete(u.byKey, h)
				}
				break
			}
		}
	}
	e.hnext = nil
	if e.wide {
		delete(u.wide, e)
		e.wide = false
	}
	if p := e.pred; p != nil && kept(p) && e.kpos >= 0 {
		p.kids.removeAt(int(e.kpos))
	}
	out := func(b *candBucket) {
		if j := b.posOf(e); j >= 0 {
			b.removeAt(j)
		}
		u.dropIfUnused(b)
	}
	if b := e.bucket; b != nil {
		out(b)
	} else if bs, ok := u.multi[e]; ok {
		for _, b := range bs {
			out(b)
		}
		delete(u.multi, e)
	}
}
