// Package dpor holds the stateless explorations that go thread by thread
// down one execution at a time: DFS, which explores every interleaving
// (the reference for the others), and Source-DPOR with sleep sets (Abdulla
// et al.), which explores one execution per Mazurkiewicz trace plus
// sleep-set-blocked ones, and Constrained DPOR (CDPOR, Albert et al.),
// which is SDPOR over a dependence that leaves out the pairs of
// conflicting steps that commute where they meet (cdpor.go).
package dpor

import (
	"unsafe"

	"weft/engine/internal/clocks"
	"weft/engine/internal/driver"
	"weft/engine/interp"
	"weft/engine/ir"
)

// Algorithm is one of the package's explorations.
type Algorithm uint8

const (
	DFS Algorithm = iota
	SDPOR
	CDPOR
)

// Mode is the exploration algo; constraints are CDPOR's independence
// constraints beside its own (nil: its own only).
func Mode(algo Algorithm, constraints *ir.Constraints) driver.Mode {
	use := driver.DependenceClocks
	if algo == DFS {
		use = driver.RaceClocks // DFS needs the clocks for data races only
	}
	return driver.Mode{
		Coarse: algo != DFS, // DFS explores every interleaving of fine steps
		Clocks: use,
		Explore: func(w *driver.Worker) {
			e := &explorer{w: w, dfs: algo == DFS, por: algo != DFS}
			if algo == CDPOR {
				e.cd = newCDPOR(e, constraints)
				w.UseConditionalDependence(e.cd)
			}
			e.chooses, e.alternatives = programHas(w.Prog, ir.OpChoose), programHas(w.Prog, ir.OpChoose, ir.OpSignal)
			e.run()
			if e.cd != nil {
				w.Run().AddIndependence(e.cd.statistics())
			}
		},
	}
}

// explorer is a DFS or SDPOR exploration: the worker, and per node of the
// current execution the sets that say what to explore from there.
type explorer struct {
	w           *driver.Worker
	nodes       []node
	raceScratch []int32
	initials    []int32
	fpScratch   []ir.Access
	vEvents     []int32
	live        liveThreads // the threads not finished at the current node
	// chooses and alternatives say whether the program has a choose, and
	// a step with alternatives at all (see "Alternatives").
	chooses, alternatives bool
	// dfs is set for DFS, por for SDPOR and CDPOR (DFS explores every
	// order); cd is what CDPOR adds.
	dfs, por bool
	cd       *cdpor
}

type sleeper struct {
	thread int32
	fp     ir.Footprint
	// For CDPOR: the value its step read or wrote, its site, and whether
	// it carried a tail (coarse mode).
	value int64
	site  ir.Site
	tail  bool
}

// footprintOf is the footprint of an executed step. may lists the
// accesses an unstable atomic step may make (nil otherwise).
func footprintOf(ev *interp.Event, may []ir.Access) ir.Footprint {
	fp := ir.Footprint{Kind: ev.Kind, Stop: ev.Stop != interp.NoStop, Loc: ev.Loc}
	switch ev.Kind {
	case ir.EvAtomic, ir.EvWait, ir.EvWake:
		fp.Acc = append(append([]ir.Access(nil), ev.Acc...), may...)
	}
	return fp
}

type node struct {
	enabled   tset // threads that can move here (the machine says so, and not cut)
	backtrack tset
	done      tset
	sleepSet  tset
	cut       tset // SDPOR: threads whose next step is beyond the step bound (see "The step bound")
	sleep     []sleeper
	chosen    int32
	// alt is the alternative of chosen's step being explored, of alts
	// (see "Alternatives").
	alt, alts int32
}

// nodeBytes is about what a node takes beside its sets' words.
const nodeBytes = int64(unsafe.Sizeof(node{})) + 4*int64(unsafe.Sizeof(sleeper{}))

func (x *explorer) node(d int) *node {
	x.w.GrowEvents(d)
	for len(x.nodes) <= d {
		x.nodes = append(x.nodes, node{})
	}
	return &x.nodes[d]
}

