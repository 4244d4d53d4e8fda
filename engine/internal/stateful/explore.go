package stateful

import (
	"math/bits"
	"slices"

	"weft/engine/internal/clocks"
	"weft/engine/internal/driver"
	"weft/engine/interp"
	"weft/engine/ir"
)

// Variant is the partial-order reduction of a stateful exploration.
type Variant uint8

const (
	None Variant = iota // every enabled thread of every state
	SPOR                // safe sets: an invisible step alone
	DE                  // safe sets narrowed by eagerly tracked source sets
	DL                  // safe sets narrowed by lazily computed source sets
)

// Config is what a stateful exploration is made with.
type Config struct {
	Variant Variant
	// Invisible are the sites (body index in Program.Bodies, pc) whose
	// steps no step of another thread can ever be dependent with, from a
	// static analysis (nil: none known; spawns, joins and chooses are
	// invisible all the same).
	Invisible map[ir.Site]bool
	// RaceFree marks the locations no two accesses of which can race
	// (nil: none known): no pending race is kept on them.
	RaceFree []bool
	// Exact stores each state's whole encoding (Encode) beside its key.
	Exact  bool
	Encode func(m *interp.Machine, buf []byte) []byte
	// Bitstate goes on with bitstate hashing when the visited set fills
	// its share of the memory budget, instead of stopping.
	Bitstate bool
}

// Mode is the stateful exploration with cfg.
func Mode(cfg Config) driver.Mode {
	return driver.Mode{
		Clocks:      driver.RaceClocks,
		Fingerprint: true,
		Explore: func(w *driver.Worker) {
			x := newExplorer(w, cfg, false)
			x.loopAgain = x.setLoopAgain(x.allowLoopAgain())
			x.run()
			x.setLoopAgain(nil)
			if x.cutSeen && !w.Stopping() {
				// A step went past the step bound. A state first
				// reached deep may have hidden what it leads to within
				// the bound from a shallower path, and a reduction may
				// have put a bug within the bound past it. Start again
				// with every enabled thread of every state, matching a
				// state only if it was explored from no deeper (see
				// "The step bound").
				cfg.Variant = None
				w.Restart()
				x = newExplorer(w, cfg, true)
				x.run()
			}
		},
	}
}

// explorer is one stateful depth-first exploration on a worker.
type explorer struct {
	w    *driver.Worker
	m    *interp.Machine
	cfg  Config
	prog *ir.Program

	vis    *visited
	g      *graph
	frames []frame

	depthAware bool // match a state only if explored from no deeper
	waitAlone  bool // threads that would spin alone do not move (see "Waiting alone")
	loopAgain  bool // iterations that change nothing start over (see "Looping again")
	stutters   int  // the steps on the stack that ended such an iteration
	cutSeen    bool // some step went past the step bound

	bodyIndex map[*ir.Body]int32
	races     bool // some location can race: the key includes the pending races

	pend    []key // scratch: the pending races' hashes, per location
	seen    []key
	enc     []byte
	budget  int64 // the visited set's share of the memory budget (0: none)
	bitMode bool
	onStack map[key]int32 // bitstate hashing: the stack's states without record
	starts  []int32
	pairs   [][2]int32 // scratch of DE-S-POR's re-traversals

	// The threads of the state just reached that wait alone (see
	// "Waiting alone"), and their steps' interned footprints (DE, DL).
	waiters []int32
	waitFP  []int32
	probe   interp.Event
}

// frame is a state on the stack.
type frame struct {
	id        int32 // its record, or -1 (bitstate hashing)
	k         key
	enabled   tset
	safe      tset // the safe set: one invisible step's thread, or enabled
	reducible bool
	full      bool // explore every enabled thread (see "Cycles")
	partial   bool // DE-S-POR: its current sets may miss steps (see "Cycles")
	finished  bool
	backtrack tset
	done      tset
	current   []tset // DE-S-POR, DL-S-POR: per thread of done

	cur       int32 // the thread being explored, or -1
	alt, nalt int
	fp        int32 // the footprint of the step being explored (DE, DL)
	width     int
}

