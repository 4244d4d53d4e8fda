package lsp

import (
	"context"
	"time"

	"weft/analysis/indep"
	"weft/analysis/indep/pipeline"
	"weft/analysis/indep/synth"
)

// constraintsBudget bounds the synthesis of a snapshot's independence
// conditions (z3 bounds each query too); past it the conditions are the
// syntactic rules' only.
const constraintsBudget = 10 * time.Second

// constraintsOutcome is what the computation of a snapshot's independence
// conditions with SMT synthesis (analysis/indep/pipeline) gives, once,
// in the background, when the snapshot's checks start: for the hover and
// the cdpor tier. res is nil when there are none (the access analysis
// failed).
type constraintsOutcome struct {
	res *indep.Result
	smt synth.Stats
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
// once. The computation ends with the snapshot (a newer version, or the
// document closed).
func (snap *snapshot) startConstraints(set Settings, pool *synthPool) {
	snap.consMemo.start(snap.ctx, func(life context.Context) (constraintsOutcome, error) {
		return snap.computeConstraints(life, set, pool)
	})
}

// computeConstraints computes snap's conditions, with SMT in a slot of
// pool; it ends with life (the snapshot's context), and gives up waiting
// for a slot then.
func (snap *snapshot) computeConstraints(life context.Context, set Settings, pool *synthPool) (constraintsOutcome, error) {
	f, _, err := snap.facts(life)
	if err != nil {
		return constraintsOutcome{}, err
	}
	if f == nil {
		return constraintsOutcome{}, nil
	}
	if !set.SMT {
		return constraintsOutcome{res: f.ind}, nil
	}
	var out constraintsOutcome
	if perr := pool.run(life, func() {
		// The budget counts from the slot: a queue of documents does not
		// spend it waiting.
		ctx, cancel := context.WithTimeout(life, constraintsBudget)
		defer cancel()
		out.res, out.smt, err = pipeline.Build(ctx, snap.loaded.Program, snap.loaded.Exec, pipeline.Options{
			Summary: f.sum, SMT: true, AssumeNoOverflow: set.AssumeNoOverflow})
	}); perr != nil {
		return constraintsOutcome{}, snap.superseded() // while waiting for a slot
	}
	if err != nil {
		if life.Err() != nil {
			return constraintsOutcome{}, snap.superseded()
		}
		if f.ind == nil {
			return constraintsOutcome{smt: out.smt}, nil
		}
		// Over budget: the syntactic conditions, saying why.
		ind := *f.ind
		ind.Notes = append(append([]string(nil), ind.Notes...), "SMT synthesis stopped after "+constraintsBudget.String()+": syntactic conditions only")
		return constraintsOutcome{res: &ind, smt: out.smt}, nil
	}
	return out, nil
}

// waitConstraints waits for snap's conditions (startConstraints must have
// been called); nil if ctx ends first, the snapshot is superseded, or
// there are none.
func (snap *snapshot) waitConstraints(ctx context.Context) *indep.Result {
	out, err := snap.consMemo.wait(ctx)
	if err != nil {
		return nil
	}
	return out.res
}

// readyConstraints returns snap's conditions with SMT if they are
// computed, else nil (without waiting).
func (snap *snapshot) readyConstraints() *indep.Result {
	out, err, ok := snap.consMemo.ready()
	if !ok || err != nil {
		return nil
	}
	return out.res
}
