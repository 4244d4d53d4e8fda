package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// Defaults of Options.
const (
	DefaultArrayLimit    = 64        // elements of an array a state shows
	DefaultMaxStateSteps = 5000      // steps of a trace that comes with its states
	DefaultMaxSteps      = 1_000_000 // steps of a trace Build replays at all
)

// Options bound what Build keeps. Zero fields take the defaults.
type Options struct {
	ArrayLimit    int // arrays longer than this are elided in the states
	MaxStateSteps int // a longer trace comes without states (StateOmitted)
	MaxSteps      int // a longer trace is refused
}

func (o Options) withDefaults() Options {
	if o.ArrayLimit <= 0 {
		o.ArrayLimit = DefaultArrayLimit
	}
	if o.MaxStateSteps <= 0 {
		o.MaxStateSteps = DefaultMaxStateSteps
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	return o
}

// Position is a 0-based line and UTF-16 character, as in LSP.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a model's text, with the JSON shape of an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// RangeOf converts a source range (negative fields become 0).
func RangeOf(r source.Range) Range {
	return Range{
		Start: Position{max(0, r.Start.Line), max(0, r.Start.Col)},
		End:   Position{max(0, r.End.Line), max(0, r.End.Col)},
	}
}

// Source converts back (without byte offsets).
func (r Range) Source() source.Range {
	return source.Range{
		Start: source.Pos{Line: r.Start.Line, Col: r.Start.Character},
		End:   source.Pos{Line: r.End.Line, Col: r.End.Character},
	}
}

// Document is a bug's counterexample, step by step (see the package doc
// for its JSON).
type Document struct {
	URI          string   `json:"uri"`
	Version      int32    `json:"version"`
	BugID        string   `json:"bugId"`
	File         string   `json:"file,omitempty"`         // the model's path on disk, when known
	SourceSHA256 string   `json:"sourceSha256,omitempty"` // SourceHash of the text it was built from, when known
	Kind         string   `json:"kind"`
	Message      string   `json:"message"`
	Range        Range    `json:"range"`
	Thread       string   `json:"thread,omitempty"` // the thread at fault
	Threads      []string `json:"threads"`          // every thread of the execution, in creation order
	Steps        []Step   `json:"steps"`
	RaceSteps    []int    `json:"raceSteps,omitempty"`    // a data race's two accesses (1-based steps)
	StateOmitted bool     `json:"stateOmitted,omitempty"` // the trace is too long for a state per step
	// FullSteps is, when Steps is the bug's causal slice, the length of
	// the whole execution it was sliced from (engine.Bug.FullSchedule);
	// 0 otherwise.
	FullSteps int `json:"fullSteps,omitempty"`
	// AllSteps marks the whole execution of a sliced bug, asked for as
	// such (engine.Bug.Full: "show all steps"); set by the caller.
	AllSteps bool `json:"allSteps,omitempty"`
}

// Step is one step and the state right after it.
type Step struct {
	Step         int                 `json:"step"` // 1-based
	Thread       string              `json:"thread"`
	Op           string              `json:"op"`
	Range        Range               `json:"range"`
	Event        Event               `json:"event"`
	Ends         bool                `json:"ends,omitempty"` // its thread finished with it
	Shared       []engine.NamedValue `json:"shared,omitempty"`
	Locks        []engine.LockState  `json:"locks,omitempty"`
	ThreadStates []ThreadState       `json:"threadStates,omitempty"`
}

// Event says what kind of step it was and on what (see the package doc).
type Event struct {
	Kind   string `json:"kind"`
	Object string `json:"object,omitempty"`
}

// ThreadState is a thread's state after a step.
type ThreadState struct {
	Name   string              `json:"name"`
	Status string              `json:"status"`          // "ready", "blocked", "failing", "finished"
	Range  *Range              `json:"range,omitempty"` // the statement it runs next
	Waits  string              `json:"waits,omitempty"` // a blocked thread: what it waits for and who holds it up
	Locals []engine.NamedValue `json:"locals,omitempty"`
}

// ErrTooLong is returned by Build for a schedule longer than
// Options.MaxSteps.
var ErrTooLong = errors.New("the counterexample is too long to replay here")

// Build replays bug's schedule on prog and describes every step. The
// document's URI, Version, BugID and File are left for the caller. It
// fails when ctx ends (with ctx's error), when the schedule is longer
// than opts.MaxSteps (ErrTooLong) or when it does not fit prog.
func Build(ctx context.Context, prog *engine.Program, bug *engine.Bug, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	if n := len(bug.Schedule); n > opts.MaxSteps {
		return nil, fmt.Errorf("%w: %d steps (at most %d)", ErrTooLong, n, opts.MaxSteps)
	}
	doc := &Document{Kind: string(bug.Kind), Message: bug.Message, Range: RangeOf(bug.Range), Thread: bug.Thread,
		Threads: []string{}, Steps: []Step{}, FullSteps: len(bug.FullSchedule)}
	states, err := engine.StepStates(ctx, prog, bug.Schedule, bug.ReplayOptions(), opts.ArrayLimit, opts.MaxStateSteps)
	switch {
	case errors.Is(err, engine.ErrTraceTooLong):
		if err := doc.replayWithoutStates(ctx, prog, bug); err != nil {
			return nil, err
		}
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("the counterexample does not replay: %w", err)
	default:
		for _, st := range states {
			doc.Steps = append(doc.Steps, stepOf(st))
		}
		if n := len(states); n > 0 {
			for _, th := range states[n-1].Threads {
				doc.Threads = append(doc.Threads, th.Name)
			}
		}
	}
	if bug.Kind == engine.BugDataRace {
		doc.RaceSteps = raceSteps(doc.Steps, bug)
	}
	return doc, nil
}

// replayWithoutStates fills in the steps of a trace too long for states.
func (doc *Document) replayWithoutStates(ctx context.Context, prog *engine.Program, bug *engine.Bug) error {
	doc.StateOmitted = true
	doc.Steps = make([]Step, 0, len(bug.Schedule)) // growing it by appends was most of the time of a long replay
	_, m, err := engine.ReplayContext(ctx, prog, bug.Schedule, bug.ReplayOptions(), func(st engine.ReplayStep) {
		doc.Steps = append(doc.Steps, Step{Step: st.Index + 1, Thread: st.Trace.Thread, Op: st.Trace.Op, Range: RangeOf(st.Trace.Range),
			Event: eventOf(st.Trace.Kind, st.Trace.Object), Ends: st.Trace.Ends})
	})
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("the counterexample does not replay: %w", err)
	}
	for _, th := range m.Threads {
		doc.Threads = append(doc.Threads, th.Name)
	}
	return nil
}