// run is the exploration loop. Node d is the state after d steps; the
// machine and the clocks always stand at the current node.
func (x *explorer) run() {
	sdpor := x.por
	x.live.reset(len(x.w.M().Threads), func(t int) bool { return x.w.M().Threads[t].Status != interp.Finished })
	stop := x.enter(0)
	d := 0
	if stop {
		return
	}
	for {
		if x.w.Halted() || x.w.Cancelled() {
			return
		}
		n := &x.nodes[d]
		p := n.chosen
		if n.alt+1 < n.alts {
			n.alt++ // the next alternative of the same step
		} else {
			p = x.pick(n)
			if p < 0 {
				if d == 0 {
					return
				}
				d--
				x.retreat(d)
				continue
			}
			n.chosen = p
			n.done.add(int(p))
			n.alt, n.alts = 0, 1
			if x.alternatives {
				n.alts = int32(x.w.M().Alternatives(int(p)))
			}
		}
		ev := &x.w.Evs[d]
		ok := x.step(d, int(p), int(n.alt), ev)
		x.w.Stats.Events += int64(ev.Steps())
		if sdpor && x.w.M().StepCount()+interp.MaxTail >= x.w.Opts.MaxSteps {
			if x.w.M().Coarse {
				x.w.RestartFine() // see "The step bound"
				continue
			}
			if x.pastOf(int32(d)) >= x.w.Opts.MaxSteps {
				// Beyond the bound: p is cut here and below. Its races
				// count as if it ran: another order may bring it within.
				x.addRaces(int32(d), ev)
				x.w.ReportStepBound(d + 1)
				x.undo()
				x.cutAt(n, p, d)
				continue
			}
			if prev := x.w.M().StepCount() - ev.Steps(); ok && prev < x.w.Opts.MaxSteps && x.w.M().StepCount() >= x.w.Opts.MaxSteps {
				x.w.ReportStepBound(d + 1) // an execution reached the bound
			}
		}
		if sdpor {
			x.addRaces(int32(d), ev)
		}
		x.w.CheckDataRaces(int32(d), ev)
		if !ok {
			x.stopped(d, ev)
			x.retreat(d)
			if sdpor {
				x.exploreOthers(n) // the stop disables every other thread
			}
			continue
		}
		if x.w.Halted() {
			continue
		}
		if sdpor && x.w.Long() {
			// A resource bound, not a cut: this branch goes no further,
			// and the exploration will say it is incomplete.
			if !x.w.ExecutionDone() {
				x.retreat(d)
			}
			continue
		}
		if !sdpor && x.w.M().StepCount() >= x.w.Opts.MaxSteps {
			// DFS cuts the execution at the bound.
			x.w.ReportStepBound(d + 1)
			if !x.w.ExecutionDone() {
				x.retreat(d)
			}
			continue
		}
		d++
		if x.enter(d) {
			d--
			x.retreat(d)
		}
	}
}

// step moves thread t with alternative alt (see driver.StepAlt) and
// keeps the live threads.
func (x *explorer) step(d, t, alt int, ev *interp.Event) bool {
	if x.cd != nil {
		x.cd.snapshot(d, t)
	}
	n := len(x.w.M().Threads)
	ok := x.w.StepAlt(t, alt, ev)
	if x.cd != nil {
		x.cd.stepped(ev)
	}
	added, removed := int32(-1), int32(-1)
	if len(x.w.M().Threads) > n && x.w.M().Threads[n].Status != interp.Finished {
		added = int32(n)
	}
	if x.w.M().Threads[t].Status == interp.Finished {
		removed = int32(t)
	}
	x.live.stepped(added, removed)
	return ok
}

// undo takes the last step back.
func (x *explorer) undo() {
	x.live.undo()
	x.w.Undo()
}

