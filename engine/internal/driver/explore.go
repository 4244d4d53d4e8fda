package driver

import (
	"context"
	"time"

	"weft/engine/ir"
)

// Mode is an exploration as the driver runs it.
type Mode struct {
	// Coarse says that the mode explores coarse steps first (see "Coarse
	// steps"); unless Config.EveryAccess, it then starts again with fine
	// steps at the first data race.
	Coarse bool
	// Clocks is what the mode needs of the race clocks.
	Clocks Clocks
	// Fingerprint says that the mode needs the state fingerprint
	// (interp.Machine.Fingerprint) kept.
	Fingerprint bool
	// Explore explores with w until done or w.Stopping(); the driver
	// adds w's counts to the run's afterwards.
	Explore func(w *Worker)
}

// Explore runs mode on prog with cfg, whose defaults are filled in. A
// race-free program is explored with coarse steps first, if the mode
// wants; at the first data race found that way, the exploration starts
// over with every access a step of its own, in a new run that does not
// hand the bugs already handed to OnBug over again.
func Explore(ctx context.Context, prog *ir.Program, cfg Config, mode Mode) *Outcome {
	start := time.Now()
	r := NewRun(ctx, prog, cfg)
	r.explore(mode, mode.Coarse && !cfg.EveryAccess)
	if r.Stopped() == stopCoarse {
		// The bugs handed to OnBug are not handed over again, and no
		// more than MaxTraces in all.
		r.mu.Lock()
		delivered := r.bugs.delivered
		r.mu.Unlock()
		if cfg.OnRestart != nil {
			cfg.OnRestart()
		}
		r = NewRun(ctx, prog, cfg)
		r.start = start
		r.bugs.delivered = delivered
		r.explore(mode, false)
	}
	return r.Outcome()
}

// explore runs mode with one worker.
func (r *Run) explore(mode Mode, coarse bool) {
	w := r.NewWorker(coarse, mode.Clocks, mode.Fingerprint)
	if w == nil {
		return // the initial state does not fit in memory
	}
	mode.Explore(w)
	r.mu.Lock()
	r.counters.add(w.Stats)
	w.Stats = Counters{}
	r.mu.Unlock()
}
