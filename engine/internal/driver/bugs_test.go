package driver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"weft/engine/ir"
	"weft/source"
)

// TestBugSinkCanonical: whatever order the same bugs are found in, the
// sink keeps the same bugs (the first MaxTraces in canonical order), each
// with the same schedule (the shortest, ties broken by schedule order),
// lists them in the same order, and counts the same omitted ones. This is
// what lets workers that split the work report what one worker would.
func TestBugSinkCanonical(t *testing.T) {
	// 12 bugs at 12 places, each found with 5 schedules (two of the
	// shortest length, one with the choices of another).
	var offers []Found
	for place := 0; place < 12; place++ {
		kind := kindOrder[place%len(kindOrder)]
		r := source.Range{Start: source.Pos{Offset: 100 - 7*place, Line: 20 - place}}
		for v := 0; v < 5; v++ {
			sched := make([]int32, 3+v%3)
			for i := range sched {
				sched[i] = int32((v*7 + i + place) % 5)
			}
			var choices []int32
			if v == 4 {
				choices = make([]int32, len(sched))
				choices[0] = 1
			}
			// The same schedule gives the same message: it is one execution.
			offers = append(offers, Found{Kind: kind, Message: fmt.Sprintf("bug %d, trace %v %v", place, sched, choices), Range: r,
				Schedule: sched, Choices: choices, key: fmt.Sprintf("%s|%d", kind, place), variable: "x", place: 100 - 7*place})
		}
	}
	for _, maxTraces := range []int{100, 5} {
		t.Run(fmt.Sprint("MaxTraces=", maxTraces), func(t *testing.T) {
			var want []*Found
			var wantOmitted []BugSummary
			rng := rand.New(rand.NewPCG(1, uint64(maxTraces)))
			for round := 0; round < 50; round++ {
				cfg := &Config{MaxTraces: maxTraces}
				var s bugSink
				s.init(nil, cfg)
				for _, i := range rng.Perm(len(offers)) {
					b := offers[i]
					b.Schedule = append([]int32(nil), b.Schedule...)
					if s.admit(&b, len(b.Schedule)) {
						s.offer(&b)
					}
				}
				got, omitted := s.result()
				for _, b := range got {
					b.FirstMessage = "" // which message came first depends on the order, by design
				}
				if round == 0 {
					want, wantOmitted = got, omitted
					if n := min(12, maxTraces); len(got) != n {
						t.Fatalf("%d bugs kept, want %d", len(got), n)
					}
					for i := 1; i < len(got); i++ {
						if compareBugs(got[i-1], got[i]) >= 0 {
							t.Fatalf("bugs not in canonical order: %s before %s", got[i-1].key, got[i].key)
						}
					}
					for _, b := range got {
						if len(b.Schedule) != 3 {
							t.Errorf("%s kept a schedule of %d steps, want the shortest (3)", b.key, len(b.Schedule))
						}
					}
					continue
				}
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(omitted, wantOmitted) {
					t.Fatalf("round %d: another order of the same bugs gave another report:\n%+v\n%+v\nwant\n%+v\n%+v", round, got, omitted, want, wantOmitted)
				}
			}
		})
	}
}

// TestBugSinkReview holds the sink's cases a review found.
func TestBugSinkReview(t *testing.T) {
	bug := func(key string, place, steps int) *Found {
		return &Found{Kind: BugDataRace, Message: key, key: key, place: place,
			Range: source.Range{Start: source.Pos{Offset: place + steps}}, Schedule: make([]int32, steps)}
	}
	result := func(s *bugSink) string {
		bugs, om := s.result()
		out := ""
		for _, b := range bugs {
			out += fmt.Sprintf("%s/%d ", b.key, len(b.Schedule))
		}
		return out + fmt.Sprint(om)
	}
	// A race sorts by its earlier access, whichever ran second in the
	// trace: the bug kept beside MaxTraces = 1 does not depend on the
	// order the traces came in (the race S at 40, whose trace ran its
	// accesses in another order first, once lost its place to A at 50).
	var outs []string
	for _, order := range [][]*Found{
		{bug("S", 40, 12), bug("A", 50, 5), bug("S", 40, 10)},
		{bug("S", 40, 10), bug("A", 50, 5), bug("S", 40, 12)},
	} {
		var s bugSink
		s.init(nil, &Config{MaxTraces: 1})
		for _, b := range order {
			if s.admit(b, len(b.Schedule)) {
				s.offer(b)
			}
		}
		outs = append(outs, result(&s))
	}
	if outs[0] != outs[1] || !strings.HasPrefix(outs[0], "S/10 ") {
		t.Errorf("kept %q, then %q; want S with its 10-step schedule both times", outs[0], outs[1])
	}
	// A bug that takes another's place keeps to the quarter of the
	// memory budget its schedules may take.
	var s bugSink
	s.init(nil, &Config{MaxTraces: 2, MaxMemory: 4000})
	for _, b := range []*Found{bug("Z", 90, 60), bug("Y", 80, 60), bug("X", 10, 400), bug("W", 5, 400)} {
		if s.admit(b, len(b.Schedule)) {
			s.offer(b)
		}
	}
	if s.bytes > 4000/4 {
		t.Errorf("kept schedules take %d bytes, more than a quarter of the budget (%d)", s.bytes, 4000/4)
	}
}