// exploreOthers adds every enabled thread that is not asleep at n (the
// current node) to its backtrack set: for a step that ends the execution
// early, every other thread's step is dependent with it.
func (x *explorer) exploreOthers(n *node) {
	for t := x.live.first; t >= 0; t = x.live.next[t] {
		if !n.sleepSet.has(int(t)) && !n.cut.has(int(t)) && x.w.M().Enabled(int(t)) {
			n.backtrack.add(int(t))
		}
	}
}

// retreat undoes the step taken from node d and, for SDPOR, once every
// alternative of it has been explored, puts the thread that took it to
// sleep at d.
func (x *explorer) retreat(d int) {
	x.undo()
	if n := &x.nodes[d]; x.por && n.alt+1 >= n.alts {
		n.sleepSet.add(int(n.chosen))
		s := sleeper{thread: n.chosen, fp: footprintOf(&x.w.Evs[d], x.w.MayAccesses(&x.w.Evs[d])), value: x.w.Evs[d].Value}
		if x.cd != nil {
			s.site, s.tail = x.cd.site(int32(d)), len(x.w.Evs[d].Tail) > 0
		}
		n.sleep = append(n.sleep, s)
	}
}

// enter initialises node d, the state just reached. It returns true if the
// state is terminal (the execution is over or sleep-set blocked).
func (x *explorer) enter(d int) bool {
	n := x.node(d)
	nt := len(x.w.M().Threads)
	// The nodes' sets grow with the threads: a tree of spawns makes them
	// quadratic, and they count against the run's memory budget.
	x.w.SetExplorationBytes(int64(len(x.nodes)) * (nodeBytes + 5*8*int64(nt/64+1)))
	n.enabled.clear()
	n.backtrack.clear()
	n.done.clear()
	n.sleepSet.clear()
	n.cut.clear()
	n.sleep = n.sleep[:0]
	n.alt, n.alts = 0, 0
	if d > 0 {
		// A cut thread stays cut: its next step's past only grows.
		n.cut.copyFrom(&x.nodes[d-1].cut)
	}
	if d > 0 && x.por {
		parent := &x.nodes[d-1]
		ev := &x.w.Evs[d-1]
		fp := ir.Footprint{Kind: ev.Kind, Loc: ev.Loc, Acc: ev.Acc}
		if may := x.w.MayAccesses(ev); may != nil {
			x.fpScratch = append(append(x.fpScratch[:0], ev.Acc...), may...)
			fp.Acc = x.fpScratch
		}
		var evSite ir.Site
		if x.cd != nil {
			evSite = x.cd.site(int32(d - 1))
		}
		for _, s := range parent.sleep {
			if s.thread != ev.Thread && (!ir.Dependent(&s.fp, &fp) || x.cd != nil && x.cd.sleepIndependent(&s, ev, evSite)) {
				n.sleep = append(n.sleep, s)
				n.sleepSet.add(int(s.thread))
			}
		}
	}
	first := int32(-1)
	anyEnabled, anyCut := false, false
	if x.live.first >= 0 {
		n.enabled.cover(int(x.live.first), int(x.live.last))
		if x.dfs {
			n.backtrack.cover(int(x.live.first), int(x.live.last))
		}
	}
	for lt := x.live.first; lt >= 0; lt = x.live.next[lt] {
		t := int(lt)
		if !x.w.M().Enabled(t) {
			continue
		}
		if n.cut.has(t) {
			anyCut = true
			continue
		}
		n.enabled.set(t)
		anyEnabled = true
		if x.dfs {
			n.backtrack.set(t)
			continue
		}
		if !n.sleepSet.has(t) && first < 0 {
			first = int32(t)
		}
	}
	if !anyEnabled {
		if anyCut {
			x.cutEnd(d)
		} else {
			x.maximal(d)
		}
		return true
	}
	if c := x.chooser(n); c >= 0 {
		// A choose first, alone (see "Alternatives").
		if n.sleepSet.has(int(c)) {
			x.addBlockedRaces(int32(d))
			x.w.Stats.SSB++
			return true
		}
		n.backtrack.clear()
		n.backtrack.add(int(c))
		return false
	}
	if x.por {
		if first < 0 {
			// Sleep-set blocked. This prefix still stands for maximal
			// executions (the sleeping steps run on to their end), and
			// in them a lock blocked here either stays blocked or, if
			// a sleeping step frees its mutex, can run right after
			// that unlock: either way it races with the last lock of
			// its mutex, a race to reverse as at any other end
			// (addBlockedRaces). The execution explored earlier that
			// covers those maximal executions does not reverse it for
			// this prefix: it has the race after another prefix, so
			// it adds backtracking under that one. (The random
			// programs found it: t1 locks m1 then m0, t2 m0 then m1,
			// t0 is asleep; under t1's first step, the deadlock of
			// t2's lock(m0) after t1's lock(m1) is sleep-set blocked,
			// and its race of t2's lock(m1) with t1's is the only one
			// that lets t2 take both mutexes before t1 takes m1.)
			x.addBlockedRaces(int32(d))
			x.w.Stats.SSB++
			return true
		}
		// Prefer the thread that just moved: fewer context switches.
		if d > 0 {
			if last := x.w.Evs[d-1].Thread; int(last) < nt && x.w.M().Enabled(int(last)) && !n.sleepSet.has(int(last)) {
				first = last
			}
		}
		n.backtrack.add(int(first))
	}
	return false
}

