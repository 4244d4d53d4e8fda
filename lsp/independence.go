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

// maxSyntheses bounds the SMT syntheses running at once over all
// documents (each runs one z3 process), below the checks' own bound.
const maxSyntheses = 2

// synthPool bounds the syntheses running at once: each holds a slot
// while its z3 process lives. Without it every document whose checks
// started ran its own z3 at once (40 documents with atomic blocks: 38 z3
// processes).
type synthPool struct {
	lim *limiter
	// hook, if set, is told +1 when a synthesis starts and -1 when it
	// ends (Options.onSynthesis).
	hook func(delta int)
}

func newSynthPool(checks int, hook func(int)) *synthPool {
	return &synthPool{lim: newLimiter(synthLimit(checks)), hook: hook}
}

// synthLimit is the pool's size when checks may run at once.
func synthLimit(checks int) int { return max(1, min(maxSyntheses, checks)) }

func (p *synthPool) setLimit(checks int) { p.lim.setLimit(synthLimit(checks)) }

// run runs f in a slot, once one is free; it returns ctx's error if ctx
// ends first.
func (p *synthPool) run(ctx context.Context, f func()) error {
	if err := p.lim.acquire(ctx); err != nil {
		return err
	}
	defer p.lim.release()
	if p.hook != nil {
		p.hook(1)
		defer p.hook(-1)
	}
	f()
	return nil
}

// startConstraints starts computing snap's conditions unless that has
// started already. set says whether to ask z3 and whether the engine may
// assume that nothing overflows; pool bounds the syntheses running at
// once.
func (snap *snapshot) startConstraints(set Settings, pool *synthPool) {
	snap.cons.mu.Lock()
	defer snap.cons.mu.Unlock()
	if snap.cons.done != nil {
		return
	}
	done := make(chan struct{})
	snap.cons.done = done
	go func() {
		defer close(done)
		snap.cons.res, snap.cons.smt = snap.computeConstraints(set, pool)
	}()
}

// constraintsDone is the channel closed when snap's conditions are
// computed; nil if their computation has not started.
func (snap *snapshot) constraintsDone() <-chan struct{} {
	snap.cons.mu.Lock()
	defer snap.cons.mu.Unlock()
	return snap.cons.done
}

// computeConstraints computes snap's conditions, with SMT in a slot of
// pool; it ends with snap (a newer version, or the document closed), and
// gives up waiting for a slot then.
func (snap *snapshot) computeConstraints(set Settings, pool *synthPool) (*indep.Result, synth.Stats) {
	f := snap.facts()
	if f == nil {
		return nil, synth.Stats{}
	}
	if !set.SMT {
		return f.ind, synth.Stats{}
	}
	var res *indep.Result
	var stats synth.Stats
	var err error
	if perr := pool.run(snap.ctx, func() {
		// The budget counts from the slot: a queue of documents does not
		// spend it waiting.
		ctx, cancel := context.WithTimeout(snap.ctx, constraintsBudget)
		defer cancel()
		res, stats, err = synth.Analyze(ctx, snap.loaded.Program, snap.loaded.Exec, f.sum, z3.Config{}, synth.Options{AssumeNoOverflow: set.AssumeNoOverflow})
	}); perr != nil {
		return nil, stats // superseded while waiting
	}
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
