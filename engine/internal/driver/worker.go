package driver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sort"
	"strings"
	"time"
	"unsafe"

	"weft/engine/internal/clocks"
	"weft/engine/internal/slicing"
	"weft/engine/interp"
	"weft/engine/ir"
	"weft/source"
)

// Clocks say what an exploration needs of a worker's race clocks.
type Clocks uint8

const (
	// DependenceClocks: the dependence clocks (Source-DPOR's races) and
	// the synchronisation clocks (data races).
	DependenceClocks Clocks = iota
	// RaceClocks: the synchronisation clocks only, for data races; none
	// at all in a program where no location can race (every one a mutex
	// or atomic).
	RaceClocks
)

// Worker is one machine, its race clocks and its event buffer, for one
// exploration at a time: Step and Undo move the machine and the clocks
// together. It is not safe for concurrent use; a Run may have many.
type Worker struct {
	run  *Run
	Prog *ir.Program
	// Opts is a copy of the run's configuration.
	Opts Config
	m    *interp.Machine
	clk  *clocks.Clocks
	// Evs is the event buffer: Evs[d] is the step at depth d of the
	// current execution (GrowEvents makes room).
	Evs []interp.Event
	// Stats are this worker's counts since they were last added to the
	// run's (Cancelled does now and then, and Explore at the end).
	Stats Counters

	stepped    bool // a step was made (the clocks' settings are fixed then)
	lastMemory time.Time
	bigSteps   int // m.BigSteps() when the memory was last measured
	heapSample [1]metrics.Sample
	accounted  int64 // what this worker last added to run.accounted
	explBytes  int64 // what the exploration holds beside the machine (SetExplorationBytes)
	mayCache   map[*ir.AtomicFootprint][]ir.Access
	checkTick  int
	fineBuf    []interp.Event
	sched      scheduleCache // the last schedule built (see schedule)
	keepC      keepCache     // the last slice made (see sliceKeep)
	slicer     slicing.Slicer
}

// scheduleCache is the schedule of the first steps events of the
// current execution, while no step was made or undone.
type scheduleCache struct {
	valid             bool
	steps             int
	schedule, choices []int32
}

// keepCache is which fine steps of the first steps events of the current
// execution the slice for target keeps, and how many (see sliceKeep),
// while no step was made or undone.
type keepCache struct {
	valid  bool
	steps  int
	target slicing.Target
	keep   []bool
	kept   int
	// The slice's order, schedule and choices, once made (sliceOrder).
	ordered           bool
	order             []int
	schedule, choices []int32
}

// NewWorker returns a worker of r at the initial state of r's program,
// with coarse steps if coarse is set (see "Coarse steps") and the state
// fingerprint kept if fingerprint is set (interp.Config.Fingerprint). If that state
// does not fit in the memory budget, it stops r (StopMemory) and returns
// nil.
func (r *Run) NewWorker(coarse bool, use Clocks, fingerprint bool) *Worker {
	w := &Worker{run: r, Prog: r.Prog, Opts: r.cfg}
	w.heapSample[0].Name = heapMetric
	m, err := interp.NewMachineConfig(r.Prog, interp.Config{LocalBudget: r.cfg.LocalBudget, MemoryBudget: max(r.cfg.MaxMemory, 0),
		NoSpinWait: r.cfg.NoSpinWait, SpuriousWakeups: r.cfg.SpuriousWakeups, Fingerprint: fingerprint,
		Stopped: r.checkContext})
	if errors.Is(err, interp.ErrMemoryBudget) {
		r.Stop(StopMemory)
		return nil
	}
	if errors.Is(err, interp.ErrStopped) {
		return nil // the run's deadline or cancellation (checkContext stopped it)
	}
	m.Coarse = coarse
	m.TailBound = r.cfg.MaxSteps
	w.m = m
	w.clk = clocks.ForProgram(len(m.Threads), r.Prog.Locations)
	w.clk.SpuriousWakeups = r.cfg.SpuriousWakeups
	if use == RaceClocks {
		w.clk.NoDep, w.clk.Off = true, true
		for _, l := range r.Prog.Locations {
			if r.cfg.NoRaceCheck {
				break // no race is looked for
			}
			if !l.Mutex && !l.Atomic {
				w.clk.Off = false
				break
			}
		}
	}
	return w
}

