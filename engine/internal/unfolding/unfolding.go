package unfolding

import (
	"math/bits"
	"weft/engine/interp"
	"weft/engine/ir"
)

// The unfolding (prime event structure) that the qpor and optimal modes
// explore, after Nguyen, Rodríguez, Sousa, Coti and Petrucci,
// "Quasi-Optimal Partial Order Reduction" (CAV'18), Def. 1, extended from
// lock/unlock/create/join programs to Weft's read/write dependence.
//
// # Events
//
// An event is ⟨a, H⟩: an action a of one thread after a history H (a
// configuration). It is named canonically by its thread, its thread
// predecessor p (the previous event of the same thread, or none) and the
// set of ⊆-maximal events of H other than p; two discoveries of the same
// ⟨a, H⟩ give the same *uevent (the index `byKey`). The action a is
// determined by H: the thread's local state after p fixes the instruction
// and the locations it touches, and state(H) fixes the values read.
// Values do not matter for dependence, so an event's footprint (kind,
// location, read/write) is known from p alone and the values are learnt
// when the event is executed on the Machine. Atomic blocks are the
// exception: their locations may depend on the values they read. For a
// Stable block (Program AtomicFootprint: addresses fixed by the frame when
// it starts) the accesses observed when it is first run after p are its
// footprint after p; for an unstable one the footprint is everything the
// block may read or write (AtomicFootprint.Reads/Writes), the same for every
// history. Over-approximating dependence is sound (the independence stays
// an under-approximation of commutation); it only adds events, so on
// programs with unstable atomic blocks the number of executions may exceed
// the number of Mazurkiewicz traces of the exact dependence.
//
// Threads are named by a stable id (uid): declared threads by their index,
// spawned threads by (parent uid, spawn index). Machine indices depend on
// the interleaving of spawns and are mapped to uids per execution.
//
// # Independence
//
// Two actions of different threads are dependent exactly as in
// language.md: they touch the same shared location and one writes it
// (lock and unlock are writes of the mutex; an atomic block touches each
// location it accesses), or one is `join T` and the other is T's last
// step, or one spawns the other's thread. This relation is symmetric and
// irreflexive across threads, and independent actions commute at every
// reachable state (reads of one location commute; accesses to different
// locations commute; a lock is enabled iff the mutex is free, which only
// events on the mutex change; a join is enabled iff T has finished, which
// only T's last step changes). So it is an independence in the sense of
// Sec. 2 of the paper, and Def. 1 yields a PES whose configurations are
// exactly the Mazurkiewicz traces of Weft executions. In this PES:
//
//   - e < f iff e is in f's history. Each event keeps tmax (Def. 7): for
//     every thread, the last event of that thread in its local
//     configuration. Events of one thread form a tree (thread tree; two
//     events of one thread are ordered or in conflict), so e ≤ f iff e is
//     an ancestor of tmax(f, thread(e)) in its thread tree; ancestors are
//     found with skip pointers at distances 1, 2, 4, … (Sec. 5.2).
//   - Immediate conflict is "dependent and causally unordered"; conflict
//     is inherited. Hence X ∪ Y (X, Y configurations) is a configuration
//     iff for every thread the tmax of X and Y are ordered, and no event of
//     X \ Y is dependent with an event of Y \ X: an immediate conflict
//     a # b with a ∈ X, b ∈ Y has a ∉ Y and b ∉ X, since a configuration
//     holds no conflict. This generalises Theorem 6 (the lock trees become
//     the per-location access order).
//
// # Extensions
//
// When e is added to the explored configuration C (C' = C ∪ {e}), the new
// extensions ex(C') \ ex(C) are the events ⟨a, H⟩ with e ∈ H ⊆ C'; e is
// then ⊆-maximal in H, so a depends on e (or e is a's thread predecessor,
// or spawns a's thread). For each thread t and each position p of t in C'
// (an event of t, or t's start) whose next action a depends on e, every
// H = [p] ∪ [e] ∪ [M] is enumerated, where M is an antichain of C'-events
// dependent with a, none below [p] ∪ [e] and none after p's successor in
// C'; then every ⊆-maximal event of H depends on a, as Def. 1 requires,
// and a is enabled at state(H) when a is a lock of a free mutex (the last
// event on the mutex in H leaves it free) or a join of a finished thread.
// The ⊆-maximal configurations of C' ∪ {antichains} are small in practice:
// events on one location with a write are totally ordered in C', so M
// only ranges over sets of concurrent reads (for a write) and over
// combinations of locations (for atomic blocks). The positions of C are
// indexed by the locations and join targets of their next action
// (config.nextOn, config.joinOn), so only those that depend on e are
// visited; positions before the last event of t in [e] are skipped (their
// successor in C' is below e, so no history there can hold e).
//
// # Alternatives (Def. 5 and 6, the comb)
//
// Alt(C, D) in qpor.go picks k events of D that are enabled at C (the
// event just explored first, then the most recently added; "optimal" takes
// all of them: events of D already in conflict with C need no partner) and
// builds one spike per picked event d: the events a of U in immediate
// conflict with d (dependent, unordered) such that [a] ∪ C is a
// configuration and [a] ∩ D = ∅. A combination of pairwise compatible
// spike elements (C ∪ [a1] ∪ … ∪ [ak] a configuration, checked on the
// small sets [ai] \ C) gives the clue J; J \ C is the set A of the next
// call. Restricting spikes to immediate conflicts loses nothing: if ê
// conflicts with d and [ê] ∪ C is a configuration, the immediate conflict
// behind it is a # d with a ≤ ê (the other side lies in [d] ⊆ C ∪ {d} and
// cannot be in C), and a satisfies every constraint ê does. Likewise a may
// be taken to be the first access outside C, in [ê], to a location that d
// accesses (the first write, if d only reads it): its history holds the
// last write to that location in C and no later one. Events of d's own
// thread need no spike of their own: a sibling of d (same predecessor, so
// the same action) compatible with C has in its history an event outside C
// that d depends on, which is in immediate conflict with d. So U is indexed
// by (location, last write of it in the history), and a spike is read from
// one group per location of d, one list per thread there. A candidate a of
// thread t compatible with C extends C's events of t: it is a child of
// C's last event cm of t (found in cm's children, uevent.kids) or comes
// later (the list's buckets of index above cm's plus one); the other
// buckets are not visited. A candidate found in C, incompatible with C or
// above an event of D stays so while C holds the event that excludes it
// (or in the whole subtree of the current call: C and D only grow there),
// so it leaves its bucket until the exploration backtracks above that
// event (qexplorer.hidden). The spike of the last picked
// event is scanned lazily: the scan stops at the first element that
// completes a combination (for k = 1, at the first element).
//
// # Pruning
//
// Line 13 of Alg. 1 keeps Q_{C,D}: C ∪ D and, following Rodríguez et al.
// (CONCUR'15), the local configurations of the events in immediate
// conflict with C ∪ D, the only events spikes ever hold. (With inherited
// conflicts every event after an event of D conflicts with the other
// events of D, and almost nothing would go.) The test for immediate
// conflict (qexplorer.inConflictCD) may say yes wrongly, never no
// wrongly: e #ⁱ g needs [e) ∪ [g) to have ordered maxima on every
// thread, and, when e and g access one location each, the same one, the
// same last write of it in their histories (if the last writes differ,
// the later one is in one past and conflicts with the other event, so the
// conflict is inherited); of C's events on that location only those after
// that write, up to the next write, qualify; a join or a spawn is only in
// immediate conflict with its siblings in its thread tree. We prune when U
// has grown by half since the last pruning (at least 50,000 events), so
// that the cost is amortised (a pass over U); each dropped event takes
// itself out of the indexes, knowing its place in each, so that kept
// events are not visited twice. The tests also prune after every call.
// A pruned event that is
// discovered again is a new object; the events kept keep their whole
// causal past, so an event and a stale copy are never both reachable.
//
// # Steps that stop the execution
//
// A stop (a failed assertion or assume, a runtime error, the local step
// bound) happens in the real program only as the last step. For the
// unfolding we use a different, equally sound LTS: a stop ends its own
// thread only and has no effect on the state; its footprint is the
// accesses it made (dependence with them is needed because, for an atomic
// block, whether it fails depends on the values it read). Every prefix of
// a real execution is an execution of this LTS and conversely every event
// other than a stop that happens after a stop in this LTS also happens, at
// the same state, in a real execution where the stopping thread has not
// made its failing step yet. So the same stops, data races and deadlocks
// (we never report one in a configuration holding a stop: there, the
// stopping thread could still move) are reachable. On the Machine a stop
// is executed (to report the bug with a trace that ends in it) and undone
// at once; configurations are replayed without their stops.
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
	holder   int32 // mutex events: uid+1 of the holder after the event, 0 if free
	lpos     int32 // single-location events: position in C's events on the location, while in C
	dpos     int32 // while in D: its last index in qexplorer.d
	bpos     int32 // index in bucket.ev (-1: hidden)
	kpos     int32 // index in pred.kids.ev (-1: hidden)
	stopKind interp.StopKind
	childFin bool  // spawn events: the child finished without a visible step
	wide     bool  // its children are also indexed by key hash (unfolding.wide)
	past     int32 // fine steps in its strict past [e), -1 until counted (see "The step bound")
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

