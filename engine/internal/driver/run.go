// Package driver is what every exploration of package engine talks to,
// in two layers:
//
//   - a Run is one check of one program, safe for concurrent use: its
//     configuration, budgets (time, executions, memory) and cancellation,
//     the reason it stopped, statistics and progress, and the bug sink
//     with its deduplication and canonical choice of traces. A mode that
//     has no machine (a symbolic one) uses a Run alone.
//   - a Worker is one machine with its race clocks and its event buffer,
//     stepped and undone together (Step, Undo), the fine view of coarse
//     steps, and the reports that read the machine (a stop, a deadlock,
//     a data race, the step bound), which it hands to its Run.
//
// An exploration is a Mode: whether it explores coarse steps first, what
// it needs of the clocks, and a function that explores with a Worker.
// Explore runs it, and starts it again with fine steps at the first data
// race of a coarse exploration (see "Coarse steps"). The engine's public
// API (package engine) is defined there and translated to and from this
// package's Config and Outcome.
package driver

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"weft/engine/interp"
	"weft/engine/ir"
)

// StopReason says why a run ended before it was complete.
type StopReason uint8

const (
	NotStopped StopReason = iota
	// StopTimeout: the context's deadline passed.
	StopTimeout
	// StopCancelled: the context was cancelled.
	StopCancelled
	// StopMaxExecutions: Config.MaxExecutions executions were explored.
	StopMaxExecutions
	// StopMaxBugs: Config.MaxBugs distinct bugs were found.
	StopMaxBugs
	// StopExecutionLength: an execution reached the length cap (Long).
	StopExecutionLength
	// StopMemory: the run reached its memory budget, or the process its
	// heap limit.
	StopMemory
	// StopBitstate: the stateful exploration's visited set went over to
	// bitstate hashing (Run.MarkBitstate), which may skip states; the run
	// went on to its end but is not complete.
	StopBitstate
	// stopCoarse ends a coarse exploration that must start again with
	// fine steps (see "Coarse steps"); it never reaches an Outcome.
	stopCoarse
)

// Counters count what an exploration did.
type Counters struct {
	Executions    int64 // maximal executions explored that were not sleep-set blocked
	SSB           int64 // sleep-set-blocked executions
	AssumeBlocked int64 // executions (among Executions) that ended in a failed assume
	SpinBlocked   int64 // executions, not among Executions, that ended spin-blocked
	Events        int64 // visible steps executed
	MaxDepth      int   // longest execution, in steps
	MaxThreads    int   // most threads alive in one execution
	Elapsed       time.Duration
	// The stateful exploration's counts (see engine.Stats).
	States, Transitions, Matched, Retraversals int64
	VisitedBytes                               int64 // a maximum
}

// add adds o's counts to c (the maxima as maxima).
func (c *Counters) add(o Counters) {
	c.Executions += o.Executions
	c.SSB += o.SSB
	c.AssumeBlocked += o.AssumeBlocked
	c.SpinBlocked += o.SpinBlocked
	c.Events += o.Events
	c.MaxDepth = max(c.MaxDepth, o.MaxDepth)
	c.MaxThreads = max(c.MaxThreads, o.MaxThreads)
	c.States += o.States
	c.Transitions += o.Transitions
	c.Matched += o.Matched
	c.Retraversals += o.Retraversals
	c.VisitedBytes = max(c.VisitedBytes, o.VisitedBytes)
}

