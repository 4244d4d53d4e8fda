package unfolding

import (
	"math/bits"
	"unsafe"

	"weft/engine/interp"
	"weft/engine/ir"
)

// Events: their names, pasts, footprints, causality (thread trees with
// skip pointers) and the set U they are found in.

// uevent is an event of the unfolding: an action of one thread after a
// history (see the package doc).
type uevent struct {
	// The fields read most often come first: the first 64 bytes of the
	// struct share a cache line.
	id       int32
	thread   int32 // uid
	idx      int32 // index in its thread
	cpos     int32 // position in C's events, while in C
	inD      int32 // how many times in the current D
	stamp    int32 // scratch
	floc     int32
	fkind    ir.EventKind // its action's footprint (with act.acc for atomic blocks)
	executed bool         // known once executed: executed, stop, finished, stopKind, childFin
	stop     bool
	finished bool
	pred     *uevent
	lastW    *uevent   // single-location events (hasLastW): the last write of it in the history, or nil
	tmax     []*uevent // per uid: the last event of that thread in [e]; beyond its length, within its capacity, the skip pointers (anc)
	act      *action   // the action (shared by the events after the same predecessor)
	next     *action   // the thread's next action after this event (nil if none; known once executed)
	maxs     []*uevent // ⊆-maximal events of the history other than pred, by id

	childUID int32 // spawn events: the child
	holder   int32 // mutex events (lock, unlock, trylock, wait, wake: uevent.mutex): uid+1 of the holder after the event, 0 if free
	lpos     int32 // single-location events: position in C's events on the location, while in C
	dpos     int32 // while in D: its last index in qexplorer.d
	bpos     int32 // index in bucket.ev (-1: hidden)
	kpos     int32 // index in pred.kids.ev (-1: hidden)
	stopKind interp.StopKind
	childFin bool  // spawn events: the child finished without a visible step
	wide     bool  // its children are also indexed by key hash (unfolding.wide)
	memo     bool  // some enumeration of extensions after it was remembered (qexplorer.memos)
	tsteps   int32 // fine steps of its thread up to and including it, once executed (a stop counts none)

	hkey      uint64      // keyHash of its name
	hnext     *uevent     // the next child of pred, or (a thread's first event) the next with the same key hash in byKey
	child     *uevent     // its first child (the events after it in its thread, by hnext)
	spawner   *uevent     // first event of a spawned thread: the spawn
	childNext *action     // spawn events: the child's first action (known once executed)
	bucket    *candBucket // single-location events: its bucket among the spike candidates (candGroup)
	wgroups   *candGroup  // the groups of spike candidates whose last write of a location is this event
	kids      candBucket  // the events after it in its thread (spike candidates)
}

// pastSteps is the number of fine steps that must happen before an event
// of thread t whose strict past has the per-thread maxima tm (all
// executed; tm[t] is its predecessor): all of thread t's steps before it,
// and of every other thread its steps up to the head of its last event
// there. The tail of that last event (plain accesses, see "Coarse steps")
// is not needed: nothing depends on it without a data race, and a data
// race restarts the exploration with fine steps. It grows strictly along
// causality, so the events within the bound are causally closed.
func pastSteps(tm []*uevent, t int32) int64 {
	var n int64
	for i, x := range tm {
		switch {
		case x == nil:
		case int32(i) == t:
			n += int64(x.tsteps)
		default:
			n += int64(x.headSteps())
		}
	}
	return n
}

// headSteps is the number of fine steps of e's thread up to e's head (a
// stop takes none).
func (e *uevent) headSteps() int32 {
	if e.stop {
		return e.predSteps()
	}
	return e.predSteps() + 1
}

// pastOf is pastSteps for e (executed or enabled). It is counted, not
// kept: only steps near the bound need it, and a field would take the
// struct past 256 bytes (the next size class is 288).
func (e *uevent) pastOf() int32 {
	var n int64
	for i, x := range e.tmax {
		if x != nil && int32(i) != e.thread {
			n += int64(x.headSteps())
		}
	}
	return int32(n + int64(e.predSteps()))
}

// predSteps is the number of fine steps of e's thread before e.
func (e *uevent) predSteps() int32 {
	if e.pred == nil {
		return 0
	}
	return e.pred.tsteps
}