// Run is the run w works for.
func (w *Worker) Run() *Run { return w.run }

// M is the machine. Explorations read it; they move it only through
// Step, StepAlt, StepBounded, Probe and Undo.
func (w *Worker) M() *interp.Machine { return w.m }

// Clocks are the race clocks, standing at the machine's state.
func (w *Worker) Clocks() *clocks.Clocks { return w.clk }

// UseConditionalDependence makes the clocks leave out the dependences
// cond says commute, and report every access of a data race (CDPOR; see
// clocks.Clocks.Cond). It must be called before the first step.
func (w *Worker) UseConditionalDependence(cond clocks.CondOracle) {
	if w.stepped {
		panic("driver: UseConditionalDependence after a step")
	}
	w.clk.Cond = cond
	w.clk.FullRaceWalk = true
}

// SetExplorationBytes tells the worker how much memory its exploration
// holds beside the machine, the clocks and the event buffer (an
// unfolding, a visited set), counted against Config.MaxMemory.
func (w *Worker) SetExplorationBytes(n int64) { w.explBytes = n }

// memoryCheckInterval is how often Cancelled measures the memory.
const memoryCheckInterval = 10 * time.Millisecond

// heapMetric is the Go heap: live objects and those not yet collected.
const heapMetric = "/memory/classes/heap/objects:bytes"

// Halted reports whether the run has stopped (without looking at the
// clock or the context: see Stopping).
func (w *Worker) Halted() bool { return w.run.Stopped() != NotStopped }

// Cancelled checks, now and then, the context, the time and memory
// budgets, and adds the worker's counts to the run's (reporting
// progress). It reports whether the run has stopped.
func (w *Worker) Cancelled() bool {
	w.checkTick++
	if w.checkTick&63 != 0 {
		return false
	}
	if w.run.checkContext() {
		return true
	}
	cfg := &w.run.cfg
	if cfg.MaxMemory <= 0 && cfg.HeapLimit <= 0 && cfg.OnProgress == nil {
		return false
	}
	now := time.Now()
	if now.Sub(w.lastMemory) >= memoryCheckInterval {
		w.lastMemory = now
		if w.overMemory() {
			w.run.Stop(StopMemory)
			return true
		}
		w.run.flush(&w.Stats, now)
	} else if cfg.OnProgress != nil && now.Sub(w.run.progressAt()) >= cfg.ProgressInterval {
		w.run.flush(&w.Stats, now)
	}
	return false
}

// checkSoon makes the next call of Cancelled check the context and the
// memory, after work that may have taken long.
func (w *Worker) checkSoon() { w.checkTick |= 63; w.lastMemory = time.Time{} }

// Stopping reports whether the exploration must end: the run stopped, or
// the context or a budget ended (checked now and then, see Cancelled).
// Long operations inside one step of an exploration (the unfolding's
// pruning and alternatives) call it in their loops, so that a deadline
// holds within them.
func (w *Worker) Stopping() bool { return w.Halted() || w.Cancelled() }

// Bytes is about how much memory the worker holds: its machine, clocks
// and event buffer, and what its exploration said it holds.
func (w *Worker) Bytes() int64 {
	return w.m.Bytes() + w.clk.Bytes() + int64(unsafe.Sizeof(interp.Event{}))*int64(cap(w.Evs)+cap(w.fineBuf)) + w.explBytes
}

