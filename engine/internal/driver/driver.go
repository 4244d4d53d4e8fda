// Package driver is what every exploration of package engine talks to:
// the machine and the race clocks stepped and undone together, budgets
// and cancellation, statistics, bug reports with their traces and their
// deduplication, the step bound's blame, data races, and the restart of a
// coarse exploration with fine steps at the first data race. The options,
// results and bugs of the engine's API are defined here; the explorations
// (packages dpor and unfolding) decide only which thread moves next.
package driver

import (
	"context"
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
	// CDPOR is Constrained DPOR (Albert et al.): SDPOR that takes two
	// steps as independent where an independence constraint holds
	// (Options.Constraints).
	CDPOR Algorithm = "cdpor"
	// QPOR is unfolding-based POR with k-partial alternatives (Nguyen et
	// al., CAV'18); Options.K is k.
	QPOR Algorithm = "qpor"
	// Optimal is unfolding-based POR with alternatives (∞-partial): it
	// never explores a sleep-set-blocked execution.
	Optimal Algorithm = "optimal"
)

// Algorithms lists the modes Explore accepts.
var Algorithms = []Algorithm{DFS, SDPOR, CDPOR, QPOR, Optimal}

// DefaultMaxSteps is the default bound on visible steps per execution.
const DefaultMaxSteps = 100_000

// MaxMaxSteps is the largest Options.MaxSteps an exploration accepts. The
// unfolding modes count steps in 32-bit integers and add two causal pasts
// of up to MaxSteps steps; the POR modes let an execution grow to
// lengthCapThreads times MaxSteps. 2^30 keeps every such sum and product
// far from overflowing, and is more steps than any execution that fits in
// memory (every step costs more than a hundred bytes).
const MaxMaxSteps = 1 << 30

// Options configure an exploration. The zero value explores with SDPOR
// and default bounds until done or until the context ends.
type Options struct {
	Algorithm Algorithm
	// Constraints are the independence constraints CDPOR uses beside its
	// own (nil: its own only); the other modes ignore them.
	Constraints   *ir.Constraints
	MaxSteps      int   // visible steps per execution before a step-bound bug (default DefaultMaxSteps)
	MaxExecutions int64 // stop after this many executions, spin-blocked ones included (0: no limit)
	MaxBugs       int   // stop once this many distinct bugs are found (0: no limit); Stopped is StoppedMaxBugs
	LocalBudget   int   // local instructions between visible steps (default DefaultLocalBudget)
	K             int   // qpor: k of k-partial alternatives (default 1)
	// MaxTraces bounds the bugs kept in Result.Bugs with their traces
	// (0: DefaultMaxTraces). Their traces also take at most a quarter of
	// MaxMemory (traceStepBytes a step). The distinct bugs found beyond
	// either bound are counted in Result.Omitted, per kind and variable,
	// not kept: a model with thousands of races, each with a trace of
	// thousands of steps, once took 11 GB.
	MaxTraces int
	// KeepTraces builds each bug's trace in words when it is found and
	// keeps it (Bug.Trace then returns it as it is), instead of
	// rebuilding it from the schedule when it is shown. For tests, which
	// check that both give the same trace.
	KeepTraces bool
	// MaxMemory bounds, in bytes, the memory the exploration may use
	// (engine.Explore: 0 means DefaultMaxMemory(), negative no bound).
	// Reaching it ends the exploration incomplete, with Result.Stopped
	// StoppedMemory, never a crash. It is checked two ways: the machine
	// refuses, before allocating it, a thread frame that would take what
	// it holds (frames, undo log, memo) past the budget, and stops at a
	// step whose undo log did; and the Go heap is measured about every
	// memoryCheckInterval and after each step that saved many words
	// (interp.Machine.BigSteps): when it is over the budget a garbage
	// collection runs, and the exploration stops if what stays live is
	// over seven eighths of the budget (so that a heap near the budget
	// does not collect ever more often). The heap is the process's:
	// explorations running side by side share one. Garbage not yet
	// collected and memory the runtime has not yet returned to the
	// system come on top of the budget.
	MaxMemory int64

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
	OnExecution func(events []interp.Event, m *interp.Machine)
	// OnRestart, if set, is called when the exploration starts over with
	// every access a scheduling point, the program having turned out to
	// have a data race (see "Coarse steps"): the executions and statistics
	// seen so far do not count.
	OnRestart func()

	// EveryAccess makes every shared access a scheduling point from the
	// start, instead of only in programs that turn out to have a data race
	// (see "Coarse steps"); DFS always does.
	EveryAccess bool

	// NoSpinWait turns spin-waiting off: a while loop that only reads goes
	// on running (up to MaxSteps) instead of waiting for a write of what
	// it read (see "Spin loops wait" in package interp). An await always
	// waits.
	NoSpinWait bool
	// SpuriousWakeups lets a thread waiting on a condition variable wake
	// up without being signalled, as POSIX allows: each such wake-up is
	// explored.
	SpuriousWakeups bool

	PruneAlways bool // qpor, optimal: prune the unfolding after every call of Explore (tests)
}

// Stats counts what an exploration did.
type Stats struct {
	Executions    int64 // maximal executions explored that were not sleep-set blocked
	SSB           int64 // sleep-set-blocked executions
	AssumeBlocked int64 // executions (among Executions) that ended in a failed assume
	// SpinBlocked counts the executions, not among Executions, that ended
	// with a spinning thread that read a location written after its read:
	// it would have read the new value and gone on, in another execution
	// (see "Spin loops wait" in package interp).
	SpinBlocked int64
	Events      int64 // visible steps executed
	MaxDepth    int   // longest execution, in steps
	MaxThreads  int   // most threads alive in one execution (declared and spawned)
	Elapsed     time.Duration
}

