package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"weft/engine/internal/clocks"
	"weft/engine/interp"
	"weft/engine/ir"

	"weft/source"
)

// Algorithm names an exploration mode.
type Algorithm string

const (
	// DFS explores every interleaving: the reference for small models.
	DFS Algorithm = "dfs"
	// SDPOR is Source-DPOR with sleep sets (Abdulla et al.).
	SDPOR Algorithm = "sdpor"
	// QPOR is unfolding-based POR with k-partial alternatives (Nguyen et
	// al., CAV'18); Options.K is k.
	QPOR Algorithm = "qpor"
	// Optimal is unfolding-based POR with alternatives (∞-partial): it
	// never explores a sleep-set-blocked execution.
	Optimal Algorithm = "optimal"
)

// Algorithms lists the modes Explore accepts.
var Algorithms = []Algorithm{DFS, SDPOR, QPOR, Optimal}

// DefaultMaxSteps is the default bound on visible steps per execution.
const DefaultMaxSteps = 100_000

// Options configure an exploration. The zero value explores with SDPOR
// and default bounds until done or until the context ends.
type Options struct {
	Algorithm     Algorithm
	MaxSteps      int   // visible steps per execution before a step-bound bug (default DefaultMaxSteps)
	MaxExecutions int64 // stop after this many executions (0: no limit)
	LocalBudget   int   // local instructions between visible steps (default DefaultLocalBudget)
	K             int   // qpor: k of k-partial alternatives (default 1)

	// OnBug, if set, is called (on the exploring goroutine) for each new
	// bug as soon as it is found.
	OnBug func(*Bug)
	// OnProgress, if set, is called about every ProgressInterval (default
	// 100 ms) with the statistics so far.
	OnProgress       func(Stats)
	ProgressInterval time.Duration
	// OnExecution, if set, is called at the end of every execution that
	// counts in Stats.Executions, with its steps (valid only during the
	// call) and the machine in its final state. For tests and tools: it
	// slows the exploration down.
	// Each access of a coarse step's tail is passed as a step of its own.
	OnExecution func(events []Event, m *Machine)
	// OnRestart, if set, is called when the exploration starts over with
	// every access a scheduling point, the program having turned out to
	// have a data race (see "Coarse steps"): the executions and statistics
	// seen so far do not count.
	OnRestart func()

	// EveryAccess makes every shared access a scheduling point from the
	// start, instead of only in programs that turn out to have a data race
	// (see "Coarse steps"); DFS always does.
	EveryAccess bool

	pruneAlways bool // qpor, optimal: prune the unfolding after every call of Explore (tests)
}

// Stats counts what an exploration did.
type Stats struct {
	Executions    int64 // maximal executions explored that were not sleep-set blocked
	SSB           int64 // sleep-set-blocked executions
	AssumeBlocked int64 // executions (among Executions) that ended in a failed assume
	Events        int64 // visible steps executed
	MaxDepth      int   // longest execution, in steps
	MaxThreads    int   // most threads alive in one execution (declared and spawned)
	Elapsed       time.Duration
}

// Result is the outcome of an exploration.
type Result struct {
	Stats
	Algorithm Algorithm
	Complete  bool   // every execution was explored
	Stopped   string // why not complete: "timeout", "cancelled", "max-executions", StoppedExecutionLength
	Bugs      []*Bug

	// anomalies counts what the qpor design rules out and should never
	// happen: a clue none of whose events is enabled, a Stable atomic block
	// whose accesses change, derived state that checkIndexes finds wrong
	// (tests check it stays 0); firstAnomaly says what the first was,
	// where it is known.
	anomalies    int64
	firstAnomaly string
}

// anomaly records an anomaly described by what.
func (x *explorer) anomaly(what string) {
	if x.res.anomalies == 0 {
		x.res.firstAnomaly = what
	}
	x.res.anomalies++
}

// StoppedExecutionLength is Result.Stopped when the qpor or optimal
// mode met a configuration of more than four times Options.MaxSteps steps
// (threads beside a cut one went on, or a tree of spawns) and explored no
// further there.
const StoppedExecutionLength = "execution-length"

// BugKind is the kind of a bug, as named in the JSON contract.
type BugKind string

const (
	BugAssertion    BugKind = "assertion"
	BugDeadlock     BugKind = "deadlock"
	BugRuntimeError BugKind = "runtime-error"
	BugDataRace     BugKind = "data-race"
	BugStepBound    BugKind = "step-bound"
)