// footprint is e's footprint: what its action accesses.
func (e *uevent) footprint() ir.Footprint {
	fp := ir.Footprint{Kind: e.fkind, Loc: e.floc}
	if multiLoc(e.fkind) {
		fp.Acc = e.act.acc
	}
	return fp
}

// mutex is the mutex e's step takes or lets go of (its holder field is
// the holder after it), or -1.
func (e *uevent) mutex() int32 {
	switch e.fkind {
	case ir.EvLock, ir.EvUnlock, ir.EvTrylock:
		return e.floc
	case ir.EvWait:
		return e.act.acc[0].Loc
	case ir.EvWake:
		return e.act.acc[1].Loc
	}
	return -1
}

// multiLoc reports whether the steps of kind k may access several
// locations, listed in their action's acc: atomic blocks, waits (the
// mutex and the condition variable, both written) and wake-ups (the
// condition variable read, the mutex written).
func multiLoc(k ir.EventKind) bool {
	return k == ir.EvAtomic || k == ir.EvWait || k == ir.EvWake
}

// single is footprint.single for e's footprint.
func (e *uevent) single() (loc int32, write bool) {
	fp := ir.Footprint{Kind: e.fkind, Loc: e.floc}
	return fp.Single()
}

// access reports whether e accesses loc, and whether it writes it.
func (e *uevent) access(loc int32) (touch, write bool) {
	if multiLoc(e.fkind) {
		return ir.AccessIn(e.fkind, -1, e.act.acc, loc)
	}
	return ir.AccessIn(e.fkind, e.floc, nil, loc)
}

// touches calls f for each access of e (see ir.Footprint.Touches).
func (e *uevent) touches(f func(loc int32, write bool) bool) bool {
	fp := e.footprint()
	return fp.Touches(f)
}

// hasLastW reports whether e accesses exactly one location (a read, a
// write, a lock, an unlock, a trylock, a signal or a broadcast): lastW is
// kept for those.
func (e *uevent) hasLastW() bool {
	switch e.fkind {
	case ir.EvRead, ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock, ir.EvSignal, ir.EvBroadcast:
		return true
	}
	return false
}

// action is what a thread does next after some event (or at its start).
type action struct {
	kind     ir.EventKind
	loc      int32       // location; for join, the target's uid (-1: invalid handle)
	acc      []ir.Access // atomic blocks: the accesses observed
	probed   bool        // acc is known
	unstable bool        // acc is everything the block may access (AtomicFootprint)
	self     int32       // the thread (uid)
	// A choose has one action per value (see "Choose" in the package
	// doc): alt is its alternative (interp.Machine.StepAlt), nalt how
	// many there are; the action a thread stands at (alternative 0) keeps
	// the others, made on demand, and they point back to it (base).
	alt, nalt int32
	alts      []*action
	base      *action
	inD       []*uevent // alternative 0's: the alternatives in D, in the order they entered it (D is a stack)
}

// alternative is the action of alternative i of choose action a.
func (a *action) alternative(i int32) *action {
	if a.base != nil {
		a = a.base
	}
	if i == 0 {
		return a
	}
	for int32(len(a.alts)) <= i {
		a.alts = append(a.alts, nil)
	}
	if a.alts[i] == nil {
		b := *a
		b.alt, b.alts, b.base = i, nil, a
		a.alts[i] = &b
	}
	return a.alts[i]
}

func (a *action) footprint() ir.Footprint {
	fp := ir.Footprint{Kind: a.kind, Loc: a.loc}
	if multiLoc(a.kind) {
		fp.Acc = a.acc
	}
	if a.kind == ir.EvJoin || a.kind == ir.EvSpawn || a.kind == ir.EvStop {
		fp.Loc = -1
	}
	return fp
}

// access reports whether a accesses loc, and whether it writes it (an
// atomic block's accesses must be known: probed).
func (a *action) access(loc int32) (touch, write bool) {
	return ir.AccessIn(a.kind, a.loc, a.acc, loc)
}

