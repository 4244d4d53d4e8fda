// Package clocks keeps the happens-before of the execution being explored,
// event by event as the machine steps and undoes: vector clocks of
// dependence (for Source-DPOR's races) and of synchronisation (for data
// races), and per location the chains of accesses. Every exploration asks
// it for data races; SDPOR also for its races.
//
// # Representation
//
// Every event keeps its two clocks, since SDPOR reads the clocks of past
// events. Dense vectors would cost threads × events: 4 GB for a chain of
// 8,000 spawn+join threads. Instead a clock is a persistent radix tree
// over thread numbers (one leaf of 8, 16 or 32 entries up to 32 threads,
// then 32-ary: two levels up to 1,024, …) whose nodes are shared between
// clocks: an event's clock is its base clock with the paths to the
// entries that changed copied (path copying), so it costs O(32 ×
// log_32(threads)) words per changed entry, not one word per thread. A join skips the subtrees the two clocks
// share and adopts the other's subtree where it dominates, so joining the
// clock of an event that knows about many threads costs what differs,
// not the thread count.
//
// The dependence clock is the synchronisation clock plus the dependences
// of accesses: while the two are equal (a thread that only spawns, joins
// and locks) they are one tree.
//
// Nodes live in one arena that is a stack like everything else: the nodes
// made by an event come after those of every earlier event, and a node
// only points at older nodes, so popping an event drops its nodes by
// truncation. While an event is pushed, the nodes it made are its own and
// are updated in place.
//
// Tree clocks (Mathur et al., ASPLOS'22) make joins cheaper still, but are
// mutable per-thread structures: keeping every past event's clock for
// SDPOR would need a copy per event again. FastTrack's epochs shrink the
// per-location access history, not the clocks; the access chains below do
// that job (see accRec).
package clocks

import (
	"slices"
	"unsafe"

	"weft/engine/interp"
	"weft/engine/ir"
)

// The radix tree. A node is its sum (the sum of the entries under it) and
// its words: entries of the clock in a leaf, the offsets of its children
// in an inner node. A clock of at most 32 threads is one leaf of 8, 16 or
// 32 entries (as narrow as the threads allow: most programs have a few,
// and each event copies a leaf); a wider one has inner nodes of 32
// children over leaves of 32 entries.
const (
	fanShift = 5
	fan      = 1 << fanShift // children of an inner node, entries of a leaf under one
	fanMask  = fan - 1
	maxLeaf  = 2 // the shape of a leaf of fan entries
)

// A Clock is a vector clock kept by Clocks: it maps a thread to the number
// of its events that happen before (or are) the event it belongs to. It is
// valid while that event is pushed. The zero Clock maps every thread to 0.
type Clock struct {
	root int32 // the offset of its root node in the arena; 0: all zeros
	// shape 0, 1, 2: one leaf of 8, 16, 32 entries; maxLeaf+L: L levels
	// of inner nodes over leaves of fan entries.
	shape int32
}

// nodeSize is the size in words of a node of a clock of the given shape
// (its root; the nodes under it have fan words).
func nodeSize(shape int32) int {
	if shape < maxLeaf {
		return 1 + 8<<shape
	}
	return 1 + fan
}

// shapeFor is the narrowest shape that covers n threads.
func shapeFor(n int32) int32 {
	switch {
	case n <= 8:
		return 0
	case n <= 16:
		return 1
	}
	s := int32(maxLeaf)
	for int64(n) > int64(1)<<(fanShift*(s-maxLeaf+1)) {
		s++
	}
	return s
}

