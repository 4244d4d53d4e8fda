// Package dpor holds the stateless explorations that go thread by thread
// down one execution at a time: DFS, which explores every interleaving
// (the reference for the others), and Source-DPOR with sleep sets (Abdulla
// et al.), which explores one execution per Mazurkiewicz trace plus
// sleep-set-blocked ones, and Constrained DPOR (CDPOR, Albert et al.),
// which is SDPOR over a dependence that leaves out the pairs of
// conflicting steps that commute where they meet (cdpor.go).
//
// What to explore is the tree's (package sdpor: the nodes' backtrack,
// done and sleep sets, race reversal, sleep propagation, pick); this
// package is the step loop that drives it: it moves the worker, through
// explorer.step and explorer.undo alone, which keep the tree's live
// threads and cdpor in step with it, and handles what the tree leaves to
// the exploration: the step bound, coarse steps, stops, bugs and counts.
// CDPOR gives the tree its sleep-set extension (sdpor.Conditional) and
// the clocks its conditional dependence (clocks.CondOracle).
//
// The loop is in the package's first file (by name) on purpose: the
// linker lays out a package's functions file by file, so this puts it
// next to the tree's code. With cdpor.go's cold code between the two,
// BenchmarkSDPORLockCounter8 took twice the instruction-cache misses
// (cachegrind: 47 M against 21 M) and ran about 15% slower.
package dpor

import (
	"weft/engine/internal/driver"
	"weft/engine/internal/sdpor"
	"weft/engine/interp"
	"weft/engine/ir"
)

// Algorithm is one of the package's explorations.
type Algorithm uint8

const (
	DFS Algorithm = iota
	SDPOR
	CDPOR
)

// Mode is the exploration algo; constraints are CDPOR's independence
// constraints beside its own (nil: its own only).
func Mode(algo Algorithm, constraints *ir.Constraints) driver.Mode {
	use := driver.DependenceClocks
	if algo == DFS {
		use = driver.RaceClocks // DFS needs the clocks for data races only
	}
	return driver.Mode{
		Coarse: algo != DFS, // DFS explores every interleaving of fine steps
		Clocks: use,
		Explore: func(w *driver.Worker) {
			e := &explorer{w: w, por: algo != DFS}
			cfg := sdpor.Config{DFS: algo == DFS}
			if algo == CDPOR {
				e.cd = newCDPOR(w, constraints)
				w.UseConditionalDependence(e.cd)
				cfg.Cond = e.cd
			}
			e.tree = sdpor.New(w.Prog, w.M(), w.Clocks(), w.MayAccesses, cfg)
			e.run()
			if e.cd != nil {
				w.Run().AddIndependence(e.cd.statistics())
			}
		},
	}
}

// explorer is a DFS, SDPOR or CDPOR exploration: the worker, the tree
// (package sdpor) that says what to explore, and what CDPOR adds. Its
// step and undo are the one way it moves: they keep the tree's live
// threads and cdpor in step with the worker.
type explorer struct {
	w    *driver.Worker
	tree *sdpor.Tree
	// por is set for SDPOR and CDPOR (DFS explores every order); cd is
	// what CDPOR adds.
	por bool
	cd  *cdpor
}

