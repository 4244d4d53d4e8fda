package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"weft/engine/internal/dpor"
	"weft/engine/internal/driver"
	"weft/engine/internal/stateful"
	"weft/engine/internal/unfolding"
)

// DefaultMaxMemory is the default of Options.MaxMemory: a quarter of the
// machine's memory (see driver.DefaultMaxMemory).
func DefaultMaxMemory() int64 { return driver.DefaultMaxMemory() }

// Explore explores the executions of prog. Result.Assumptions lists what
// its verdict rests on besides the model (see Assumptions). It returns when the
// exploration is complete, a budget is exhausted or ctx ends (then
// Result.Complete is false and Result.Stopped says why). It refuses, with
// an *UnsupportedError, a program that uses a feature the mode does not
// explore (see Unsupported), and returns an error for an invalid program
// or options.
func Explore(ctx context.Context, prog *Program, opts Options) (*Result, error) {
	if err := prog.Validate(); err != nil {
		return nil, err
	}
	switch opts.Algorithm {
	case "":
		opts.Algorithm = SDPOR
	case DFS, SDPOR, CDPOR, QPOR, Optimal, Stateful:
	default:
		return nil, fmt.Errorf("unknown algorithm %q (want one of %v)", opts.Algorithm, Algorithms)
	}
	if err := checkOptions(&opts); err != nil {
		return nil, err
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 100 * time.Millisecond
	}
	if opts.QPOR.K == 0 {
		opts.QPOR.K = 1
	}
	if opts.Stateful.POR == "" {
		opts.Stateful.POR = DefaultStatefulPOR
	}
	if !slices.Contains(StatefulPORs(), opts.Stateful.POR) {
		return nil, fmt.Errorf("unknown stateful reduction %q (want one of %v)", opts.Stateful.POR, StatefulPORs())
	}
	if opts.MaxMemory == 0 {
		opts.MaxMemory = DefaultMaxMemory()
	}
	if opts.HeapLimit == 0 {
		opts.HeapLimit = opts.MaxMemory
	}
	if opts.MaxTraces == 0 {
		opts.MaxTraces = DefaultMaxTraces
	}
	if u := Unsupported(prog, opts); u != nil {
		return nil, u
	}
	out := driver.Explore(ctx, prog, runConfig(prog, &opts), modeOf(&opts))
	res := resultOf(prog, &opts, out)
	res.Assumptions = Assumptions(prog, opts, res)
	return res, nil
}

// modeOf is the exploration opts asks for.
func modeOf(opts *Options) driver.Mode {
	switch opts.Algorithm {
	case DFS:
		return dpor.Mode(dpor.DFS, nil)
	case CDPOR:
		return dpor.Mode(dpor.CDPOR, opts.CDPOR.Constraints)
	case QPOR:
		return unfolding.Mode(opts.QPOR.K, opts.Unfolding.PruneAlways)
	case Optimal:
		return unfolding.Mode(0, opts.Unfolding.PruneAlways)
	case Stateful:
		variant := map[StatefulPOR]stateful.Variant{StatefulNone: stateful.None, StatefulSPOR: stateful.SPOR,
			StatefulDE: stateful.DE, StatefulDL: stateful.DL}[opts.Stateful.POR]
		return stateful.Mode(stateful.Config{Variant: variant, Invisible: opts.Stateful.Invisible, RaceFree: opts.Stateful.RaceFree,
			Exact: opts.Stateful.ExactStates, Encode: (*Machine).AppendState, Bitstate: opts.Stateful.Bitstate})
	}
	return dpor.Mode(dpor.SDPOR, nil)
}

// runConfig is the driver's configuration for opts, whose defaults are
// filled in.
func runConfig(prog *Program, opts *Options) driver.Config {
	cfg := driver.Config{
		MaxSteps: opts.MaxSteps, MaxExecutions: opts.MaxExecutions, MaxBugs: opts.MaxBugs, MaxTraces: opts.MaxTraces,
		LocalBudget: opts.LocalBudget, MaxMemory: max(opts.MaxMemory, 0), HeapLimit: max(opts.HeapLimit, 0),
		NoSpinWait: opts.NoSpinWait, SpuriousWakeups: opts.SpuriousWakeups,
		// Coarse steps rest on race freedom, which no one checks here:
		// every access is a scheduling point.
		EveryAccess: opts.EveryAccess || opts.NoRaceCheck,
		NoRaceCheck: opts.NoRaceCheck, ProgressInterval: opts.ProgressInterval, OnExecution: opts.OnExecution, OnRestart: opts.OnRestart,
	}
	cfg.Slice = !opts.FullTraces
	if opts.KeepTraces {
		cfg.TraceOf = func(events []Event, m *Machine, order []int) any {
			tr := BuildTrace(prog, events, m)
			if order == nil {
				return tr
			}
			out := make([]TraceStep, len(order))
			for k, i := range order {
				out[k] = tr[i]
			}
			return out
		}
	}
	if f := opts.OnBug; f != nil {
		cfg.OnBug = func(b *driver.Found) { f(bugOf(prog, opts, b)) }
	}
	if f := opts.OnProgress; f != nil {
		cfg.OnProgress = func(c driver.Counters) { f(Stats(c)) }
	}
	return cfg
}