func stepOf(st engine.StepState) Step {
	out := Step{Step: st.Step, Thread: st.Thread, Op: st.Op, Range: RangeOf(st.Range), Event: eventOf(st.Kind, st.Object),
		Ends: st.Ends, Shared: st.Shared, Locks: st.Locks}
	for _, th := range st.Threads {
		ts := ThreadState{Name: th.Name, Status: th.Status, Waits: th.Waits, Locals: th.Locals}
		if th.At != (source.Range{}) {
			r := RangeOf(th.At)
			ts.Range = &r
		}
		out.ThreadStates = append(out.ThreadStates, ts)
	}
	return out
}

func eventOf(kind ir.EventKind, object string) Event {
	return Event{Kind: kind.String(), Object: object}
}

// raceSteps finds a data race's two accesses: the bug's access is the
// last step of its thread at its range (the schedule ends with it), the
// other the last step before it of the other thread at the other range
// that reads or writes the raced location.
func raceSteps(steps []Step, bug *engine.Bug) []int {
	if bug.Other == nil {
		return nil
	}
	access := func(st *Step, thread string, r source.Range, loc string) bool {
		switch st.Event.Kind {
		case "read", "write", "atomic":
		default:
			return false
		}
		if loc != "" && st.Event.Object != "" && st.Event.Object != loc {
			return false
		}
		return st.Thread == thread && sameRange(st.Range, r)
	}
	loc := racedLocation(bug.Other.Op)
	j := len(steps) - 1
	for j >= 0 && !access(&steps[j], bug.Thread, bug.Range, loc) {
		j--
	}
	for i := j - 1; i >= 0; i-- {
		if access(&steps[i], bug.Other.Thread, bug.Other.Range, loc) {
			return []int{i + 1, j + 1}
		}
	}
	return nil
}

// racedLocation is the location in a race side's op ("write of c").
func racedLocation(op string) string {
	if _, loc, ok := strings.Cut(op, " of "); ok {
		return loc
	}
	return ""
}

func sameRange(a Range, b source.Range) bool {
	return a == RangeOf(b)
}

// Validate checks what a reader of the document relies on: steps
// numbered 1, 2, … in order, every thread named by a step or a state
// listed in Threads, race steps within the trace.
func (doc *Document) Validate() error {
	known := make(map[string]bool, len(doc.Threads))
	for _, t := range doc.Threads {
		if known[t] {
			return fmt.Errorf("thread %q is listed twice", t)
		}
		known[t] = true
	}
	for i := range doc.Steps {
		st := &doc.Steps[i]
		if st.Step != i+1 {
			return fmt.Errorf("step %d is numbered %d", i+1, st.Step)
		}
		if !known[st.Thread] {
			return fmt.Errorf("step %d: thread %q is not in threads", st.Step, st.Thread)
		}
		for _, th := range st.ThreadStates {
			if !known[th.Name] {
				return fmt.Errorf("step %d: thread %q is not in threads", st.Step, th.Name)
			}
		}
	}
	for _, s := range doc.RaceSteps {
		if s < 1 || s > len(doc.Steps) {
			return fmt.Errorf("race step %d is not a step of the trace", s)
		}
	}
	return nil
}