func newExplorer(w *driver.Worker, cfg Config, depthAware bool) *explorer {
	x := &explorer{w: w, m: w.M(), cfg: cfg, prog: w.Prog, vis: newVisited(cfg.Exact), g: newGraph(),
		depthAware: depthAware, waitAlone: !depthAware, bodyIndex: map[*ir.Body]int32{}}
	for i, b := range w.Prog.Bodies {
		x.bodyIndex[b] = int32(i)
	}
	x.races = !w.Clocks().Off
	x.g.stopping = w.Stopping
	if mm := w.Opts.MaxMemory; mm > 0 {
		x.budget = mm / 8 * 5
	}
	return x
}

// enterResult says what a state reached is.
type enterResult uint8

const (
	open     enterResult = iota // new: to be explored (a frame is pushed)
	matched                     // visited before
	terminal                    // new, and no thread can move
)

// allowLoopAgain is, per location, whether an iteration that accessed it
// may start over instead of spinning: it cannot race (see "Looping
// again").
func (x *explorer) allowLoopAgain() []bool {
	allowed := make([]bool, len(x.prog.Locations))
	for loc := range allowed {
		allowed[loc] = x.raceless(int32(loc))
	}
	return allowed
}

// setLoopAgain turns looping again on (allowed) or off (nil) on the
// machine, which is in its initial state; it reports whether it is on.
func (x *explorer) setLoopAgain(allowed []bool) bool {
	if err := x.m.SetLoopAgain(allowed); err != nil {
		x.w.Anomaly("stateful: " + err.Error())
		return false
	}
	return allowed != nil
}

// undo takes back the step from depth d.
func (x *explorer) undo(d int) {
	if x.w.Evs[d].Stutter > 0 {
		x.stutters--
	}
	x.w.Undo()
}

// run explores from the machine's current state (depth 0).
func (x *explorer) run() {
	w := x.w
	w.GrowEvents(0)
	if res, _ := x.enter(0); res != open {
		return
	}
	d := 0
	for {
		if w.Stopping() {
			return
		}
		t, alt, ok := x.next(d)
		if !ok {
			x.leave(d)
			if d == 0 {
				return
			}
			d--
			x.undo(d)
			x.returned(d)
			continue
		}
		f := &x.frames[d]
		ev := &w.Evs[d]
		stepped := w.StepAlt(int(t), alt, ev)
		if ev.Stutter > 0 {
			x.stutters++
		}
		w.Stats.Events++
		w.Stats.Transitions++
		if x.cfg.Variant >= DE {
			f.fp = x.g.footprint(ev, w.MayAccesses(ev))
		}
		w.CheckDataRaces(int32(d), ev)
		if x.cfg.Variant == DE {
			x.updateCurrent(d, t, f.fp, true)
		}
		target := int32(toStop)
		switch {
		case !stepped:
			if ev.Stop == interp.StopMemory {
				return
			}
			if ev.Stop == interp.StopAssume {
				w.Stats.AssumeBlocked++
			}
			w.ReportStop(d, ev)
			w.ExecutionDone()
			if f := &x.frames[d]; f.reducible {
				// An invisible step that failed (an unlock of a mutex not
				// held, an empty choose) disabled every other thread: it
				// was no persistent set. Explore them all.
				f.expandFully()
			}
		case x.m.StepCount() >= w.Opts.MaxSteps:
			if x.stutters == 0 {
				// (A path with an iteration that started over is not
				// one dfs makes: the second pass reports its bound.)
				w.ReportStepBound(d + 1)
			}
			w.ExecutionDone()
			x.cutSeen = true
			target = toCut
		default:
			w.GrowEvents(d + 1)
			res, id := x.enter(d + 1)
			target = id
			if res == open {
				x.addEdge(d, t, target)
				d++
				continue
			}
			if res == matched {
				x.matched(d, id)
				w.ExecutionDone() // a path ends here (see "Executions")
			}
		}
		x.addEdge(d, t, target)
		if x.cfg.Variant == DE && (target == toStop || target == toCut) {
			x.frames[d].current[t].addAll(x.frames[d].enabled) // see "Steps that end an execution"
		}
		x.undo(d)
		x.returned(d)
	}
}