// The step bound
//
// DFS cuts each execution at Options.MaxSteps steps: it explores every
// order, so it still reaches every bug an execution of at most MaxSteps
// steps reaches. SDPOR explores one order per trace, so cutting whole
// executions would lose the bugs that only another order of a cut trace
// reaches within the bound. It bounds each step's causal past instead, as
// the unfolding modes do: a step with MaxSteps steps or more in its
// dependence past is beyond the bound, and its thread is cut there and
// below (that past only grows along an execution). This bounded system
// is independence-respecting (a step's past changes only through steps it
// depends on), so SDPOR stays sound and each trace within it is explored
// once; a cut step's races are reversed as if it had run. Near the bound
// a coarse exploration starts again with fine steps, where a step's past
// is the sum of its dependence clock.

// pastOf is the number of steps in event d's strict dependence past (fine
// steps: one event each).
func (x *explorer) pastOf(d int32) int {
	return x.w.Clocks().Past(d) - 1 // d itself
}

// cutAt records that thread p's step at node n (depth d) is beyond the
// bound, and that something else is explored there if anything can be.
func (x *explorer) cutAt(n *node, p int32, d int) {
	n.alts = 0 // no other alternative of p's step either
	n.cut.add(int(p))
	n.enabled.remove(int(p))
	if x.pick(n) >= 0 {
		return
	}
	for t := n.enabled.next(0); t >= 0; t = n.enabled.next(t + 1) {
		if !n.sleepSet.has(t) && !n.done.has(t) {
			n.backtrack.add(t)
			return
		}
	}
	for t := n.done.next(0); t >= 0; t = n.done.next(t + 1) {
		if !n.cut.has(t) {
			return // the node's executions were explored through t
		}
	}
	// p was the one thread to explore here.
	if n.enabled.empty() {
		x.cutEnd(d)
		return
	}
	x.addBlockedRaces(int32(d)) // the others sleep: sleep-set blocked
	x.w.Stats.SSB++
}

// cutEnd ends an execution of d steps in which every thread that can
// still move is cut: not a deadlock.
func (x *explorer) cutEnd(d int) {
	x.addBlockedRaces(int32(d))
	x.w.ExecutionDone()
}

// pick returns the next thread to explore from n, or -1.
func (x *explorer) pick(n *node) int32 {
	for j, bits := range n.backtrack.w {
		w := n.backtrack.lo + j
		bits &= n.enabled.wordAt(w)
		bits &^= n.done.wordAt(w) | n.sleepSet.wordAt(w)
		if bits != 0 {
			for b := 0; b < 64; b++ {
				if bits&(1<<b) != 0 {
					return int32(w*64 + b)
				}
			}
		}
	}
	return -1
}