// Result is the outcome of an exploration.
type Result struct {
	Stats
	Algorithm Algorithm
	Complete  bool   // every execution was explored
	Stopped   string // why not complete: "timeout", "cancelled", "max-executions", StoppedMaxBugs, StoppedExecutionLength, StoppedMemory
	Bugs      []*Bug
	// Omitted summarises the distinct bugs found beyond those kept in
	// Bugs (see Options.MaxTraces): how many of each kind on each
	// variable, and where. They count toward Options.MaxBugs.
	Omitted []BugSummary

	// Anomalies counts what the qpor design rules out and should never
	// happen: a clue none of whose events is enabled, a Stable atomic block
	// whose accesses change, derived state that checkIndexes finds wrong
	// (tests check it stays 0); firstAnomaly says what the first was,
	// where it is known.
	Anomalies    int64
	FirstAnomaly string

	// Independence counts, for CDPOR, how often a condition under which
	// two dependent steps commute was evaluated for a pair of sites, and
	// how often it held (sorted by pair, then Origin and Text).
	Independence []IndepStat

	// Assumptions are what the result rests on besides the model's text
	// and the options' budgets: behaviours the language allows that the
	// exploration did not explore (engine.Explore fills it in; see
	// engine.Assumptions). A verdict quoting the result must name them.
	Assumptions []Assumption
}

// Assumption names a behaviour the language allows that an exploration
// left out, so that its verdict holds only if that behaviour cannot
// happen.
type Assumption string

// IndepStat counts the evaluations of one independence condition of a
// pair of sites: Checked times in the states where the two steps were
// adjacent, Held times true there. Origin and Text are the constraint's
// (ir.Constraint), or the engine's own "same-value" conditions.
type IndepStat struct {
	Pair          [2]ir.Site
	Origin, Text  string
	Checked, Held int64
}

// Anomaly records an Anomaly described by what.
func (x *Driver) Anomaly(what string) {
	if x.Res.Anomalies == 0 {
		x.Res.FirstAnomaly = what
	}
	x.Res.Anomalies++
}

// StoppedExecutionLength is Result.Stopped when a POR mode met an
// execution longer than Options.MaxSteps times its number of threads plus
// one, or than eight times MaxSteps (threads beside a cut one went on, or
// a tree of spawns), and explored no further there (see Driver.Long).
const StoppedExecutionLength = "execution-length"

// StoppedMaxBugs is Result.Stopped when Options.MaxBugs distinct bugs
// were found and the exploration stopped there.
const StoppedMaxBugs = "max-bugs"

// StoppedMemory is Result.Stopped when the exploration reached
// Options.MaxMemory.
const StoppedMemory = "memory"

// DefaultMaxTraces is the default of Options.MaxTraces.
const DefaultMaxTraces = 100

// traceStepBytes is what a kept bug takes a step, as counted against
// the quarter of Options.MaxMemory its traces may take: its schedule
// and choice; with Options.KeepTraces, also a TraceStep and the text of
// its operation.
const traceStepBytes = 8

// keptTraceStepBytes is traceStepBytes with Options.KeepTraces.
const keptTraceStepBytes = int64(unsafe.Sizeof(TraceStep{})) + 40 + traceStepBytes

// BugSummary counts the distinct bugs of one kind (on one variable, for
// data races) found but not kept in Result.Bugs (Options.MaxTraces).
type BugSummary struct {
	Kind     BugKind
	Variable string // data races: the variable raced on ("" otherwise)
	Count    int64
	// Lines is the range of the bugs' lines (1-based, first and last);
	// OtherLines, for data races, that of the other accesses.
	Lines, OtherLines [2]int
}

// String says it in words: "5407 more data races on x, between line
// 30007 and lines 4–30003"; "3 more deadlocks at lines 4–9".
func (s BugSummary) String() string {
	what := map[BugKind]string{BugAssertion: "assertion failure", BugDeadlock: "deadlock", BugRuntimeError: "runtime error",
		BugDataRace: "data race", BugStepBound: "step-bound bug"}[s.Kind]
	if what == "" {
		what = string(s.Kind) + " bug"
	}
	if s.Count != 1 {
		what += "s"
	}
	if s.Kind == BugDataRace {
		return fmt.Sprintf("%d more %s on %s, between %s and %s", s.Count, what, s.Variable, lineSpan(s.Lines), lineSpan(s.OtherLines))
	}
	return fmt.Sprintf("%d more %s at %s", s.Count, what, lineSpan(s.Lines))
}

func lineSpan(l [2]int) string {
	if l[0] == l[1] {
		return fmt.Sprintf("line %d", l[0])
	}
	return fmt.Sprintf("lines %d–%d", l[0], l[1])
}

