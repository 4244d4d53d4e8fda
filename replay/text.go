package replay

import (
	"fmt"
	"io"
	"strings"

	"weft/engine"
)

// MaxTextSteps bounds the steps WriteText writes.
const MaxTextSteps = 1000

// WriteText writes the counterexample for a person to read, in the words
// of `weft replay`: a header, then per step its number, thread, what it
// did and where (1-based line:column), the shared values it changed
// (all of them after the first step) and the locals of its thread that
// changed; the bug at the end. name is the model's name for the header.
// Positions are the document's UTF-16 columns plus one. A trace of more
// than MaxTextSteps steps is written as its first and last halves of
// that, with a line saying how many are left out between them (a
// step-bound trace has 100,000 steps).
func (doc *Document) WriteText(w io.Writer, name string) error {
	ew := &errWriter{w: w}
	ew.printf("replaying %s at %s:%d:%d (%d steps)\n", Headline(doc.Kind, doc.Message), name,
		doc.Range.Start.Line+1, doc.Range.Start.Character+1, len(doc.Steps))
	if len(doc.Threads) > 0 {
		ew.printf("threads: %s\n", strings.Join(doc.Threads, ", "))
	}
	if doc.StateOmitted {
		ew.printf("(the trace is too long for the state after each step: steps only)\n")
	}
	var prev []engine.NamedValue // the shared values before the step
	locals := map[string]map[string]string{}
	for i, st := range doc.Steps {
		if n := len(doc.Steps); n > MaxTextSteps && i >= MaxTextSteps/2 && i < n-MaxTextSteps/2 {
			if i == MaxTextSteps/2 {
				ew.printf("\n… %d steps left out (weft replay shows them all)\n", n-MaxTextSteps)
				prev = nil // what changed across the gap is not known: show every value again
				clear(locals)
			}
			continue
		}
		ew.printf("\nstep %d  %s  %s  (%d:%d)\n", st.Step, st.Thread, st.Op, st.Range.Start.Line+1, st.Range.Start.Character+1)
		if parts := written(st, prev); len(parts) > 0 {
			ew.printf("  shared: %s\n", strings.Join(parts, ", "))
		}
		if st.Shared != nil {
			prev = st.Shared
		}
		var parts []string
		for _, ts := range st.ThreadStates {
			if ts.Name != st.Thread {
				continue
			}
			last := locals[ts.Name]
			if last == nil {
				last = map[string]string{}
				locals[ts.Name] = last
			}
			for _, v := range ts.Locals {
				if old, ok := last[v.Name]; !ok || old != v.Value {
					last[v.Name] = v.Value
					parts = append(parts, v.Name+" = "+v.Value)
				}
			}
		}
		if len(parts) > 0 {
			ew.printf("  locals of %s: %s\n", st.Thread, strings.Join(parts, ", "))
		}
	}
	if len(doc.RaceSteps) == 2 {
		ew.printf("\nthe racing accesses: steps %d and %d\n", doc.RaceSteps[0], doc.RaceSteps[1])
	}
	ew.printf("\n%s\n", Headline(doc.Kind, doc.Message))
	return ew.err
}

// written says what a step wrote, as `weft replay` does: the location
// it wrote, locked or unlocked with its value after the step; for an
// atomic block of several locations, the values it changed.
func written(st Step, prev []engine.NamedValue) []string {
	switch st.Event.Kind {
	case "write", "atomic":
	case "lock", "unlock":
		for _, l := range st.Locks {
			if l.Name == st.Event.Object {
				if l.Holder == "" {
					return []string{l.Name + " = free"}
				}
				return []string{l.Name + " = held by " + l.Holder}
			}
		}
		return nil
	default:
		return nil
	}
	if st.Event.Object != "" {
		for _, v := range st.Shared {
			if v.Name == st.Event.Object {
				return []string{v.Name + " = " + v.Value}
			}
		}
	}
	before := map[string]string{}
	for _, v := range prev {
		before[v.Name] = v.Value
	}
	var out []string
	for _, v := range st.Shared {
		if old, ok := before[v.Name]; !ok || old != v.Value {
			out = append(out, v.Name+" = "+v.Value)
		}
	}
	return out
}

// errWriter keeps the first write error and skips what follows it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
