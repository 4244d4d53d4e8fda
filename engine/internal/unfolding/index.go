package unfolding

import "sort"

// The spike candidates, indexed by location, last write, thread and index
// in the thread.

// candBucket is a list of spike candidates. Candidates found incompatible
// with C (or in C) stay so for every extension of C: they are taken out
// of the bucket and put back when C shrinks below the size it had (see
// qexplorer.hidden). A single-location event knows its index in the bucket
// of its candGroup it is in (bpos) and in its predecessor's kids (kpos),
// so that pruning takes it out without visiting the others. A bucket
// whose candidates are all hidden stays in its candList, unless the list
// is long (candList.sparse).
//
// Buckets, lists and groups are made by the hundred thousand and most stay
// small: each holds its first few elements (and a group its first list, a
// list its first bucket) in place, so a new group is one allocation.
type candBucket struct {
	idx     int32     // in a candList: the index in their thread of its events
	nhidden int32     // candidates of this bucket out of it (qexplorer.hidden)
	list    *candList // nil for kids
	ev      []*uevent
	inline  [2]*uevent // ev's first backing array
}

// candList holds the spike candidates of one thread for one (location,
// last write), in buckets by their index in the thread, sorted: a
// candidate compatible with C extends C's events of its thread, so the
// buckets up to C's last event of the thread, plus one (those are found
// among the children of that event, uevent.kids), need no look.
//
// The buckets are buf[lo:hi], with room at both ends: events are made
// deeper in a thread along a branch (new buckets at the end) and
// shallower as the exploration backtracks (new buckets in front), and a
// spin loop makes thousands of buckets either way.
//
// A list that has had sparseMin buckets is sparse: a bucket of it is in
// it exactly when it is not empty. One that empties leaves it
// (candList.unlinkBucket) and comes back with the first candidate put
// back (candList.linkBucket), so that alt never walks through empty
// buckets (a spin loop leaves thousands of them, one per read, their
// candidates hidden for good). Short lists keep their empty buckets:
// taking them out and putting them back costs more than passing them.
type candList struct {
	thread  int32
	nhidden int32 // candidates of its buckets out of them (qexplorer.hidden)
	lo, hi  int32
	sparse  bool
	group   *candGroup
	buf     []*candBucket
	inline  [2]*candBucket // buf's first backing array
	first   candBucket     // the first bucket made (never reused)
}

// buckets returns l's buckets, in order (a view, valid until l changes).
func (l *candList) buckets() []*candBucket { return l.buf[l.lo:l.hi] }

// insertAt puts b at index i of l's buckets, moving the buckets before it
// or those after it, the fewer if both ends have room; if the end it
// would move them to has none, the buffer grows (twice as long, with room
// at both ends) rather than move more than half of them.
func (l *candList) insertAt(i int, b *candBucket) {
	lo, hi, n := int(l.lo), int(l.hi), int(l.hi-l.lo)
	switch {
	case lo > 0 && 2*i <= n:
		copy(l.buf[lo-1:], l.buf[lo:lo+i])
		l.lo--
	case hi < len(l.buf) && 2*i >= n:
		copy(l.buf[lo+i+1:hi+1], l.buf[lo+i:hi])
		l.hi++
	default:
		grown := make([]*candBucket, 2*n+4)
		nlo := (len(grown) - n - 1) / 2
		copy(grown[nlo:], l.buf[lo:lo+i])
		copy(grown[nlo+i+1:], l.buf[lo+i:hi])
		if &l.buf[0] == &l.inline[0] {
			clear(l.inline[:]) // stale pointers would keep pruned events alive
		}
		l.buf, l.lo, l.hi = grown, int32(nlo), int32(nlo+n+1)
	}
	l.buf[int(l.lo)+i] = b
}

// removeAt takes the i-th bucket out of l's buckets, moving the fewer of
// the buckets before and after it.
func (l *candList) removeAt(i int) {
	lo, hi := int(l.lo), int(l.hi)
	if 2*i < hi-lo {
		copy(l.buf[lo+1:], l.buf[lo:lo+i])
		l.buf[lo] = nil
		l.lo++
	} else {
		copy(l.buf[lo+i:], l.buf[lo+i+1:hi])
		l.buf[hi-1] = nil
		l.hi--
	}
}