// omit counts a bug not kept (see Options.MaxTraces) in its summary.
func (x *Driver) omit(kind BugKind, variable string, r source.Range, other *RaceSide) {
	line := r.Start.Line + 1
	oline := 0
	if other != nil {
		oline = other.Range.Start.Line + 1
	}
	for i := range x.Res.Omitted {
		s := &x.Res.Omitted[i]
		if s.Kind == kind && s.Variable == variable {
			s.Count++
			s.Lines = [2]int{min(s.Lines[0], line), max(s.Lines[1], line)}
			s.OtherLines = [2]int{min(s.OtherLines[0], oline), max(s.OtherLines[1], oline)}
			return
		}
	}
	x.Res.Omitted = append(x.Res.Omitted, BugSummary{Kind: kind, Variable: variable, Count: 1, Lines: [2]int{line, line}, OtherLines: [2]int{oline, oline}})
}

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
	Schedule []int32
	// Choices is the alternative of each step of Schedule (see
	// interp.Machine.Alternatives: a choose's value, the waiter a signal
	// wakes); nil when every step took its first.
	Choices         []int32
	LocalBudget     int  // the local-instruction bound it was found with (0: the default)
	NoSpinWait      bool // it was found with Options.NoSpinWait
	SpuriousWakeups bool // it was found with Options.SpuriousWakeups
	// FirstMessage is, when a shorter trace of the same bug replaced the
	// one first found (and handed to OnBug) and the message changed with
	// it (another array index, another instance of a thread), the message
	// first found; otherwise empty.
	FirstMessage string

	key string // what an exploration reports once (see explorer.report)

	// A bug keeps its schedule, not its trace: a trace in words takes
	// about 170 bytes a step, and a step-bound or long racy execution
	// has up to MaxSteps of them, for each of up to MaxTraces bugs (the
	// 30,000 distinct races of a long thread took gigabytes). The
	// trace is rebuilt from the schedule when it is shown (Trace,
	// TraceRange): the replay is deterministic, and describes the same
	// steps in the same words as the exploration would have.
	prog  *ir.Program // the program it was found in, to rebuild the trace
	trace []TraceStep // the trace built when found (Options.KeepTraces, SetTrace)
}

// TraceLen is the number of steps of b's trace: its schedule's.
func (b *Bug) TraceLen() int { return len(b.Schedule) }

// SetTrace gives b a trace in words that Trace returns as it is (a bug
// built from a saved report, or by a test).
func (b *Bug) SetTrace(steps []TraceStep) { b.trace = steps }

// Trace describes every step of b's counterexample (see TraceRange).
func (b *Bug) Trace() ([]TraceStep, error) { return b.TraceRange(0, b.TraceLen()) }

// TraceRange describes steps from to to (0-based, to excluded) of b's
// counterexample, re-executing its schedule up to step to. Describing
// a step costs far more than executing it, so showing part of a long
// trace costs little more than running it.
func (b *Bug) TraceRange(from, to int) ([]TraceStep, error) {
	first, _, err := b.traceParts(from, to, to, to)
	return first, err
}

// TraceEnds describes the first head and the last tail steps of b's
// counterexample (with one re-execution of its schedule): first is the
// whole trace, and last empty, when it has no more than head+tail steps.
func (b *Bug) TraceEnds(head, tail int) (first, last []TraceStep, err error) {
	n := b.TraceLen()
	head, tail = max(head, 0), max(tail, 0)
	if head+tail >= n {
		return b.traceParts(0, n, n, n)
	}
	return b.traceParts(0, head, n-tail, n)
}

// traceParts describes steps [a0, a1) and [b0, b1) of b's trace, a1 <= b0,
// replaying its schedule up to b1.
func (b *Bug) traceParts(a0, a1, b0, b1 int) ([]TraceStep, []TraceStep, error) {
	n := b.TraceLen()
	if b.trace != nil {
		n = len(b.trace)
	}
	clamp := func(i int) int { return min(max(i, 0), n) }
	a0, a1, b0, b1 = clamp(a0), clamp(a1), clamp(b0), clamp(b1)
	a1, b1 = max(a0, a1), max(b0, b1)
	if b.trace != nil {
		return b.trace[a0:a1], b.trace[b0:b1], nil
	}
	if a0 == a1 && b0 == b1 {
		return nil, nil, nil
	}
	if b.prog == nil {
		return nil, nil, errors.New("the bug carries no program to rebuild its trace from")
	}
	// Only the steps described are kept: the others are executed into
	// one scratch event.
	firstEvs, lastEvs := make([]interp.Event, a1-a0), make([]interp.Event, b1-b0)
	var scratch interp.Event
	at := func(i int) *interp.Event {
		switch {
		case i >= a0 && i < a1:
			return &firstEvs[i-a0]
		case i >= b0 && i < b1:
			return &lastEvs[i-b0]
		}
		scratch = interp.Event{}
		return &scratch
	}
	m, err := replay(context.Background(), b.prog, b.Schedule[:max(a1, b1)], b.ReplayOptions(), at, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("rebuilding the trace of a %s: %w", b.Kind, err)
	}
	var first, last []TraceStep
	if a0 < a1 {
		first = BuildTrace(b.prog, firstEvs, m)
	}
	if b0 < b1 {
		last = BuildTrace(b.prog, lastEvs, m)
	}
	return first, last, nil
}

// Replay re-executes schedule from the initial state of prog on a fine
// machine (every access a step), calling visit (if not nil) after each
// step with the machine standing after it. ro are the settings the
// schedule was found with. It returns the events, the machine, and an
// error if the schedule does not fit the program (a thread that does
// not exist or cannot move, an execution that stopped early) or ctx
// ended (looked at every 1,024 steps).
func Replay(ctx context.Context, prog *ir.Program, schedule []int32, ro ReplayOptions, visit func(i int, ev *interp.Event, m *interp.Machine)) ([]interp.Event, *interp.Machine, error) {
	events := make([]interp.Event, 0, len(schedule))
	m, err := replay(ctx, prog, schedule, ro, func(int) *interp.Event {
		events = append(events, interp.Event{})
		return &events[len(events)-1]
	}, visit)
	return events, m, err
}