// Clocks keeps, for the execution being explored, two vector clocks per
// event and, per shared location, the chains of accesses to it:
//
//   - the dependence clock: happens-before induced by program order, spawn,
//     join, and every pair of dependent events (same location, one a write;
//     same mutex). Source-DPOR finds its races with it.
//   - the synchronisation clock: happens-before induced by program order,
//     spawn→child, unlock→later lock of the same mutex, thread end→join,
//     and an atomic write→the atomic reads that read it (see Atomic)
//     only. Data races are unordered conflicting accesses under it.
//
// Everything is a stack that follows the explored execution: push when a
// step is executed, pop when it is undone.
//
// e happens before f iff clock(f)[thread(e)] > index(e).
type Clocks struct {
	// What is kept: the unfolding modes and DFS need the synchronisation
	// clock only (for data races), and the unfolding modes nothing at all
	// when no location can race; then push and pop do nothing (and
	// DataRaces must not be asked). Set before the first Push.
	NoDep, Off bool
	// SpuriousWakeups says that a thread waiting on a condition variable
	// may wake up unsignalled (interp.Machine.SpuriousWakeups): then a
	// signal does not enable the wake-up it causes (see wakeRaces).
	SpuriousWakeups bool

	// Atomic marks, per location, the atomic variables (nil: none). Set
	// before the first Push. Atomic accesses synchronise (sequentially
	// consistent atomics): a write of an atomic variable, or any write
	// inside an atomic block, releases (the location then holds the
	// writer's synchronisation clock); a read of an atomic variable, or
	// any read inside an atomic block, acquires: its event joins the
	// clock its location holds, if the location's latest write was such a
	// release (a plain write, coarse tails included, holds none). The
	// clock a location holds is not stored: it is the synchronisation
	// clock of the event of the latest write on the location's race
	// chain, which Pop restores with the chain. Dependence does not
	// change: an acquiring read depends on the write it reads, so the
	// dependence clock already holds the releasing event's.
	Atomic []bool

	// Cond, when set (CDPOR), lets the dependence clocks leave out pairs
	// of conflicting events that commute in the state where they are
	// adjacent (see "Conditional dependence"). Set before the first Push.
	Cond CondOracle
	// FullRaceWalk makes DataRaces report every earlier access in a data
	// race with the new one, not only those after the latest ordered
	// write (CDPOR sets it; see DataRaces).
	FullRaceWalk bool

	evs []evRec

	lastEv []int32 // per thread: its latest event, or -1
	baseEv []int32 // per thread: the event that spawned it, or -1

	// The arena of clock nodes, each at an offset: its sum, then its
	// words. At offset 0, a node of zeros as wide as any.
	nodes []int32
	owned int32 // nodes from this offset on belong to the event being pushed
	shape int32 // the shape of new clocks: they cover every thread
	nth   int32 // threads ever seen: entries of higher threads are 0 everywhere

	accs     []accRec
	depHead  []int32 // per location: latest record on its dependence chain, or -1
	raceHead []int32 // per location: latest record on its race chain, or -1
	curPC    int32   // pc of the access being recorded
	curIdx   int32   // index in its thread of the access being recorded

	hops int64 // access records looked at by the walks (tests check it is linear)

	pend pendingScratch // PendingRaces' scratch

	// Conditional dependence (Cond set): the events each event's
	// accesses joined (its races are among them), on a stack, and
	// scratch for the candidates.
	cjoined  []int32
	cands    []condCand
	curFull  bool // the records being added cover every earlier conflicting access of their location
	condDone bool // the dependences of the event being pushed are joined already (condDeps)
}

// evRec is what Clocks keeps per event.
type evRec struct {
	thread  int32
	index   int32 // its index in its thread
	steps   int32 // the visible steps it stands for (interp.Event.Steps)
	prevTh  int32 // the previous event of the same thread, or -1
	accLo   int32 // its first access record
	spawned int32 // the thread it spawned, or -1
	nodeLo  int32 // the arena's size before its nodes (words)
	cjLo    int32 // with Cond: its first entry in cjoined
	dep     Clock
	sync    Clock
}

type accKind uint8

const (
	accRead accKind = iota
	accWrite
	accLock   // a lock, a trylock that took the mutex, a wake-up's lock
	accUnlock // an unlock, a wait's release
	accTry    // a trylock that found the mutex held
)

// An accRec is one access of an event. It sits on up to two chains of its
// location, newest first: the dependence chain (every access but those of
// coarse tails, which dependence does not see; with NoDep only locks and
// unlocks) and the race chain (every read and write but the accesses an
// atomic step only may make, which are not made).
//
// The links of each chain let a walk pass over what cannot matter to it,
// so that the accesses walked are those the answer depends on, not the
// whole history of the location:
//
//   - out jumps past the accesses of the record's own event (an atomic
//     step or a coarse tail can access a location many times), to the
//     latest access of an earlier event;
//   - prevW is the latest earlier write: a read conflicts only with writes,
//     so a walk for a read goes from write to write (a thread that reads x
//     100,000 times in a loop costs one hop per read, not a walk back over
//     all its reads);
//   - skip, for a read, passes over the run of reads of the same thread at
//     the same pc that it ends (a spin loop): of such a run only the latest
//     matters, since the others happen before it in program order and
//     have the same source range;
//   - wfirst, for a write on the race chain, is the earliest write of the
//     run of writes by the same thread at the same pc that it ends
//     (counting writes only: reads in between do not end a run), so that a
//     read walking the writes passes over the run in one hop (a thread
//     reading x in a loop while another writes it in a loop, unordered).
type accRec struct {
	ev     int32
	loc    int32
	pc     int32 // the instruction (a tail access's own)
	idx    int32 // the access's index in its thread (a tail's follow its head's)
	kind   accKind
	atomic bool  // made inside an atomic block
	may    bool  // not made: an access the step may make (for dependence only)
	tail   bool  // made in the step's tail (coarse mode): for data races only
	inDep  bool  // on the dependence chain
	inRace bool  // on the race chain
	full   bool  // with Cond: its event happens after every earlier conflicting access of the location (see "Conditional dependence")
	wfirst int32 // for a write on the race chain (see above)
	dep    links
	race   links
}