func (x *explorer) addEdge(d int, t, target int32) {
	f := &x.frames[d]
	if x.cfg.Variant >= DE && f.id >= 0 {
		x.g.addEdge(f.id, t, f.fp, target)
	}
}

// keyOf is the key of the machine's current state (see "What a state
// is"), and its exact encoding if asked for.
func (x *explorer) keyOf() (key, []byte) {
	fp, _ := x.m.Fingerprint()
	k := key(fp)
	if x.races {
		// The pending accesses of each location in chain order, the
		// newest of equal ones kept (see "Pending races" in package
		// clocks), hashed as a sequence per location.
		x.pend = x.pend[:0]
		cur := int32(-1)
		var acc key
		flush := func() {
			if cur >= 0 {
				h := mix(acc[0]+uint64(cur), acc[1])
				k[0] += h[0]
				k[1] += h[1]
				x.pend = append(x.pend, h)
			}
		}
		seen := x.seen[:0]
		x.w.Clocks().PendingRaces(x.prog.Locations, x.cfg.RaceFree, x.live, func(loc int32, p clocks.Pending) {
			if loc != cur {
				flush()
				cur, acc, seen = loc, key{}, seen[:0]
			}
			h := mix(uint64(p.Thread)<<34|b2u(p.Write)<<33|b2u(p.Atomic)<<32|uint64(uint32(p.PC)), 0)
			for i, u := range p.Unordered {
				h = mix(h[0]^u, h[1]+uint64(i))
			}
			if slices.Contains(seen, h) {
				return // an older copy of a newer pending access
			}
			seen = append(seen, h)
			acc = mix(acc[0]^h[0], acc[1]^h[1])
		})
		flush()
		x.seen = seen
	}
	if !x.cfg.Exact {
		return k, nil
	}
	x.enc = x.cfg.Encode(x.m, x.enc[:0])
	for _, h := range x.pend {
		x.enc = appendU64(appendU64(x.enc, h[0]), h[1])
	}
	return k, x.enc
}

// live says whether thread t may still access memory.
func (x *explorer) live(t int32) bool {
	if int(t) >= len(x.m.Threads) {
		return false
	}
	st := x.m.Threads[t].Status
	return st != interp.Finished && st != interp.Spinning
}

// enter handles the state just reached at depth d: a state seen before
// is matched, a new one is stored and, if some thread can move, gets a
// frame. It returns what the state is, and its record (or toUnknown).
func (x *explorer) enter(d int) (enterResult, int32) {
	w := x.w
	k, enc := x.keyOf()
	id := x.vis.find(k, enc)
	if id >= 0 {
		r := &x.g.recs[id]
		if !x.depthAware || r.depth <= int32(d) || r.stackAt >= 0 {
			w.Stats.Matched++
			return matched, id
		}
		// Explored before from deeper: explore it again from here.
		r.depth, r.stackAt, r.edges = int32(d), int32(d), -1
	} else if x.bitMode {
		return x.enterBits(d, k)
	} else {
		if x.overBudget(len(enc)) {
			// Storing it would take the run past its memory budget
			// (see "Memory and bitstate hashing").
			if !x.cfg.Bitstate {
				w.Run().Stop(driver.StopMemory)
				return matched, toUnknown // the loop stops: nothing explored from here
			}
			x.goBitstate()
			return x.enterBits(d, k)
		}
		id = x.g.addRecord(int32(d))
		x.vis.insert(k, enc, id)
		w.Stats.States++
		x.account()
	}
	enabled := x.enabledSet(d)
	x.blockedSteps(d, id, enabled)
	if !enabled.empty() && x.stalled(enabled) {
		// Reported, and explored all the same: the reductions need the
		// spinners' steps in the graph.
		x.deadlock(d, enabled)
	}
	if enabled.empty() {
		x.deadlock(d, enabled) // a deadlock, the end, or spin-blocked
		if id >= 0 {
			x.g.recs[id].stackAt = -1
		}
		return terminal, id
	}
	x.push(d, id, k, enabled)
	return open, id
}

