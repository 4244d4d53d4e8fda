package unfolding

import "slices"

// Alternatives (Def. 5 and 6, the comb): spikes, clues, and the
// candidates hidden while C holds what excludes them.

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
		for i := len(s) - 1; i >= 0; i = int(c.runs[l][i].jump) {
			g := s[i]
			_, gw := g.access(l)
			if g.thread != f.thread && (w || gw) && !leq(g, a) {
				// g ends a run of its thread's reads (or is a write,
				// a run of one): those of the run in [a] are a prefix
				// of it, and the first one that is not conflicts with f
				// too, from an earlier position in C. (A spin loop's
				// reads make long runs: the earliest conflict keeps a
				// candidate out of its bucket for longer.)
				lo, hi := int(c.runs[l][i].jump)+1, i
				for lo < hi {
					mid := (lo + hi) / 2
					if leq(s[mid], a) {
						lo = mid + 1
					} else {
						hi = mid
					}
				}
				bad = s[lo]
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

// hiddenCand is a spike candidate taken out of its bucket.
type hiddenCand struct {
	b *candBucket
	e *uevent
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
	add := func(d *uevent) {
		if d != e && d.inD > 0 {
			j := len(dl)
			dl = append(dl, d)
			for ; j > 1 && dl[j-1].dpos < d.dpos; j-- {
				dl[j] = dl[j-1]
			}
			dl[j] = d
		}
	}
	for _, d := range en {
		if hasChoices(d) {
			// en(C) holds one alternative of a step (all are enabled).
			// A clue that conflicts with one of those in D conflicts
			// with all of them (with another alternative, or with an
			// event dependent with the step: they all have one history
			// and one footprint), so one stands for all, the latest to
			// enter D; none if e is one.
			if !siblingChoice(e, d) {
				if f := q.lastChoiceInD(d); f != nil {
					add(f)
				}
			}
			continue
		}
		add(d)
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
			q.effort.considered++
			q.deadD = false
			if q.c.contains(a) {
				q.deadAt, q.deadD = a.cpos+1, true
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
					q.deadAt = q.inDUntil(b)
					return true
				}
			}
			delta, ok := q.deltaC(a)
			if !ok {
				return true
			}
			for _, f := range delta {
				if f.inD > 0 {
					q.deadAt = q.inDUntil(f)
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
		if hasChoices(d) {
			// The other alternatives of d's step are in immediate
			// conflict with it (no bucket holds them for d: they are
			// of its thread), a choose's only ones (it touches
			// nothing). The one after d first: those before it are
			// most often in D already.
			vs := q.choices(d, q.choiceBuf[:0])
			q.choiceBuf = vs
			at := slices.Index(vs, d.act.alt)
			for j := 1; j < len(vs) && !found; j++ {
				if a := q.alternativeOf(d, vs[(at+j)%len(vs)]); a != nil {
					consider(a)
				}
			}
		}
		// Candidates: for every spike element there is one below it in
		// these buckets (see "Alternatives" in the package doc).
		// scan considers the candidates of b that access l after its
		// last write w, one of them a write.
		scan := func(b *candBucket, l int32, w *uevent, dw bool) bool {
			for j := 0; j < len(b.ev); {
				if q.x.Stopping() {
					return true // a budget ran out: no clue (see below)
				}
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
				// (scan may take b out of the list: then the next
				// bucket takes its place.)
				for j := cl.from(from); j < int(cl.hi-cl.lo); {
					b := cl.buf[int(cl.lo)+j]
					q.effort.buckets++
					if scan(b, l, w, dw) {
						return true
					}
					if j < int(cl.hi-cl.lo) && cl.buf[int(cl.lo)+j] == b {
						j++
					}
				}
			}
			return false
		})
		if len(spikes[i]) == 0 || (i == last && !found) || q.x.Halted() {
			// (The exploration ends when a budget runs out in the
			// middle of this search: a spin loop's buckets can hold
			// more candidates than a deadline allows to look at.)
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
	a := b.hideAt(j)
	if q.deadD {
		q.deadAt = q.outlive(a, q.deadAt)
	}
	for int(q.deadAt) >= len(q.hidden) {
		q.hidden = append(q.hidden, nil)
	}
	q.hidden[q.deadAt] = append(q.hidden[q.deadAt], hiddenCand{b, a})
}

// deltaC returns [a] \ C if [a] ∪ C is a configuration and [a] \ C
// holds no event of D it looks at. If not, it sets q.deadAt to the size
// C must shrink below for that to change: 1 + the position in C of the
// earliest event of C that a is found to conflict with (a stays
// incompatible until C loses it), or less for an event of D in [a] (see
// inDUntil). Every thread of [a] is checked for that, not just up to the
// first reason, so that a rejected candidate is not taken up again too
// early (on MPAT(6) this halves the calls; a spin loop makes candidates
// that part from C in one thread at an event C changes at every level,
// and are above an event of D in another).
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
	ownDone := dead >= 0
	delta := q.deltaBuf[:0]
	for ui, x := range a.tmax {
		if x == nil || (int32(ui) == a.thread && ownDone) {
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
			// a is above an event of D (for as long as D holds it).
			// Checked before the walk below: a thread spinning past D's
			// event makes long walks.
			note(q.inDUntil(b))
			continue
		}
		if dead < 0 {
			for y := x; y != nil && (cm == nil || y.idx > cm.idx); y = y.pred {
				delta = append(delta, y)
			}
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
		i = q.c.posOn(l, w) + 1
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
// long as C holds it, x is incompatible with C. If x's own event at that
// index is in D, it returns the size of C it waits for (inDUntil) if
// that is smaller: a thread that spins makes candidates that part from C
// at a read that D holds.
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
	dead := ch[hi].cpos + 1
	if b := ancestorAt(x, hi); b.inD > 0 {
		dead = min(dead, q.inDUntil(b))
	}
	return dead
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

// inDUntil is, for an event f of D, the size of C that a candidate above
// f must wait for: f stays in D until the call of Explore that added it
// returns, and that call's C has q.dAt[f.dpos] events. It sets q.deadD.
func (q *qexplorer) inDUntil(f *uevent) int32 {
	q.deadD = true
	return q.dAt[f.dpos]
}

// outlive lowers dead, the size of C below which a rejected candidate a
// may fit again, past the events of C that are in [a]. When C shrinks to
// dead-1 events, its event at position dead-1 has just been popped by
// the call of Explore that pushed it, which puts it into D for the rest
// of the call (line 9 of Alg. 1): if that event is in [a], a is above an
// event of D until that call returns, which is when C shrinks once more.
// (A thread spinning on a flag makes candidates above every read of the
// spin: without this they were taken up and turned down again once per
// read, quadratic in the length of the spin.) A run of C's events of one
// thread is passed in one step: if its last event is in [a], so are the
// others, its ancestors. After a few runs it stops, which is safe (a is
// only taken up again sooner): a spin makes one long run.
func (q *qexplorer) outlive(a *uevent, dead int32) int32 {
	c := &q.c
	for runs := 0; runs < 3 && dead > 0; runs++ {
		g := c.events[dead-1]
		if !leq(g, a) {
			break
		}
		// The run of g's thread in C that ends at g: its events
		// ch[lo..g.idx] sit at the positions just before g's (the
		// positions grow along the chain, by one within the run).
		ch := c.chain[g.thread]
		lo, hi := int32(0), g.idx
		for lo < hi {
			mid := (lo + hi) / 2
			if ch[mid].cpos == g.cpos-(g.idx-mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		dead = ch[lo].cpos
	}
	return dead
}