// links are an access record's links on one chain (-1: none). On the
// chain of a mutex (locks and unlocks), which is walked by prev only, only
// prev is set; the links of a chain a record is not on are not set.
type links struct {
	prev  int32 // the previous record
	out   int32 // the latest record of an earlier event
	prevW int32 // the latest earlier write
	skip  int32 // for a read: the latest earlier record that is not a read of the same thread at the same pc; otherwise prev
}

// New returns empty clocks for a program that starts with threads threads
// and has locations shared locations.
func New(threads, locations int) *Clocks {
	c := &Clocks{
		nodes:    make([]int32, 1+fan),
		depHead:  make([]int32, locations),
		raceHead: make([]int32, locations),
	}
	for i := range c.depHead {
		c.depHead[i], c.raceHead[i] = -1, -1
	}
	c.grow(threads)
	return c
}

// ForProgram returns empty clocks for a program that starts with threads
// threads and has the shared locations locs, its atomic variables marked
// (see Clocks.Atomic).
func ForProgram(threads int, locs []ir.Location) *Clocks {
	c := New(threads, len(locs))
	for i, l := range locs {
		if l.Atomic {
			if c.Atomic == nil {
				c.Atomic = make([]bool, len(locs))
			}
			c.Atomic[i] = true
		}
	}
	return c
}

// grow makes room for n threads.
func (c *Clocks) grow(n int) {
	for len(c.lastEv) < n {
		c.lastEv = append(c.lastEv, -1)
		c.baseEv = append(c.baseEv, -1)
	}
	c.nth = int32(len(c.lastEv))
	c.shape = max(c.shape, shapeFor(c.nth))
}

// Get is clock vc's entry for thread t.
func (c *Clocks) Get(vc Clock, t int32) int32 {
	if vc.shape < maxLeaf {
		if uint32(t) >= 8<<vc.shape {
			return 0
		}
		return c.nodes[int(vc.root)+1+int(t)]
	}
	l := vc.shape - maxLeaf
	if uint64(t)>>(fanShift*(l+1)) != 0 {
		return 0
	}
	n := int(vc.root)
	for ; l > 0; l-- {
		n = int(c.nodes[n+1+int(t>>(fanShift*l))&fanMask])
	}
	return c.nodes[n+1+int(t)&fanMask]
}

// DepClock is the dependence clock of event e (zero with NoDep).
func (c *Clocks) DepClock(e int32) Clock { return c.evs[e].dep }

// Past is the sum of event e's dependence clock (0 with NoDep): on a fine
// machine, the number of steps in e's dependence past, e included. It
// takes constant time (every node keeps the sum under it).
func (c *Clocks) Past(e int32) int { return int(c.nodes[c.evs[e].dep.root]) }

// Before reports whether event e happens before the point whose clock is vc.
func (c *Clocks) Before(e int32, vc Clock) bool {
	r := &c.evs[e]
	return c.Get(vc, r.thread) > r.index
}

// ThreadClocks returns the clocks a new event of thread t starts from: its
// previous event's, or its spawn event's, or zero.
func (c *Clocks) ThreadClocks(t int32) (dep, sync Clock) {
	e := c.lastEv[t]
	if e < 0 {
		e = c.baseEv[t]
	}
	if e < 0 {
		return Clock{}, Clock{}
	}
	return c.evs[e].dep, c.evs[e].sync
}

// own returns n (a node of size words) if it belongs to the event being
// pushed, else a copy of it that does.
func (c *Clocks) own(n int32, size int) int32 {
	if n >= c.owned {
		return n
	}
	m := int32(len(c.nodes))
	if len(c.nodes)+size > cap(c.nodes) {
		// Double, rather than append's quarter for large slices: the
		// arena is the largest thing here, and every growth copies it.
		c.nodes = slices.Grow(c.nodes, len(c.nodes)+size)
	}
	c.nodes = append(c.nodes, c.nodes[n:int(n)+size]...)
	return m
}