// replay is Replay, each step's event stored where at says (which may
// give the same scratch event again and again for the steps the caller
// does not keep).
func replay(ctx context.Context, prog *ir.Program, schedule []int32, ro ReplayOptions, at func(i int) *interp.Event, visit func(i int, ev *interp.Event, m *interp.Machine)) (*interp.Machine, error) {
	m, err := interp.NewMachineConfig(prog, interp.Config{LocalBudget: ro.LocalBudget, NoSpinWait: ro.NoSpinWait, SpuriousWakeups: ro.SpuriousWakeups})
	if err != nil {
		return nil, err
	}
	if ro.Choices != nil && len(ro.Choices) < len(schedule) {
		return m, fmt.Errorf("%d choices for a schedule of %d steps", len(ro.Choices), len(schedule))
	}
	m.ReserveSteps(len(schedule))
	for i, t := range schedule {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return m, err
			}
		}
		if t < 0 || int(t) >= len(m.Threads) {
			return m, fmt.Errorf("step %d: no thread %d", i+1, t)
		}
		if !m.Enabled(int(t)) {
			return m, fmt.Errorf("step %d: thread %s cannot move", i+1, m.Threads[t].Name)
		}
		alt := 0
		if ro.Choices != nil {
			alt = int(ro.Choices[i])
		}
		if n := m.Alternatives(int(t)); alt < 0 || alt >= n {
			return m, fmt.Errorf("step %d: thread %s's step has %d alternatives, not %d", i+1, m.Threads[t].Name, n, alt+1)
		}
		ev := at(i)
		ok := m.StepAlt(int(t), alt, ev)
		if visit != nil {
			visit(i, ev, m)
		}
		if !ok && i != len(schedule)-1 {
			return m, fmt.Errorf("step %d: the execution stopped early (%s)", i+1, ev.Message)
		}
	}
	return m, nil
}

// ReplayOptions are what a replay of a schedule needs besides the
// schedule: the settings of the machine it was found with.
type ReplayOptions struct {
	// Choices is the alternative of each step (see Bug.Choices; nil: the
	// first of every step).
	Choices         []int32
	LocalBudget     int // 0: the default
	NoSpinWait      bool
	SpuriousWakeups bool
}

