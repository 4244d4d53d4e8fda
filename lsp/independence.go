package lsp

import (
	"context"
	"sync"
	"time"

	"weft/analysis/indep"
	"weft/analysis/indep/synth"
	"weft/internal/z3"
)

// constraintsBudget bounds the synthesis of a snapshot's independence
// conditions (z3 bounds each query too); past it the conditions are the
// syntactic rules' only.
const constraintsBudget = 10 * time.Second

// constraints are the independence conditions of a snapshot with SMT
// synthesis (analysis/indep/synth), computed once, in the background,
// when the snapshot's checks start: for the hover and the cdpor tier.
type constraints struct {
	mu   sync.Mutex
	done chan struct{} // nil until started; closed when res is set
	res  *indep.Result // nil: none (the access analysis failed, or the snapshot was superseded)
	smt  synth.Stats
}

// startConstraints starts computing snap's conditions unless that has
// started already. set says whether to ask z3 and whether the engine may
// assume that nothing overflows.
func (snap *snapshot) startConstraints(set Settings) {
	snap.cons.mu.Lock()
	defer snap.cons.mu.Unlock()
	if snap.cons.done != nil {
		return
	}
	done := make(chan struct{})
	snap.cons.done = done
	go func() {
		defer close(done)
		snap.cons.res, snap.cons.smt = snap.computeConstraints(set)
	}()
}

// constraintsDone is the channel closed when snap's conditions are
// computed; nil if their computation has not started.
func (snap *snapshot) constraintsDone() <-chan struct{} {
	snap.cons.mu.Lock()
	defer snap.cons.mu.Unlock()
	return snap.cons.done
}

func (snap *snapshot) computeConstraints(set Settings) (*indep.Result, synth.Stats) {
	f := snap.facts()
	if f == nil {
		return nil, synth.Stats{}
	}
	if !set.SMT {
		return f.ind, synth.Stats{}
	}
	ctx, cancel := context.WithTimeout(snap.ctx, constraintsBudget)
	defer cancel()
	res, stats, err := synth.Analyze(ctx, snap.loaded.Program, snap.loaded.Exec, f.sum, z3.Config{}, synth.Options{AssumeNoOverflow: set.AssumeNoOverflow})
	if err != nil {
		if snap.ctx.Err() != nil || f.ind == nil {
			return nil, stats
		}
		// Over budget: the syntactic conditions, saying why.
		ind := *f.ind
		ind.Notes = append(append([]string(nil), ind.Notes...), "SMT synthesis stopped after "+constraintsBudget.String()+": syntactic conditions only")
		return &ind, stats
	}
	return res, stats
}

// waitConstraints waits for snap's conditions (startConstraints must have
// been called); nil if ctx ends first or there are none.
func (snap *snapshot) waitConstraints(ctx context.Context) *indep.Result {
	done := snap.constraintsDone()
	if done == nil {
		return nil
	}
	select {
	case <-done: // computed: whatever ctx says
		return snap.cons.res
	default:
	}
	select {
	case <-done:
		return snap.cons.res
	case <-ctx.Done():
		return nil
	}
}

// readyConstraints returns snap's conditions with SMT if they are
// computed, else nil (without waiting).
func (snap *snapshot) readyConstraints() *indep.Result {
	now, cancel := context.WithCancel(context.Background())
	cancel()
	return snap.waitConstraints(now)
}