// Config is what a run is made with; package engine fills it in from its
// Options, every default given.
type Config struct {
	MaxSteps      int   // visible steps per execution before a step-bound bug
	MaxExecutions int64 // 0: no limit
	MaxBugs       int   // 0: no limit
	MaxTraces     int   // bugs kept with their schedules (> 0)
	// TraceOf, if set, describes a bug's trace when it is found, from
	// its events and the machine standing after them (Found.Kept): for
	// tests, which check it against the trace rebuilt from the schedule.
	// order, when not nil, lists the fine steps of events the bug's
	// (sliced) schedule runs, in its order: the trace is of those.
	TraceOf func(events []interp.Event, m *interp.Machine, order []int) any
	// Slice cuts each bug's schedule to its causal slice (package
	// slicing), keeping the whole execution in Found.FullSchedule; the
	// schedule kept per bug is then the shortest slice.
	Slice       bool
	LocalBudget int
	// MaxMemory bounds the memory the run accounts to itself (its
	// workers' machines, clocks and event buffers, what its exploration
	// reports with Worker.SetExplorationBytes, its bugs' schedules);
	// HeapLimit bounds the process's Go heap, the last guard for what is
	// not accounted and for checks running side by side. 0: no bound.
	MaxMemory, HeapLimit int64
	NoSpinWait           bool
	SpuriousWakeups      bool
	EveryAccess          bool // every shared access a scheduling point from the start
	NoRaceCheck          bool // no data race is looked for (race clocks off)
	ProgressInterval     time.Duration

	// OnBug is called with each new bug, as first found (the first
	// MaxTraces only); OnProgress about every ProgressInterval. With
	// several workers, from any of their goroutines, one call at a time.
	OnBug       func(*Found)
	OnProgress  func(Counters)
	OnExecution func(events []interp.Event, m *interp.Machine)
	OnRestart   func()
}

// Outcome is what a run found.
type Outcome struct {
	Counters
	Complete bool
	Stopped  StopReason
	// Bugs are the bugs kept (the first MaxTraces in the order of
	// compareBugs), listed by position and kind (see bugSink.result),
	// each with its canonical schedule: the shortest, ties broken by the
	// schedule's order, among the executions explored.
	Bugs    []*Found
	Omitted []BugSummary
	// Anomalies counts what an exploration's design rules out and should
	// never happen; FirstAnomaly says what the first was.
	Anomalies    int64
	FirstAnomaly string
	// Independence are CDPOR's counts of its independence conditions.
	Independence []IndepStat
}

// IndepStat counts the evaluations of one independence condition of a
// pair of sites: Checked times in the states where the two steps were
// adjacent, Held times true there.
type IndepStat struct {
	Pair          [2]ir.Site
	Origin, Text  string
	Checked, Held int64
}

// Run is one check of one program: what its workers share. Its methods
// are safe for concurrent use.
type Run struct {
	ctx   context.Context
	Prog  *ir.Program
	cfg   Config
	start time.Time

	stop       atomic.Uint32 // a StopReason
	executions atomic.Int64  // Executions + SpinBlocked so far, for MaxExecutions
	truncated  atomic.Bool   // some execution reached the length cap (Long)
	bitstate   atomic.Bool   // the visited set went over to bitstate hashing (MarkBitstate)
	accounted  atomic.Int64  // bytes the workers last reported (see Config.MaxMemory)

	lastProgress atomic.Int64 // when progress was last reported (UnixNano)

	// cbMu serialises the calls of OnBug and OnProgress: with several
	// workers they would otherwise run at once.
	cbMu            sync.Mutex
	reportedElapsed time.Duration // the Elapsed last handed to OnProgress (under cbMu)

	mu           sync.Mutex
	counters     Counters // what the workers flushed
	bugs         bugSink
	anomalies    int64
	firstAnomaly string
	independence []IndepStat
}

// NewRun starts a run of prog.
func NewRun(ctx context.Context, prog *ir.Program, cfg Config) *Run {
	r := &Run{ctx: ctx, Prog: prog, cfg: cfg, start: time.Now()}
	r.bugs.init(prog, &r.cfg)
	return r
}

// Config is the run's configuration.
func (r *Run) Config() *Config { return &r.cfg }

// Stop ends the run for reason, unless it has ended already.
func (r *Run) Stop(reason StopReason) { r.stop.CompareAndSwap(uint32(NotStopped), uint32(reason)) }

// Stopped is the reason the run ends, NotStopped while it goes on.
func (r *Run) Stopped() StopReason { return StopReason(r.stop.Load()) }