// unfolding is the set U of events discovered so far.
type unfolding struct {
	prog   *ir.Program
	events int32
	byKey  map[uint64]*uevent // threads' first events by keyHash, chained by uevent.hnext (the others are found among their predecessor's children)
	// The spike candidates are indexed by (location l they touch, last
	// write w of l in their history), one list per thread, one bucket per
	// index in the thread (candGroup): the group of (l, nil) is
	// unwritten[l], that of (l, w) is on w's chain of groups
	// (uevent.wgroups; a write of one location has one).
	unwritten []*candGroup
	uidKey    map[[2]int32]int32
	starts    []*action // declared threads: first action
	startFin  []bool    // declared threads: finished at once
	nuid      int32
	maxBuf    []*uevent
	all       []*uevent // the events of U, in the order they were made
	bound     int32     // the step bound: no event has that many fine steps in its past
	beyond    bool      // set by event when it refused an event beyond the bound
	// wide indexes by key hash the children of the events with many
	// (a write after a spin loop has one version per read of the loop):
	// one event per hash, the others found in the child list.
	wide  map[*uevent]map[uint64]*uevent
	multi map[*uevent][]*candBucket // events that access several locations: their buckets
}

// eventExtraBytes is about what an event holds beside its struct: its
// children, its history, its index entries.
const eventExtraBytes = 128

// bytes is about how much memory U holds: its events and their indexes.
func (u *unfolding) bytes() int64 {
	return int64(len(u.all)) * (int64(unsafe.Sizeof(uevent{})) + eventExtraBytes)
}

func newUnfolding(prog *ir.Program, m *interp.Machine, uidOf func(int) int32) *unfolding {
	u := &unfolding{
		prog:      prog,
		byKey:     make(map[uint64]*uevent),
		uidKey:    make(map[[2]int32]int32),
		unwritten: make([]*candGroup, len(prog.Locations)),
		multi:     make(map[*uevent][]*candBucket),
		wide:      make(map[*uevent]map[uint64]*uevent),
		nuid:      int32(len(prog.Threads)),
	}
	for t := range prog.Threads {
		u.starts = append(u.starts, peekAction(m, t, uidOf))
		u.startFin = append(u.startFin, m.Threads[t].Status == interp.Finished)
	}
	return u
}

// peekAction describes thread t's next step on the machine (nil if the
// thread has finished or spins: see "Spin-waiting" in the package doc).
func peekAction(m *interp.Machine, t int, uidOf func(int) int32) *action {
	th := m.Threads[t]
	if th.Status == interp.Finished || th.Status == interp.Spinning {
		return nil
	}
	kind, loc := m.Peek(t)
	a := &action{kind: kind, loc: loc, self: uidOf(t)}
	if kind == ir.EvJoin {
		if loc >= 0 && int(loc) < len(m.Threads) {
			a.loc = uidOf(int(loc))
		} else {
			a.loc = -1
		}
	}
	if kind != ir.EvAtomic {
		a.probed = true
	}
	switch kind {
	case ir.EvChoose:
		a.nalt = int32(m.Alternatives(t))
	case ir.EvWait, ir.EvWake:
		// Their operands: A the mutex, B the condition variable.
		in := th.Body.Code[th.PC]
		mx, cv := int32(th.Frame[in.A]), int32(th.Frame[in.B])
		if kind == ir.EvWait {
			a.acc = []ir.Access{{Loc: mx, Write: true}, {Loc: cv, Write: true}}
		} else {
			a.acc = []ir.Access{{Loc: cv}, {Loc: mx, Write: true}}
		}
	}
	return a
}

// childUID returns the uid of the spawnIndex-th thread spawned by parent.
func (u *unfolding) childUID(parent, spawnIndex int32) int32 {
	k := [2]int32{parent, spawnIndex}
	if id, ok := u.uidKey[k]; ok {
		return id
	}
	id := u.nuid
	u.nuid++
	u.uidKey[k] = id
	return id
}

func tmaxAt(tm []*uevent, t int32) *uevent {
	if int(t) < len(tm) {
		return tm[t]
	}
	return nil
}

// anc returns e's skip pointers: anc[i] is its ancestor at distance 2^i in
// its thread tree. They share tmax's allocation.
func (e *uevent) anc() []*uevent { return e.tmax[len(e.tmax):cap(e.tmax)] }

// ancestorAt returns the ancestor of x (or x) with index idx in its thread.
func ancestorAt(x *uevent, idx int32) *uevent {
	for x != nil && x.idx > idx {
		anc := x.anc()
		i := bits.Len32(uint32(x.idx-idx)) - 1
		if i >= len(anc) {
			i = len(anc) - 1
		}
		x = anc[i]
	}
	return x
}