// keep keeps the buckets of l that keep says so of, in order.
func (l *candList) keep(keep func(*candBucket) bool) {
	bs := l.buckets()
	out := bs[:0]
	for _, b := range bs {
		if keep(b) {
			out = append(out, b)
		}
	}
	clear(bs[len(out):])
	l.hi = l.lo + int32(len(out))
}

// candGroup holds the candidate lists of one (location, last write), one
// per thread: a spike never needs the events of its own event's thread.
type candGroup struct {
	loc    int32
	w      *uevent    // the last write, or nil
	next   *candGroup // the next group of w (another location)
	lists  []*candList
	inline [4]*candList // lists' first backing array
	first  candList     // the first list made (never reused)
}

// group returns the group of spike candidates of (l, w), or nil; with
// create, it makes it if need be.
func (u *unfolding) group(l int32, w *uevent, create bool) *candGroup {
	if w == nil {
		if g := u.unwritten[l]; g != nil || !create {
			return g
		}
		g := &candGroup{loc: l}
		u.unwritten[l] = g
		return g
	}
	for g := w.wgroups; g != nil; g = g.next {
		if g.loc == l {
			return g
		}
	}
	if !create {
		return nil
	}
	g := &candGroup{loc: l, w: w, next: w.wgroups}
	w.wgroups = g
	return g
}

// dropGroup takes the empty group g out of the index.
func (u *unfolding) dropGroup(g *candGroup) {
	if g.w == nil {
		u.unwritten[g.loc] = nil
		return
	}
	for p := &g.w.wgroups; *p != nil; p = &(*p).next {
		if *p == g {
			*p = g.next
			return
		}
	}
}

// list returns the list of thread t, creating it.
func (g *candGroup) list(t int32) *candList {
	for _, l := range g.lists {
		if l.thread == t {
			return l
		}
	}
	l := firstOrNew(g.lists, &g.first)
	l.thread, l.group = t, g
	g.lists = appendInline(g.lists, g.inline[:], l)
	return l
}

// firstOrNew returns first, the element kept in place, for the first
// element ever added to s (s is nil until then), and a new one after.
func firstOrNew[T, E any](s []E, first *T) *T {
	if s == nil {
		return first
	}
	return new(T)
}

// appendInline appends x to s, whose first backing array is inline. When
// s outgrows it, inline is cleared: stale pointers there would keep pruned
// events alive.
func appendInline[T any](s, inline []T, x T) []T {
	if s == nil {
		s = inline[:0]
	}
	if len(s) == cap(s) && cap(s) > 0 && &s[:1][0] == &inline[0] {
		grown := make([]T, len(s), 2*cap(s))
		copy(grown, s)
		clear(inline)
		s = grown
	}
	return append(s, x)
}

// bucket returns a bucket of index idx in l, creating it. (An empty
// bucket of that index out of the list, waiting for hidden candidates,
// is not reused: a list may hold two buckets of one index.)
func (l *candList) bucket(idx int32) *candBucket {
	i := int(l.hi - l.lo)
	if i > 0 {
		if last := l.buf[l.hi-1]; last.idx == idx {
			return last
		} else if last.idx > idx {
			i = l.from(idx)
			if b := l.buf[int(l.lo)+i]; b.idx == idx {
				return b
			}
		}
	}
	if !l.sparse && int(l.hi-l.lo) >= sparseMin-1 {
		// It becomes sparse: its empty buckets go.
		l.sparse = true
		l.keep(func(b *candBucket) bool { return len(b.ev) > 0 })
		i = l.from(idx)
	}
	var b *candBucket
	if l.buf == nil {
		b = &l.first
		l.buf = l.inline[:]
	} else {
		b = new(candBucket)
	}
	b.idx, b.list = idx, l
	if i == int(l.hi-l.lo) && int(l.hi) < len(l.buf) {
		l.buf[l.hi] = b // at the end, where there is room: the common case
		l.hi++
	} else {
		l.insertAt(i, b)
	}
	return b
}

