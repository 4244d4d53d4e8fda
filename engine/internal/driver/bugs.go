package driver

import (
	"cmp"
	"fmt"
	"slices"

	"weft/engine/ir"
	"weft/source"
)

// BugKind is the kind of a bug, as named in the JSON contract.
type BugKind string

const (
	BugAssertion    BugKind = "assertion"
	BugDeadlock     BugKind = "deadlock"
	BugRuntimeError BugKind = "runtime-error"
	BugDataRace     BugKind = "data-race"
	BugStepBound    BugKind = "step-bound"
)

// kindOrder lists every kind, in the order reports sort them.
var kindOrder = [...]BugKind{BugAssertion, BugRuntimeError, BugDeadlock, BugDataRace, BugStepBound}

// RaceSide is one access of a data race.
type RaceSide struct {
	Thread string
	Range  source.Range
	Op     string
}

// Found is a bug a run found, with the schedule that reproduces it.
type Found struct {
	Kind    BugKind
	Message string
	Thread  string       // the thread at fault
	Range   source.Range // where
	Other   *RaceSide    // data races: the other access
	// Schedule is the thread index of each fine step; Choices the
	// alternative of each (nil when every step took its first). With
	// Config.Slice, they are the causal slice of the execution that
	// found the bug (package slicing), and FullSchedule, FullChoices the
	// whole execution when the slice left steps out (nil otherwise).
	Schedule, Choices         []int32
	FullSchedule, FullChoices []int32
	// FirstMessage is the message first found (and handed to OnBug) when
	// the canonical trace's differs; otherwise empty.
	FirstMessage string
	// Kept is what Config.TraceOf made of the trace, nil
	// without it.
	Kept any

	key      string // what a run reports once
	variable string // data races: the location, the key of its summary if omitted
	// place is where the bug sorts (see compareBugs): a position that
	// depends on the key alone, never on the trace that found the bug.
	place int
}

// compareBugs is the canonical order of bugs: by place, kind and key,
// none of which depends on the trace that found a bug. A bug's place is
// its position, but for a data race the earlier of its two accesses (the
// trace decides which one ran second), for a deadlock the first of its
// blocked positions, and for a step-bound bug the first instruction of
// the body that loops.
func compareBugs(a, b *Found) int {
	return cmp.Or(cmp.Compare(a.place, b.place), cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.key, b.key))
}

func kindRank(k BugKind) int { return slices.Index(kindOrder[:], k) }

// compareSchedules orders two schedules of a bug: the shorter first, then
// by their steps and choices.
func compareSchedules(s1, c1, s2, c2 []int32) int {
	if c := cmp.Compare(len(s1), len(s2)); c != 0 {
		return c
	}
	if c := slices.Compare(s1, s2); c != 0 {
		return c
	}
	for i := range s1 {
		if c := cmp.Compare(choiceAt(c1, i), choiceAt(c2, i)); c != 0 {
			return c
		}
	}
	return 0
}

// compareFound orders two schedules of one bug: the shorter (sliced)
// schedule first, then by their whole executions' (compareSchedules),
// which decide the slices: so of two executions with slices of one length
// the one kept does not depend on which was found first. Unsliced, it is
// compareSchedules.
func compareFound(a, b *Found) int {
	if c := cmp.Compare(len(a.Schedule), len(b.Schedule)); c != 0 {
		return c
	}
	fa, fca := a.full()
	fb, fcb := b.full()
	return compareSchedules(fa, fca, fb, fcb)
}

// better reports whether a bug with this key whose slice has n steps, of
// the whole execution full (with its choices), would be kept: it is new
// and admitted, or comes before the one kept (compareFound).
func (s *bugSink) better(key string, n int, full, choices []int32) bool {
	old, known := s.byKey[key]
	if !known {
		return true
	}
	if old == nil {
		return false
	}
	if c := cmp.Compare(n, len(old.Schedule)); c != 0 {
		return c < 0
	}
	fo, fco := old.full()
	return compareSchedules(full, choices, fo, fco) < 0
}

// full is the schedule and choices of the whole execution that found b.
func (b *Found) full() (sched, choices []int32) {
	if b.FullSchedule != nil {
		return b.FullSchedule, b.FullChoices
	}
	return b.Schedule, b.Choices
}

// steps is the number of steps b keeps: its schedule's and its full
// schedule's.
func (b *Found) steps() int { return len(b.Schedule) + len(b.FullSchedule) }

func choiceAt(c []int32, i int) int32 {
	if c == nil {
		return 0
	}
	return c[i]
}