// blockedSteps records, for the state just reached at depth d (record
// id), the step each blocked thread waits to make, as if it came after
// every step on the stack (see "Blocked steps").
func (x *explorer) blockedSteps(d int, id int32, enabled tset) {
	if x.cfg.Variant < DE {
		return
	}
	for t, th := range x.m.Threads {
		if enabled.has(int32(t)) || th.Status == interp.Finished || th.Status == interp.Spinning {
			continue
		}
		in := th.Body.Code[th.PC]
		var fp ir.Footprint
		switch in.Op {
		case ir.OpLock:
			fp = ir.Footprint{Kind: ir.EvLock, Loc: int32(th.Frame[in.B])}
		case ir.OpWake:
			fp = ir.Footprint{Kind: ir.EvWake, Loc: -1, Acc: []ir.Access{{Loc: int32(th.Frame[in.A]), Write: true}, {Loc: int32(th.Frame[in.B])}}}
		default:
			continue // a join: it touches nothing
		}
		x.blockedStep(d, id, int32(t), x.g.intern(fp))
	}
	for i, t := range x.waiters {
		x.blockedStep(d, id, t, x.waitFP[i])
	}
}

// blockedStep records thread t's step of footprint k, which it cannot
// make in the state just reached at depth d (record id), as coming after
// every step on the stack.
func (x *explorer) blockedStep(d int, id, t, k int32) {
	if id >= 0 {
		x.g.addEdge(id, t, k, toBlocked)
	}
	if x.cfg.Variant == DE {
		x.updateCurrent(d, t, k, true)
	}
}

// stallProbe bounds the steps a thread runs alone to tell whether it
// spins forever (Machine.SpinsForever).
const stallProbe = 1024

// stalled reports whether, in the state just reached, every thread that
// can move would spin forever, run alone (see "Looping again"): nothing
// any of them does changes a word, so none ever does anything else.
func (x *explorer) stalled(enabled tset) bool {
	if !x.loopAgain {
		return false // (the threads park)
	}
	all := true
	enabled.each(func(t int32) {
		all = all && x.m.SpinsForever(int(t), stallProbe)
	})
	return all
}

// deadlock handles the state just reached at depth d, in which no
// thread can move but the spinners (those that spin forever: see
// "Looping again"): the spinners, then the threads that wait alone,
// make the steps they would spin on, parking as the other modes see
// them (so that the report and its schedule are theirs), then the
// worker decides.
func (x *explorer) deadlock(d int, spinners tset) {
	w := x.w
	n := 0
	step := func(t int32) {
		w.GrowEvents(d + n)
		w.StepAlt(int(t), 0, &w.Evs[d+n])
		w.CheckDataRaces(int32(d+n), &w.Evs[d+n]) // as dfs checks these steps
		n++
	}
	x.m.SetParkAlways(true)
	spinners.each(func(t int32) {
		for k := 0; k < stallProbe && x.m.Threads[t].Status == interp.Ready; k++ {
			step(t)
		}
	})
	for _, t := range x.waiters {
		step(t)
	}
	x.m.SetParkAlways(false)
	w.GrowEvents(d + n)
	if x.m.StepCount() >= w.Opts.MaxSteps {
		// dfs would run into the step bound on the way: the second pass
		// reports what it does.
		x.cutSeen = true
		w.ExecutionDone()
	} else {
		w.Deadlock(d + n)
	}
	for ; n > 0; n-- {
		w.Undo()
	}
}