// lift returns vc with the given shape (≥ vc's).
func (c *Clocks) lift(vc Clock, shape int32) Clock {
	if vc.shape == shape || vc.root == 0 {
		return Clock{vc.root, shape}
	}
	return c.widen(vc, shape)
}

// widen is lift when the shape changes.
func (c *Clocks) widen(vc Clock, shape int32) Clock {
	if leaf := min(shape, maxLeaf); vc.shape < leaf {
		// A wider leaf: the entries, then zeros.
		n := c.own(0, nodeSize(leaf))
		copy(c.nodes[n:], c.nodes[vc.root:int(vc.root)+nodeSize(vc.shape)])
		vc = Clock{n, leaf}
	}
	for vc.shape < shape {
		n := c.own(0, 1+fan)
		c.nodes[n] = c.nodes[vc.root]
		c.nodes[n+1] = vc.root
		vc = Clock{n, vc.shape + 1}
	}
	return vc
}

// join makes dst (a clock of the event being pushed) the join of dst and
// src (of no wider shape).
func (c *Clocks) join(dst *Clock, src Clock) {
	switch {
	case src.root == 0 || src.root == dst.root:
	case dst.shape <= maxLeaf:
		dst.root = c.joinNode(dst.root, src.root, dst.shape, src.shape, 0)
	default:
		dst.root = c.joinAt(dst.root, dst.shape, src)
	}
}

func (c *Clocks) joinAt(dst, shape int32, src Clock) int32 {
	if shape <= maxLeaf || shape == src.shape {
		return c.joinNode(dst, src.root, shape, src.shape, 0)
	}

	// src covers the threads under dst's first child.
	ch := c.nodes[dst+1]
	was := c.nodes[ch]
	r := c.joinAt(ch, shape-1, src)
	c.relink(&dst, 0, r, ch, was)
	return dst
}

// joinNode returns a node for the entrywise maximum of node dst (of the
// given shape) and node src (of shape sshape: the same, or a narrower
// leaf), covering the threads from base: dst (updated in place if it is
// owned), src, or a copy of dst.
func (c *Clocks) joinNode(dst, src, shape, sshape, base int32) int32 {
	if src == dst || src == 0 {
		return dst
	}
	if dst == 0 && sshape == shape {
		return src
	}
	if shape <= maxLeaf {
		n := int(min(int32(nodeSize(sshape)-1), c.nth-base))
		d := c.nodes[dst+1:][:n]
		s := c.nodes[src+1:][:n]
		i := 0
		for i < n && s[i] <= d[i] {
			i++
		}
		if i == n {
			return dst // dst dominates
		}
		// Adopt src if it dominates: worth a look only for a leaf under an
		// inner node (a single-leaf clock gets its own entry raised after
		// its joins, so its leaf is copied anyway) not already owned.
		if sshape == shape && dst < c.owned && c.shape > maxLeaf {
			j := 0
			for j < n && d[j] <= s[j] {
				j++
			}
			if j == n {
				return src // src dominates
			}
		}
		dst = c.own(dst, nodeSize(shape))
		d = c.nodes[dst+1:][:n]
		var delta int32
		for ; i < n; i++ {
			if s[i] > d[i] {
				delta += s[i] - d[i]
				d[i] = s[i]
			}
		}
		c.nodes[dst] += delta
		return dst
	}
	span := int64(1) << (fanShift * (shape - maxLeaf))
	n := int(min(fan, (int64(c.nth-base)+span-1)/span))
	allSrc := true
	for i := 0; i < n; i++ {
		dc, sc := c.nodes[int(dst)+1+i], c.nodes[int(src)+1+i]
		was := c.nodes[dc]
		r := c.joinNode(dc, sc, shape-1, shape-1, base+int32(int64(i)*span))
		c.relink(&dst, i, r, dc, was)
		if r != sc {
			allSrc = false
		}
	}
	if allSrc {
		return src // share src's node rather than an equal copy
	}
	return dst
}

// raise makes vc's entry for thread t at least v (vc is a clock of the
// event being pushed, covering t).
func (c *Clocks) raise(vc *Clock, t, v int32) {
	if vc.shape > maxLeaf {
		vc.root = c.raiseAt(vc.root, vc.shape, t, v)
		return
	}
	// One leaf (the common case): raiseAt without the calls.
	old := c.nodes[int(vc.root)+1+int(t)]
	if old >= v {
		return
	}
	if vc.root < c.owned {
		vc.root = c.own(vc.root, nodeSize(vc.shape))
	}
	c.nodes[int(vc.root)+1+int(t)] = v
	c.nodes[vc.root] += v - old
}