// BugSummary counts the distinct bugs of one kind (on one variable, for
// data races) found but not kept (Config.MaxTraces).
type BugSummary struct {
	Kind     BugKind
	Variable string
	Count    int64
	// Lines is the range of the bugs' lines (1-based, first and last);
	// OtherLines, for data races, that of the other accesses.
	Lines, OtherLines [2]int
}

// scheduleStepBytes is what a kept bug takes a step, as counted against
// the quarter of Config.MaxMemory its schedules may take (its step and
// choice; with Config.TraceOf, about 200 bytes more for the trace).
const scheduleStepBytes = 8

// keptTraceStepBytes is scheduleStepBytes with Config.TraceOf.
const keptTraceStepBytes = 200 + scheduleStepBytes

// bugSink keeps a run's bugs: one per key, with its canonical schedule,
// at most Config.MaxTraces of them (the first in canonical order), the
// others counted in summaries. Its methods run under Run.mu.
type bugSink struct {
	prog     *ir.Program
	cfg      *Config
	byKey    map[string]*Found // kept bugs; nil for those only counted
	kept     []*Found
	omitted  []BugSummary
	nOmitted int64
	bytes    int64 // what the kept schedules take
	// delivered are the keys of the bugs handed to OnBug: the first
	// MaxTraces found, no more, whichever are kept in the end, and none
	// twice, also across the restart of a coarse exploration.
	delivered map[string]bool
}

func (s *bugSink) init(prog *ir.Program, cfg *Config) {
	s.prog, s.cfg, s.byKey, s.delivered = prog, cfg, make(map[string]*Found), make(map[string]bool)
}

func (s *bugSink) stepBytes() int64 {
	if s.cfg.TraceOf != nil {
		return keptTraceStepBytes
	}
	return scheduleStepBytes
}

// wants reports whether a bug with this key found with a schedule of
// fine steps (with Config.Slice: a lower bound of its slice's length) may
// be kept or improve on the one kept: it is new, or the one kept is not
// shorter.
func (s *bugSink) wants(key string, fine int) bool {
	b, ok := s.byKey[key]
	return !ok || b != nil && len(b.Schedule) >= fine
}

// admit is wants for bug b, whose schedule is not built yet, found with
// a schedule of fine steps: if b is new and would not be kept (the sink
// is full of bugs that come before it), it counts it as omitted at once,
// without its schedule, and says no. (30,000 distinct races, each with a
// trace of 30,000 steps, would otherwise build 30,000 schedules to keep
// 100.)
func (s *bugSink) admit(b *Found, fine int) bool {
	ok, _ := s.admitWanted(b, fine)
	return ok
}

// admitWanted is admit, and says too whether b was wanted (wants): new,
// or no longer than the trace kept.
func (s *bugSink) admitWanted(b *Found, fine int) (ok, wanted bool) {
	if !s.wants(b.key, fine) {
		return false, false
	}
	return s.admitNew(b), true
}

// admitNew is the rest of admit, for a bug that is wanted.
func (s *bugSink) admitNew(b *Found) bool {
	if _, known := s.byKey[b.key]; known || len(s.kept) < s.cfg.MaxTraces {
		return true
	}
	for _, k := range s.kept {
		if compareBugs(b, k) < 0 {
			return true // it takes the place of the last kept
		}
	}
	s.omit(b)
	return false
}

// offer records bug b, unless one with the same key was found with a
// schedule that comes first (compareSchedules); b's slices become the
// sink's (never changed after). It returns a copy of b when it is new,
// kept, and to be handed to OnBug, and whether the run must stop
// (Config.MaxBugs).
func (s *bugSink) offer(b *Found) (deliver *Found, stop bool) {
	old, known := s.byKey[b.key]
	switch {
	case known && old == nil:
		return nil, false // counted, not kept
	case known:
		if compareFound(b, old) >= 0 {
			return nil, false
		}
		cost := int64(b.steps()-old.steps()) * s.stepBytes()
		if s.cfg.MaxMemory > 0 && cost > 0 && s.bytes+cost > s.cfg.MaxMemory/4 {
			return nil, false
		}
		s.bytes += cost
		b.FirstMessage = old.FirstMessage
		if b.FirstMessage == "" && old.Message != b.Message {
			b.FirstMessage = old.Message
		}
		*old = *b
		return nil, false
	}
	cost := int64(b.steps()) * s.stepBytes()
	if len(s.kept) >= s.cfg.MaxTraces {
		// Full: b takes the place of the last kept in canonical order if
		// it comes before it, so that which bugs are kept does not
		// depend on the order they were found in.
		last := 0
		for i, k := range s.kept {
			if compareBugs(k, s.kept[last]) > 0 {
				last = i
			}
		}
		evicted := s.kept[last]
		freed := int64(evicted.steps()) * s.stepBytes()
		if compareBugs(b, evicted) > 0 || s.cfg.MaxMemory > 0 && s.bytes-freed+cost > s.cfg.MaxMemory/4 {
			s.omit(b)
			return nil, s.full()
		}
		s.kept = slices.Delete(s.kept, last, last+1)
		s.bytes -= freed
		s.omit(evicted)
	} else if s.cfg.MaxMemory > 0 && len(s.kept) > 0 && s.bytes+cost > s.cfg.MaxMemory/4 {
		s.omit(b)
		return nil, s.full()
	}
	s.bytes += cost
	s.byKey[b.key] = b
	s.kept = append(s.kept, b)
	if len(s.delivered) >= s.cfg.MaxTraces || s.delivered[b.key] {
		return nil, s.full()
	}
	s.delivered[b.key] = true
	c := *b
	return &c, s.full()
}