// enterBits is enter for a state not in the table once bitstate hashing
// has taken over: matched if its bits are all set (or it is on the
// stack), else explored with no record kept.
func (x *explorer) enterBits(d int, k key) (enterResult, int32) {
	w := x.w
	if _, ok := x.onStack[k]; ok || x.vis.testAndSetBits(k) {
		w.Stats.Matched++
		return matched, toUnknown
	}
	w.Stats.States++
	enabled := x.enabledSet(d)
	x.blockedSteps(d, toUnknown, enabled)
	if !enabled.empty() && x.stalled(enabled) {
		x.deadlock(d, enabled) // and explored all the same (see enter)
	}
	if enabled.empty() {
		x.deadlock(d, enabled)
		return terminal, toUnknown
	}
	x.push(d, toUnknown, k, enabled)
	return open, toUnknown
}

// overBudget reports whether storing one more state (of an encoding of
// n bytes) would take the run past its memory budget at its peak: while
// the table doubles, the old and the new table are both alive, and an
// arena that must grow is copied.
func (x *explorer) overBudget(n int) bool {
	mm := x.w.Opts.MaxMemory
	if mm <= 0 {
		return false
	}
	need := x.w.Bytes() + x.vis.insertPeak(n)
	if x.cfg.Bitstate && !x.bitMode {
		need += x.bitBytes()
	}
	return need > mm
}

// bitBytes is the size of the bit array bitstate hashing takes.
func (x *explorer) bitBytes() int64 { return max(x.w.Opts.MaxMemory/8, 8<<10) }

// goBitstate makes bitstate hashing take over (see "Memory and bitstate
// hashing").
func (x *explorer) goBitstate() {
	x.bitMode = true
	x.onStack = map[key]int32{}
	x.vis.bits = make([]uint64, x.bitBytes()/8)
	x.w.Run().MarkBitstate()
	x.w.SetExplorationBytes(x.vis.bytes() + x.g.bytes() + x.framesBytes())
}

// account reports the exploration's memory to the worker, and goes over
// to bitstate hashing when the visited set fills its share of the budget
// and the configuration asks for it.
func (x *explorer) account() {
	n := x.vis.bytes() + x.g.bytes()
	x.w.Stats.VisitedBytes = max(x.w.Stats.VisitedBytes, n)
	// The table doubles as it fills: go over before the doubling would
	// pass the share.
	if x.cfg.Bitstate && !x.bitMode && x.budget > 0 && n+x.vis.growthBytes() >= x.budget {
		x.goBitstate()
		return
	}
	x.w.SetExplorationBytes(n + x.framesBytes())
}

func (x *explorer) framesBytes() int64 {
	// Each frame: its fields and its sets (four, and a current set per
	// thread with the source-set reductions), as wide as the threads.
	n := int64(len(x.m.Threads))
	sets := int64(4)
	if x.cfg.Variant >= DE {
		sets += n
	}
	return int64(len(x.frames)) * (160 + 8*int64(words(int(n)))*sets)
}

// enabledSet is the set of threads that can move, sized for the frame
// at depth d.
func (x *explorer) enabledSet(d int) tset {
	for len(x.frames) <= d {
		x.frames = append(x.frames, frame{})
	}
	f := &x.frames[d]
	n := len(x.m.Threads)
	f.enabled = f.enabled.sized(n)
	x.waiters, x.waitFP = x.waiters[:0], x.waitFP[:0]
	// Within a spin step per thread of the step bound, spinning threads
	// spin, as in dfs (see "The step bound").
	alone := x.waitAlone && x.m.StepCount()+n < x.w.Opts.MaxSteps
	for t := range n {
		if !x.m.Enabled(t) {
			continue
		}
		if alone && x.waitsAlone(t) {
			x.waiters = append(x.waiters, int32(t))
			if x.cfg.Variant >= DE {
				x.waitFP = append(x.waitFP, x.g.footprint(&x.probe, x.w.MayAccesses(&x.probe)))
			}
			continue
		}
		f.enabled.add(int32(t))
	}
	return f.enabled
}

