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
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 100 * time.Millisecond
	}
	if opts.K <= 0 {
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