// overMemory reports whether the run is over Config.MaxMemory (what its
// workers and bugs hold) or the process over Config.HeapLimit even after
// a collection, by more than an eighth (so that a heap near the limit
// does not collect ever more often).
func (w *Worker) overMemory() bool {
	cfg := &w.run.cfg
	if cfg.MaxMemory > 0 {
		b := w.Bytes()
		total := w.run.accounted.Add(b - w.accounted)
		w.accounted = b
		w.run.mu.Lock()
		total += w.run.bugs.bytes
		w.run.mu.Unlock()
		if total > cfg.MaxMemory {
			return true
		}
	}
	if cfg.HeapLimit <= 0 || w.heapBytes() <= cfg.HeapLimit {
		return false
	}
	runtime.GC()
	return w.heapBytes() > cfg.HeapLimit/8*7
}

func (w *Worker) heapBytes() int64 {
	metrics.Read(w.heapSample[:])
	if w.heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0 // not measured by this runtime: only the run's own accounting applies
	}
	return int64(w.heapSample[0].Value.Uint64())
}

// GrowEvents makes room in Evs for the step at depth d.
func (w *Worker) GrowEvents(d int) {
	for len(w.Evs) <= d {
		w.Evs = append(w.Evs, interp.Event{})
	}
}

// Step moves thread t on the machine and pushes the step on the race
// clocks (ev is where the machine writes the step). It returns false if
// the step stops the execution; the step is on the machine either way. A
// step stopped by the memory budget (interp.StopMemory) stops the run:
// the exploration must take it back and end.
func (w *Worker) Step(t int, ev *interp.Event) bool { return w.StepAlt(t, 0, ev) }

// StepAlt is Step with alternative alt of the step (see
// interp.Machine.Alternatives).
func (w *Worker) StepAlt(t, alt int, ev *interp.Event) bool {
	w.stepped = true
	w.sched.valid, w.keepC.valid = false, false
	ok := w.m.StepAlt(t, alt, ev)
	if !ok && ev.Stop == interp.StopMemory {
		w.run.Stop(StopMemory)
	} else if n := w.m.BigSteps(); n != w.bigSteps {
		// A step that saved many words: measure the memory now rather
		// than at the next tick of Cancelled, which may be long.
		w.bigSteps = n
		if w.overMemory() {
			w.run.Stop(StopMemory)
		}
	}
	if w.clk.Off {
		return ok
	}
	var may []ir.Access
	if !w.clk.NoDep {
		may = w.MayAccesses(ev)
	}
	w.clk.Push(ev, len(w.m.Threads), may)
	return ok
}

// StepBounded is StepAlt with the coarse tail of the step ending at
// tailBound visible steps of the execution (0: the step bound; see
// interp.Machine.TailBound).
func (w *Worker) StepBounded(t, alt, tailBound int, ev *interp.Event) bool {
	if tailBound <= 0 {
		tailBound = w.Opts.MaxSteps
	}
	w.m.TailBound = tailBound
	return w.StepAlt(t, alt, ev)
}

// Probe runs thread t's next step on the machine alone and takes it back
// (the clocks do not see it), to learn what the step does (ev).
func (w *Worker) Probe(t int, ev *interp.Event) {
	w.m.Step(t, ev)
	w.m.Undo()
}

// Undo takes the last step back, from the clocks and the machine.
func (w *Worker) Undo() {
	w.sched.valid, w.keepC.valid = false, false
	if !w.clk.Off {
		w.clk.Pop()
	}
	w.m.Undo()
}

// MayAccesses returns what an atomic step may access beyond what it did,
// when its block is not Stable (nil otherwise). See AtomicFootprint.
func (w *Worker) MayAccesses(ev *interp.Event) []ir.Access {
	if ev.Kind != ir.EvAtomic || ev.Stop != interp.NoStop {
		return nil
	}
	fp := w.m.Threads[ev.Thread].Body.Atomics[ev.PC]
	if fp == nil || fp.Stable {
		return nil
	}
	if acc, ok := w.mayCache[fp]; ok {
		return acc
	}
	acc := fp.Accesses()
	if w.mayCache == nil {
		w.mayCache = make(map[*ir.AtomicFootprint][]ir.Access)
	}
	w.mayCache[fp] = acc
	return acc
}