// ReplayOptions are the options that replay b's schedule.
func (b *Bug) ReplayOptions() ReplayOptions {
	return ReplayOptions{Choices: b.Choices, LocalBudget: b.LocalBudget, NoSpinWait: b.NoSpinWait, SpuriousWakeups: b.SpuriousWakeups}
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
	// Kind is the kind of the step; Object what it acted on: the
	// location read, written, locked or unlocked, the thread spawned or
	// joined, the one location of an atomic block that touches only one
	// ("" otherwise, and for stop steps).
	Kind   interp.EventKind
	Object string
	// Ends marks the step with which its thread finished.
	Ends bool
	// Choice is the alternative the step took (Bug.Choices): 0 for the
	// first, and for every step that has only one.
	Choice int32
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
// own (stopCoarse), and the races are reported from there.

// stopCoarse is the internal stop reason of a coarse exploration that
// must start again with fine steps (it never reaches a Result).
const stopCoarse = "coarse-restart"

// RestartFine ends a coarse exploration, to start again with every access
// a step of its own (see "Coarse steps"), unless it is ending already for
// another reason (the memory budget ran out in the step just made).
func (x *Driver) RestartFine() {
	if x.StopReason == "" {
		x.StopReason = stopCoarse
	}
}

// FineEvents returns evs with the accesses of every tail as steps of their
// own.
func (x *Driver) FineEvents(evs []interp.Event) []interp.Event {
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

// MayAccesses returns what an atomic step may access beyond what it did,
// when its block is not Stable (nil otherwise). See AtomicFootprint.
func (x *Driver) MayAccesses(ev *interp.Event) []ir.Access {
	if ev.Kind != ir.EvAtomic || ev.Stop != interp.NoStop {
		return nil
	}
	fp := x.M.Threads[ev.Thread].Body.Atomics[ev.PC]
	if fp == nil || fp.Stable {
		return nil
	}
	if acc, ok := x.mayCache[fp]; ok {
		return acc
	}
	acc := fp.Accesses()
	if x.mayCache == nil {
		x.mayCache = make(map[*ir.AtomicFootprint][]ir.Access)
	}
	x.mayCache[fp] = acc
	return acc
}

// Driver is what every exploration talks to: it holds the machine and the
// race clocks and steps and undoes them together, and owns the budgets,
// cancellation, statistics, bug reports and their deduplication, the
// step-bound report and data races. An exploration decides only which
// thread moves next.
type Driver struct {
	ctx   context.Context
	Prog  *ir.Program
	Opts  Options
	M     *interp.Machine
	Clk   *clocks.Clocks
	Evs   []interp.Event
	Stats Stats
	Res   *Result
	start time.Time

	bugAt      map[string]int // bug key -> index in res.Bugs
	lastReport time.Time
	lastMemory time.Time         // when the heap was last measured
	bigSteps   int               // M.BigSteps() then
	heapSample [1]metrics.Sample // the heap's size, read there
	StopReason string
	mayCache   map[*ir.AtomicFootprint][]ir.Access
	checkTick  int
	truncated  bool  // some execution reached the length cap and went no further (Long)
	traceBytes int64 // what the kept bugs' traces take (see Options.MaxTraces)
	omitted    int64 // distinct bugs found and not kept
	fineBuf    []interp.Event
}

// New returns a driver at the initial state of prog. If that state does
// not fit in Options.MaxMemory, the driver has no machine and StopReason
// is StoppedMemory: there is nothing to explore.
func New(ctx context.Context, prog *ir.Program, opts Options) *Driver {
	x := &Driver{
		ctx: ctx, Prog: prog, Opts: opts,
		Res:   &Result{Algorithm: opts.Algorithm},
		start: time.Now(),
		bugAt: make(map[string]int),
	}
	x.heapSample[0].Name = heapMetric
	m, err := interp.NewMachineConfig(prog, interp.Config{LocalBudget: opts.LocalBudget, MemoryBudget: max(opts.MaxMemory, 0),
		NoSpinWait: opts.NoSpinWait, SpuriousWakeups: opts.SpuriousWakeups})
	if errors.Is(err, interp.ErrMemoryBudget) {
		x.StopReason = StoppedMemory
		return x
	}
	x.M = m
	x.Clk = clocks.ForProgram(len(m.Threads), prog.Locations)
	x.Clk.SpuriousWakeups = opts.SpuriousWakeups
	return x
}

// memoryCheckInterval is how often Cancelled measures the heap against
// Options.MaxMemory.
const memoryCheckInterval = 10 * time.Millisecond

// heapMetric is the Go heap: live objects and those not yet collected.
const heapMetric = "/memory/classes/heap/objects:bytes"

// Cancelled checks the context, the time budget and the memory budget now
// and then.
func (x *Driver) Cancelled() bool {
	x.checkTick++
	if x.checkTick&63 != 0 {
		return false
	}
	select {
	case <-x.ctx.Done():
		if x.ctx.Err() == context.DeadlineExceeded {
			x.StopReason = "timeout"
		} else {
			x.StopReason = "cancelled"
		}
		return true
	default:
	}
	if x.Opts.MaxMemory <= 0 && x.Opts.OnProgress == nil {
		return false
	}
	now := time.Now()
	if x.Opts.MaxMemory > 0 && now.Sub(x.lastMemory) >= memoryCheckInterval {
		x.lastMemory = now
		if x.overMemory() {
			x.StopReason = StoppedMemory
			return true
		}
	}
	if x.Opts.OnProgress != nil {
		if now.Sub(x.lastReport) >= x.Opts.ProgressInterval {
			x.lastReport = now
			s := x.Stats
			s.Elapsed = now.Sub(x.start)
			x.Opts.OnProgress(s)
		}
	}
	return false
}

// checkSoon makes the next call of Cancelled check the context and the
// memory, after work that may have taken long.
func (x *Driver) checkSoon() { x.checkTick |= 63 }

// Stopping reports whether the exploration must end: a budget ran out,
// the context ended (checked now and then, see Cancelled), or a bug
// budget was met. Long operations inside one step of an exploration
// (the unfolding's pruning and alternatives) call it in their loops, so
// that a deadline holds within them.
func (x *Driver) Stopping() bool { return x.StopReason != "" || x.Cancelled() }

// overMemory reports whether the heap is over Options.MaxMemory even
// after a collection, by more than the slack described there.
func (x *Driver) overMemory() bool {
	if x.heapBytes() <= x.Opts.MaxMemory {
		return false
	}
	runtime.GC()
	return x.heapBytes() > x.Opts.MaxMemory/8*7
}

func (x *Driver) heapBytes() int64 {
	metrics.Read(x.heapSample[:])
	if x.heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0 // not measured by this runtime: only the machine's own check applies
	}
	return int64(x.heapSample[0].Value.Uint64())
}

// ExecutionDone counts a finished execution and checks the budget. An
// execution cut short by the memory budget does not count.
func (x *Driver) ExecutionDone() bool {
	if x.StopReason == StoppedMemory {
		return true
	}
	x.Stats.Executions++
	if x.Opts.OnExecution != nil {
		x.Opts.OnExecution(x.FineEvents(x.Evs[:x.M.Depth()]), x.M)
	}
	if d := x.M.StepCount(); d > x.Stats.MaxDepth {
		x.Stats.MaxDepth = d
	}
	if n := len(x.M.Threads); n > x.Stats.MaxThreads {
		x.Stats.MaxThreads = n
	}
	return x.countTowardBudget()
}

// countTowardBudget checks Options.MaxExecutions after an execution
// ended: the executions counted and the spin-blocked ones, which cost as
// much to explore (a model whose spins mostly go stale would otherwise
// run on far past the budget).
func (x *Driver) countTowardBudget() bool {
	if x.Opts.MaxExecutions > 0 && x.Stats.Executions+x.Stats.SpinBlocked >= x.Opts.MaxExecutions {
		x.StopReason = "max-executions"
		return true
	}
	return false
}

func (x *Driver) Finish() {
	if x.StopReason == "" && x.truncated {
		x.StopReason = StoppedExecutionLength
	}
	if x.StopReason == "" {
		x.Res.Complete = true
	} else {
		x.Res.Stopped = x.StopReason
	}
}

// ReportStop reports the bug of a step (event d) that stopped the
// execution; a failed assume is no bug, nor is the memory budget.
func (x *Driver) ReportStop(d int, ev *interp.Event) {
	kind := map[interp.StopKind]BugKind{interp.StopAssertion: BugAssertion, interp.StopRuntimeError: BugRuntimeError, interp.StopStepBound: BugStepBound}[ev.Stop]
	if kind != "" {
		x.Report(kind, ev.Message, ev.Thread, x.RangeOf(ev.Thread, ev.PC), d+1, nil)
	}
}

func (x *Driver) RangeOf(t int32, pc int32) source.Range {
	b := x.M.Threads[t].Body
	if int(pc) < len(b.Ranges) {
		return b.Ranges[pc]
	}
	return source.Range{}
}

// describeBlocked says in words why thread t, which cannot move, never
// will: "t1 waits at lock(m) held by t2", "consumer spins forever at line
// 12 (read flag = 0, which no thread writes again)", "consumer waits on
// cv notEmpty (wait at line 7), never signalled".
func (x *Driver) describeBlocked(t int32) string {
	th := x.M.Threads[t]
	if th.Status == interp.Spinning {
		return th.Name + " " + x.describeSpin(t)
	}
	if in := th.Body.Code[th.PC]; in.Op == ir.OpWake && x.M.Waiting(int(t)) {
		return fmt.Sprintf("%s waits on cv %s (wait at line %d), never signalled", th.Name,
			x.Prog.Locations[th.Frame[in.B]].Name, x.RangeOf(t, th.PC-1).Start.Line+1)
	}
	return th.Name + " waits at " + x.DescribePending(t)
}

// describeSpin says where and on what thread t spins forever.
func (x *Driver) describeSpin(t int32) string {
	th := x.M.Threads[t]
	s := "spins forever at line " + fmt.Sprint(x.RangeOf(t, th.PC).Start.Line+1)
	if l := x.M.SpinLoop(int(t)); l != nil && l.Await {
		s = "waits forever at the await at line " + fmt.Sprint(x.RangeOf(t, th.PC).Start.Line+1)
	}
	reads := x.M.SpinReads(int(t))
	if len(reads) == 0 {
		return s + " (a loop that reads no shared memory)"
	}
	parts := make([]string, len(reads))
	for i, r := range reads {
		parts[i] = x.Prog.Locations[r.Loc].Name + " = " + interp.FormatValue(x.Prog, x.M, r.Loc, r.Value)
	}
	if len(reads) == 1 {
		return s + " (read " + parts[0] + ", which no thread writes again)"
	}
	return s + " (read " + strings.Join(parts, ", ") + ", which no thread writes again)"
}

// DescribePending says in words what a blocked thread waits for.
func (x *Driver) DescribePending(t int32) string {
	th := x.M.Threads[t]
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpLock:
		loc := th.Frame[in.B]
		s := "lock(" + x.Prog.Locations[loc].Name + ")"
		if o := x.M.Mem[loc]; o > 0 {
			s += " held by " + x.M.Threads[o-1].Name
		}
		return s
	case ir.OpJoin:
		tid := th.Frame[in.B]
		if tid > 0 && int(tid) <= len(x.M.Threads) {
			return "join " + x.M.Threads[tid-1].Name
		}
		return "join"
	case ir.OpWake:
		// Woken (or free to wake up spuriously), but the mutex is held.
		loc := th.Frame[in.A]
		s := "the wake-up from " + x.Prog.Locations[th.Frame[in.B]].Name + ": lock(" + x.Prog.Locations[loc].Name + ")"
		if o := x.M.Mem[loc]; o > 0 && int(o) <= len(x.M.Threads) {
			s += " held by " + x.M.Threads[o-1].Name
		}
		return s
	}
	return in.Op.String()
}