func (c *Clocks) raiseAt(n, shape, t, v int32) int32 {
	if shape <= maxLeaf {
		old := c.nodes[int(n)+1+int(t)]
		if old >= v {
			return n
		}
		n = c.own(n, nodeSize(shape))
		c.nodes[int(n)+1+int(t)] = v
		c.nodes[n] += v - old
		return n
	}
	l := shape - maxLeaf
	i := int(t>>(fanShift*l)) & fanMask
	old := c.nodes[int(n)+1+i]
	was := c.nodes[old]
	r := c.raiseAt(old, shape-1, t&(1<<(fanShift*l)-1), v)
	c.relink(&n, i, r, old, was)
	return n
}

// relink makes r child i of inner node *n in place of old, whose sum was
// was: a new node, or old itself updated in place (it was owned, so *n is
// too, and only the sum changes).
func (c *Clocks) relink(n *int32, i int, r, old, was int32) {
	if r == old && c.nodes[r] == was {
		return
	}
	*n = c.own(*n, 1+fan)
	c.nodes[int(*n)+1+i] = r
	c.nodes[*n] += c.nodes[r] - was
}

// Push records event ev (just executed, with index d == the number of
// events pushed) and computes its clocks. numThreads is the number of
// threads after the step. may, if not nil, lists the accesses an atomic
// step may make (see AtomicFootprint): dependence uses them on top of the
// executed ones.
func (c *Clocks) Push(ev *interp.Event, numThreads int, may []ir.Access) {
	if c.Off {
		return
	}
	c.grow(numThreads)
	d := int32(len(c.evs))
	t := ev.Thread
	c.owned = int32(len(c.nodes))
	c.evs = append(c.evs, evRec{
		thread: t, index: ev.Index, steps: int32(ev.Steps()), prevTh: c.lastEv[t],
		accLo: int32(len(c.accs)), spawned: -1, nodeLo: c.owned,
	})
	kind := ev.Kind
	if ev.Stop != interp.NoStop && kind != ir.EvAtomic {
		kind = ir.EvStop // a failed lock, unlock, join, trylock, wait or choose did not happen
	}

	// First the edges both clocks have: program order, spawn, lock, join.
	// The dependence clock is the synchronisation clock plus the
	// dependences of accesses; while the two are equal they share their
	// nodes (a thread that only spawns, joins and locks keeps one clock).
	baseDep, baseSync := c.ThreadClocks(t)
	sync := c.lift(baseSync, c.shape)
	var dep Clock
	shared := !c.NoDep && baseDep == baseSync
	if !c.NoDep && !shared {
		dep = c.lift(baseDep, c.shape)
	}
	fe := int32(-1) // the event whose clocks a lock or join joins
	switch kind {
	case ir.EvLock:
		if h := c.depHead[ev.Loc]; h >= 0 { // the last unlock (or nothing)
			fe = c.accs[h].ev
		}
	case ir.EvJoin:
		if ev.Loc >= 0 && int(ev.Loc) < len(c.lastEv) {
			fe = c.lastEv[ev.Loc]
			if fe < 0 {
				fe = c.baseEv[ev.Loc]
			}
		}
	case ir.EvUnlock, ir.EvTrylock, ir.EvWait, ir.EvWake:
		depFrom := int32(-1)
		if kind != ir.EvUnlock || c.depHead[ev.Loc] >= 0 && c.evs[c.accs[c.depHead[ev.Loc]].ev].thread != t {
			// (An unlock follows its own lock, unless other threads'
			// failed trylocks came in between: see sync.go.)
			fe, depFrom = c.mutexPreds(kind, ev)
		}
		if depFrom >= 0 && !c.NoDep {
			from := &c.evs[depFrom]
			if shared {
				shared = false
				dep = c.lift(baseDep, c.shape)
			}
			c.join(&dep, from.dep)
		}
	}
	if fe >= 0 {
		from := &c.evs[fe]
		if shared && from.dep != from.sync {
			shared = false
			dep = c.lift(baseDep, c.shape)
		}
		c.join(&sync, from.sync)
		if !c.NoDep && !shared {
			c.join(&dep, from.dep)
		}
		if kind == ir.EvJoin && fe == c.lastEv[ev.Loc] {
			// The whole last step of the thread, tail included,
			// happens before the join.
			end := from.index + from.steps
			c.raise(&sync, ev.Loc, end)
			if !c.NoDep && !shared {
				c.raise(&dep, ev.Loc, end)
			}
		}
	}
	c.raise(&sync, t, ev.Index+1)
	if !c.NoDep {
		if shared {
			dep = sync
			c.owned = int32(len(c.nodes)) // sync's nodes are dep's too: copy on write
		} else {
			c.raise(&dep, t, ev.Index+1)
		}
	}

	// Then the accesses, and the dependences they bring; atomic reads
	// acquire.
	c.curPC, c.curIdx = ev.PC, ev.Index
	c.evs[d].cjLo = int32(len(c.cjoined))
	c.curFull = true
	if c.Cond != nil && (kind == ir.EvRead || kind == ir.EvWrite || kind == ir.EvAtomic) {
		c.curFull = c.condDeps(d, kind, ev, may, &dep)
		c.condDone = true
	}
	switch kind {
	case ir.EvRead:
		if c.isAtomic(ev.Loc) {
			c.acquire(d, ev.Loc, &sync)
		}
		c.access(d, ev.Loc, accRead, false, false, &dep)
	case ir.EvWrite:
		c.access(d, ev.Loc, accWrite, false, false, &dep)
	case ir.EvLock:
		c.addAcc(d, ev.Loc, accLock, false, false, false)
	case ir.EvUnlock:
		c.addAcc(d, ev.Loc, accUnlock, false, false, false)
	case ir.EvTrylock, ir.EvWait, ir.EvWake, ir.EvSignal, ir.EvBroadcast:
		c.syncAccesses(d, kind, ev, &dep)
	case ir.EvSpawn:
		c.baseEv[ev.Loc] = d
		c.evs[d].spawned = ev.Loc
	case ir.EvAtomic:
		for _, a := range ev.Acc {
			if !a.Write {
				c.acquire(d, a.Loc, &sync)
			}
			c.access(d, a.Loc, kindOf(a), true, false, &dep)
		}
		for _, a := range may {
			c.access(d, a.Loc, kindOf(a), true, true, &dep)
		}
	}
	c.condDone, c.curFull = false, true
	// A tail is invisible to dependence: only data races look at it.
	for j := range ev.Tail {
		a := &ev.Tail[j]
		c.curPC, c.curIdx = a.PC, ev.Index+1+int32(j)
		c.addAcc(d, a.Loc, kindOf(a.Access), false, false, true)
	}
	c.evs[d].dep, c.evs[d].sync = dep, sync
	c.lastEv[t] = d
}