// FineEvents returns evs with the accesses of every tail as steps of their
// own.
func (w *Worker) FineEvents(evs []interp.Event) []interp.Event {
	n := 0
	for i := range evs {
		n += evs[i].Steps()
	}
	if n == len(evs) {
		return evs
	}
	out := w.fineBuf[:0]
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
	w.fineBuf = out
	return out
}

// RestartFine ends a coarse exploration, to start again with every access
// a step of its own (see "Coarse steps"), unless the run is ending
// already for another reason.
func (w *Worker) RestartFine() { w.run.Stop(stopCoarse) }

// Anomaly records an anomaly of the run (see Outcome.Anomalies).
func (w *Worker) Anomaly(what string) { w.run.Anomaly(what) }

// ExecutionDone counts a finished execution and checks the budget. An
// execution cut short by the memory budget does not count.
func (w *Worker) ExecutionDone() bool {
	if w.run.Stopped() == StopMemory {
		return true
	}
	w.Stats.Executions++
	if f := w.run.cfg.OnExecution; f != nil {
		f(w.FineEvents(w.Evs[:w.m.Depth()]), w.m)
	}
	w.Stats.MaxDepth = max(w.Stats.MaxDepth, w.m.StepCount())
	w.Stats.MaxThreads = max(w.Stats.MaxThreads, len(w.m.Threads))
	return w.run.countExecution()
}

// RangeOf is the source range of thread t's instruction at pc.
func (w *Worker) RangeOf(t int32, pc int32) source.Range {
	b := w.m.Threads[t].Body
	if int(pc) < len(b.Ranges) {
		return b.Ranges[pc]
	}
	return source.Range{}
}

// lengthCapThreads bounds the factor of the length cap (see Long).
const lengthCapThreads = 8

// Long reports whether the current execution has reached the length cap:
// a mode that bounds each step's causal past rather than executions lets
// threads independent of a cut one go on, each up to the bound, and
// without end in a tree of spawns. So an execution goes no further past
// the bound times the number of its threads plus one (at most
// lengthCapThreads times the bound), and the run ends incomplete
// (StopExecutionLength): a resource bound, never a silent cut.
func (w *Worker) Long() bool {
	factor := int64(min(len(w.m.Threads)+1, lengthCapThreads))
	if int64(w.m.StepCount()) < SatMul(int64(w.Opts.MaxSteps), factor) {
		return false
	}
	w.run.truncated.Store(true)
	return true
}

// SatMul is a*b for non-negative a and b, saturating at math.MaxInt64
// instead of overflowing: a bound times a factor must never wrap to a
// negative bound (issue 8: --max-steps 4611686018427387904 ended
// lost_update after one execution).
func SatMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Reports: what a worker finds, handed to its run.

// ReportStop reports the bug of a step (event d) that stopped the
// execution; a failed assume is no bug, nor is the memory budget.
func (w *Worker) ReportStop(d int, ev *interp.Event) {
	kind := map[interp.StopKind]BugKind{interp.StopAssertion: BugAssertion, interp.StopRuntimeError: BugRuntimeError, interp.StopStepBound: BugStepBound}[ev.Stop]
	if kind != "" {
		w.Report(kind, ev.Message, ev.Thread, w.RangeOf(ev.Thread, ev.PC), d+1, nil)
	}
}

// Report reports a bug of kind at r in thread t, whose trace is the
// first steps events of the current execution: one per kind and place.
// Where a thread is cut by the step bound depends on the interleaving, so
// that bug is one per thread body.
func (w *Worker) Report(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide) {
	key, place := fmt.Sprintf("%s|%v", kind, r), r.Start.Offset
	if kind == BugStepBound {
		body := w.m.Threads[t].Body
		key = string(kind) + "|" + body.Name
		place = math.MaxInt
		for _, br := range body.Ranges {
			place = min(place, br.Start.Offset)
		}
	}
	w.ReportKeyed(kind, msg, t, r, steps, other, key, place)
}