// checkContext stops the run if its context ended, and says whether it
// is stopped.
func (r *Run) checkContext() bool {
	select {
	case <-r.ctx.Done():
		if r.ctx.Err() == context.DeadlineExceeded {
			r.Stop(StopTimeout)
		} else {
			r.Stop(StopCancelled)
		}
	default:
	}
	return r.Stopped() != NotStopped
}

// Context is the run's context.
func (r *Run) Context() context.Context { return r.ctx }

// countExecution counts an execution toward Config.MaxExecutions, and
// stops the run when they are all done.
func (r *Run) countExecution() bool {
	n := r.executions.Add(1)
	if r.cfg.MaxExecutions > 0 && n >= r.cfg.MaxExecutions {
		r.Stop(StopMaxExecutions)
		return true
	}
	return false
}

// progressAt is when progress was last reported.
func (r *Run) progressAt() time.Time { return time.Unix(0, r.lastProgress.Load()) }

// flush adds a worker's counts to the run's, and reports progress when
// it is due (never an older snapshot after a newer one).
func (r *Run) flush(c *Counters, now time.Time) {
	r.mu.Lock()
	r.counters.add(*c)
	*c = Counters{MaxDepth: c.MaxDepth, MaxThreads: c.MaxThreads}
	var report Counters
	due := r.cfg.OnProgress != nil && now.Sub(r.progressAt()) >= r.cfg.ProgressInterval
	if due {
		r.lastProgress.Store(now.UnixNano())
		report = r.counters
		report.Elapsed = now.Sub(r.start)
	}
	r.mu.Unlock()
	if due {
		r.cbMu.Lock()
		if report.Elapsed >= r.reportedElapsed {
			r.reportedElapsed = report.Elapsed
			r.cfg.OnProgress(report)
		}
		r.cbMu.Unlock()
	}
}

// Add adds counts of work done without a worker (a symbolic mode) to the
// run's.
func (r *Run) Add(c Counters) { r.flush(&c, time.Now()) }

// Anomaly records an anomaly described by what (see Outcome.Anomalies).
func (r *Run) Anomaly(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.anomalies == 0 {
		r.firstAnomaly = what
	}
	r.anomalies++
}

// AddIndependence adds a worker's counts of independence conditions.
func (r *Run) AddIndependence(stats []IndepStat) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := func(s IndepStat) [2]ir.Site { return s.Pair }
	for _, s := range stats {
		i := slices.IndexFunc(r.independence, func(o IndepStat) bool {
			return key(o) == key(s) && o.Origin == s.Origin && o.Text == s.Text
		})
		if i < 0 {
			r.independence = append(r.independence, s)
			continue
		}
		r.independence[i].Checked += s.Checked
		r.independence[i].Held += s.Held
	}
}

// MarkBitstate records that the run's visited set went over to bitstate
// hashing: the run goes on, and its outcome will say it is not complete
// (StopBitstate).
func (r *Run) MarkBitstate() { r.bitstate.Store(true) }

// Outcome is what the run found, once its workers are done.
func (r *Run) Outcome() *Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Stopped() == NotStopped && r.truncated.Load() {
		r.Stop(StopExecutionLength)
	}
	if r.Stopped() == NotStopped && r.bitstate.Load() {
		r.Stop(StopBitstate)
	}
	o := &Outcome{Counters: r.counters, Anomalies: r.anomalies, FirstAnomaly: r.firstAnomaly}
	o.Stopped = r.Stopped()
	o.Complete = o.Stopped == NotStopped
	o.Bugs, o.Omitted = r.bugs.result()
	o.Independence = slices.Clone(r.independence)
	site := func(a, b ir.Site) int { return cmp.Or(cmp.Compare(a.Body, b.Body), cmp.Compare(a.PC, b.PC)) }
	slices.SortFunc(o.Independence, func(a, b IndepStat) int {
		return cmp.Or(site(a.Pair[0], b.Pair[0]), site(a.Pair[1], b.Pair[1]), cmp.Compare(a.Origin, b.Origin), cmp.Compare(a.Text, b.Text))
	})
	o.Elapsed = time.Since(r.start)
	return o
}