// bugOf is the engine's bug for what the driver found.
func bugOf(prog *Program, opts *Options, f *driver.Found) *Bug {
	b := &Bug{Kind: BugKind(f.Kind), Message: f.Message, Thread: f.Thread, Range: f.Range, Schedule: f.Schedule, Choices: f.Choices,
		FullSchedule: f.FullSchedule, FullChoices: f.FullChoices,
		LocalBudget: opts.LocalBudget, NoSpinWait: opts.NoSpinWait, SpuriousWakeups: opts.SpuriousWakeups,
		FirstMessage: f.FirstMessage, prog: prog}
	if f.Other != nil {
		b.Other = &RaceSide{Thread: f.Other.Thread, Range: f.Other.Range, Op: f.Other.Op}
	}
	if tr, ok := f.Kept.([]TraceStep); ok {
		b.trace = tr
	}
	return b
}

// stopReasons names the driver's stop reasons.
var stopReasons = map[driver.StopReason]StopReason{
	driver.NotStopped: NotStopped, driver.StopTimeout: StoppedTimeout, driver.StopCancelled: StoppedCancelled,
	driver.StopMaxExecutions: StoppedMaxExecutions, driver.StopMaxBugs: StoppedMaxBugs,
	driver.StopExecutionLength: StoppedExecutionLength, driver.StopMemory: StoppedMemory,
	driver.StopBitstate: StoppedBitstate,
}

// resultOf is the engine's result for the driver's outcome.
func resultOf(prog *Program, opts *Options, out *driver.Outcome) *Result {
	res := &Result{Stats: Stats(out.Counters), Algorithm: opts.Algorithm, Complete: out.Complete, Stopped: stopReasons[out.Stopped],
		Anomalies: out.Anomalies, FirstAnomaly: out.FirstAnomaly}
	if opts.Algorithm == Stateful && !opts.Stateful.ExactStates {
		res.MissProbability = missProbability(res.States, res.Transitions)
	}
	for _, f := range out.Bugs {
		res.Bugs = append(res.Bugs, bugOf(prog, opts, f))
	}
	for _, s := range out.Omitted {
		res.Omitted = append(res.Omitted, BugSummary{Kind: BugKind(s.Kind), Variable: s.Variable, Count: s.Count, Lines: s.Lines, OtherLines: s.OtherLines})
	}
	for _, s := range out.Independence {
		res.Independence = append(res.Independence, IndepStat(s))
	}
	return res
}

// checkOptions refuses the option values an exploration cannot honour:
// negative counts and bounds (0 is each one's default or "no limit"), and
// a step bound past MaxMaxSteps, where the arithmetic on steps would
// overflow. Every product of an option the engine computes saturates
// (driver.SatMul), so any value accepted here is exact.
func checkOptions(opts *Options) error {
	switch {
	case opts.MaxSteps < 0:
		return fmt.Errorf("MaxSteps %d is negative (0: the default, %d)", opts.MaxSteps, DefaultMaxSteps)
	case opts.MaxSteps > MaxMaxSteps:
		return fmt.Errorf("MaxSteps %d is more than the most the engine accepts, %d", opts.MaxSteps, MaxMaxSteps)
	case opts.MaxExecutions < 0:
		return fmt.Errorf("MaxExecutions %d is negative (0: no limit)", opts.MaxExecutions)
	case opts.MaxBugs < 0:
		return fmt.Errorf("MaxBugs %d is negative (0: no limit)", opts.MaxBugs)
	case opts.MaxTraces < 0:
		return fmt.Errorf("MaxTraces %d is negative (0: the default, %d)", opts.MaxTraces, DefaultMaxTraces)
	case opts.LocalBudget < 0:
		return fmt.Errorf("LocalBudget %d is negative (0: the default, %d)", opts.LocalBudget, DefaultLocalBudget)
	case opts.QPOR.K < 0:
		return fmt.Errorf("QPOR.K %d is negative (0: the default, 1)", opts.QPOR.K)
	case opts.ProgressInterval < 0:
		return fmt.Errorf("ProgressInterval %v is negative (0: the default, 100ms)", opts.ProgressInterval)
	}
	return nil
}

// missProbability estimates the probability that, of n states stored
// among g generated (transitions explored), some state was taken for
// another with the same 128-bit fingerprint and not explored: each of
// the g−n times a stored state was reached again, it could have been a
// new state hashing like one of the n stored, with probability n/2^128
// (TLC's estimate for its 64-bit fingerprints, with 128 bits).
func missProbability(n, g int64) float64 {
	if g <= n || n <= 0 {
		return float64(n) * float64(n) / 2 / math.Exp2(128) // the stored states among themselves
	}
	return float64(n) * float64(g-n) / math.Exp2(128)
}