// waitsAlone reports whether thread t's next step is one it would spin
// on (see "Waiting alone"); if so, x.probe holds the step.
func (x *explorer) waitsAlone(t int) bool {
	if !x.m.SpinsAlone(t, &x.probe) {
		return false
	}
	// Only on words that cannot race: the step is left out, and so
	// would be its races.
	ev := &x.probe
	if len(ev.Acc) > 0 {
		for _, a := range ev.Acc {
			if !x.raceless(a.Loc) {
				return false
			}
		}
		return true
	}
	return x.raceless(ev.Loc)
}

// raceless reports whether no access to location loc can race (or is
// looked at for races).
func (x *explorer) raceless(loc int32) bool {
	if loc < 0 || int(loc) >= len(x.prog.Locations) {
		return false
	}
	if !x.races {
		return true // no location can race, or no race is looked for
	}
	l := &x.prog.Locations[loc]
	return l.Atomic || l.Mutex || int(loc) < len(x.cfg.RaceFree) && x.cfg.RaceFree[loc]
}

// push makes the frame of a new state at depth d.
func (x *explorer) push(d int, id int32, k key, enabled tset) {
	f := &x.frames[d]
	n := len(x.m.Threads)
	f.id, f.k, f.width = id, k, n
	f.full, f.partial, f.finished = false, false, false
	f.cur, f.alt, f.nalt = -1, 0, 0
	f.safe = f.safe.sized(n)
	f.reducible = false
	if x.cfg.Variant != None {
		enabled.each(func(t int32) {
			if !f.reducible && x.invisible(t) {
				f.safe.add(t)
				f.reducible = true
			}
		})
	}
	if !f.reducible {
		f.safe.copyFrom(enabled)
	}
	f.backtrack = f.backtrack.sized(n)
	f.done = f.done.sized(n)
	switch x.cfg.Variant {
	case None, SPOR:
		f.backtrack.copyFrom(f.safe)
	case DE:
		f.backtrack.add(f.safe.firstNotIn(nil))
	}
	if x.cfg.Variant >= DE {
		for len(f.current) < n {
			f.current = append(f.current, nil)
		}
		f.current = f.current[:n]
		for t := range f.current {
			f.current[t] = f.current[t].sized(n)
		}
	}
	if id == toUnknown {
		// Nothing is kept of it: explore every enabled thread.
		x.onStack[k] = int32(d)
		f.expandFully()
	}
}

// expandFully makes the frame explore every enabled thread.
func (f *frame) expandFully() {
	f.full = true
	f.safe.copyFrom(f.enabled)
	f.reducible = false
	f.backtrack.addAll(f.enabled)
}

// invisible reports whether thread t's next step is invisible: no step
// of another thread can ever be dependent with it (see "Safe sets").
func (x *explorer) invisible(t int32) bool {
	kind, _ := x.m.Peek(int(t))
	switch kind {
	case ir.EvSpawn, ir.EvJoin, ir.EvChoose:
		return true
	case ir.EvStop:
		return false
	}
	th := x.m.Threads[t]
	return x.cfg.Invisible[ir.Site{Body: x.bodyIndex[th.Body], PC: th.PC}]
}

