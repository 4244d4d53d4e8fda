package engine

import (
	"context"
	"errors"
	"fmt"

	"weft/source"
)

// Bug is a problem found in some execution, with the schedule that
// reproduces it.
type Bug struct {
	Kind    BugKind
	Message string
	Thread  string       // the thread at fault
	Range   source.Range // where
	// Other is, for data races, the other access of the pair.
	Other *RaceSide
	// Schedule is the thread index chosen at each step; replaying it from
	// the initial state (with LocalBudget) reproduces the bug. It is the
	// causal slice of the execution that found the bug (see "Causal
	// slices" in the package doc), unless Options.FullTraces.
	Schedule []int32
	// Choices is the alternative of each step of Schedule (see
	// interp.Machine.Alternatives: a choose's value, the waiter a signal
	// wakes); nil when every step took its first.
	Choices []int32
	// FullSchedule and FullChoices are the whole execution Schedule was
	// sliced from, when the slice left steps out (nil otherwise, and
	// with Options.FullTraces): Full shows it.
	FullSchedule, FullChoices []int32
	LocalBudget               int  // the local-instruction bound it was found with (0: the default)
	NoSpinWait                bool // it was found with Options.NoSpinWait
	SpuriousWakeups           bool // it was found with Options.SpuriousWakeups
	// FirstMessage is, when the canonical trace of the bug is not the one
	// first found and the message changed with it (another array index,
	// another instance of a thread), the message first found (the one
	// OnBug had, if it had the bug); otherwise empty. Unlike the rest of
	// the result, it depends on the order of the exploration.
	FirstMessage string

	// A bug keeps its schedule, not its trace: a trace in words takes
	// about 170 bytes a step, and a step-bound or long racy execution
	// has up to MaxSteps of them, for each of up to MaxTraces bugs (the
	// 30,000 distinct races of a long thread took gigabytes). The
	// trace is rebuilt from the schedule when it is shown (Trace,
	// TraceRange): the replay is deterministic, and describes the same
	// steps in the same words as the exploration would have.
	prog  *Program    // the program it was found in, to rebuild the trace
	trace []TraceStep // the trace built when found (Options.KeepTraces, SetTrace)
}

// Sliced reports whether b's schedule is a slice that leaves out steps of
// the execution that found it (FullSchedule).
func (b *Bug) Sliced() bool { return b.FullSchedule != nil }

// Full is b with the whole execution that found it as its schedule (b
// itself when it is not sliced): "show all steps".
func (b *Bug) Full() *Bug {
	if b.FullSchedule == nil {
		return b
	}
	c := *b
	c.Schedule, c.Choices = b.FullSchedule, b.FullChoices
	c.FullSchedule, c.FullChoices, c.trace = nil, nil, nil
	return &c
}

// TraceLen is the number of steps of b's trace: its schedule's.
func (b *Bug) TraceLen() int { return len(b.Schedule) }

// SetTrace gives b a trace in words that Trace returns as it is (a bug
// built from a saved report, or by a test).
func (b *Bug) SetTrace(steps []TraceStep) { b.trace = steps }

// Trace describes every step of b's counterexample (see TraceRange).
func (b *Bug) Trace() ([]TraceStep, error) { return b.TraceRange(0, b.TraceLen()) }

// TraceRange describes steps from to to (0-based, to excluded) of b's
// counterexample, re-executing its schedule up to step to. Describing
// a step costs far more than executing it, so showing part of a long
// trace costs little more than running it.
func (b *Bug) TraceRange(from, to int) ([]TraceStep, error) {
	first, _, err := b.traceParts(from, to, to, to)
	return first, err
}

// TraceEnds describes the first head and the last tail steps of b's
// counterexample (with one re-execution of its schedule): first is the
// whole trace, and last empty, when it has no more than head+tail steps.
func (b *Bug) TraceEnds(head, tail int) (first, last []TraceStep, err error) {
	n := b.TraceLen()
	head, tail = max(head, 0), max(tail, 0)
	if head+tail >= n {
		return b.traceParts(0, n, n, n)
	}
	return b.traceParts(0, head, n-tail, n)
}

// traceParts describes steps [a0, a1) and [b0, b1) of b's trace, a1 <= b0,
// replaying its schedule up to b1.
func (b *Bug) traceParts(a0, a1, b0, b1 int) ([]TraceStep, []TraceStep, error) {
	n := b.TraceLen()
	if b.trace != nil {
		n = len(b.trace)
	}
	clamp := func(i int) int { return min(max(i, 0), n) }
	a0, a1, b0, b1 = clamp(a0), clamp(a1), clamp(b0), clamp(b1)
	a1, b1 = max(a0, a1), max(b0, b1)
	if b.trace != nil {
		return b.trace[a0:a1], b.trace[b0:b1], nil
	}
	if a0 == a1 && b0 == b1 {
		return nil, nil, nil
	}
	if b.prog == nil {
		return nil, nil, errors.New("the bug carries no program to rebuild its trace from")
	}
	// Only the steps described are kept: the others are executed into
	// one scratch event.
	firstEvs, lastEvs := make([]Event, a1-a0), make([]Event, b1-b0)
	var scratch Event
	at := func(i int) *Event {
		switch {
		case i >= a0 && i < a1:
			return &firstEvs[i-a0]
		case i >= b0 && i < b1:
			return &lastEvs[i-b0]
		}
		scratch = Event{}
		return &scratch
	}
	m, err := replay(context.Background(), b.prog, b.Schedule[:max(a1, b1)], b.ReplayOptions(), at, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("rebuilding the trace of a %s: %w", b.Kind, err)
	}
	var first, last []TraceStep
	if a0 < a1 {
		first = BuildTrace(b.prog, firstEvs, m)
	}
	if b0 < b1 {
		last = BuildTrace(b.prog, lastEvs, m)
	}
	return first, last, nil
}

// ReplayOptions are the options that replay b's schedule.
func (b *Bug) ReplayOptions() ReplayOptions {
	return ReplayOptions{Choices: b.Choices, LocalBudget: b.LocalBudget, NoSpinWait: b.NoSpinWait, SpuriousWakeups: b.SpuriousWakeups}
}

// BugSummary counts the distinct bugs of one kind (on one variable, for
// data races) found but not kept in Result.Bugs (Options.MaxTraces).
type BugSummary struct {
	Kind     BugKind
	Variable string // data races: the variable raced on ("" otherwise)
	Count    int64
	// Lines is the range of the bugs' lines (1-based, first and last);
	// OtherLines, for data races, that of the other accesses.
	Lines, OtherLines [2]int
}

// String says it in words: "5407 more data races on x, between line
// 30007 and lines 4–30003"; "3 more deadlocks at lines 4–9".
func (s BugSummary) String() string {
	what := s.Kind.Words()
	if s.Count != 1 {
		what += "s"
	}
	if s.Kind == BugDataRace {
		return fmt.Sprintf("%d more %s on %s, between %s and %s", s.Count, what, s.Variable, lineSpan(s.Lines), lineSpan(s.OtherLines))
	}
	return fmt.Sprintf("%d more %s at %s", s.Count, what, lineSpan(s.Lines))
}

func lineSpan(l [2]int) string {
	if l[0] == l[1] {
		return fmt.Sprintf("line %d", l[0])
	}
	return fmt.Sprintf("lines %d–%d", l[0], l[1])
}