func (x *Driver) Report(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide) {
	// One bug per kind and place: the first trace found stands for the
	// others. Where a thread is cut by the step bound depends on the
	// interleaving, so that bug is one per thread body.
	key := fmt.Sprintf("%s|%v", kind, r)
	if kind == BugStepBound {
		key = string(kind) + "|" + x.M.Threads[t].Body.Name
	}
	x.ReportKeyed(kind, msg, t, r, steps, other, key)
}

// Known reports whether a bug with this key was reported with a trace that
// a new one of steps steps would not improve on: one at most twice as
// long (halving at least, the trace of a bug is rebuilt a logarithmic
// number of times however often it is found again), or one not kept
// (Options.MaxTraces).
func (x *Driver) Known(key string, steps int) bool {
	i, ok := x.bugAt[key]
	return ok && (i < 0 || len(x.Res.Bugs[i].Schedule) <= 2*steps)
}

// ReportKeyed records a bug whose trace is the first steps events of the
// current execution, unless one with the same key was reported. When the
// same bug shows up again with a much shorter trace (see known), the
// result keeps the shorter one (OnBug is not called again).
func (x *Driver) ReportKeyed(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide, key string) {
	x.report(kind, msg, t, r, steps, other, key, "")
}

// fineSteps is the number of fine steps of the first steps events.
func (x *Driver) fineSteps(steps int) int {
	n := 0
	for i := 0; i < steps; i++ {
		n += x.Evs[i].Steps()
	}
	return n
}

// report is ReportKeyed; variable is the location of a data race, the
// key of its summary if it is not kept.
func (x *Driver) report(kind BugKind, msg string, t int32, r source.Range, steps int, other *RaceSide, key, variable string) {
	if x.Known(key, steps) {
		return
	}
	i, old := x.bugAt[key]
	fine := x.fineSteps(steps)
	// The execution that shows a bug is at least as long as its trace,
	// even when the exploration stops there (MaxBugs) or cuts it: the
	// statistics must not say less than the trace shows.
	x.Stats.MaxDepth = max(x.Stats.MaxDepth, fine)
	perStep := int64(traceStepBytes)
	if x.Opts.KeepTraces {
		perStep = keptTraceStepBytes
	}
	cost := int64(fine) * perStep
	if old {
		// A shorter trace of a kept bug: keep it if its memory allows.
		cost -= int64(len(x.Res.Bugs[i].Schedule)) * perStep
	} else if len(x.Res.Bugs) >= x.maxTraces() || (x.Opts.MaxMemory > 0 && len(x.Res.Bugs) > 0 && x.traceBytes+cost > x.Opts.MaxMemory/4) {
		// Beyond the bugs kept with a trace: counted and summarised.
		x.bugAt[key] = -1
		x.omitted++
		x.omit(kind, variable, r, other)
		x.checkMaxBugs()
		return
	}
	if old && x.Opts.MaxMemory > 0 && cost > 0 && x.traceBytes+cost > x.Opts.MaxMemory/4 {
		return
	}
	x.traceBytes += cost
	b := &Bug{Kind: kind, Message: msg, Thread: x.M.Threads[t].Name, Range: r, Other: other, LocalBudget: x.Opts.LocalBudget,
		NoSpinWait: x.Opts.NoSpinWait, SpuriousWakeups: x.Opts.SpuriousWakeups, key: key}
	b.Schedule = make([]int32, 0, fine)
	for i := 0; i < steps; i++ {
		if alt := x.Evs[i].Alt; alt != 0 && b.Choices == nil {
			b.Choices = make([]int32, len(b.Schedule), cap(b.Schedule))
		}
		for j := x.Evs[i].Steps(); j > 0; j-- {
			b.Schedule = append(b.Schedule, x.Evs[i].Thread)
			if b.Choices != nil {
				alt := x.Evs[i].Alt
				if j != x.Evs[i].Steps() {
					alt = 0 // a tail access
				}
				b.Choices = append(b.Choices, alt)
			}
		}
	}
	b.prog = x.Prog
	if x.Opts.KeepTraces {
		b.trace = BuildTrace(x.Prog, x.Evs[:steps], x.M)
		x.checkSoon() // that may have taken long
	}
	if old {
		prev := x.Res.Bugs[i]
		b.FirstMessage = prev.FirstMessage
		if b.FirstMessage == "" && prev.Message != b.Message {
			b.FirstMessage = prev.Message
		}
		x.Res.Bugs[i] = b
		return
	}
	x.bugAt[key] = len(x.Res.Bugs)
	x.Res.Bugs = append(x.Res.Bugs, b)
	if x.Opts.OnBug != nil {
		x.Opts.OnBug(b)
	}
	x.checkMaxBugs()
}