// ReportKeyed reports a bug whose trace is the first steps events of the
// current execution, once per key: the run keeps, of all the traces
// reported with one key, the first in compareSchedules' order. place is
// where the bug sorts among the others (see compareBugs): like the key,
// it must not depend on the trace.
func (w *Worker) ReportKeyed(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide, key string, place int) {
	w.report(&Found{Kind: kind, Message: msg, Range: r, Other: other, key: key, place: place}, t, steps, w.sliceBound(kind, t, steps))
}

// sliceBound is the length of the slice of a bug of kind found in thread
// t with the first steps events as its trace (their fine steps without
// Config.Slice): a bug whose kept trace is shorter cannot improve on it.
func (w *Worker) sliceBound(kind BugKind, t int32, steps int) int {
	if !w.run.cfg.Slice || steps != w.m.Depth() {
		return w.fineSteps(steps)
	}
	if target := slicing.TargetOf(string(kind)); target != slicing.None {
		_, n := w.sliceKeep(steps, target)
		return n
	}
	return w.fineSteps(steps)
}

// fineSteps is the number of fine steps of the first steps events.
func (w *Worker) fineSteps(steps int) int {
	if steps == w.m.Depth() {
		return w.m.StepCount() // the usual case, in constant time
	}
	n := 0
	for i := 0; i < steps; i++ {
		n += w.Evs[i].Steps()
	}
	return n
}

// report hands b, found in thread t with the first steps events as its
// trace, to the run, its schedule filled in (and sliced, with
// Config.Slice); bound is the length of the schedule it would keep (see
// sliceBound).
func (w *Worker) report(b *Found, t int32, steps, bound int) {
	fine := w.fineSteps(steps)
	evs := w.Evs[:steps]
	if w.m.LoopsAgain() && stuttered(evs) {
		// The execution the other modes make: see interp's "Looping
		// again".
		evs = withoutStutters(evs)
		fine = 0
		for i := range evs {
			fine += evs[i].Steps()
		}
	}
	b.Thread = w.m.Threads[t].Name
	ok, wanted := w.run.admitBug(b, bound)
	if wanted {
		// The execution that shows a bug is at least as long as its
		// trace, even when the exploration stops there (MaxBugs) or
		// cuts it, and when the bug is only counted: the statistics
		// must not say less than a trace shows. (A longer trace of a
		// bug known with a shorter one is not shown.)
		w.Stats.MaxDepth = max(w.Stats.MaxDepth, fine)
	}
	if !ok {
		return
	}
	if len(evs) < steps {
		// A path that went round iterations that started over: the
		// execution without them, whole (the slicer works on the
		// worker's own events and machine).
		b.Schedule, b.Choices = scheduleOf(evs, fine)
		if traceOf := w.run.cfg.TraceOf; traceOf != nil {
			b.Kept = traceOf(evs, w.m, nil)
			w.checkSoon()
		}
		w.run.offerBug(b)
		return
	}
	b.Schedule, b.Choices = w.schedule(steps)
	var order []int
	if target := slicing.TargetOf(string(b.Kind)); w.run.cfg.Slice && target != slicing.None && steps == w.m.Depth() {
		// The slice's length first, then its order only for a bug that
		// would be kept: the same bug is found again and again.
		keep, n := w.sliceKeep(steps, target)
		if n < len(b.Schedule) {
			if !w.run.betterBug(b.key, n, b.Schedule, b.Choices) {
				return
			}
			var sched, choices []int32
			order, sched, choices = w.sliceOrder(steps, target, keep)
			b.FullSchedule, b.FullChoices = b.Schedule, b.Choices
			b.Schedule, b.Choices = sched, choices
		}
	}
	if traceOf := w.run.cfg.TraceOf; traceOf != nil {
		b.Kept = traceOf(w.Evs[:steps], w.m, order)
		w.checkSoon() // that may have taken long
	}
	w.run.offerBug(b)
}

