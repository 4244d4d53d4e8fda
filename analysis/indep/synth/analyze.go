package synth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/icond"
	"weft/analysis/indep"
	"weft/engine/ir"
	"weft/grammar"
	"weft/internal/z3"
)

// Stats says what the synthesis of a program's constraints cost.
type Stats struct {
	Pairs   int           // pairs of atomic blocks asked about
	Queries int           // solver queries
	Time    time.Duration // wall time in Pair, start-up of the solver included
}

// Synthesizer is indep's hook for the atomic blocks of checked, asking s.
// Conditions that hold only where no arithmetic overflows (Weft's int
// arithmetic fails on overflow: an order that overflows is a different
// outcome) are shown to people (icond.Condition.DisplayOnly, origin
// ir.OriginSMTNoOverflow); the engine is given the conditions
// synthesised over int64 (Options.Int64), which hold in every state —
// unless opts.AssumeNoOverflow, when the engine is given the former.
func Synthesizer(s *z3.Solver, checked *analysis.Program, opts Options, stats *Stats) indep.Synthesizer {
	return func(ctx context.Context, q, r *access.Statement) ([]icond.Condition, string, error) {
		qa, ok1 := q.Node.(*grammar.AtomicStmt)
		ra, ok2 := r.Node.(*grammar.AtomicStmt)
		if !ok1 || !ok2 {
			return nil, "", nil
		}
		stats.Pairs++
		res, err := Pair(ctx, s, checked, qa, ra, opts)
		stats.Queries += res.Queries
		stats.Time += res.Time
		if err != nil {
			return nil, "", err
		}
		note := ""
		switch {
		case res.Unsupported != "":
			return nil, "SMT: not synthesised: " + res.Unsupported, nil
		case res.TimedOut:
			note = "SMT: a query timed out; the conditions found hold, others may be missing"
		}
		var out []icond.Condition
		if !res.AssumesNoOverflow || opts.AssumeNoOverflow {
			origin := "smt"
			if res.AssumesNoOverflow {
				origin = ir.OriginSMTNoOverflow
			}
			for _, c := range res.Conds {
				out = append(out, icond.Condition{Expr: c, Origin: origin})
			}
			return out, note, nil
		}
		for _, c := range res.Conds {
			out = append(out, icond.Condition{Expr: c, Origin: ir.OriginSMTNoOverflow, DisplayOnly: true})
		}
		o64 := opts
		o64.Int64 = true
		res64, err := Pair(ctx, s, checked, qa, ra, o64)
		stats.Queries += res64.Queries
		stats.Time += res64.Time
		if err != nil {
			return out, note, err
		}
		for _, c := range res64.Conds {
			out = append(out, icond.Condition{Expr: c, Origin: "smt"})
		}
		return out, note, nil
	}
}

// Analyze is indep.Analyze with SMT synthesis when z3 can be found (one
// solver for the whole analysis, started at the first pair of atomic
// blocks and closed before Analyze returns), and the syntactic conditions
// only, with a note saying why, when it cannot.
func Analyze(ctx context.Context, checked *analysis.Program, prog *ir.Program, sum *access.Summary, cfg z3.Config, opts Options) (*indep.Result, Stats, error) {
	var stats Stats
	start := time.Now()
	if err := z3.Available(cfg); err != nil {
		note := "z3 not found: syntactic conditions only (install the z3 package, or set WEFT_Z3)"
		if !errors.Is(err, z3.ErrNotFound) {
			note = "SMT synthesis (z3) not available: syntactic conditions only (" + err.Error() + ")"
		}
		res, err := indep.Analyze(ctx, checked, prog, sum, indep.Options{NoSMT: note})
		return res, stats, err
	}
	var solver *z3.Solver
	var inner indep.Synthesizer
	var startErr error
	defer func() {
		if solver != nil {
			_ = solver.Close()
		}
	}()
	lazy := func(ctx context.Context, q, r *access.Statement) ([]icond.Condition, string, error) {
		if inner == nil && startErr == nil {
			if solver, startErr = z3.Start(ctx, cfg); startErr == nil {
				inner = Synthesizer(solver, checked, opts, &stats)
			}
		}
		if startErr != nil {
			return nil, "SMT: z3 did not start: " + startErr.Error(), nil
		}
		return inner(ctx, q, r)
	}
	res, err := indep.Analyze(ctx, checked, prog, sum, indep.Options{Synthesize: lazy})
	stats.Time = time.Since(start)
	if err != nil {
		return nil, stats, fmt.Errorf("independence constraints: %w", err)
	}
	return res, stats, nil
}