// Bug is a problem found in some execution, with the schedule that
// reproduces it.
type Bug struct {
	Kind    BugKind
	Message string
	Thread  string       // the thread at fault
	Range   source.Range // where
	// Other is, for data races, the other access of the pair.
	Other *RaceSide
	// Schedule is the thread index chosen at each step; replaying it from
	// the initial state (with LocalBudget) reproduces the bug.
	Schedule    []int32
	LocalBudget int // the local-instruction bound it was found with (0: the default)
	Trace       []TraceStep

	key string // what an exploration reports once (see explorer.report)
}

// RaceSide is one access of a data race.
type RaceSide struct {
	Thread string
	Range  source.Range
	Op     string
}

// TraceStep is one step of a counterexample.
type TraceStep struct {
	Thread      string
	ThreadIndex int32
	Op          string // "read c → 1", "lock mx[2]", "spawn worker#1"
	Range       source.Range
}

// Explore explores the executions of prog. It returns when the
// exploration is complete, a budget is exhausted or ctx ends (then
// Result.Complete is false and Result.Stopped says why).
func Explore(ctx context.Context, prog *Program, opts Options) (*Result, error) {
	if err := prog.Validate(); err != nil {
		return nil, err
	}
	switch opts.Algorithm {
	case "":
		opts.Algorithm = SDPOR
	case DFS, SDPOR, QPOR, Optimal:
	default:
		return nil, fmt.Errorf("unknown algorithm %q (want one of %v)", opts.Algorithm, Algorithms)
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 100 * time.Millisecond
	}
	if opts.K <= 0 {
		opts.K = 1
	}
	start := time.Now()
	x := newExplorer(ctx, prog, opts)
	x.m.Coarse = opts.Algorithm != DFS && !opts.EveryAccess
	x.m.TailBound = opts.MaxSteps
	x.runAlgorithm()
	if x.stopReason == stopCoarseRace {
		// The program has a data race: explore again with every access a
		// step of its own. Bugs already handed to OnBug are not handed
		// over again.
		delivered := x.bugAt
		if onBug := opts.OnBug; onBug != nil {
			opts.OnBug = func(b *Bug) {
				if _, ok := delivered[b.key]; !ok {
					onBug(b)
				}
			}
		}
		if opts.OnRestart != nil {
			opts.OnRestart()
		}
		x = newExplorer(ctx, prog, opts)
		x.start = start
		x.runAlgorithm()
	}
	x.res.Stats = x.stats
	x.res.Elapsed = time.Since(start)
	return x.res, nil
}

// Coarse steps
//
// The POR modes first explore with a coarse machine (Machine.Coarse): a
// step carries along the plain accesses (non-atomic reads and writes) of
// its thread that follow it, so that only synchronisation, atomic
// accesses, failures and a thread's first access are scheduling points
// and dependence sees only the head of each step. This is exact for a
// program without data races: there every two conflicting accesses are
// ordered by synchronisation, so swapping them never yields another trace
// and the coarse executions stand for exactly the Mazurkiewicz traces of
// the fine ones, with the same reachable failures and deadlocks. Whether
// the program has a data race is what the coarse exploration also checks,
// every access of every tail included: as in CHESS (Musuvathi et al.,
// OSDI'08), if some execution has a race, then one whose only preemptions
// are at synchronisation does too. At the first race found, the
// exploration starts again from scratch with every access a step of its
// own (stopCoarseRace), and the races are reported from there.

// stopCoarseRace is the internal stop reason of a coarse exploration that
// found a data race (it never reaches a Result).
const stopCoarseRace = "coarse-race"

// fineEvents returns evs with the accesses of every tail as steps of their
// own.
func (x *explorer) fineEvents(evs []Event) []Event {
	n := 0
	for i := range evs {
		n += evs[i].Steps()
	}
	if n == len(evs) {
		return evs
	}
	out := x.fineBuf[:0]
	for i := range evs {
		ev := evs[i]
		ev.Tail = nil
		if len(evs[i].Tail) > 0 {
			ev.Finished = false
		}
		out = append(out, ev)
		for j := range evs[i].Tail {
			f := *evs[i].Tail[j].FineEvent(ev.Thread)
			f.Index = ev.Index + int32(j) + 1
			f.Finished = evs[i].Finished && j == len(evs[i].Tail)-1
			out = append(out, f)
		}
	}
	x.fineBuf = out
	return out
}