// maximal handles an execution in which no thread can move.
func (x *explorer) maximal(d int) {
	if x.por && x.w.Deadlocked() {
		x.addBlockedRaces(int32(d))
	}
	x.w.Deadlock(d)
}

// stopped handles a step that stopped the execution.
func (x *explorer) stopped(d int, ev *interp.Event) {
	if x.por {
		x.addBlockedRaces(int32(d + 1))
	}
	if ev.Stop == interp.StopAssume {
		x.w.Stats.AssumeBlocked++
	}
	x.w.ReportStop(d, ev)
	x.w.ExecutionDone()
}

// addRaces finds the races of event d and updates backtrack sets, as in
// Source-DPOR: for a race e ⋖ d, the initials of notdep(e).d at the node
// before e must meet its backtrack set.
func (x *explorer) addRaces(d int32, ev *interp.Event) {
	x.raceScratch = x.w.Clocks().Races(d, ev, x.raceScratch[:0])
	for _, e := range x.raceScratch {
		x.reverse(e, d, ev.Thread, x.w.Clocks().DepClock(d))
	}
}

// addBlockedRaces handles the locks that never happened: at the end of an
// execution, a thread blocked on lock(m) races with the last lock of m
// (whose critical section never ended), exactly as if its lock had
// executed. Without this, a lock-order inversion would never be reversed
// into the order that lets the blocked thread go first.
func (x *explorer) addBlockedRaces(depth int32) {
	c := x.w.Clocks()
	for lt := x.live.first; lt >= 0; lt = x.live.next[lt] {
		t := int(lt)
		kind, loc := x.w.M().Peek(t)
		if kind != ir.EvLock && kind != ir.EvWake || x.w.M().Enabled(t) || loc < 0 {
			continue
		}
		if kind == ir.EvWake && x.w.M().Waiting(t) && !x.w.M().SpuriousWakeups {
			continue // no signal yet: not blocked on the mutex
		}
		base, _ := c.ThreadClocks(int32(t))
		if l := c.LastLock(loc); l >= 0 && c.Thread(l) != int32(t) && !c.Before(l, base) {
			x.reverse(l, depth, int32(t), base)
		}
	}
}

// reverse makes sure that, at the node before event e, some initial of
// v = notdep(e).s is in the backtrack set, where s is a step of thread p
// with dependence clock pClock that comes after the first `upto` events
// (s is event upto itself, or a step that could not be executed).
func (x *explorer) reverse(e, upto, p int32, pClock clocks.Clock) {
	c := x.w.Clocks()
	n := &x.nodes[e]
	x.initials = x.initials[:0]
	x.vEvents = x.vEvents[:0]
	consider := func(tk int32, vc clocks.Clock) bool {
		for _, f := range x.vEvents {
			if c.Before(f, vc) {
				return false // not an initial: a v-step happens before it
			}
		}
		if containsInt32(x.initials, tk) {
			return false
		}
		x.initials = append(x.initials, tk)
		return n.backtrack.has(int(tk)) || n.sleepSet.has(int(tk))
	}
	for k := e + 1; k < upto; k++ {
		vc := c.DepClock(k)
		if c.Before(e, vc) {
			continue
		}
		if consider(c.Thread(k), vc) {
			return
		}
		x.vEvents = append(x.vEvents, k)
	}
	if consider(p, pClock) || len(x.initials) == 0 {
		return
	}
	choice := int32(-1)
	for _, q := range x.initials {
		if n.enabled.has(int(q)) && (choice < 0 || q == p) { // (cut threads are not enabled)
			choice = q
		}
	}
	if choice >= 0 {
		n.backtrack.add(int(choice))
		return
	}
	// No initial can move at that node (a lock whose holder's critical
	// section is not in v): fall back to exploring every thread there.
	// (Not seen on 1,500 random programs; kept so that a gap in that
	// reasoning costs redundant work, never a missed execution.)
	n.backtrack.union(&n.enabled)
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