// sliceKeep is which fine steps of the first steps events, the whole
// current execution, the causal slice for target keeps, and how many
// (see package slicing), shared as schedule's are (a step in races with
// 30,000 earlier ones has one slice: the past of the step). It is valid
// until the next call.
func (w *Worker) sliceKeep(steps int, target slicing.Target) (keep []bool, n int) {
	c := &w.keepC
	if c.valid && c.steps == steps && c.target == target {
		return c.keep, c.kept
	}
	keep, n = w.slicer.Keep(w.Prog, w.Evs[:steps], w.m, target)
	*c = keepCache{valid: true, steps: steps, target: target, keep: keep, kept: n}
	return keep, n
}

// schedule is the schedule and choices (nil if every step took its
// first) of the first steps events, to be kept and never changed: the
// bugs found at one point of an execution share them (a step in races
// with 30,000 earlier ones would otherwise copy its schedule 30,000
// times). The cache is dropped at every step and undo.
func (w *Worker) schedule(steps int) (sched, choices []int32) {
	if w.sched.valid && w.sched.steps == steps {
		return w.sched.schedule, w.sched.choices
	}
	sched, all := scheduleOf(w.Evs[:steps], w.fineSteps(steps))
	w.sched = scheduleCache{valid: true, steps: steps, schedule: sched, choices: all}
	return sched, all
}

// scheduleOf is the schedule and choices of evs, which stand for fine
// steps.
func scheduleOf(evs []interp.Event, fine int) (sched, choices []int32) {
	sched = make([]int32, 0, fine)
	var all []int32
	withChoices := false
	for i := range evs {
		ev := &evs[i]
		withChoices = withChoices || ev.Alt != 0
		for j := ev.Steps(); j > 0; j-- {
			sched = append(sched, ev.Thread)
		}
	}
	if withChoices {
		all = make([]int32, 0, fine)
		for i := range evs {
			ev := &evs[i]
			all = append(all, ev.Alt)
			for j := ev.Steps(); j > 1; j-- {
				all = append(all, 0) // a tail access
			}
		}
	}
	return sched, all
}

// stuttered reports whether some event of evs ended an iteration that
// started over (interp.Event.Stutter).
func stuttered(evs []interp.Event) bool {
	for i := range evs {
		if evs[i].Stutter > 0 {
			return true
		}
	}
	return false
}

// withoutStutters is a copy of evs without the steps of the iterations
// that started over (interp.Event.Stutter: the event that ended one,
// and the thread's steps of it before), which a schedule for the other
// modes leaves out (interp's "Looping again").
func withoutStutters(evs []interp.Event) []interp.Event {
	drop := make([]bool, len(evs))
	pending := map[int32]int32{} // per thread: its earlier steps still to drop
	for i := len(evs) - 1; i >= 0; i-- {
		t := evs[i].Thread
		switch {
		case pending[t] > 0:
			drop[i] = true
			pending[t]--
		case evs[i].Stutter > 0:
			drop[i] = true
			pending[t] = evs[i].Stutter - 1
		}
	}
	out := make([]interp.Event, 0, len(evs))
	for i := range evs {
		if !drop[i] {
			out = append(out, evs[i])
		}
	}
	return out
}

// sliceOrder is the order, schedule and choices of the slice sliceKeep
// made (keep), shared as schedule's are: a step in races with 30,000
// earlier ones orders its slice once, not 30,000 times.
func (w *Worker) sliceOrder(steps int, target slicing.Target, keep []bool) (order []int, sched, choices []int32) {
	c := &w.keepC
	if c.valid && c.steps == steps && c.target == target && c.ordered {
		return c.order, c.schedule, c.choices
	}
	order = w.slicer.Order(w.Prog, w.Evs[:steps], w.m, target, keep)
	sched, choices = w.slicer.Schedule(w.Evs[:steps], order)
	if c.valid && c.steps == steps && c.target == target {
		c.ordered, c.order, c.schedule, c.choices = true, order, sched, choices
	}
	return order, sched, choices
}

// ReportStepBound reports that the current execution ran into the step
// bound, with its first steps steps as the trace. It blames the thread
// that made the most steps: it is the one that loops.
func (w *Worker) ReportStepBound(steps int) {
	blame := int32(0)
	for t, th := range w.m.Threads {
		if th.Steps > w.m.Threads[blame].Steps {
			blame = int32(t)
		}
	}
	w.Report(BugStepBound, fmt.Sprintf("the execution ran past the step bound of %s (non-termination or a livelock?)", plural(w.Opts.MaxSteps, "step")), blame, w.RangeOf(blame, w.m.Threads[blame].PC), steps, nil)
}