func (c *Clocks) isAtomic(loc int32) bool {
	return int(loc) < len(c.Atomic) && c.Atomic[loc]
}

// acquire joins into sync (the synchronisation clock of event d, being
// pushed) the clock that loc holds for an atomic read (see Atomic): that
// of the event of its latest write, if that write released. An earlier
// write of the same atomic block is what the read reads: no other
// thread's clock comes with it. It is called before the read's record is
// added, so the race chain ends with what came before.
func (c *Clocks) acquire(d, loc int32, sync *Clock) {
	h := c.raceHead[loc]
	if h >= 0 && c.accs[h].kind != accWrite {
		h = c.accs[h].race.prevW
	}
	if h < 0 {
		return
	}
	w := &c.accs[h]
	if w.ev == d || !(w.atomic || c.isAtomic(loc)) {
		return
	}
	c.join(sync, c.evs[w.ev].sync)
}

// access joins into dep the clocks of the accesses that the new access
// depends on, and records it.
func (c *Clocks) access(d, loc int32, k accKind, atomic, may bool, dep *Clock) {
	if !c.NoDep && !c.condDone {
		h := c.depHead[loc]
		if h >= 0 && c.accs[h].ev == d {
			h = c.accs[h].dep.out // an earlier access of the same atomic step
		}
		if k == accRead {
			// Everything before the latest write is ordered before it.
			if h >= 0 && c.accs[h].kind != accWrite {
				h = c.accs[h].dep.prevW
			}
			if h >= 0 {
				c.hops++
				c.join(dep, c.evs[c.accs[h].ev].dep)
			}
		} else {
			for h >= 0 {
				c.hops++
				r := &c.accs[h]
				c.join(dep, c.evs[r.ev].dep)
				if r.kind == accWrite {
					break
				}
				h = r.dep.skip
			}
		}
	}
	c.addAcc(d, loc, k, atomic, may, false)
}

func kindOf(a ir.Access) accKind {
	if a.Write {
		return accWrite
	}
	return accRead
}