// next is the next step to explore from the frame at depth d: its thread
// and alternative, or false if the frame is done.
func (x *explorer) next(d int) (int32, int, bool) {
	f := &x.frames[d]
	if f.cur >= 0 && f.alt+1 < f.nalt {
		f.alt++
		return f.cur, f.alt, true
	}
	if f.finished {
		return 0, 0, false
	}
	t := f.backtrack.firstNotIn(f.done)
	if t < 0 && x.cfg.Variant == DL && !f.full {
		t = f.safe.firstNotIn(f.done)
	}
	if t < 0 {
		return 0, 0, false
	}
	if x.cfg.Variant != DL {
		f.done.add(t)
	}
	if x.cfg.Variant == DE {
		f.current[t] = f.current[t].sized(f.width)
		f.current[t].add(t)
	}
	f.cur, f.alt, f.nalt = t, 0, x.m.Alternatives(int(t))
	return t, 0, true
}

// leave pops the frame at depth d: its state's exploration is over.
func (x *explorer) leave(d int) {
	f := &x.frames[d]
	if f.id >= 0 {
		x.g.recs[f.id].stackAt = -1
	} else if x.onStack != nil {
		delete(x.onStack, f.k)
	}
}

// matched handles the step from depth d that reached the stored state id
// (or one of which nothing is kept: toUnknown).
func (x *explorer) matched(d int, id int32) {
	f := &x.frames[d]
	onStack := id == toUnknown && x.bitMode // conservatively: it may be on the stack
	low := int32(allKnown)
	if id >= 0 && x.g.recs[id].stackAt >= 0 {
		onStack = true
		low = x.g.recs[id].stackAt
	}
	if onStack {
		// A cycle: its source is expanded fully (see "Cycles").
		f.expandFully()
	}
	if x.cfg.Variant == DE {
		if id == toUnknown {
			low = 0
		} else if low == allKnown {
			// The steps reachable from the matched state count as if
			// explored again from here (Algorithm 2, lines 19-20): each
			// pair of thread and footprint once.
			x.pairs = x.pairs[:0]
			low = x.g.visit([]int32{id}, func(e *edge) bool {
				p := [2]int32{e.thread, e.fp}
				if !slices.Contains(x.pairs, p) {
					x.pairs = append(x.pairs, p)
				}
				return false
			}, &x.w.Stats.Retraversals)
			for _, p := range x.pairs {
				x.updateCurrent(d, p[0], p[1], false)
			}
		}
		for j := max(low+1, 0); j <= int32(d); j++ {
			x.frames[j].partial = true
		}
	}
}

// updateCurrent is DE-S-POR's UpdateCurr for a step of thread t with
// footprint fp taken after the frames up to depth d (the frame at d's own
// step included unless it is that step, self): every step on the stack
// of another thread dependent with it gets t in its current set. The
// paper's Algorithm 2 updates the last such step only; that misses the
// orders hidden behind a blocking step (see "Dependence"), and its
// appendix updates them all for the steps of a re-traversal anyway.
func (x *explorer) updateCurrent(d int, t, fp int32, self bool) {
	top := d
	if self {
		top = d - 1 // the step itself is the frame at d's
	}
	for j := top; j >= 0; j-- {
		fj := &x.frames[j]
		if fj.reducible && !fj.full || fj.cur == t || fj.cur < 0 || !x.g.dependent(fj.fp, fp) {
			continue // a reducible state explores its one thread whatever its current set
		}
		if int(t) < fj.width {
			fj.current[fj.cur].add(t)
		} else {
			// A thread the state did not have yet: not in its safe set.
			fj.partial = true
		}
	}
}

// returned handles the return to the frame at depth d after one of its
// steps was explored.
func (x *explorer) returned(d int) {
	f := &x.frames[d]
	if f.alt+1 < f.nalt {
		return // the thread's other alternatives first
	}
	switch x.cfg.Variant {
	case DE:
		x.updateBack(f)
	case DL:
		x.isComplete(d)
	}
}