// CheckDataRaces reports the data races event d takes part in.
func (w *Worker) CheckDataRaces(d int32, ev *interp.Event) {
	if w.clk.Off || w.run.cfg.NoRaceCheck {
		return // no location can race, or none is looked for
	}
	w.clk.DataRaces(d, w.Prog.Locations, func(other int32, loc int32) {
		if w.Stopping() {
			// A step can be in thousands of races, each with a trace as
			// long as the execution: the deadline holds between them.
			return
		}
		if w.m.Coarse {
			w.RestartFine() // see "Coarse steps"
			return
		}
		o := &w.Evs[other]
		r1 := w.RangeOf(o.Thread, o.PC)
		r2 := w.RangeOf(ev.Thread, ev.PC)
		a, b := r1.String(), r2.String()
		if b < a {
			a, b = b, a
		}
		key := "race|" + a + "|" + b
		bound := w.sliceBound(BugDataRace, ev.Thread, int(d)+1)
		if !w.run.wantsBug(key, bound) {
			return
		}
		if w.run.cfg.Slice && bound < w.fineSteps(int(d)+1) {
			// Sliced, the race replaces the one kept only if it comes
			// first (compareFound): ask before making its message, as
			// the same race is found again and again.
			if full, choices := w.schedule(int(d) + 1); !w.run.betterBug(key, bound, full, choices) {
				return
			}
		}
		name := w.Prog.Locations[loc].Name
		side := &RaceSide{Thread: w.m.Threads[o.Thread].Name, Range: r1, Op: describeAccess(o, loc, w.Prog)}
		msg := fmt.Sprintf("data race on %s: %s by %s and %s by %s are not ordered by synchronisation",
			name, side.Op, side.Thread, describeAccess(ev, loc, w.Prog), w.m.Threads[ev.Thread].Name)
		w.report(&Found{Kind: BugDataRace, Message: msg, Range: r2, Other: side, key: key, variable: name,
			place: min(r1.Start.Offset, r2.Start.Offset)}, ev.Thread, int(d)+1, bound)
	})
}