// addAcc records an access of event d to loc, made at curPC with index
// curIdx, on the chains it belongs to.
func (c *Clocks) addAcc(d, loc int32, k accKind, atomic, may, tail bool) {
	i := int32(len(c.accs))
	if len(c.accs) == cap(c.accs) {
		c.accs = slices.Grow(c.accs, 1)
	}
	c.accs = c.accs[:i+1]
	// Each field written once; the links of a chain the record is not on
	// are never read.
	r := &c.accs[i]
	r.ev, r.loc, r.pc, r.idx = d, loc, c.curPC, c.curIdx
	r.kind, r.atomic, r.may, r.tail = k, atomic, may, tail
	r.full = c.curFull
	r.inDep = !tail && (!c.NoDep || k >= accLock)
	if r.inDep {
		if k >= accLock {
			r.dep.prev = c.depHead[loc] // a mutex's chain is walked by prev only
		} else {
			c.link(&r.dep, c.depHead[loc], false, d, k)
		}
		c.depHead[loc] = i
	}
	r.inRace = !may && (k == accRead || k == accWrite)
	if r.inRace {
		c.link(&r.race, c.raceHead[loc], true, d, k)
		c.raceHead[loc] = i
		if k == accWrite {
			r.wfirst = i
			if w := r.race.prevW; w >= 0 {
				if q := &c.accs[w]; q.pc == r.pc && c.evs[q.ev].thread == c.evs[d].thread {
					r.wfirst = q.wfirst
				}
			}
		}
	}
}

// link sets l to the links of a new access (of event d, kind k, at curPC)
// on a chain whose latest record is h.
func (c *Clocks) link(l *links, h int32, race bool, d int32, k accKind) {
	if h < 0 {
		*l = links{-1, -1, -1, -1}
		return
	}
	hr := &c.accs[h]
	hl := &hr.dep
	if race {
		hl = &hr.race
	}
	*l = links{prev: h, out: h, prevW: hl.prevW, skip: h}
	if hr.ev == d {
		l.out = hl.out
	}
	if hr.kind == accWrite {
		l.prevW = h
	} else if k == accRead && hr.pc == c.curPC && c.evs[hr.ev].thread == c.evs[d].thread {
		l.skip = hl.skip
	}
}

// Pop forgets the latest event.
func (c *Clocks) Pop() {
	if c.Off {
		return
	}
	d := len(c.evs) - 1
	e := &c.evs[d]
	for i := len(c.accs) - 1; i >= int(e.accLo); i-- {
		r := &c.accs[i]
		if r.inDep {
			c.depHead[r.loc] = r.dep.prev
		}
		if r.inRace {
			c.raceHead[r.loc] = r.race.prev
		}
	}
	c.accs = c.accs[:e.accLo]
	c.cjoined = c.cjoined[:e.cjLo]
	c.lastEv[e.thread] = e.prevTh
	if e.spawned >= 0 {
		c.baseEv[e.spawned] = -1
	}
	c.nodes = c.nodes[:e.nodeLo]
	c.evs = c.evs[:d]
}