// leqView reports whether a is in the configuration whose per-thread
// maxima are tm.
func leqView(a *uevent, tm []*uevent) bool {
	x := tmaxAt(tm, a.thread)
	return x != nil && x.idx >= a.idx && ancestorAt(x, a.idx) == a
}

// leq reports a ≤ b (causality, reflexive).
func leq(a, b *uevent) bool { return leqView(a, b.tmax) }

// mergeInto takes the per-thread maximum of tm and e.tmax into tm (the
// union of two compatible local configurations).
func mergeInto(tm []*uevent, e *uevent) []*uevent {
	for len(tm) < len(e.tmax) {
		tm = append(tm, nil)
	}
	for i, x := range e.tmax {
		if x != nil && (tm[i] == nil || tm[i].idx < x.idx) {
			tm[i] = x
		}
	}
	return tm
}

// udep reports whether two events of different threads are dependent.
func udep(a, b *uevent) bool {
	if a.fkind == ir.EvJoin && a.act.loc == b.thread && b.finished {
		return true
	}
	if b.fkind == ir.EvJoin && b.act.loc == a.thread && a.finished {
		return true
	}
	if a.fkind == ir.EvSpawn && a.childUID == b.thread && b.idx == 0 && b.spawner == a {
		return true
	}
	if b.fkind == ir.EvSpawn && b.childUID == a.thread && a.idx == 0 && a.spawner == b {
		return true
	}
	fa, fb := a.footprint(), b.footprint()
	return accessDep(&fa, &fb)
}

func accessDep(a, b *ir.Footprint) bool {
	if !multiLoc(a.Kind) && !multiLoc(b.Kind) {
		// One access each at most (the common case, without closures).
		la, wa := a.Single()
		lb, wb := b.Single()
		return la >= 0 && la == lb && (wa || wb)
	}
	return a.Touches(func(la int32, wa bool) bool {
		return b.Touches(func(lb int32, wb bool) bool {
			return la == lb && (wa || wb)
		})
	})
}

// actDep reports whether action a (of another thread) depends on event e.
func actDep(a *action, e *uevent) bool {
	if a.kind == ir.EvJoin {
		return a.loc == e.thread && e.finished
	}
	fp := a.footprint()
	fe := e.footprint()
	return accessDep(&fp, &fe)
}

// keyHash hashes the name of ⟨a, H⟩: thread, predecessor, spawner,
// maximal events (sorted by id) and, for a choose, its alternative.
func keyHash(t int32, pred, spawner *uevent, maxs []*uevent, alt int32) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v int32) {
		h ^= uint64(uint32(v))
		h *= 1099511628211
		h ^= h >> 29
	}
	id := func(e *uevent) int32 {
		if e == nil {
			return -1
		}
		return e.id
	}
	mix(t)
	mix(id(pred))
	mix(id(spawner))
	for _, m := range maxs {
		mix(m.id)
	}
	if alt != 0 {
		mix(-1 - alt)
	}
	return h
}

// named reports whether e is the event named by (t, pred, spawner, maxs,
// alt).
func (e *uevent) named(t int32, pred, spawner *uevent, maxs []*uevent, alt int32) bool {
	if e.thread != t || e.pred != pred || e.spawner != spawner || len(e.maxs) != len(maxs) || e.act.alt != alt {
		return false
	}
	for i, m := range maxs {
		if e.maxs[i] != m {
			return false
		}
	}
	return true
}

// lookup finds the event named by (t, pred, spawner, maxs, alt) in U:
// among pred's children, or, for a thread's first event, in byKey.
func (u *unfolding) lookup(h uint64, t int32, pred, spawner *uevent, maxs []*uevent, alt int32) *uevent {
	e := u.byKey[h]
	if pred != nil {
		if pred.wide {
			switch f := u.wide[pred][h]; {
			case f == nil:
				return nil // no child has this hash
			case f.named(t, pred, spawner, maxs, alt):
				return f
			}
			// Another child with the same hash: look through them all.
		}
		e = pred.child
	}
	for ; e != nil; e = e.hnext {
		if e.hkey == h && e.named(t, pred, spawner, maxs, alt) {
			return e
		}
	}
	return nil
}

