package engine

import (
	"context"
	"fmt"
	"time"

	"weft/engine/internal/dpor"
	"weft/engine/internal/driver"
	"weft/engine/internal/unfolding"
)

// The options, results and bugs of an exploration (package driver defines
// them; the explorations share them).
type (
	Algorithm = driver.Algorithm
	Options   = driver.Options
	Stats     = driver.Stats
	Result    = driver.Result
	BugKind   = driver.BugKind
	Bug       = driver.Bug
	RaceSide  = driver.RaceSide
	TraceStep = driver.TraceStep
	IndepStat = driver.IndepStat
	// BugSummary counts the bugs found beyond those kept with traces
	// (Result.Omitted, Options.MaxTraces).
	BugSummary = driver.BugSummary
	// ReplayOptions are what a replay needs besides the schedule (see
	// Bug.ReplayOptions).
	ReplayOptions = driver.ReplayOptions
)

const (
	DFS     = driver.DFS
	SDPOR   = driver.SDPOR
	CDPOR   = driver.CDPOR
	QPOR    = driver.QPOR
	Optimal = driver.Optimal

	DefaultMaxSteps = driver.DefaultMaxSteps
	// MaxMaxSteps is the largest Options.MaxSteps Explore accepts (2^30):
	// the CLI and the language server validate their settings against it.
	MaxMaxSteps = driver.MaxMaxSteps
	// DefaultMaxTraces is the default of Options.MaxTraces.
	DefaultMaxTraces = driver.DefaultMaxTraces

	BugAssertion    = driver.BugAssertion
	BugDeadlock     = driver.BugDeadlock
	BugRuntimeError = driver.BugRuntimeError
	BugDataRace     = driver.BugDataRace
	BugStepBound    = driver.BugStepBound

	StoppedExecutionLength = driver.StoppedExecutionLength
	StoppedMaxBugs         = driver.StoppedMaxBugs
	StoppedMemory          = driver.StoppedMemory
)

// DefaultMaxMemory is the default of Options.MaxMemory: a quarter of the
// machine's memory (see driver.DefaultMaxMemory).
func DefaultMaxMemory() int64 { return driver.DefaultMaxMemory() }

// Algorithms lists the modes Explore accepts.
var Algorithms = driver.Algorithms

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
	case DFS, SDPOR, CDPOR, QPOR, Optimal:
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
	if opts.K == 0 {
		opts.K = 1
	}
	if opts.MaxMemory == 0 {
		opts.MaxMemory = DefaultMaxMemory()
	}
	if u := Unsupported(prog, opts); u != nil {
		return nil, u
	}
	explore := dpor.Run
	if opts.Algorithm == QPOR || opts.Algorithm == Optimal {
		explore = unfolding.Run
	}
	res := driver.Run(ctx, prog, opts, explore)
	res.Assumptions = Assumptions(prog, opts, res)
	return res, nil
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
	case opts.K < 0:
		return fmt.Errorf("K %d is negative (0: the default, 1)", opts.K)
	case opts.ProgressInterval < 0:
		return fmt.Errorf("ProgressInterval %v is negative (0: the default, 100ms)", opts.ProgressInterval)
	}
	return nil
}