// run is the exploration loop. Node d is the state after d steps; the
// machine and the clocks always stand at the current node.
func (x *explorer) run() {
	por := x.por
	stop := x.enter(0)
	d := 0
	if stop {
		return
	}
	for {
		if x.w.Halted() || x.w.Cancelled() {
			return
		}
		p, alt := x.tree.Next(d)
		if p < 0 {
			if d == 0 {
				return
			}
			d--
			x.retreat(d)
			continue
		}
		ev := &x.w.Evs[d]
		ok := x.step(d, int(p), alt, ev)
		x.w.Stats.Events += int64(ev.Steps())
		if por && x.w.M().StepCount()+interp.MaxTail >= x.w.Opts.MaxSteps {
			if x.w.M().Coarse {
				x.w.RestartFine() // see "The step bound"
				continue
			}
			if x.pastOf(int32(d)) >= x.w.Opts.MaxSteps {
				// Beyond the bound: p is cut here and below. Its races
				// count as if it ran: another order may bring it within.
				x.tree.AddRaces(int32(d), ev)
				x.w.ReportStepBound(d + 1)
				x.undo()
				x.ended(x.tree.Cut(d, p))
				continue
			}
			if prev := x.w.M().StepCount() - ev.Steps(); ok && prev < x.w.Opts.MaxSteps && x.w.M().StepCount() >= x.w.Opts.MaxSteps {
				x.w.ReportStepBound(d + 1) // an execution reached the bound
			}
		}
		if por {
			x.tree.AddRaces(int32(d), ev)
		}
		x.w.CheckDataRaces(int32(d), ev)
		if !ok {
			x.stopped(d, ev)
			x.retreat(d)
			if por {
				x.tree.ExploreOthers(d) // the stop disables every other thread
			}
			continue
		}
		if x.w.Halted() {
			continue
		}
		if por && x.w.Long() {
			// A resource bound, not a cut: this branch goes no further,
			// and the exploration will say it is incomplete.
			if !x.w.ExecutionDone() {
				x.retreat(d)
			}
			continue
		}
		if !por && x.w.M().StepCount() >= x.w.Opts.MaxSteps {
			// DFS cuts the execution at the bound.
			x.w.ReportStepBound(d + 1)
			if !x.w.ExecutionDone() {
				x.retreat(d)
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

// step moves thread t with alternative alt (see driver.StepAlt) and
// keeps the tree's live threads and cdpor in step.
func (x *explorer) step(d, t, alt int, ev *interp.Event) bool {
	if x.cd != nil {
		x.cd.snapshot(d, t)
	}
	n := len(x.w.M().Threads)
	ok := x.w.StepAlt(t, alt, ev)
	if x.cd != nil {
		x.cd.stepped(ev)
	}
	x.tree.Stepped(x.w.M(), t, n)
	return ok
}

// undo takes the last step back.
func (x *explorer) undo() {
	x.tree.Unstepped()
	x.w.Undo()
}

// retreat undoes the step taken from node d, and tells the tree (which,
// for SDPOR, puts its thread to sleep at d once every alternative of it
// has been explored).
func (x *explorer) retreat(d int) {
	x.undo()
	x.tree.Retreat(d, &x.w.Evs[d])
}

// enter initialises node d, the state just reached. It returns true if the
// state is terminal (the execution is over or sleep-set blocked).
func (x *explorer) enter(d int) bool {
	x.w.GrowEvents(d)
	var last *interp.Event
	if d > 0 {
		last = &x.w.Evs[d-1]
	}
	end := x.tree.Enter(d, last)
	x.w.SetExplorationBytes(x.tree.Bytes(len(x.w.M().Threads)))
	switch end {
	case sdpor.Maximal:
		x.w.Deadlock(d)
	case sdpor.Open:
		return false
	default:
		x.ended(end)
	}
	return true
}

// ended counts an execution that the tree ended at a node where no
// thread could move but a cut or sleeping one.
func (x *explorer) ended(end sdpor.End) {
	switch end {
	case sdpor.Blocked:
		x.w.Stats.SSB++
	case sdpor.CutOff:
		x.w.ExecutionDone()
	}
}

// The step bound
//
// DFS cuts each execution at Options.MaxSteps steps: it explores every
// order, so it still reaches every bug an execution of at most MaxSteps
// steps reaches. SDPOR explores one order per trace, so cutting whole
// executions would lose the bugs that only another order of a cut trace
// reaches within the bound. It bounds each step's causal past instead, as
// the unfolding modes do: a step with MaxSteps steps or more in its
// dependence past is beyond the bound, and its thread is cut there and
// below (that past only grows along an execution). This bounded system
// is independence-respecting (a step's past changes only through steps it
// depends on), so SDPOR stays sound and each trace within it is explored
// once; a cut step's races are reversed as if it had run. Near the bound
// a coarse exploration starts again with fine steps, where a step's past
// is the sum of its dependence clock.

// pastOf is the number of steps in event d's strict dependence past (fine
// steps: one event each).
func (x *explorer) pastOf(d int32) int {
	return x.w.Clocks().Past(d) - 1 // d itself
}

// stopped handles a step that stopped the execution.
func (x *explorer) stopped(d int, ev *interp.Event) {
	if x.por {
		x.tree.AddBlockedRaces(int32(d + 1))
	}
	if ev.Stop == interp.StopAssume {
		x.w.Stats.AssumeBlocked++
	}
	x.w.ReportStop(d, ev)
	x.w.ExecutionDone()
}