// widen indexes p's children by hash (unfolding.wide), once it has more
// than wideChildren of them (counted among its spike candidates, kids,
// which hold all its children but those hidden: a heuristic).
func (u *unfolding) widen(p *uevent) {
	if p.wide || len(p.kids.ev) <= wideChildren {
		return
	}
	m := make(map[uint64]*uevent, 2*wideChildren)
	for f := p.child; f != nil; f = f.hnext {
		if m[f.hkey] == nil {
			m[f.hkey] = f
		}
	}
	u.wide[p], p.wide = m, true
}

// wideChildren is the number of children beyond which an event's
// children are indexed by hash (unfolding.wide).
const wideChildren = 16

// event finds or creates the event of thread t with predecessor pred (or
// spawner for a spawned thread's first event), action a and history
// [pred] ∪ [spawner] ∪ [gen...]; gen must hold events of other threads.
// It returns nil for an event beyond the step bound, which is not in U;
// unless nearBound, the caller knows that none is (C has fewer steps than
// the bound), and the event's past is left to be counted when needed.
func (u *unfolding) event(t int32, pred, spawner *uevent, a *action, gen []*uevent, nearBound bool) *uevent {
	// The maximal elements of gen, not below pred or spawner, sorted by id
	// (in a scratch buffer: most events are found, not created).
	maxs := u.maxBuf[:0]
	for i, g := range gen {
		if (pred != nil && leq(g, pred)) || (spawner != nil && leq(g, spawner)) {
			continue
		}
		dominated := false
		for j, h := range gen {
			if i != j && g != h && leq(g, h) {
				dominated = true
				break
			}
			if j < i && g == h {
				dominated = true // duplicate
				break
			}
		}
		if !dominated {
			maxs = append(maxs, g)
		}
	}
	for i := 1; i < len(maxs); i++ {
		for j := i; j > 0 && maxs[j].id < maxs[j-1].id; j-- {
			maxs[j], maxs[j-1] = maxs[j-1], maxs[j]
		}
	}
	u.maxBuf = maxs
	h := keyHash(t, pred, spawner, maxs, a.alt)
	if e := u.lookup(h, t, pred, spawner, maxs, a.alt); e != nil {
		return e
	}
	e := &uevent{thread: t, pred: pred, spawner: spawner, act: a, childUID: -1}
	fp := a.footprint()
	e.fkind, e.floc = fp.Kind, fp.Loc
	// tmax and the skip pointers share one allocation.
	n, nanc := int(t)+1, 0
	if pred != nil {
		e.idx = pred.idx + 1
		n = max(n, len(pred.tmax))
		nanc = 1
		for x := pred; nanc-1 < len(x.anc()); nanc++ {
			x = x.anc()[nanc-1]
		}
	}
	if spawner != nil {
		n = max(n, len(spawner.tmax))
	}
	for _, m := range maxs {
		n = max(n, len(m.tmax))
	}
	buf := make([]*uevent, n+nanc+len(maxs))
	tm := buf[:n:n]
	e.maxs = buf[n+nanc:]
	copy(e.maxs, maxs)
	maxs = e.maxs
	if pred != nil {
		mergeInto(tm, pred)
		anc := buf[n : n+1 : n+nanc]
		anc[0] = pred
		for i := 0; i < len(anc[i].anc()); i++ {
			anc = append(anc, anc[i].anc()[i])
		}
	}
	if spawner != nil {
		mergeInto(tm, spawner)
	}
	for _, m := range maxs {
		mergeInto(tm, m)
	}
	// tm is [e)'s per-thread maxima (tm[t] is pred): every event of it is
	// in C, so executed, and thread i contributes tm[i].tsteps steps.
	if nearBound && pastSteps(tm, t) >= int64(u.bound) {
		u.beyond = true // the caller reports it (see "The step bound")
		return nil
	}
	e.id = u.events
	u.events++
	tm[t] = e
	e.tmax = buf[: n : n+nanc]
	e.bpos, e.kpos = -1, -1
	if pred != nil {
		pred.kids.add(e)
	}
	e.hkey = h
	if pred != nil {
		e.hnext, pred.child = pred.child, e
		if pred.wide {
			if m := u.wide[pred]; m[h] == nil {
				m[h] = e
			}
		} else {
			u.widen(pred)
		}
	} else {
		e.hnext, u.byKey[h] = u.byKey[h], e
	}
	u.all = append(u.all, e)
	return e
}