// runAlgorithm runs the exploration opts.Algorithm names.
func (x *explorer) runAlgorithm() {
	if x.opts.Algorithm == QPOR || x.opts.Algorithm == Optimal {
		x.runQPOR()
	} else {
		x.run()
	}
}

type sleeper struct {
	thread int32
	fp     ir.Footprint
}

// footprintOf is the footprint of an executed step. may lists the
// accesses an unstable atomic step may make (nil otherwise).
func footprintOf(ev *Event, may []Access) ir.Footprint {
	fp := ir.Footprint{Kind: ev.Kind, Stop: ev.Stop != NoStop, Loc: ev.Loc}
	if ev.Kind == EvAtomic {
		fp.Acc = append(append([]Access(nil), ev.Acc...), may...)
	}
	return fp
}

// mayAccesses returns what an atomic step may access beyond what it did,
// when its block is not Stable (nil otherwise). See AtomicFootprint.
func (x *explorer) mayAccesses(ev *Event) []Access {
	if ev.Kind != EvAtomic || ev.Stop != NoStop {
		return nil
	}
	fp := x.m.Threads[ev.Thread].Body.Atomics[ev.PC]
	if fp == nil || fp.Stable {
		return nil
	}
	if acc, ok := x.mayCache[fp]; ok {
		return acc
	}
	acc := fp.Accesses()
	if x.mayCache == nil {
		x.mayCache = make(map[*AtomicFootprint][]Access)
	}
	x.mayCache[fp] = acc
	return acc
}

type node struct {
	enabled   tset
	backtrack tset
	done      tset
	sleepSet  tset
	sleep     []sleeper
	chosen    int32
}

type explorer struct {
	ctx   context.Context
	prog  *Program
	opts  Options
	m     *Machine
	clk   *clocks.Clocks
	nodes []node
	evs   []Event
	stats Stats
	res   *Result
	start time.Time

	bugAt       map[string]int // bug key -> index in res.Bugs
	lastReport  time.Time
	stopReason  string
	raceScratch []int32
	initials    []int32
	mayCache    map[*AtomicFootprint][]Access
	fpScratch   []Access
	vEvents     []int32
	checkTick   int
	fineBuf     []Event
}

func newExplorer(ctx context.Context, prog *Program, opts Options) *explorer {
	m := interp.NewMachine(prog, opts.LocalBudget)
	return &explorer{
		ctx: ctx, prog: prog, opts: opts, m: m,
		clk:   clocks.New(len(m.Threads), len(prog.Locations)),
		res:   &Result{Algorithm: opts.Algorithm},
		start: time.Now(),
		bugAt: make(map[string]int),
	}
}

func (x *explorer) node(d int) *node {
	for len(x.nodes) <= d {
		x.nodes = append(x.nodes, node{})
		x.evs = append(x.evs, Event{})
	}
	return &x.nodes[d]
}

// cancelled checks the context and the time budget now and then.
func (x *explorer) cancelled() bool {
	x.checkTick++
	if x.checkTick&63 != 0 {
		return false
	}
	select {
	case <-x.ctx.Done():
		if x.ctx.Err() == context.DeadlineExceeded {
			x.stopReason = "timeout"
		} else {
			x.stopReason = "cancelled"
		}
		return true
	default:
	}
	if x.opts.OnProgress != nil {
		now := time.Now()
		if now.Sub(x.lastReport) >= x.opts.ProgressInterval {
			x.lastReport = now
			s := x.stats
			s.Elapsed = now.Sub(x.start)
			x.opts.OnProgress(s)
		}
	}
	return false
}

// executionDone counts a finished execution and checks the budget.
func (x *explorer) executionDone() bool {
	x.stats.Executions++
	if x.opts.OnExecution != nil {
		x.opts.OnExecution(x.fineEvents(x.evs[:x.m.Depth()]), x.m)
	}
	if d := x.m.StepCount(); d > x.stats.MaxDepth {
		x.stats.MaxDepth = d
	}
	if n := len(x.m.Threads); n > x.stats.MaxThreads {
		x.stats.MaxThreads = n
	}
	if x.opts.MaxExecutions > 0 && x.stats.Executions >= x.opts.MaxExecutions {
		x.stopReason = "max-executions"
		return true
	}
	return false
}

