package engine

import (
	"fmt"
	"slices"

	"weft/engine/ir"
)

// Status is what a finished exploration amounts to, in the words the CLI's
// JSON and the language server's status use.
type Status string

const (
	StatusVerified   Status = "verified"   // complete, no bug, and something was checked
	StatusVacuous    Status = "vacuous"    // complete, no bug, but nothing was checked (see the warnings)
	StatusBugs       Status = "bugs"       // at least one bug (complete or not)
	StatusIncomplete Status = "incomplete" // no bug found, but not every execution was explored
)

// Verdict says what res, an exploration of prog, amounts to, with the
// warnings a user must see beside it: a model with no thread, or whose
// every execution ended in a failed assume, is never called verified.
// A verdict quoted to a user names res.Assumptions beside it
// (AssumingWords): "verified, assuming no overflow".
func Verdict(prog *Program, res *Result) (Status, []string) {
	var warnings []string
	if len(prog.Threads) == 0 {
		warnings = append(warnings, "the model declares no thread: there was nothing to check")
	} else if res.Executions > 0 && res.AssumeBlocked == res.Executions {
		warnings = append(warnings, fmt.Sprintf("every execution (%d) ended in a failed assume: nothing was checked past the assumes", res.Executions))
	}
	switch {
	case len(res.Bugs) > 0:
		return StatusBugs, warnings
	case !res.Complete:
		return StatusIncomplete, warnings
	case len(warnings) > 0:
		return StatusVacuous, warnings
	}
	return StatusVerified, warnings
}

// The assumptions a result may rest on (Result.Assumptions).
const (
	// AssumeNoOverflow: cdpor merged a pair of steps on a condition
	// synthesised over unbounded integers (--assume-no-overflow), which
	// holds only if neither step's arithmetic overflows; an order it
	// skipped might have ended in an overflow error.
	AssumeNoOverflow Assumption = "no-overflow"
	// AssumeNoSpuriousWakeups: the model waits on a condition variable
	// and the exploration did not explore spurious wake-ups (the
	// language, like POSIX, allows them; --spurious-wakeups explores
	// them).
	AssumeNoSpuriousWakeups Assumption = "no-spurious-wakeups"
	// AssumeNoFingerprintCollision: the stateful mode took two states
	// with the same 128-bit fingerprint for one, so a state whose
	// fingerprint equals a visited one's would not have been explored
	// (Result.MissProbability estimates the chance; --exact-states
	// stores states whole instead).
	AssumeNoFingerprintCollision Assumption = "no-fingerprint-collision"
	// AssumeNoDataRaces: the model has a plain shared variable and no
	// data race was looked for (--no-race-check): the other bugs were
	// checked with every access sequentially consistent, which a model
	// with a data race does not promise.
	AssumeNoDataRaces Assumption = "no-data-races"
)

// AssumptionWords says an assumption as a verdict's qualifier follows
// "assuming": "no overflow".
func AssumptionWords(a Assumption) string {
	switch a {
	case AssumeNoOverflow:
		return "no overflow"
	case AssumeNoSpuriousWakeups:
		return "no spurious wake-ups"
	case AssumeNoFingerprintCollision:
		return "no two distinct states with one fingerprint"
	case AssumeNoDataRaces:
		return "no data races (not checked)"
	}
	return string(a)
}

// AssumingWords is the qualifier of a verdict resting on as:
// "assuming no overflow and no spurious wake-ups", or "" when as is
// empty.
func AssumingWords(as []Assumption) string {
	if len(as) == 0 {
		return ""
	}
	words := make([]string, len(as))
	for i, a := range as {
		words[i] = AssumptionWords(a)
	}
	return "assuming " + joinNames(words, "and")
}

// Assumptions lists what an exploration of prog with opts that ended in
// res rests on, in a fixed order. Each flag that narrows what is explored
// is here or argued harmless in docs/cli.md ("What a verdict rests on"):
//   - spin waiting (the default) loses no bug: a spin loop that only
//     reads waits for a write, each spin contributes a read of the final
//     value, and a thread left spinning with no writer is reported (as a
//     deadlock);
//   - the step bound loses no bug silently: an execution that reaches it
//     is a step-bound bug, and one cut otherwise ends the run incomplete;
//   - the budgets (time, executions, memory, bugs) end the run
//     incomplete, never verified.
func Assumptions(prog *Program, opts Options, res *Result) []Assumption {
	var as []Assumption
	if res.Algorithm == CDPOR {
		for _, s := range res.Independence {
			if s.Origin == ir.OriginSMTNoOverflow && s.Held > 0 {
				as = append(as, AssumeNoOverflow)
				break
			}
		}
	}
	if !opts.SpuriousWakeups && usesOp(prog, ir.OpWait) {
		as = append(as, AssumeNoSpuriousWakeups)
	}
	if res.Algorithm == Stateful && !opts.Stateful.ExactStates {
		as = append(as, AssumeNoFingerprintCollision)
	}
	if opts.NoRaceCheck && slices.ContainsFunc(prog.Locations, func(l ir.Location) bool { return !l.Atomic && !l.Mutex }) {
		as = append(as, AssumeNoDataRaces)
	}
	return as
}

// usesOp says whether some body of prog has an instruction op.
func usesOp(prog *Program, op ir.Op) bool {
	for _, b := range prog.Bodies {
		for _, in := range b.Code {
			if in.Op == op {
				return true
			}
		}
	}
	return false
}