// Races appends to out the earlier events that are in a race with event d
// (already pushed): dependent, of another thread, ordered before d, with no
// other event in between in the dependence order. For a lock, the race is
// with the previous lock of the same mutex (whose critical section must
// end before d can start); reversing that pair is what explores the other
// order of the two critical sections.
func (c *Clocks) Races(d int32, ev *interp.Event, out []int32) []int32 {
	t := c.evs[d].thread
	var base Clock
	if e := c.evs[d].prevTh; e >= 0 {
		base = c.evs[e].dep
	} else if e := c.baseEv[t]; e >= 0 {
		base = c.evs[e].dep
	}
	lo := len(out)
	switch ev.Kind {
	case ir.EvRead, ir.EvWrite, ir.EvAtomic:
		if c.Cond != nil {
			out = c.condRaces(d, t, base, out, lo)
			break
		}
		for i := c.evs[d].accLo; i < int32(len(c.accs)); i++ {
			r := &c.accs[i]
			if r.tail {
				break
			}
			h := r.dep.out
			if r.kind == accRead {
				// Only the latest write: the earlier ones are before it.
				if h >= 0 && c.accs[h].kind != accWrite {
					h = c.accs[h].dep.prevW
				}
				if h >= 0 {
					c.hops++
					if p := c.accs[h].ev; c.evs[p].thread != t && !c.Before(p, base) {
						out = appendUnique(out, lo, p)
					}
				}
				continue
			}
			for h >= 0 {
				c.hops++
				p := &c.accs[h]
				if c.evs[p.ev].thread != t && !c.Before(p.ev, base) {
					out = appendUnique(out, lo, p.ev)
				}
				if p.kind == accWrite {
					break
				}
				h = p.dep.skip
			}
		}
	case ir.EvLock:
		if lo := c.evs[d].accLo; int(lo) == len(c.accs) || c.accs[lo].kind != accLock {
			break // a failed lock did not happen
		}
		for h := c.accs[c.evs[d].accLo].dep.prev; h >= 0; h = c.accs[h].dep.prev {
			p := &c.accs[h]
			if p.kind != accLock {
				continue
			}
			if c.evs[p.ev].thread != t && !c.Before(p.ev, base) {
				out = append(out, p.ev)
			}
			break
		}
	case ir.EvUnlock:
		// Its own lock is just before it, unless other threads' failed
		// trylocks came in between (see syncRaces).
		if lo := c.evs[d].accLo; int(lo) < len(c.accs) && c.accs[lo].ev == d {
			if h := c.accs[lo].dep.prev; h >= 0 {
				if p := c.accs[h].ev; c.evs[p].thread != t && !c.Before(p, base) {
					out = append(out, p)
				}
			}
		}
	case ir.EvTrylock, ir.EvWait, ir.EvWake, ir.EvSignal, ir.EvBroadcast:
		out = c.syncRaces(d, ev, t, base, out, lo)
	}
	// Keep only immediate predecessors: drop a candidate that happens
	// before another candidate.
	cand := out[lo:]
	if len(cand) > 1 {
		keep := cand[:0]
		for i, e := range cand {
			covered := false
			for j, f := range cand {
				if i != j && e != f && c.Before(e, c.evs[f].dep) {
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
// synchronisation clock; among the accesses of each location since its
// latest write that is ordered before d's access (the earlier ones are
// ordered before that write, or in a race with it, reported then). Of a
// run of reads by one thread at one pc only the latest is reported: the
// others make the same pair of source ranges. With FullRaceWalk (CDPOR)
// the walks go on to the start of each location's chain: CDPOR explores one
// order of steps that commute where they meet (two writes of one value),
// and the pairs that the other order would show beside the ordered write
// are to be found in this one.
func (c *Clocks) DataRaces(d int32, locs []ir.Location, report func(other int32, loc int32)) {
	sync := c.evs[d].sync
	t := c.evs[d].thread
	for i := c.evs[d].accLo; i < int32(len(c.accs)); i++ {
		r := &c.accs[i]
		if !r.inRace || locs[r.loc].Atomic {
			continue
		}
		h := r.race.out
		if r.kind == accRead {
			// A read conflicts with writes only.
			if h >= 0 && c.accs[h].kind != accWrite {
				h = c.accs[h].race.prevW
			}
			for h >= 0 {
				c.hops++
				p := &c.accs[h]
				pt := c.evs[p.ev].thread
				ordered := c.Get(sync, pt) > p.idx
				if pt != t && !ordered && !(r.atomic && p.atomic) {
					report(p.ev, r.loc)
				}
				if ordered && !c.FullRaceWalk {
					break // earlier accesses are ordered before it, or raced with it
				}
				// The rest of p's run of writes (same thread, same pc)
				// makes the same pair of source ranges with r: pass
				// over it, unless one of them is ordered before d (the
				// first is, if any is); that one ends the walk.
				f := &c.accs[p.wfirst]
				if c.Get(sync, pt) > f.idx && !c.FullRaceWalk {
					break
				}
				h = f.race.prevW
			}
			continue
		}
		for h >= 0 {
			c.hops++
			p := &c.accs[h]
			pt := c.evs[p.ev].thread
			ordered := c.Get(sync, pt) > p.idx
			if pt != t && !ordered && !(r.atomic && p.atomic) {
				report(p.ev, r.loc)
			}
			if p.kind == accWrite && ordered && !c.FullRaceWalk {
				break // earlier accesses are ordered before it, or raced with it
			}
			h = p.race.skip
		}
	}
}

// Thread is the thread of event e.
func (c *Clocks) Thread(e int32) int32 { return c.evs[e].thread }

// LastLock is the last lock of the mutex at loc among the events pushed,
// or -1.
func (c *Clocks) LastLock(loc int32) int32 {
	for h := c.depHead[loc]; h >= 0; h = c.accs[h].dep.prev {
		if p := &c.accs[h]; p.kind == accLock {
			return p.ev
		}
	}
	return -1
}

// Bytes is about how much memory the clocks hold: the node arena, the
// event and access records and their chains' heads, at their capacity.
// It takes constant time.
func (c *Clocks) Bytes() int64 {
	return 4*int64(cap(c.nodes)) + int64(unsafe.Sizeof(evRec{}))*int64(cap(c.evs)) + int64(unsafe.Sizeof(accRec{}))*int64(cap(c.accs)) +
		4*int64(cap(c.lastEv)+cap(c.baseEv)+cap(c.depHead)+cap(c.raceHead)+cap(c.cjoined)) + int64(unsafe.Sizeof(condCand{}))*int64(cap(c.cands))
}
