package engine

import (
	"fmt"
	"slices"
	"strings"

	"weft/engine/ir"
	"weft/source"
)

// A feature of the language that not every exploration mode explores.
// Explore refuses a program that uses one with a mode that does not
// support it (an *UnsupportedError): a mode that explored it as if it
// were something else would give a wrong answer.
type feature struct {
	name   string  // as the error says it: "spurious wake-ups"
	plural bool    // "are explored", "them"
	ops    []ir.Op // the operations that use it
	// option, if not nil, says whether the options ask for the feature:
	// a program uses it only then.
	option func(*Options) bool
	modes  []Algorithm
}

// features lists the features that some modes do not support, with the
// modes that do. Spin-waiting (ir.OpLoopHead), choose, trylock and
// condition variables are supported by every mode; spurious wake-ups
// (Options.SpuriousWakeups) are not by qpor and optimal, in which a
// wake-up's footprint would depend on its history (it writes the
// condition variable only when spurious); the stateful mode takes each
// step's footprint from the step made, and a blocked wake-up's as
// writing the mutex and reading the condition variable (see "Blocked
// steps" in package stateful).
var features = []feature{
	{"spurious wake-ups", true, []ir.Op{ir.OpWake},
		func(o *Options) bool { return o.SpuriousWakeups }, []Algorithm{DFS, SDPOR, CDPOR, Stateful}},
}

// UnsupportedError is Explore's refusal of a program that uses a feature
// the chosen mode does not explore.
type UnsupportedError struct {
	Algorithm Algorithm    // the mode asked for
	Feature   string       // "spurious wake-ups"
	Range     source.Range // its first use (invalid if the program has no source ranges)
	Modes     []Algorithm  // the modes that explore it
	plural    bool
}

func (e *UnsupportedError) Error() string {
	var b strings.Builder
	b.WriteString(e.Feature)
	if e.Range.IsValid() {
		fmt.Fprintf(&b, " (line %d)", e.Range.Start.Line+1)
	}
	verb, them := "is", "it"
	if e.plural {
		verb, them = "are", "them"
	}
	var not []string
	for _, a := range Algorithms {
		if !slices.Contains(e.Modes, a) {
			not = append(not, string(a))
		}
	}
	fmt.Fprintf(&b, " %s explored by %s; %s %s not support %s yet", verb, joinNames(e.Modes, "and"), joinNames(not, "and"), doVerb(len(not)), them)
	return b.String()
}

func doVerb(n int) string {
	if n == 1 {
		return "does"
	}
	return "do"
}

// joinNames joins names: "a", "a and b", "a, b and c".
func joinNames[S ~string](names []S, conj string) string {
	var s []string
	for _, n := range names {
		s = append(s, string(n))
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " " + conj + " " + s[len(s)-1]
}

// Unsupported returns the refusal Explore would make of prog with opts
// (opts.Algorithm, SDPOR if empty): the use of a feature the algorithm
// does not explore that comes first in the source (the first in prog's
// code if there are no ranges); nil if it explores everything prog uses
// with these options. Tools that pick a mode (the
// language server's escalation) ask it first and fall back to a mode that
// does.
func Unsupported(prog *Program, opts Options) *UnsupportedError {
	algo := opts.Algorithm
	if algo == "" {
		algo = SDPOR
	}
	var first *UnsupportedError
	for _, b := range prog.Bodies {
		for pc, in := range b.Code {
			f := featureOf(in.Op)
			if f == nil || slices.Contains(f.modes, algo) || f.option != nil && !f.option(&opts) {
				continue
			}
			var r source.Range
			if pc < len(b.Ranges) {
				r = b.Ranges[pc]
			}
			if first != nil && (!r.IsValid() || first.Range.IsValid() && first.Range.Start.Offset <= r.Start.Offset) {
				continue
			}
			first = &UnsupportedError{Algorithm: algo, Feature: f.name, Range: r, Modes: f.modes, plural: f.plural}
		}
	}
	return first
}

// featureOf is the feature that uses op, or nil.
func featureOf(op ir.Op) *feature {
	for i := range features {
		if slices.Contains(features[i].ops, op) {
			return &features[i]
		}
	}
	return nil
}
