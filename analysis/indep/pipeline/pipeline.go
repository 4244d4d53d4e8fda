// Package pipeline builds the independence constraints of a checked,
// lowered program in one place for every tool: the access summary
// (analysis/access), the syntactic conditions (analysis/indep) and, when
// asked, the SMT synthesis of those of pairs of atomic blocks
// (analysis/indep/synth with z3). `weft ics`, `weft check --algo cdpor`
// and the language server (its hover and its cdpor checks) all call
// Build; the server runs it inside its pool of z3 processes, with its
// own budget and cancellation (ctx).
//
// It is a package of its own because synth imports indep: indep cannot
// call the synthesis, and the tools should not each wire the two.
package pipeline

import (
	"context"
	"fmt"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/indep"
	"weft/analysis/indep/synth"
	"weft/engine/ir"
	"weft/internal/z3"
)

// Options say how Build builds the constraints.
type Options struct {
	// Summary is the program's access summary when the caller has it
	// already (the server's hover facts); nil: Build computes it.
	Summary *access.Summary
	// SMT asks z3 for the conditions of pairs of atomic blocks; when z3
	// cannot be found the conditions are the syntactic rules' and a note
	// says so. False: the syntactic rules' only, and the result's notes
	// say NoSMT.
	SMT bool
	// NoSMT is the note when SMT is false; empty: indep's ("SMT
	// synthesis not used: syntactic conditions only").
	NoSMT string
	// AssumeNoOverflow gives the engine the SMT conditions that hold only
	// where no arithmetic overflows (synth.Options.AssumeNoOverflow).
	AssumeNoOverflow bool
	// Z3 says how to run z3 (the zero value: find it on PATH or WEFT_Z3).
	Z3 z3.Config
}

// Build computes the independence constraints of checked and its lowering
// prog: the result (its Constraints method is the engine's table) and
// what the synthesis cost (zero without SMT). It ends early with ctx's
// error when ctx ends.
func Build(ctx context.Context, checked *analysis.Program, prog *ir.Program, opts Options) (*indep.Result, synth.Stats, error) {
	sum := opts.Summary
	if sum == nil {
		var err error
		if sum, err = access.Analyze(ctx, checked, prog); err != nil {
			return nil, synth.Stats{}, fmt.Errorf("access analysis: %w", err)
		}
	}
	if !opts.SMT {
		res, err := indep.Analyze(ctx, checked, prog, sum, indep.Options{NoSMT: opts.NoSMT})
		return res, synth.Stats{}, err
	}
	return synth.Analyze(ctx, checked, prog, sum, opts.Z3, synth.Options{AssumeNoOverflow: opts.AssumeNoOverflow})
}