// full reports whether Config.MaxBugs distinct bugs, kept or not, were
// found.
func (s *bugSink) full() bool {
	return s.cfg.MaxBugs > 0 && int64(len(s.kept))+s.nOmitted >= int64(s.cfg.MaxBugs)
}

// omit counts b, not kept, in its summary.
func (s *bugSink) omit(b *Found) {
	s.byKey[b.key] = nil
	s.nOmitted++
	line := b.Range.Start.Line + 1
	oline := 0
	if b.Other != nil {
		oline = b.Other.Range.Start.Line + 1
	}
	for i := range s.omitted {
		o := &s.omitted[i]
		if o.Kind == b.Kind && o.Variable == b.variable {
			o.Count++
			o.Lines = [2]int{min(o.Lines[0], line), max(o.Lines[1], line)}
			o.OtherLines = [2]int{min(o.OtherLines[0], oline), max(o.OtherLines[1], oline)}
			return
		}
	}
	s.omitted = append(s.omitted, BugSummary{Kind: b.Kind, Variable: b.variable, Count: 1, Lines: [2]int{line, line}, OtherLines: [2]int{oline, oline}})
}

// result is the kept bugs, copied, and the summaries. The bugs are
// listed by the position they are shown at, then kind and key: with
// their canonical traces, that too does not depend on the order they
// were found in, and reads in the order of the text (a race sorts by the
// access that ran second in its trace, where it is shown).
func (s *bugSink) result() ([]*Found, []BugSummary) {
	bugs := make([]*Found, len(s.kept))
	for i, b := range s.kept {
		c := *b
		bugs[i] = &c
	}
	slices.SortFunc(bugs, func(a, b *Found) int {
		return cmp.Or(cmp.Compare(a.Range.Start.Offset, b.Range.Start.Offset), cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.key, b.key))
	})
	om := slices.Clone(s.omitted)
	slices.SortFunc(om, func(a, b BugSummary) int {
		return cmp.Or(cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.Variable, b.Variable))
	})
	return bugs, om
}

// wantsBug is bugSink.wants under the run's lock.
func (r *Run) wantsBug(key string, fine int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bugs.wants(key, fine)
}

// betterBug is bugSink.better under the run's lock.
func (r *Run) betterBug(key string, n int, full, choices []int32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bugs.better(key, n, full, choices)
}

// admitBug is bugSink.admitWanted under the run's lock; it stops the
// run at Config.MaxBugs when it counts b as omitted.
func (r *Run) admitBug(b *Found, fine int) (ok, wanted bool) {
	r.mu.Lock()
	ok, wanted = r.bugs.admitWanted(b, fine)
	full := !ok && r.bugs.full()
	r.mu.Unlock()
	if full {
		r.Stop(StopMaxBugs)
	}
	return ok, wanted
}

// offerBug is bugSink.offer under the run's lock; it hands a new bug to
// Config.OnBug and stops the run at Config.MaxBugs.
func (r *Run) offerBug(b *Found) {
	r.mu.Lock()
	deliver, stop := r.bugs.offer(b)
	r.mu.Unlock()
	if deliver != nil && r.cfg.OnBug != nil {
		r.cbMu.Lock()
		r.cfg.OnBug(deliver)
		r.cbMu.Unlock()
	}
	if stop {
		r.Stop(StopMaxBugs)
	}
}

// plural says n things: "1 step", "2 steps".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Report hands the run a bug found without a worker (a symbolic mode):
// b's schedule is complete; key says which bugs are one (see
// Worker.Report for the keys of the workers' bugs), place where it sorts
// (see compareBugs), variable, for a data race, the location it is
// summarised under if it is not kept.
func (r *Run) Report(b *Found, key string, place int, variable string) {
	b.key, b.place, b.variable = key, place, variable
	if ok, _ := r.admitBug(b, len(b.Schedule)); ok {
		r.offerBug(b)
	}
}
