package driver

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

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
				Schedule: sched, Choices: choices, key: fmt.Sprintf("%s|%d", kind, place), variable: "x"})
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