// run is the exploration loop. Node d is the state after d steps; the
// machine and the clocks always stand at the current node.
func (x *explorer) run() {
	sdpor := x.opts.Algorithm == SDPOR
	stop := x.enter(0)
	d := 0
	if stop {
		x.finish()
		return
	}
	for {
		if x.stopReason != "" || x.cancelled() {
			x.finish()
			return
		}
		n := &x.nodes[d]
		p := x.pick(n)
		if p < 0 {
			if d == 0 {
				x.finish()
				return
			}
			d--
			x.retreat(d)
			continue
		}
		n.chosen = p
		n.done.add(int(p))
		ev := &x.evs[d]
		ok := x.m.Step(int(p), ev)
		x.stats.Events += int64(ev.Steps())
		x.clk.Push(ev, len(x.m.Threads), x.mayAccesses(ev))
		if sdpor {
			x.addRaces(int32(d), ev)
		}
		x.checkDataRaces(int32(d), ev)
		if !ok {
			x.stopped(d, ev)
			x.retreat(d)
			if sdpor {
				x.exploreOthers(n) // the stop disables every other thread
			}
			continue
		}
		if x.stopReason != "" {
			continue
		}
		if x.m.StepCount() >= x.opts.MaxSteps {
			// The bound cuts the execution like a stop: the other threads
			// must still be explored here.
			// Blame the thread that made the most steps: it is the one looping.
			busiest := p
			for t, th := range x.m.Threads {
				if th.Steps > x.m.Threads[busiest].Steps {
					busiest = int32(t)
				}
			}
			x.report(BugStepBound, fmt.Sprintf("the execution ran past the step bound of %d steps (non-termination or a livelock?)", x.opts.MaxSteps), busiest, x.rangeOf(busiest, x.m.Threads[busiest].PC), d+1, nil)
			if sdpor {
				x.addBlockedRaces(int32(d + 1))
			}
			if x.executionDone() {
				continue
			}
			x.retreat(d)
			if sdpor {
				x.exploreOthers(n)
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

// exploreOthers adds every enabled thread that is not asleep at n (the
// current node) to its backtrack set: for a step that ends the execution
// early, every other thread's step is dependent with it.
func (x *explorer) exploreOthers(n *node) {
	for t := range x.m.Threads {
		if !n.sleepSet.has(t) && x.m.Enabled(t) {
			n.backtrack.add(t)
		}
	}
}

// retreat undoes the step taken from node d and, for SDPOR, puts the
// thread that took it to sleep at d.
func (x *explorer) retreat(d int) {
	x.m.Undo()
	x.clk.Pop()
	if x.opts.Algorithm == SDPOR {
		n := &x.nodes[d]
		n.sleepSet.add(int(n.chosen))
		n.sleep = append(n.sleep, sleeper{n.chosen, footprintOf(&x.evs[d], x.mayAccesses(&x.evs[d]))})
	}
}

func (x *explorer) finish() {
	if x.stopReason == "" {
		x.res.Complete = true
	} else {
		x.res.Stopped = x.stopReason
	}
}

// enter initialises node d, the state just reached. It returns true if the
// state is terminal (the execution is over or sleep-set blocked).
func (x *explorer) enter(d int) bool {
	n := x.node(d)
	nt := len(x.m.Threads)
	n.enabled.reset(nt)
	n.backtrack.reset(nt)
	n.done.reset(nt)
	n.sleepSet.reset(nt)
	n.sleep = n.sleep[:0]
	if d > 0 && x.opts.Algorithm == SDPOR {
		parent := &x.nodes[d-1]
		ev := &x.evs[d-1]
		fp := ir.Footprint{Kind: ev.Kind, Loc: ev.Loc, Acc: ev.Acc}
		if may := x.mayAccesses(ev); may != nil {
			x.fpScratch = append(append(x.fpScratch[:0], ev.Acc...), may...)
			fp.Acc = x.fpScratch
		}
		for _, s := range parent.sleep {
			if s.thread != ev.Thread && !ir.Dependent(&s.fp, &fp) {
				n.sleep = append(n.sleep, s)
				n.sleepSet.add(int(s.thread))
			}
		}
	}
	first := int32(-1)
	anyEnabled := false
	for t := 0; t < nt; t++ {
		if !x.m.Enabled(t) {
			continue
		}
		n.enabled.add(t)
		anyEnabled = true
		if x.opts.Algorithm == DFS {
			n.backtrack.add(t)
			continue
		}
		if !n.sleepSet.has(t) && first < 0 {
			first = int32(t)
		}
	}
	if !anyEnabled {
		x.maximal(d)
		return true
	}
	if x.opts.Algorithm == SDPOR {
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
			x.stats.SSB++
			return true
		}
		// Prefer the thread that just moved: fewer context switches.
		if d > 0 {
			if last := x.evs[d-1].Thread; int(last) < nt && x.m.Enabled(int(last)) && !n.sleepSet.has(int(last)) {
				first = last
			}
		}
		n.backtrack.add(int(first))
	}
	return false
}

// pick returns the next thread to explore from n, or -1.
func (x *explorer) pick(n *node) int32 {
	for w, bits := range n.backtrack.w {
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
	var blocked []int32
	for t, th := range x.m.Threads {
		if th.Status != Finished {
			blocked = append(blocked, int32(t))
		}
	}
	if len(blocked) > 0 {
		var parts []string
		keys := make([]string, 0, len(blocked))
		for _, t := range blocked {
			th := x.m.Threads[t]
			parts = append(parts, th.Name+" waits at "+x.describePending(t))
			keys = append(keys, fmt.Sprintf("%s@%d", th.Body.Name, th.PC))
		}
		sort.Strings(keys)
		if x.opts.Algorithm == SDPOR {
			x.addBlockedRaces(int32(d))
		}
		t := blocked[0]
		x.reportKeyed(BugDeadlock, "deadlock: "+strings.Join(parts, "; "), t, x.rangeOf(t, x.m.Threads[t].PC), d, nil, "deadlock|"+strings.Join(keys, ","))
	}
	x.executionDone()
}

// stopped handles a step that stopped the execution.
func (x *explorer) stopped(d int, ev *Event) {
	if x.opts.Algorithm == SDPOR {
		x.addBlockedRaces(int32(d + 1))
	}
	if ev.Stop == StopAssume {
		x.stats.AssumeBlocked++
	}
	x.reportStop(d, ev)
	x.executionDone()
}

// reportStop reports the bug of a step (event d) that stopped the
// execution; a failed assume is no bug.
func (x *explorer) reportStop(d int, ev *Event) {
	kind := map[StopKind]BugKind{StopAssertion: BugAssertion, StopRuntimeError: BugRuntimeError, StopStepBound: BugStepBound}[ev.Stop]
	if kind != "" {
		x.report(kind, ev.Message, ev.Thread, x.rangeOf(ev.Thread, ev.PC), d+1, nil)
	}
}

func (x *explorer) rangeOf(t int32, pc int32) source.Range {
	b := x.m.Threads[t].Body
	if int(pc) < len(b.Ranges) {
		return b.Ranges[pc]
	}
	return source.Range{}
}

// describePending says in words what a blocked thread waits for.
func (x *explorer) describePending(t int32) string {
	th := x.m.Threads[t]
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLock:
		loc := th.Frame[in.B]
		s := "lock(" + x.prog.Locations[loc].Name + ")"
		if o := x.m.Mem[loc]; o > 0 {
			s += " held by " + x.m.Threads[o-1].Name
		}
		return s
	case ir.OpJoin:
		tid := th.Frame[in.B]
		if tid > 0 && int(tid) <= len(x.m.Threads) {
			return "join " + x.m.Threads[tid-1].Name
		}
		return "join"
	}
	return in.Op.String()
}

func (x *explorer) report(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide) {
	// One bug per kind and place: the first trace found stands for the
	// others. Where a thread is cut by the step bound depends on the
	// interleaving, so that bug is one per thread body.
	key := fmt.Sprintf("%s|%v", kind, r)
	if kind == BugStepBound {
		key = string(kind) + "|" + x.m.Threads[t].Body.Name
	}
	x.reportKeyed(kind, msg, t, r, steps, other, key)
}

// known reports whether a bug with this key was reported with a trace that
// a new one of steps steps would not improve on: one at most twice as
// long. (Halving at least, the trace of a bug is rebuilt a logarithmic
// number of times however often it is found again.)
func (x *explorer) known(key string, steps int) bool {
	i, ok := x.bugAt[key]
	return ok && len(x.res.Bugs[i].Schedule) <= 2*steps
}

// reportKeyed records a bug whose trace is the first steps events of the
// current execution, unless one with the same key was reported. When the
// same bug shows up again with a much shorter trace (see known), the
// result keeps the shorter one (OnBug is not called again).
func (x *explorer) reportKeyed(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide, key string) {
	if x.known(key, steps) {
		return
	}
	b := &Bug{Kind: kind, Message: msg, Thread: x.m.Threads[t].Name, Range: r, Other: other, LocalBudget: x.opts.LocalBudget, key: key}
	b.Schedule = make([]int32, 0, steps)
	for i := 0; i < steps; i++ {
		for j := x.evs[i].Steps(); j > 0; j-- {
			b.Schedule = append(b.Schedule, x.evs[i].Thread)
		}
	}
	b.Trace = BuildTrace(x.prog, x.evs[:steps], x.m)
	if i, ok := x.bugAt[key]; ok {
		x.res.Bugs[i] = b
		return
	}
	x.bugAt[key] = len(x.res.Bugs)
	x.res.Bugs = append(x.res.Bugs, b)
	if x.opts.OnBug != nil {
		x.opts.OnBug(b)
	}
}

// addRaces finds the races of event d and updates backtrack sets, as in
// Source-DPOR: for a race e ⋖ d, the initials of notdep(e).d at the node
// before e must meet its backtrack set.
func (x *explorer) addRaces(d int32, ev *Event) {
	x.raceScratch = x.clk.Races(d, ev, x.raceScratch[:0])
	for _, e := range x.raceScratch {
		x.reverse(e, d, ev.Thread, x.clk.DepClock(d))
	}
}

// addBlockedRaces handles the locks that never happened: at the end of an
// execution, a thread blocked on lock(m) races with the last lock of m
// (whose critical section never ended), exactly as if its lock had
// executed. Without this, a lock-order inversion would never be reversed
// into the order that lets the blocked thread go first.
func (x *explorer) addBlockedRaces(depth int32) {
	c := x.clk
	for t := range x.m.Threads {
		kind, loc := x.m.Peek(t)
		if kind != EvLock || x.m.Enabled(t) || loc < 0 {
			continue
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
func (x *explorer) reverse(e, upto, p int32, pClock []int32) {
	c := x.clk
	n := &x.nodes[e]
	x.initials = x.initials[:0]
	x.vEvents = x.vEvents[:0]
	consider := func(tk int32, vc []int32) bool {
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
		if n.enabled.has(int(q)) && (choice < 0 || q == p) {
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
	for w := range n.enabled.w {
		n.backtrack.w[w] |= n.enabled.w[w]
	}
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkDataRaces reports the data races event d takes part in.
func (x *explorer) checkDataRaces(d int32, ev *Event) {
	if x.clk.Off {
		return // no location can race
	}
	x.clk.DataRaces(d, x.prog.Locations, func(other int32, loc int32) {
		if x.m.Coarse {
			x.stopReason = stopCoarseRace // see "Coarse steps"
			return
		}
		o := &x.evs[other]
		r1 := x.rangeOf(o.Thread, o.PC)
		r2 := x.rangeOf(ev.Thread, ev.PC)
		a, b := r1.String(), r2.String()
		if b < a {
			a, b = b, a
		}
		key := "race|" + a + "|" + b
		if x.known(key, int(d)+1) {
			return
		}
		name := x.prog.Locations[loc].Name
		side := &RaceSide{Thread: x.m.Threads[o.Thread].Name, Range: r1, Op: describeAccess(o, loc, x.prog)}
		msg := fmt.Sprintf("data race on %s: %s by %s and %s by %s are not ordered by synchronisation",
			name, side.Op, side.Thread, describeAccess(ev, loc, x.prog), x.m.Threads[ev.Thread].Name)
		x.reportKeyed(BugDataRace, msg, ev.Thread, r2, int(d)+1, side, key)
	})
}

func describeAccess(ev *Event, loc int32, prog *Program) string {
	write := ev.Kind == EvWrite
	if ev.Kind == EvAtomic {
		for _, a := range ev.Acc {
			if a.Loc == loc && a.Write {
				write = true
			}
		}
	}
	if write {
		return "write of " + prog.Locations[loc].Name
	}
	return "read of " + prog.Locations[loc].Name
}

// tset is a set of thread indices.
type tset struct{ w []uint64 }

func (s *tset) reset(n int) {
	words := (n + 63) / 64
	if cap(s.w) < words {
		s.w = make([]uint64, words)
	}
	s.w = s.w[:words]
	for i := range s.w {
		s.w[i] = 0
	}
}

func (s *tset) add(t int) {
	for t/64 >= len(s.w) {
		s.w = append(s.w, 0)
	}
	s.w[t/64] |= 1 << (t % 64)
}

func (s *tset) has(t int) bool {
	return t/64 < len(s.w) && s.w[t/64]&(1<<(t%64)) != 0
}

func (s *tset) wordAt(i int) uint64 {
	if i < len(s.w) {
		return s.w[i]
	}
	return 0
}