// pastOf is pastSteps for e (executed or enabled).
func (e *uevent) pastOf() int32 {
	if e.past < 0 {
		var n int64
		for i, x := range e.tmax {
			if x != nil && int32(i) != e.thread {
				n += int64(x.headSteps())
			}
		}
		e.past = int32(n + int64(e.predSteps()))
	}
	return e.past
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
	if e.fkind == ir.EvAtomic {
		fp.Acc = e.act.acc
	}
	return fp
}

// single is footprint.single for e's footprint.
func (e *uevent) single() (loc int32, write bool) {
	fp := ir.Footprint{Kind: e.fkind, Loc: e.floc}
	return fp.Single()
}

// access reports whether e accesses loc, and whether it writes it.
func (e *uevent) access(loc int32) (touch, write bool) {
	if e.fkind == ir.EvAtomic {
		return ir.AccessIn(ir.EvAtomic, -1, e.act.acc, loc)
	}
	return ir.AccessIn(e.fkind, e.floc, nil, loc)
}

// touches calls f for each access of e (see ir.Footprint.Touches).
func (e *uevent) touches(f func(loc int32, write bool) bool) bool {
	fp := e.footprint()
	return fp.Touches(f)
}

// hasLastW reports whether e accesses exactly one location (a read, a
// write, a lock or an unlock): lastW is kept for those.
func (e *uevent) hasLastW() bool {
	switch e.fkind {
	case ir.EvRead, ir.EvWrite, ir.EvLock, ir.EvUnlock:
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
}

func (a *action) footprint() ir.Footprint {
	fp := ir.Footprint{Kind: a.kind, Loc: a.loc}
	if a.kind == ir.EvAtomic {
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
// thread has finished).
func peekAction(m *interp.Machine, t int, uidOf func(int) int32) *action {
	th := m.Threads[t]
	if th.Status == interp.Finished {
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
	if a.Kind != ir.EvAtomic && b.Kind != ir.EvAtomic {
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

// keyHash hashes the name of ⟨a, H⟩: thread, predecessor, spawner and
// maximal events (sorted by id).
func keyHash(t int32, pred, spawner *uevent, maxs []*uevent) uint64 {
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
	return h
}

// named reports whether e is the event named by (t, pred, spawner, maxs).
func (e *uevent) named(t int32, pred, spawner *uevent, maxs []*uevent) bool {
	if e.thread != t || e.pred != pred || e.spawner != spawner || len(e.maxs) != len(maxs) {
		return false
	}
	for i, m := range maxs {
		if e.maxs[i] != m {
			return false
		}
	}
	return true
}

// lookup finds the event named by (t, pred, spawner, maxs) in U: among
// pred's children, or, for a thread's first event, in byKey.
func (u *unfolding) lookup(h uint64, t int32, pred, spawner *uevent, maxs []*uevent) *uevent {
	e := u.byKey[h]
	if pred != nil {
		if pred.wide {
			switch f := u.wide[pred][h]; {
			case f == nil:
				return nil // no child has this hash
			case f.named(t, pred, spawner, maxs):
				return f
			}
			// Another child with the same hash: look through them all.
		}
		e = pred.child
	}
	n := 0
	for ; e != nil; e = e.hnext {
		if e.hkey == h && e.named(t, pred, spawner, maxs) {
			return e
		}
		n++
	}
	if n > wideChildren && pred != nil && !pred.wide {
		m := make(map[uint64]*uevent, n)
		for f := pred.child; f != nil; f = f.hnext {
			if m[f.hkey] == nil {
				m[f.hkey] = f
			}
		}
		u.wide[pred], pred.wide = m, true
	}
	return nil
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
	h := keyHash(t, pred, spawner, maxs)
	if e := u.lookup(h, t, pred, spawner, maxs); e != nil {
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
	e.past = -1
	if nearBound {
		past := pastSteps(tm, t)
		if past >= int64(u.bound) {
			u.beyond = true // the caller reports it (see "The step bound")
			return nil
		}
		e.past = int32(past)
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
		}
	} else {
		e.hnext, u.byKey[h] = u.byKey[h], e
	}
	u.all = append(u.all, e)
	return e
}

// config is the configuration being explored, with its events in the
// order they were added (a linearisation).
type config struct {
	events []*uevent
	tmax   []*uevent   // per uid
	chain  [][]*uevent // per uid: its events in C, by index
	locs   [][]*uevent // per location: the events of C touching it, in order
	// Per location, parallel to locs: the index of the entry to look at
	// next when scanning newest first past a read, skipping the reads of
	// the same thread just before it (they are below it). A spin loop
	// makes long runs of them.
	jump      [][]int32
	wpos      [][]int32 // per location: the indices in locs of its writes
	spawnerOf []*uevent // per uid: the spawn event in C that created it
	nstops    int

	// The positions of C (an event of C, or a thread's start, with the
	// thread's next action there) by the locations their next action
	// accesses, and by the thread their next action joins: the
	// positions whose next action may depend on a new event.
	nextOn [][]position
	joinOn [][]position
}

// position is a place in C where thread t can take action a: after p, or
// at its start if p is nil.
type position struct {
	t    int32
	skip int32 // in config.nextOn or joinOn: the index of the last earlier position of another thread, or -1
	p    *uevent
	a    *action
}

// addPos records the position (t, p) with next action a (probed).
func (c *config) addPos(t int32, p *uevent, a *action) {
	add := func(s []position) []position {
		pos := position{t: t, skip: int32(len(s)) - 1, p: p, a: a}
		if n := len(s); n > 0 && s[n-1].t == t {
			pos.skip = s[n-1].skip
		}
		return append(s, pos)
	}
	if a.kind == ir.EvJoin {
		if a.loc >= 0 {
			for int(a.loc) >= len(c.joinOn) {
				c.joinOn = append(c.joinOn, nil)
			}
			c.joinOn[a.loc] = add(c.joinOn[a.loc])
		}
		return
	}
	forLocs(a, func(l int32) { c.nextOn[l] = add(c.nextOn[l]) })
}

// removePos undoes the last addPos of (t, p).
func (c *config) removePos(t int32, p *uevent, a *action) {
	drop := func(s []position) []position {
		if n := len(s); n > 0 && s[n-1].t == t && s[n-1].p == p {
			return s[:n-1]
		}
		return s
	}
	if a.kind == ir.EvJoin {
		if a.loc >= 0 && int(a.loc) < len(c.joinOn) {
			c.joinOn[a.loc] = drop(c.joinOn[a.loc])
		}
		return
	}
	forLocs(a, func(l int32) { c.nextOn[l] = drop(c.nextOn[l]) })
}

// forLocs calls f once for every location action a accesses.
func forLocs(a *action, f func(l int32)) {
	switch a.kind {
	case ir.EvRead, ir.EvWrite, ir.EvLock, ir.EvUnlock:
		f(a.loc)
	case ir.EvAtomic:
		for i, x := range a.acc {
			dup := false
			for _, y := range a.acc[:i] {
				dup = dup || y.Loc == x.Loc
			}
			if !dup {
				f(x.Loc)
			}
		}
	}
}

// spawnedStart returns the spawned thread whose start position e added
// to C (uid, action), if any.
func (e *uevent) spawnedStart() (int32, *action) {
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 && e.childNext != nil && !e.childFin {
		return e.childUID, e.childNext
	}
	return -1, nil
}

func (c *config) grow(n int32) {
	for int32(len(c.tmax)) < n {
		c.tmax = append(c.tmax, nil)
		c.chain = append(c.chain, nil)
		c.spawnerOf = append(c.spawnerOf, nil)
	}
}

// lastWritePos is the index in locs[l] of the last write of l in C, or -1.
func (c *config) lastWritePos(l int32) int {
	if wp := c.wpos[l]; len(wp) > 0 {
		return int(wp[len(wp)-1])
	}
	return -1
}

func (c *config) contains(e *uevent) bool {
	ch := c.chain[e.thread]
	return int(e.idx) < len(ch) && ch[e.idx] == e
}

func (c *config) push(e *uevent) {
	e.cpos = int32(len(c.events))
	c.events = append(c.events, e)
	c.tmax[e.thread] = e
	c.chain[e.thread] = append(c.chain[e.thread], e)
	last := int32(-1)
	e.touches(func(l int32, _ bool) bool {
		if l != last {
			n := len(c.locs[l])
			if n == 0 || c.locs[l][n-1] != e {
				e.lpos = int32(n)
				c.locs[l] = append(c.locs[l], e)
				_, w := e.access(l)
				jump := int32(n - 1)
				if !w && n > 0 && c.locs[l][n-1].thread == e.thread && c.lastWritePos(l) != n-1 {
					jump = c.jump[l][n-1]
				}
				c.jump[l] = append(c.jump[l], jump)
				if w {
					c.wpos[l] = append(c.wpos[l], int32(n))
				}
			}
			last = l
		}
		return false
	})
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 {
		c.spawnerOf[e.childUID] = e
	}
	if e.stop {
		c.nstops++
	} else if e.next != nil {
		c.addPos(e.thread, e, e.next)
	}
	if t, a := e.spawnedStart(); a != nil {
		c.addPos(t, nil, a)
	}
}

func (c *config) pop() *uevent {
	n := len(c.events) - 1
	e := c.events[n]
	c.events = c.events[:n]
	ch := c.chain[e.thread]
	c.chain[e.thread] = ch[:len(ch)-1]
	if len(ch) > 1 {
		c.tmax[e.thread] = ch[len(ch)-2]
	} else {
		c.tmax[e.thread] = nil
	}
	if t, a := e.spawnedStart(); a != nil {
		c.removePos(t, nil, a)
	}
	if !e.stop && e.next != nil {
		c.removePos(e.thread, e, e.next)
	}
	e.touches(func(l int32, _ bool) bool {
		s := c.locs[l]
		if n := len(s) - 1; n >= 0 && s[n] == e {
			c.locs[l] = s[:n]
			c.jump[l] = c.jump[l][:n]
			if c.lastWritePos(l) == n {
				c.wpos[l] = c.wpos[l][:len(c.wpos[l])-1]
			}
		}
		return false
	})
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 {
		c.spawnerOf[e.childUID] = nil
	}
	if e.stop {
		c.nstops--
	}
	return e
}

// candBucket is a list of spike candidates. Candidates found incompatible
// with C (or in C) stay so for every extension of C: they are taken out
// of the bucket and put back when C shrinks below the size it had (see
// qexplorer.hidden). A single-location event knows its index in the bucket
// of its candGroup it is in (bpos) and in its predecessor's kids (kpos),
// so that pruning takes it out without visiting the others.
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
type candList struct {
	thread  int32
	group   *candGroup
	buckets []*candBucket
	inline  [2]*candBucket // buckets' first backing array
	first   candBucket     // the first bucket made (never reused)
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

// bucket returns the bucket of index idx, creating it.
func (l *candList) bucket(idx int32) *candBucket {
	i := len(l.buckets)
	for i > 0 && l.buckets[i-1].idx >= idx {
		if l.buckets[i-1].idx == idx {
			return l.buckets[i-1]
		}
		i--
	}
	b := firstOrNew(l.buckets, &l.first)
	b.idx, b.list = idx, l
	l.buckets = appendInline(l.buckets, l.inline[:], nil)
	copy(l.buckets[i+1:], l.buckets[i:])
	l.buckets[i] = b
	return b
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

// dropIfUnused takes an empty bucket that no hidden candidate returns to
// out of its list, and the list and group out of the index when they
// empty.
func (u *unfolding) dropIfUnused(b *candBucket) {
	l := b.list
	if l == nil || len(b.ev) > 0 || b.nhidden > 0 {
		return
	}
	l.buckets = removeElem(l.buckets, b)
	if len(l.buckets) > 0 {
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

// compact keeps in U only the events of all (those kept says so of),
// rebuilding the indexes from them: cheaper than unlink when most events
// go. The events kept are closed under causal pasts, so a group of
// candidates whose last write goes has no candidate left, and a hidden
// candidate kept (whose bucket stays, see candBucket.nhidden) has its
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
			buckets := l.buckets[:0]
			for _, b := range l.buckets {
				filter(b)
				if len(b.ev) > 0 || b.nhidden > 0 {
					buckets = append(buckets, b)
				}
			}
			clear(l.buckets[len(buckets):])
			l.buckets = buckets
			if len(buckets) > 0 {
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

// unlink takes a pruned event out of U's indexes.
func (u *unfolding) unlink(e *uevent, kept func(*uevent) bool) {
	if p := e.pred; p != nil {
		if kept(p) {
			// If e stands for its hash in p's wide index, another child
			// with the same hash takes its place: then the whole list is
			// read; otherwise it is read up to e.
			m := u.wide[p]
			wide := p.wide && m[e.hkey] == e
			var same *uevent
			for link := &p.child; *link != nil; {
				f := *link
				if f == e {
					*link = e.hnext
					if !wide {
						break
					}
					continue
				}
				if wide && same == nil && f.hkey == e.hkey {
					same = f
				}
				link = &f.hnext
			}
			if wide {
				if same != nil {
					m[e.hkey] = same
				} else {
					delete(m, e.hkey)
				}
			}
		}
	} else {
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