func describeAccess(ev *interp.Event, loc int32, prog *ir.Program) string {
	write := ev.Kind == ir.EvWrite
	if ev.Kind == ir.EvAtomic {
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

// Deadlocked reports whether some thread has not finished, when no thread
// can move.
func (w *Worker) Deadlocked() bool {
	for _, th := range w.m.Threads {
		if th.Status != interp.Finished {
			return true
		}
	}
	return false
}

// Deadlock handles an execution of d steps in which no thread can move:
// a deadlock if some thread has not finished (reported once per set of
// blocked positions), and the end of an execution; or, if some thread
// spins on a location written since it read it, a spin-blocked
// execution, which is neither (Counters.SpinBlocked).
func (w *Worker) Deadlock(d int) {
	var blocked []int32
	for t, th := range w.m.Threads {
		if w.m.StaleSpin(t) {
			w.Stats.SpinBlocked++
			w.run.countExecution()
			return
		}
		if th.Status != interp.Finished {
			blocked = append(blocked, int32(t))
		}
	}
	if len(blocked) > 0 {
		var parts []string
		keys := make([]string, 0, len(blocked))
		place := math.MaxInt
		for _, t := range blocked {
			th := w.m.Threads[t]
			parts = append(parts, w.describeBlocked(t))
			keys = append(keys, fmt.Sprintf("%s@%d", th.Body.Name, th.PC))
			place = min(place, w.RangeOf(t, th.PC).Start.Offset)
		}
		sort.Strings(keys)
		t := blocked[0]
		w.ReportKeyed(BugDeadlock, "deadlock: "+strings.Join(parts, "; "), t, w.RangeOf(t, w.m.Threads[t].PC), d, nil, "deadlock|"+strings.Join(keys, ","), place)
	}
	w.ExecutionDone()
}

// describeBlocked says in words why thread t, which cannot move, never
// will: "t1 waits at lock(m) held by t2", "consumer spins forever at line
// 12 (read flag = 0, which no thread writes again)", "consumer waits on
// cv notEmpty (wait at line 7), never signalled".
func (w *Worker) describeBlocked(t int32) string {
	th := w.m.Threads[t]
	if th.Status == interp.Spinning {
		return th.Name + " " + w.describeSpin(t)
	}
	if in := th.Body.Code[th.PC]; in.Op == ir.OpWake && w.m.Waiting(int(t)) {
		return fmt.Sprintf("%s waits on cv %s (wait at line %d), never signalled", th.Name,
			w.Prog.Locations[th.Frame[in.B]].Name, w.RangeOf(t, th.PC-1).Start.Line+1)
	}
	return th.Name + " waits at " + w.DescribePending(t)
}

// describeSpin says where and on what thread t spins forever.
func (w *Worker) describeSpin(t int32) string {
	th := w.m.Threads[t]
	s := "spins forever at line " + fmt.Sprint(w.RangeOf(t, th.PC).Start.Line+1)
	if l := w.m.SpinLoop(int(t)); l != nil && l.Await {
		s = "waits forever at the await at line " + fmt.Sprint(w.RangeOf(t, th.PC).Start.Line+1)
	}
	accs := w.m.SpinReads(int(t))
	if len(accs) == 0 {
		return s + " (a loop that reads no shared memory)"
	}
	// A location the iteration only wrote, storing the value it held
	// (interp's "Writes that change nothing"), was not read: say so.
	var reads, writes []string
	for _, r := range accs {
		part := w.Prog.Locations[r.Loc].Name + " = " + interp.FormatValue(w.Prog, w.m, r.Loc, r.Value)
		if r.Write {
			writes = append(writes, part)
		} else {
			reads = append(reads, part)
		}
	}
	var what []string
	if len(reads) > 0 {
		what = append(what, "read "+strings.Join(reads, ", "))
	}
	if len(writes) > 0 {
		what = append(what, "wrote "+strings.Join(writes, ", ")+" (unchanged)")
	}
	return s + " (" + strings.Join(what, "; ") + ", which no thread changes again)"
}

// DescribePending says in words what a blocked thread waits for.
func (w *Worker) DescribePending(t int32) string {
	th := w.m.Threads[t]
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLock:
		loc := th.Frame[in.B]
		s := "lock(" + w.Prog.Locations[loc].Name + ")"
		if o := w.m.Mem[loc]; o > 0 {
			s += " held by " + w.m.Threads[o-1].Name
		}
		return s
	case ir.OpJoin:
		tid := th.Frame[in.B]
		if tid > 0 && int(tid) <= len(w.m.Threads) {
			return "join " + w.m.Threads[tid-1].Name
		}
		return "join"
	case ir.OpWake:
		// Woken (or free to wake up spuriously), but the mutex is held.
		loc := th.Frame[in.A]
		s := "the wake-up from " + w.Prog.Locations[th.Frame[in.B]].Name + ": lock(" + w.Prog.Locations[loc].Name + ")"
		if o := w.m.Mem[loc]; o > 0 && int(o) <= len(w.m.Threads) {
			s += " held by " + w.m.Threads[o-1].Name
		}
		return s
	}
	return in.Op.String()
}

// Restart forgets the counts of what the worker's run explored so far,
// for an exploration that starts over on the same worker (the stateful
// mode's second pass; see "The step bound" in package stateful), and
// tells Config.OnRestart. The bugs found stay found, and the executions
// already made still count toward Config.MaxExecutions: that budget
// bounds the work done.
func (w *Worker) Restart() {
	w.Stats = Counters{}
	w.run.mu.Lock()
	w.run.counters = Counters{}
	w.run.mu.Unlock()
	if f := w.run.cfg.OnRestart; f != nil {
		f()
	}
}