// from returns the index in l's buckets of the first bucket of index idx
// or more.
func (l *candList) from(idx int32) int {
	if l.hi == l.lo || l.buf[l.lo].idx >= idx {
		return 0
	}
	bs := l.buckets()
	return sort.Search(len(bs), func(i int) bool { return bs[i].idx >= idx })
}

// unlinkBucket takes b, empty, out of l's buckets, if it is there.
func (l *candList) unlinkBucket(b *candBucket) {
	bs := l.buckets()
	for i := l.from(b.idx); i < len(bs) && bs[i].idx == b.idx; i++ {
		if bs[i] == b {
			l.removeAt(i)
			return
		}
	}
}

// linkBucket puts b, out of l's buckets, back in its place.
func (l *candList) linkBucket(b *candBucket) {
	bs := l.buckets()
	l.insertAt(sort.Search(len(bs), func(i int) bool { return bs[i].idx > b.idx }), b)
}

// sparseMin is the number of buckets that makes a list sparse.
const sparseMin = 8

// hideAt takes the j-th candidate out of b, to be put back by unhide; a
// bucket of a sparse list left empty leaves its list.
func (b *candBucket) hideAt(j int) *uevent {
	a := b.removeAt(j)
	b.nhidden++
	if l := b.list; l != nil {
		l.nhidden++
		if l.sparse && len(b.ev) == 0 {
			l.unlinkBucket(b)
		}
	}
	return a
}

// unhide puts a, taken out by hideAt, back into b.
func (b *candBucket) unhide(a *uevent) {
	b.nhidden--
	if l := b.list; l != nil {
		l.nhidden--
		if l.sparse && len(b.ev) == 0 {
			l.linkBucket(b)
		}
	}
	b.add(a)
}

// forget drops a hidden candidate of b for good (pruning).
func (b *candBucket) forget() {
	b.nhidden--
	if b.list != nil {
		b.list.nhidden--
	}
}

// setPos records that e is at index j of b (-1: out of it).
func (b *candBucket) setPos(e *uevent, j int) {
	if b == e.bucket {
		e.bpos = int32(j)
	} else if e.pred != nil && b == &e.pred.kids {
		e.kpos = int32(j)
	}
}

// posOf is the index of e in b, or -1.
func (b *candBucket) posOf(e *uevent) int {
	switch {
	case b == e.bucket:
		return int(e.bpos)
	case e.pred != nil && b == &e.pred.kids:
		return int(e.kpos)
	}
	for j, f := range b.ev { // an event with several locations
		if f == e {
			return j
		}
	}
	return -1
}

// add appends e to b.
func (b *candBucket) add(e *uevent) {
	b.ev = appendInline(b.ev, b.inline[:], e)
	b.setPos(e, len(b.ev)-1)
}

// removeAt takes the j-th event out of b (the last one takes its place).
func (b *candBucket) removeAt(j int) *uevent {
	e := b.ev[j]
	n := len(b.ev) - 1
	if j != n {
		b.ev[j] = b.ev[n]
		b.setPos(b.ev[j], j)
	}
	b.ev[n] = nil
	b.ev = b.ev[:n]
	b.setPos(e, -1)
	return e
}

// dropIfUnused takes an empty bucket out of its list (in a list that is
// not sparse, only if no hidden candidate comes back to it), and the list
// and group out of the index when they have no bucket left and no hidden
// candidate to come back.
func (u *unfolding) dropIfUnused(b *candBucket) {
	l := b.list
	if l == nil || len(b.ev) > 0 || (!l.sparse && b.nhidden > 0) {
		return
	}
	l.unlinkBucket(b)
	if l.hi > l.lo || l.nhidden > 0 {
		return
	}
	g := l.group
	g.lists = removeElem(g.lists, l)
	if len(g.lists) == 0 {
		u.dropGroup(g)
	}
}

// removeElem removes x from s, keeping the order.
func removeElem[T comparable](s []T, x T) []T {
	for i, y := range s {
		if y == x {
			copy(s[i:], s[i+1:])
			var zero T
			s[len(s)-1] = zero
			return s[:len(s)-1]
		}
	}
	return s
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
		// Both are in C, whose order orders the writes of l.
		if w != nil && (best == nil || w.cpos > best.cpos) {
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
