package engine

import (
	"time"

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
	// (Options.CDPOR.Constraints).
	CDPOR Algorithm = "cdpor"
	// QPOR is unfolding-based POR with k-partial alternatives (Nguyen et
	// al., CAV'18); Options.QPOR.K is k.
	QPOR Algorithm = "qpor"
	// Optimal is unfolding-based POR with alternatives (∞-partial): it
	// never explores a sleep-set-blocked execution.
	Optimal Algorithm = "optimal"
	// Stateful is a stateful depth-first exploration that remembers the
	// states it visited (Cirisci et al., CAV'23): a model that loops
	// forever gets a verdict, and interleavings that converge are
	// explored once. Options.Stateful picks its partial-order reduction.
	Stateful Algorithm = "stateful"
)

// Algorithms lists the modes Explore accepts.
var Algorithms = []Algorithm{DFS, SDPOR, CDPOR, QPOR, Optimal, Stateful}

// DefaultMaxSteps is the default bound on visible steps per execution.
const DefaultMaxSteps = 100_000

// MaxMaxSteps is the largest Options.MaxSteps Explore accepts (2^30): the
// unfolding modes count steps in 32-bit integers and add two causal pasts
// of up to MaxSteps steps; the POR modes let an execution grow to eight
// times MaxSteps. 2^30 keeps every such sum and product far from
// overflowing, and is more steps than any execution that fits in memory.
// The CLI and the language server validate their settings against it.
const MaxMaxSteps = 1 << 30

// DefaultMaxTraces is the default of Options.MaxTraces.
const DefaultMaxTraces = 100

// Options configure an exploration. The zero value explores with SDPOR
// and default bounds until done or until the context ends.
type Options struct {
	Algorithm     Algorithm
	MaxSteps      int   // visible steps per execution before a step-bound bug (default DefaultMaxSteps)
	MaxExecutions int64 // stop after this many executions, spin-blocked ones included (0: no limit)
	MaxBugs       int   // stop once this many distinct bugs are found (0: no limit); Stopped is StoppedMaxBugs
	LocalBudget   int   // local instructions between visible steps (default DefaultLocalBudget)
	// MaxTraces bounds the bugs kept in Result.Bugs with their schedules
	// (0: DefaultMaxTraces); their schedules also take at most a quarter
	// of MaxMemory. The distinct bugs found beyond either bound are
	// counted in Result.Omitted, per kind and variable, not kept. Which
	// are kept does not depend on the order they were found in: the
	// first in the canonical order of Result.Bugs (unless the quarter
	// of MaxMemory is reached first).
	MaxTraces int
	// KeepTraces builds each bug's trace in words when it is found and
	// keeps it (Bug.Trace then returns it as it is), instead of
	// rebuilding it from the schedule when it is shown. For tests, which
	// check that both give the same trace.
	KeepTraces bool
	// FullTraces keeps each bug's whole execution as its schedule
	// instead of its causal slice (see Bug.FullSchedule), and the
	// shortest whole execution per bug instead of the shortest slice.
	FullTraces bool
	// MaxMemory bounds, in bytes, the memory this exploration holds
	// (0: DefaultMaxMemory(), negative: no bound): its machine (shared
	// memory, frames, undo log, memo), race clocks, event buffer, the
	// unfolding of the unfolding modes, and its bugs' schedules.
	// Reaching it ends the exploration incomplete, with Result.Stopped
	// StoppedMemory, never a crash. The machine refuses, before allocating
	// it, a thread frame that would take it past the budget; the rest is
	// measured about every 10 ms and after each step that saved many
	// words. Explorations running side by side each have their own.
	MaxMemory int64
	// HeapLimit bounds the Go heap of the whole process, the last guard
	// for what the accounting of MaxMemory misses and for explorations
	// running side by side (0: MaxMemory, negative: no bound). When the
	// heap is over it, a garbage collection runs, and the exploration
	// stops (StoppedMemory) if what stays live is over seven eighths of it.
	HeapLimit int64

	// OnBug, if set, is called (on the exploring goroutine) for each new
	// bug as soon as it is found, with the first trace found, for the
	// first MaxTraces bugs found only (Result.Bugs has the canonical
	// ones, which may differ).
	OnBug func(*Bug)
	// OnProgress, if set, is called about every ProgressInterval (default
	// 100 ms) with the statistics so far.
	OnProgress       func(Stats)
	ProgressInterval time.Duration
	// OnExecution, if set, is called at the end of every execution that
	// counts in Stats.Executions, with its steps (valid only during the
	// call) and the machine in its final state. For tests and tools: it
	// slows the exploration down. Each access of a coarse step's tail is
	// passed as a step of its own.
	OnExecution func(events []Event, m *Machine)
	// OnRestart, if set, is called when the exploration starts over, the
	// executions and statistics seen so far not counting: with every
	// access a scheduling point, the program having turned out to have a
	// data race (see "Coarse steps" in engine/internal/driver); or, in
	// the stateful mode, matching states by depth, a step having gone
	// past MaxSteps (see "The step bound" in engine/internal/stateful).
	OnRestart func()

	// EveryAccess makes every shared access a scheduling point from the
	// start, instead of only in programs that turn out to have a data race;
	// DFS always does.
	EveryAccess bool
	// NoSpinWait turns spin-waiting off: a while loop whose iteration
	// changes nothing goes on running (up to MaxSteps) instead of waiting
	// for a change of what it read (see "Spin loops wait" in package
	// interp). An await always waits.
	NoSpinWait bool
	// SpuriousWakeups lets a thread waiting on a condition variable wake
	// up without being signalled, as POSIX allows: each such wake-up is
	// explored.
	SpuriousWakeups bool
	// NoRaceCheck does not look for data races: the other bugs are
	// checked as if every plain access were sequentially consistent, as
	// SPIN and TLC check models, and a model with a plain shared
	// variable gets a verdict that says it assumes there is no data race
	// (AssumeNoDataRaces). The stateful mode then keys states by the
	// machine state alone (no pending races: see "What a state is" in
	// engine/internal/stateful), and every access is a scheduling point
	// from the start (EveryAccess: coarse steps rest on race freedom).
	NoRaceCheck bool

	// The knobs of one mode each; the others ignore them.
	CDPOR     CDPOROptions
	QPOR      QPOROptions
	Unfolding UnfoldingOptions
	Stateful  StatefulOptions
}