// updateBack is the macro UpdateBack of both algorithms, after the
// frame's thread f.cur was explored: the backtrack set grows by the
// threads dependent steps were found of, or becomes the safe set if one
// of them cannot move here, or becomes done if done holds a persistent
// set.
func (x *explorer) updateBack(f *frame) {
	if f.full || f.partial {
		f.backtrack.addAll(f.safe)
		return
	}
	outside := false
	f.done.each(func(t int32) {
		if !f.current[t].subsetOf(f.safe) {
			outside = true
		}
	})
	if outside {
		f.backtrack.addAll(f.safe)
		return
	}
	if x.closedSubset(f) {
		f.finished = true
		return
	}
	f.done.each(func(t int32) { f.backtrack.addAll(f.current[t]) })
}

// closedSubset reports whether some non-empty set T of done threads has
// every current set of its threads within T: T is then persistent, and
// done a source set.
func (x *explorer) closedSubset(f *frame) bool {
	found := false
	f.done.each(func(seed int32) {
		if found {
			return
		}
		// The closure of seed under current, within done.
		var in [4]uint64
		clos := tset(in[:0])
		if words(f.width) <= len(in) {
			clos = in[:words(f.width)]
		} else {
			clos = make(tset, words(f.width))
		}
		clos.add(seed)
		queue := []int32{seed}
		ok := true
		for len(queue) > 0 && ok {
			u := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			f.current[u].each(func(v int32) {
				if !ok || clos.has(v) {
					return
				}
				if !f.done.has(v) {
					ok = false
					return
				}
				clos.add(v)
				queue = append(queue, v)
			})
		}
		found = ok
	})
	return found
}

// isComplete is DL-S-POR's IsComplete for the frame at depth d, after
// its thread f.cur was explored: its current set is computed by going
// over the graph from the successors the thread's steps reached.
func (x *explorer) isComplete(d int) {
	f := &x.frames[d]
	t := f.cur
	f.done.add(t)
	if f.full {
		// Every enabled thread, with no source-set reasoning.
		f.finished = f.enabled.subsetOf(f.done)
		return
	}
	if f.safe.subsetOf(f.done) {
		f.finished = true // appendix A: the last thread of the safe set needs no re-traversal
		return
	}
	cs := f.current[t].sized(f.width)
	f.current[t] = cs
	cs.add(t)
	if f.id < 0 {
		f.partial = true
	} else {
		// The steps of t explored from here, and what their successors
		// lead to.
		x.starts = x.starts[:0]
		var fps []int32
		for e := x.g.recs[f.id].edges; e >= 0; e = x.g.edges[e].next {
			ed := &x.g.edges[e]
			if ed.thread == t {
				x.starts = append(x.starts, ed.target)
				fps = append(fps, ed.fp)
				if ed.target == toStop || ed.target == toCut {
					cs.addAll(f.enabled) // see "Steps that end an execution"
				}
			}
		}
		low := x.g.visit(x.starts, func(e *edge) bool {
			if e.thread == t || cs.has(e.thread) {
				return false
			}
			for _, fp := range fps {
				if x.g.dependent(fp, e.fp) {
					if int(e.thread) >= f.width || !f.safe.has(e.thread) {
						f.partial = true // appendix A: the safe set it is then
						return true
					}
					cs.add(e.thread)
					return f.safe.subsetOf(cs) // appendix A: complete
				}
			}
			return false
		}, &x.w.Stats.Retraversals)
		if low != allKnown {
			f.partial = true
		}
	}
	x.updateBack(f)
	if f.full {
		f.finished = f.enabled.subsetOf(f.done)
	} else if f.backtrack.subsetOf(f.done) {
		f.finished = true
	}
}

func mix(a, b uint64) key {
	h0, l0 := bits.Mul64(a^0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9)
	h1, l1 := bits.Mul64(b^0xc2b2ae3d27d4eb4f, 0x94d049bb133111eb)
	return key{h0 ^ l1 ^ b, l0 ^ h1 ^ a}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func appendU64(b []byte, v uint64) []byte {
	for i := range 8 {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}