// TestOnBugAcrossRestart: a bug handed to OnBug and then evicted is not
// handed over again after the restart with fine steps, and OnBug sees no
// more than MaxTraces bugs in all.
func TestOnBugAcrossRestart(t *testing.T) {
	var got []string
	cfg := Config{MaxSteps: 100, MaxTraces: 1, OnBug: func(f *Found) { got = append(got, f.key) }}
	mode := Mode{Coarse: true, Explore: func(w *Worker) {
		w.Run().Report(&Found{Kind: BugAssertion, Schedule: make([]int32, 3)}, "B", 90, "") // found first, later in canonical order
		w.Run().Report(&Found{Kind: BugAssertion, Schedule: make([]int32, 3)}, "A", 10, "") // takes B's place
		if w.M().Coarse {
			w.RestartFine()
		}
	}}
	out := Explore(context.Background(), &ir.Program{}, cfg, mode)
	if fmt.Sprint(got) != "[B]" || len(out.Bugs) != 1 || out.Bugs[0].key != "A" {
		t.Errorf("OnBug saw %v, kept %d bugs; want [B] once, A kept", got, len(out.Bugs))
	}
}

// TestBugSinkSlices: of the sliced schedules of one bug, the sink keeps
// the shortest slice, then the one whose whole execution comes first
// (compareFound), whatever order they come in; better agrees with offer.
func TestBugSinkSlices(t *testing.T) {
	sliced := func(slice, full []int32) Found {
		return Found{Kind: BugAssertion, Message: "m", key: "k", Schedule: slice, FullSchedule: full}
	}
	offers := []Found{
		sliced([]int32{1, 1, 1}, []int32{0, 0, 1, 1, 1}), // kept: a shortest slice, and the first whole execution
		sliced([]int32{0, 1, 1}, []int32{1, 0, 1, 1, 2}), // the same length: the whole execution decides, not the slice
		sliced([]int32{0, 1, 1}, []int32{0, 1, 0, 1, 1}),
		sliced([]int32{0, 1, 1, 1}, []int32{0, 1, 1, 1}),
		{Kind: BugAssertion, Message: "m", key: "k", Schedule: []int32{0, 1, 1, 1}}, // not sliced
	}
	want := "[1 1 1] [0 0 1 1 1]"
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 30; round++ {
		var s bugSink
		s.init(nil, &Config{MaxTraces: 10})
		for _, i := range rng.Perm(len(offers)) {
			b := offers[i]
			full, choices := b.full()
			better := s.better(b.key, len(b.Schedule), full, choices)
			before := fmt.Sprint(s.byKey[b.key])
			if s.admit(&b, len(b.Schedule)) {
				s.offer(&b)
			}
			if changed := fmt.Sprint(s.byKey[b.key]) != before; changed != better {
				t.Fatalf("round %d: better said %v for %v %v, offer changed the bug kept: %v", round, better, b.Schedule, b.FullSchedule, changed)
			}
		}
		bugs, _ := s.result()
		if got := fmt.Sprint(bugs[0].Schedule, " ", bugs[0].FullSchedule); len(bugs) != 1 || got != want {
			t.Fatalf("round %d: kept %s, want %s", round, got, want)
		}
	}
}