// StatefulPOR names the partial-order reduction of the stateful mode.
type StatefulPOR string

const (
	// StatefulNone is plain stateful DFS: every enabled step of every
	// state (the reference for tests).
	StatefulNone StatefulPOR = "none"
	// StatefulSPOR is S-POR: a step no other thread's step can ever
	// depend on (static analysis of the program form) is explored
	// alone; otherwise every enabled step.
	StatefulSPOR StatefulPOR = "spor"
	// StatefulDE is DE-S-POR: S-POR's safe sets narrowed by source sets
	// tracked eagerly, along the stack, as steps are explored.
	StatefulDE StatefulPOR = "de"
	// StatefulDL is DL-S-POR: the same source sets computed lazily, by
	// going over the explored state graph when the search backtracks.
	StatefulDL StatefulPOR = "dl"
)

// StatefulPORs lists the reductions the stateful mode accepts.
func StatefulPORs() []StatefulPOR {
	return []StatefulPOR{StatefulNone, StatefulSPOR, StatefulDE, StatefulDL}
}

// DefaultStatefulPOR is the reduction the stateful mode uses when
// Options.Stateful.POR is empty.
const DefaultStatefulPOR = StatefulDL

// StatefulOptions are what the stateful mode takes beside the common
// options.
type StatefulOptions struct {
	POR StatefulPOR // the reduction ("": DefaultStatefulPOR)
	// ExactStates stores each visited state whole instead of its 128-bit
	// fingerprint: no collision can hide a state, at the cost of memory.
	ExactStates bool
	// Bitstate goes on with bitstate hashing when the visited set fills
	// its share of MaxMemory, instead of stopping (StoppedMemory): the
	// exploration then may skip states, and says so (StoppedBitstate).
	Bitstate bool
	// Invisible are the instructions (ir.Site: body index, pc) whose
	// steps no step of another thread is ever dependent with, from a
	// static analysis (analysis/access: Summary.InvisibleSites); S-POR
	// and the source-set reductions explore such a step alone. Nil: none
	// known (spawns, joins and chooses are invisible all the same).
	Invisible map[ir.Site]bool
	// RaceFree marks, per location, the words no two accesses of which
	// can race, from a static analysis (analysis/access:
	// Summary.RaceFreeWords): a state keeps no pending data races on
	// them (nil: none known).
	RaceFree []bool
}

// CDPOROptions are what CDPOR takes beside the common options.
type CDPOROptions struct {
	// Constraints are the independence constraints CDPOR uses beside its
	// own (nil: its own only).
	Constraints *ir.Constraints
}

// QPOROptions are what QPOR takes beside the common options.
type QPOROptions struct {
	K int // k of k-partial alternatives (default 1)
}

// UnfoldingOptions are what QPOR and Optimal take beside the common
// options.
type UnfoldingOptions struct {
	PruneAlways bool // prune the unfolding after every call of Explore (tests)
}

// Stats count what an exploration did.
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

	// The stateful mode's counts (zero in the others).
	States       int64 // distinct states stored in the visited set
	Transitions  int64 // steps explored, each from a state to a successor
	Matched      int64 // steps that reached a state already visited
	Retraversals int64 // visits of stored states to compute source sets (DE-S-POR, DL-S-POR)
	VisitedBytes int64 // peak memory of the visited set and the state graph
}

// StopReason says why an exploration ended before it was complete, as
// named in the JSON contract ("": it did not).
type StopReason string