// maxTraces is Options.MaxTraces, the default filled in.
func (x *Driver) maxTraces() int {
	if x.Opts.MaxTraces > 0 {
		return x.Opts.MaxTraces
	}
	return DefaultMaxTraces
}

// checkMaxBugs stops the exploration once Options.MaxBugs distinct bugs,
// kept or not, were found.
func (x *Driver) checkMaxBugs() {
	if x.Opts.MaxBugs > 0 && int64(len(x.Res.Bugs))+x.omitted >= int64(x.Opts.MaxBugs) && x.StopReason == "" {
		x.StopReason = StoppedMaxBugs
	}
}

// CheckDataRaces reports the data races event d takes part in.
func (x *Driver) CheckDataRaces(d int32, ev *interp.Event) {
	if x.Clk.Off {
		return // no location can race
	}
	x.Clk.DataRaces(d, x.Prog.Locations, func(other int32, loc int32) {
		if x.Stopping() {
			// A step can be in thousands of races, each with a trace as
			// long as the execution: the deadline holds between them.
			return
		}
		if x.M.Coarse {
			x.RestartFine() // see "Coarse steps"
			return
		}
		o := &x.Evs[other]
		r1 := x.RangeOf(o.Thread, o.PC)
		r2 := x.RangeOf(ev.Thread, ev.PC)
		a, b := r1.String(), r2.String()
		if b < a {
			a, b = b, a
		}
		key := "race|" + a + "|" + b
		if x.Known(key, int(d)+1) {
			return
		}
		name := x.Prog.Locations[loc].Name
		side := &RaceSide{Thread: x.M.Threads[o.Thread].Name, Range: r1, Op: describeAccess(o, loc, x.Prog)}
		msg := fmt.Sprintf("data race on %s: %s by %s and %s by %s are not ordered by synchronisation",
			name, side.Op, side.Thread, describeAccess(ev, loc, x.Prog), x.M.Threads[ev.Thread].Name)
		x.report(BugDataRace, msg, ev.Thread, r2, int(d)+1, side, key, name)
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

// BuildTrace describes the steps of an execution in words. events are the
// executed steps in order; m is a machine standing after them (or later in
// the same execution), used for thread names.
func BuildTrace(prog *ir.Program, events []interp.Event, m *interp.Machine) []TraceStep {
	steps := make([]TraceStep, 0, len(events))
	for i := range events {
		ev := &events[i]
		th := m.Threads[ev.Thread]
		r := th.Body.Ranges
		st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: interp.DescribeEvent(prog, m, ev),
			Kind: ev.Kind, Object: eventObject(prog, m, ev), Choice: ev.Alt}
		if int(ev.PC) < len(r) {
			st.Range = r[ev.PC]
		}
		steps = append(steps, st)
		for _, a := range ev.Tail { // the accesses a coarse step ran
			fine := a.FineEvent(ev.Thread)
			st := TraceStep{Thread: th.Name, ThreadIndex: ev.Thread, Op: interp.DescribeEvent(prog, m, fine),
				Kind: fine.Kind, Object: eventObject(prog, m, fine)}
			if int(a.PC) < len(r) {
				st.Range = r[a.PC]
			}
			steps = append(steps, st)
		}
		// A coarse step's thread finishes after its tail, if it has one.
		steps[len(steps)-1].Ends = ev.Finished
	}
	return steps
}

// eventObject names what a step acted on (see TraceStep.Object).
func eventObject(prog *ir.Program, m *interp.Machine, ev *interp.Event) string {
	loc := ev.Loc
	switch ev.Kind {
	case interp.EvSpawn, interp.EvJoin:
		if loc >= 0 && int(loc) < len(m.Threads) {
			return m.Threads[loc].Name
		}
		return ""
	case interp.EvAtomic:
		loc = -1
		for _, a := range ev.Acc {
			if loc >= 0 && a.Loc != loc {
				return ""
			}
			loc = a.Loc
		}
	case interp.EvStop:
		return ""
	}
	if loc >= 0 && int(loc) < len(prog.Locations) {
		return prog.Locations[loc].Name
	}
	return ""
}

// GrowEvents makes room in Evs for the step at depth d.
func (x *Driver) GrowEvents(d int) {
	for len(x.Evs) <= d {
		x.Evs = append(x.Evs, interp.Event{})
	}
}

// Step moves thread t on the machine and pushes the step on the race
// clocks (ev is where the machine writes the step). It returns false if
// the step stops the execution; the step is on the machine either way. A
// step stopped by the memory budget (interp.StopMemory) sets StopReason:
// the exploration must take it back and end.
func (x *Driver) Step(t int, ev *interp.Event) bool { return x.StepAlt(t, 0, ev) }

// StepAlt is Step with alternative alt of the step (see
// interp.Machine.Alternatives).
func (x *Driver) StepAlt(t, alt int, ev *interp.Event) bool {
	ok := x.M.StepAlt(t, alt, ev)
	if !ok && ev.Stop == interp.StopMemory {
		x.StopReason = StoppedMemory
	} else if n := x.M.BigSteps(); n != x.bigSteps {
		// A step that saved many words: measure the heap now rather
		// than at the next tick of Cancelled, which may be long.
		x.bigSteps = n
		if x.Opts.MaxMemory > 0 && x.overMemory() {
			x.StopReason = StoppedMemory
		}
	}
	if x.Clk.Off {
		return ok
	}
	var may []ir.Access
	if !x.Clk.NoDep {
		may = x.MayAccesses(ev)
	}
	x.Clk.Push(ev, len(x.M.Threads), may)
	return ok
}

// Undo takes the last step back, from the clocks and the machine.
func (x *Driver) Undo() {
	if !x.Clk.Off {
		x.Clk.Pop()
	}
	x.M.Undo()
}

// ReportStepBound reports that the current execution ran into the step
// bound, with its first steps steps as the trace. It blames the thread
// that made the most steps: it is the one that loops.
func (x *Driver) ReportStepBound(steps int) {
	blame := int32(0)
	for t, th := range x.M.Threads {
		if th.Steps > x.M.Threads[blame].Steps {
			blame = int32(t)
		}
	}
	x.Report(BugStepBound, fmt.Sprintf("the execution ran past the step bound of %s (non-termination or a livelock?)", plural(x.Opts.MaxSteps, "step")), blame, x.RangeOf(blame, x.M.Threads[blame].PC), steps, nil)
}

// Deadlocked reports whether some thread has not finished, when no thread
// can move.
func (x *Driver) Deadlocked() bool {
	for _, th := range x.M.Threads {
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
// execution, which is neither (Stats.SpinBlocked).
func (x *Driver) Deadlock(d int) {
	var blocked []int32
	for t, th := range x.M.Threads {
		if x.M.StaleSpin(t) {
			x.Stats.SpinBlocked++
			x.countTowardBudget()
			return
		}
		if th.Status != interp.Finished {
			blocked = append(blocked, int32(t))
		}
	}
	if len(blocked) > 0 {
		var parts []string
		keys := make([]string, 0, len(blocked))
		for _, t := range blocked {
			th := x.M.Threads[t]
			parts = append(parts, x.describeBlocked(t))
			keys = append(keys, fmt.Sprintf("%s@%d", th.Body.Name, th.PC))
		}
		sort.Strings(keys)
		t := blocked[0]
		x.ReportKeyed(BugDeadlock, "deadlock: "+strings.Join(parts, "; "), t, x.RangeOf(t, x.M.Threads[t].PC), d, nil, "deadlock|"+strings.Join(keys, ","))
	}
	x.ExecutionDone()
}

// Run explores prog with explore, whose options are complete (defaults
// filled in). A race-free program is explored with coarse steps first (see
// "Coarse steps"); at the first data race found that way, the exploration
// starts over with every access a step of its own. Bugs already handed to
// OnBug are not handed over again.
func Run(ctx context.Context, prog *ir.Program, opts Options, explore func(*Driver)) *Result {
	start := time.Now()
	x := New(ctx, prog, opts)
	if x.M == nil {
		x.Finish() // the initial state does not fit in memory
	} else {
		x.M.Coarse = opts.Algorithm != DFS && !opts.EveryAccess
		x.M.TailBound = opts.MaxSteps
		explore(x)
	}
	if x.StopReason == stopCoarse {
		delivered := make(map[string]bool, len(x.Res.Bugs)) // (not those only counted)
		for _, b := range x.Res.Bugs {
			delivered[b.key] = true
		}
		if onBug := opts.OnBug; onBug != nil {
			opts.OnBug = func(b *Bug) {
				if !delivered[b.key] {
					onBug(b)
				}
			}
		}
		if opts.OnRestart != nil {
			opts.OnRestart()
		}
		x = New(ctx, prog, opts)
		x.start = start
		if x.M == nil {
			x.Finish()
		} else {
			explore(x)
		}
	}
	x.Res.Stats = x.Stats
	x.Res.Elapsed = time.Since(start)
	return x.Res
}

// lengthCapThreads bounds the factor of the length cap (see Long).
const lengthCapThreads = 8

// Long reports whether the current execution has reached the length cap:
// a mode that bounds each step's causal past rather than executions lets
// threads independent of a cut one go on, each up to the bound, and
// without end in a tree of spawns. So an execution goes no further past
// the bound times the number of its threads plus one (at most
// lengthCapThreads times the bound), and the exploration ends incomplete
// (StoppedExecutionLength): a resource bound, never a silent cut.
func (x *Driver) Long() bool {
	factor := int64(min(len(x.M.Threads)+1, lengthCapThreads))
	if int64(x.M.StepCount()) < SatMul(int64(x.Opts.MaxSteps), factor) {
		return false
	}
	x.truncated = true
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

// plural says n things: "1 step", "2 steps".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