const (
	NotStopped       StopReason = ""
	StoppedTimeout   StopReason = "timeout"   // the context's deadline passed
	StoppedCancelled StopReason = "cancelled" // the context was cancelled
	// StoppedMaxExecutions: Options.MaxExecutions executions were explored.
	StoppedMaxExecutions StopReason = "max-executions"
	// StoppedMaxBugs: Options.MaxBugs distinct bugs were found.
	StoppedMaxBugs StopReason = "max-bugs"
	// StoppedExecutionLength: a POR mode met an execution longer than
	// Options.MaxSteps times its number of threads plus one, or than
	// eight times MaxSteps (threads beside a cut one went on, or a tree
	// of spawns), and explored no further there.
	StoppedExecutionLength StopReason = "execution-length"
	// StoppedMemory: the exploration reached Options.MaxMemory, or the
	// process Options.HeapLimit.
	StoppedMemory StopReason = "memory"
	// StoppedBitstate: the stateful mode's visited set filled its share
	// of Options.MaxMemory and, as Options.Stateful.Bitstate asked, the
	// exploration went on with bitstate hashing, which may take two
	// states for one and skip the second: it ran to its end, but may
	// have missed states.
	StoppedBitstate StopReason = "bitstate"
)

// StopReasons lists every reason an exploration may stop for.
func StopReasons() []StopReason {
	return []StopReason{StoppedTimeout, StoppedCancelled, StoppedMaxExecutions, StoppedMaxBugs, StoppedExecutionLength, StoppedMemory, StoppedBitstate}
}

// Words says in words why an exploration stopped early.
func (r StopReason) Words() string {
	switch r {
	case StoppedTimeout:
		return "the time budget ran out"
	case StoppedCancelled:
		return "cancelled"
	case StoppedMaxExecutions:
		return "the execution budget ran out"
	case StoppedMaxBugs:
		return "the bug budget was reached"
	case StoppedMemory:
		return "the memory budget ran out"
	case StoppedBitstate:
		return "the visited states filled the memory budget and bitstate hashing, which may skip states, took over"
	case StoppedExecutionLength:
		return "an execution grew past the step bound times its number of threads (threads beside a looping one went on)"
	}
	return string(r)
}

// Result is the outcome of an exploration.
type Result struct {
	Stats
	Algorithm Algorithm
	Complete  bool       // every execution was explored
	Stopped   StopReason // why not complete
	// Bugs are the distinct bugs found, each with a canonical schedule
	// (the shortest found, ties broken by the order of schedules), listed
	// by position (Range), then kind. Beyond MaxTraces, the first are
	// kept in an order that the bug alone fixes: by position, but a data
	// race's earlier access, a deadlock's first blocked position, a
	// step-bound bug's body. So the same model and options give the same
	// report however the exploration was ordered, but for FirstMessage,
	// which records what was found first.
	Bugs []*Bug
	// Omitted summarises the distinct bugs found beyond those kept in
	// Bugs (see Options.MaxTraces): how many of each kind on each
	// variable, and where. They count toward Options.MaxBugs.
	Omitted []BugSummary

	// Anomalies counts what the qpor design rules out and should never
	// happen: a clue none of whose events is enabled, a Stable atomic block
	// whose accesses change, derived state that checkIndexes finds wrong
	// (tests check it stays 0); FirstAnomaly says what the first was,
	// where it is known.
	Anomalies    int64
	FirstAnomaly string

	// Independence counts, for CDPOR, how often a condition under which
	// two dependent steps commute was evaluated for a pair of sites, and
	// how often it held (sorted by pair, then Origin and Text).
	Independence []IndepStat

	// MissProbability is, for the stateful mode, an estimate of the
	// probability that two distinct states it met had the same 128-bit
	// fingerprint, so that the second was taken as visited and not
	// explored: n·(g−n)/2^128 for n states stored and g generated (as TLC
	// estimates it for its 64-bit fingerprints). 0 with
	// Options.Stateful.ExactStates and in the other modes.
	MissProbability float64

	// Assumptions are what the result rests on besides the model's text
	// and the options' budgets: behaviours the language allows that the
	// exploration did not explore (see Assumptions). A verdict quoting
	// the result must name them.
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

// BugKind is the kind of a bug, as named in the JSON contract.
type BugKind string

const (
	BugAssertion    BugKind = "assertion"
	BugDeadlock     BugKind = "deadlock"
	BugRuntimeError BugKind = "runtime-error"
	BugDataRace     BugKind = "data-race"
	BugStepBound    BugKind = "step-bound"
)

// Words names one bug of the kind in words: "assertion failure".
func (k BugKind) Words() string {
	switch k {
	case BugAssertion:
		return "assertion failure"
	case BugDeadlock:
		return "deadlock"
	case BugRuntimeError:
		return "runtime error"
	case BugDataRace:
		return "data race"
	case BugStepBound:
		return "step-bound bug"
	}
	return string(k) + " bug"
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
	Kind   ir.EventKind
	Object string
	// Ends marks the step with which its thread finished.
	Ends bool
	// Choice is the alternative the step took (Bug.Choices): 0 for the
	// first, and for every step that has only one.
	Choice int32
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
