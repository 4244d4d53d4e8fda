package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"weft/engine"
	"weft/engine/internal/slicing"
)

// sliceStats adds up what slicing did to the traces checked.
type sliceStats struct {
	mu               sync.Mutex
	bugs, sliced     int
	fullSteps, steps int
	maxCut, sumCut   float64 // the largest share of a trace left out, and the sum of the shares
	// The steps of the shortest whole executions (Options.FullTraces,
	// what was shown before slicing) and of the slices of the same bugs.
	shownBefore, shownAfter int
}

func (s *sliceStats) add(full, sliced int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bugs++
	s.fullSteps += full
	s.steps += sliced
	if sliced < full {
		s.sliced++
		cut := 1 - float64(sliced)/float64(full)
		s.maxCut = max(s.maxCut, cut)
		s.sumCut += cut
	}
}

// checkSlices checks every bug of res: its schedule is no longer than
// the whole execution's; a step-bound bug is not sliced; the slice
// replays to the same bug (Reproduce replays both and compares them:
// the same failure and message, the race with the same other access, the
// same threads blocked at the same places); and it is the slice
// engine.Slice makes of the whole execution replayed with fine steps (the
// exploration slices its own, possibly coarse, events).
func checkSlices(t *testing.T, name, mode string, prog *engine.Program, res *engine.Result, st *sliceStats) {
	t.Helper()
	for i, b := range res.Bugs {
		full := b.Full()
		if b.Kind != engine.BugStepBound {
			st.add(len(full.Schedule), len(b.Schedule))
		}
		if b.Sliced() && len(b.Schedule) >= len(b.FullSchedule) {
			t.Errorf("%s %s bug %d (%s): sliced to %d steps of %d", name, mode, i+1, b.Kind, len(b.Schedule), len(b.FullSchedule))
		}
		if b.Kind == engine.BugStepBound && b.Sliced() {
			t.Errorf("%s %s: a step-bound bug sliced", name, mode)
		}
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s %s bug %d (%s: %s, %d of %d steps) does not reproduce: %v", name, mode, i+1, b.Kind, b.Message, len(b.Schedule), len(full.Schedule), err)
			continue
		}
		if b.Kind == engine.BugAssertion || b.Kind == engine.BugRuntimeError || b.Kind == engine.BugDataRace {
			// The same place: the slice's last step is the bug's.
			last, err := b.TraceRange(b.TraceLen()-1, b.TraceLen())
			if err != nil || len(last) != 1 || last[0].Range != b.Range {
				t.Errorf("%s %s bug %d (%s at %v): the slice ends at %v (%v)", name, mode, i+1, b.Kind, b.Range, last, err)
			}
		}
		again, err := engine.Slice(context.Background(), prog, full)
		if err != nil {
			t.Errorf("%s %s bug %d: %v", name, mode, i+1, err)
			continue
		}
		if !slices.Equal(again.Schedule, b.Schedule) || !slices.Equal(again.Choices, b.Choices) {
			t.Errorf("%s %s bug %d (%s): sliced when found to %v %v, from a replay to %v %v", name, mode, i+1, b.Kind, b.Schedule, b.Choices, again.Schedule, again.Choices)
		}
	}
}

// TestSlicedTraces: every bug of every example and of random programs of
// every generator, in every mode that takes the program (the cyclic
// programs in the stateful mode), has a sliced trace that replays to the
// same bug (see checkSlices). It logs how much slicing cut.
func TestSlicedTraces(t *testing.T) {
	var total sliceStats
	check := func(st *sliceStats, modes []engine.Algorithm) func(t *testing.T, name string, prog *engine.Program, src string) {
		return func(t *testing.T, name string, prog *engine.Program, src string) {
			for _, algo := range modes {
				if refusal(prog, algo) != nil {
					continue
				}
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), MaxExecutions: 3000})
				if err != nil {
					t.Fatal(err)
				}
				checkSlices(t, name, string(algo), prog, res, st)
				checkSlices(t, name, string(algo), prog, res, &total)
				// What was shown before slicing: the shortest whole
				// execution of each bug.
				whole, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog), MaxExecutions: 3000, FullTraces: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range st.compare(whole, res) {
					t.Errorf("%s %s: the %s at %v is shown with %d steps, more than the %d of its shortest whole execution", name, algo, b.Kind, b.Range, len(b.Schedule), len(b.FullSchedule))
				}
				total.compare(whole, res)
			}
		}
	}
	all := engine.Algorithms
	stateful := []engine.Algorithm{engine.Stateful}
	for _, g := range []struct {
		name string
		run  func(t *testing.T, st *sliceStats)
	}{
		{"examples", func(t *testing.T, st *sliceStats) { forEachExample(t, check(st, all)) }},
		{"forever", func(t *testing.T, st *sliceStats) {
			// The examples that loop forever, in the stateful mode.
			for _, f := range []string{"dekker_forever_broken.weft", "peterson_forever_broken.weft", "prodcons_forever_nosignal.weft", "server_forever_racy.weft", "prodcons_forever_if.weft"} {
				src := readExample(t, f)
				check(st, stateful)(t, f, load(t, f, src), src)
			}
		}},
		{"random", func(t *testing.T, st *sliceStats) { forEachRandomProgram(t, check(st, all)) }},
		{"spin", func(t *testing.T, st *sliceStats) { forEachProgram(t, spinProgram, check(st, all)) }},
		{"v2", func(t *testing.T, st *sliceStats) { forEachProgram(t, v2Program, check(st, all)) }},
		{"cyclic", func(t *testing.T, st *sliceStats) {
			n := size(t, "WEFT_RANDOM_PROGRAMS")
			for seed := int64(1); seed <= int64(n); seed++ {
				src := (&progGen{r: rand.New(rand.NewSource(seed))}).cyclicProgram()
				prog, ok := tryLoad(src)
				if !ok {
					t.Fatalf("seed %d: the cyclic generator wrote a program that does not load:\n%s", seed, src)
				}
				check(st, stateful)(t, "cyclic seed", prog, src)
			}
		}},
	} {
		t.Run(g.name, func(t *testing.T) {
			var st sliceStats
			g.run(t, &st)
			t.Logf("%s: %s", g.name, st.String())
		})
	}
	if total.bugs < 100 || total.sliced == 0 {
		t.Errorf("%d bugs checked, %d of them sliced: too few to say anything", total.bugs, total.sliced)
	}
	t.Logf("in all: %s", total.String())
}

// compare adds up the lengths of the traces of the bugs whole and sliced
// both have (step-bound bugs aside): whole's, explored with FullTraces,
// and sliced's. The same exploration keeps, per bug, the shortest slice
// and the shortest whole execution, and a slice is never longer than its
// execution: it returns the bugs of sliced whose trace is longer than
// whole's, with that one as FullSchedule, which must be none.
func (s *sliceStats) compare(whole, sliced *engine.Result) (longer []*engine.Bug) {
	key := func(b *engine.Bug) string {
		k := string(b.Kind) + b.Range.String()
		if b.Other != nil {
			k += b.Other.Range.String()
		}
		return k
	}
	// Several deadlocks can share a place (one per set of blocked
	// positions, at the first): only bugs their key tells apart in both
	// results are compared.
	before := map[string][]int32{}
	count := map[string]int{}
	for _, b := range whole.Bugs {
		before[key(b)] = b.Schedule
		count[key(b)]++
	}
	for _, b := range sliced.Bugs {
		count[key(b)] += 100
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range sliced.Bugs {
		w, ok := before[key(b)]
		if !ok || count[key(b)] != 101 || b.Kind == engine.BugStepBound {
			continue
		}
		s.shownBefore += len(w)
		s.shownAfter += len(b.Schedule)
		if len(b.Schedule) > len(w) {
			c := *b
			c.FullSchedule = w
			longer = append(longer, &c)
		}
	}
	return longer
}

// String says what slicing did: "1307 bugs (step-bound bugs aside), 376
// sliced; …".
func (s *sliceStats) String() string {
	return fmt.Sprintf("%d bugs (step-bound bugs aside), %d sliced; %d steps before slicing, %d after (%.0f%% cut; per trace: mean cut %.0f%%, largest %.0f%%); the shortest whole executions of the same bugs (FullTraces) %d steps",
		s.bugs, s.sliced, s.fullSteps, s.steps, 100*(1-float64(s.steps)/float64(max(s.fullSteps, 1))), 100*s.sumCut/float64(max(s.bugs, 1)), 100*s.maxCut,
		s.shownBefore) + fmt.Sprintf(", sliced %d", s.shownAfter)
}

func readExample(t *testing.T, name string) string { return readExampleB(t, name) }

func readExampleB(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSliceKeepsWhatTheFailureNeeds: the slices of small models, step by
// step. Each keeps the chain of writes a failing read depends on across
// threads (a slice that dropped one would read another value and fail
// otherwise, or not at all), the lock of a mutex held by a thread that is
// not blocked, and leaves out the steps of threads the failure does not
// depend on.
func TestSliceKeepsWhatTheFailureNeeds(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		kind      engine.BugKind
		want      []string // the sliced trace: "thread: op"
	}{
		{
			name: "a read whose writer is in another thread",
			src: `var x int
var y int
var z int
var m mutex

thread a {
    x = 1
    z = 5
}

thread b {
    y = x
}

thread c {
    assert y == 0, "y was copied from x"
}

thread noise {
    for j in 0..3 {
        lock(m)
        z = j
        unlock(m)
    }
}
`,
			kind: engine.BugAssertion,
			want: []string{"a: write x = 1", "b: read x → 1", "b: write y = 1", "c: read y → 1", "c: assertion failed: y was copied from x"},
		},
		{
			name: "a lock held by a thread that goes on",
			src: `var m mutex
var x int
var y int

thread a {
    x = 1
    lock(m)
}

thread b {
    lock(m)
    y = 1
    y = 2
}
`,
			kind: engine.BugDeadlock,
			want: []string{"a: write x = 1", "b: lock m"},
		},
		{
			name: "a race keeps both accesses and the writes before them",
			src: `var x int
var f int
var m mutex

thread a {
    lock(m)
    f = 1
    unlock(m)
    x = 1
}

thread b {
    lock(m)
    f = 2
    unlock(m)
    x = 2
}

thread noise {
    lock(m)
    unlock(m)
}
`,
			kind: engine.BugDataRace,
			want: nil, // checked by Reproduce only: which race is kept depends on the canonical order
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			for _, algo := range engine.Algorithms {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
				if err != nil {
					t.Fatal(err)
				}
				var st sliceStats
				checkSlices(t, tc.name, string(algo), prog, res, &st)
				var b *engine.Bug
				for _, x := range res.Bugs {
					if x.Kind == tc.kind && (b == nil || len(x.Schedule) < len(b.Schedule)) {
						b = x
					}
				}
				if b == nil {
					t.Fatalf("%s: no %s among %d bugs", algo, tc.kind, len(res.Bugs))
				}
				if tc.want == nil {
					continue
				}
				steps, err := b.Trace()
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range steps {
					got = append(got, s.Thread+": "+s.Op)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: sliced trace\n  %s\nwant\n  %s\n(whole execution: %d steps)", algo, strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "), len(b.Full().Schedule))
				}
			}
		})
	}
}

// TestFig1RacySlice: the assertion of fig1_racy (issue 30) is 7 steps
// once sliced: master's lock, read of c, unlock and write, writer[0]'s
// write, master's read and the failure; the count thread's lock and
// increment steps, which the shortest whole execution has, are gone.
func TestFig1RacySlice(t *testing.T) {
	src := readExample(t, "fig1_racy.weft")
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR, engine.Optimal} {
		opts := engine.Options{Algorithm: algo}
		prog := load(t, "fig1_racy", src)
		if algo == engine.DFS { // 284,874 interleavings with N = 3
			prog = load(t, "fig1_racy N=2", strings.Replace(src, "const N = 3\n", "const N = 2\n", 1))
		}
		res, err := engine.Explore(context.Background(), prog, opts)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range res.Bugs {
			if b.Kind != engine.BugAssertion {
				continue
			}
			found = true
			if len(b.Schedule) != 7 {
				t.Errorf("%s: the assertion's trace has %d steps, want 7", algo, len(b.Schedule))
			}
			steps, err := b.Trace()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range steps {
				if s.Thread == "count" {
					t.Errorf("%s: the sliced trace keeps count's step %q", algo, s.Op)
				}
			}
			if err := engine.Reproduce(prog, b); err != nil {
				t.Errorf("%s: %v", algo, err)
			}
		}
		if !found {
			t.Errorf("%s: no assertion found", algo)
		}
		full, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, FullTraces: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range full.Bugs {
			if b.Sliced() {
				t.Errorf("%s: with FullTraces, a %s is sliced", algo, b.Kind)
			}
		}
	}
}

// TestReproduceChecksSlices: Reproduce refuses a slice that does not show
// its bug as the whole execution does: a race whose other access is
// another, a deadlock slice without the lock that keeps a thread
// blocked, an assertion slice without the write its read needs.
func TestReproduceChecksSlices(t *testing.T) {
	ctx := context.Background()
	first := func(t *testing.T, src string, kind engine.BugKind) (*engine.Program, *engine.Bug) {
		t.Helper()
		prog := load(t, "model", src)
		res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: engine.DFS})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.Bugs {
			if b.Kind == kind {
				if err := engine.Reproduce(prog, b); err != nil {
					t.Fatalf("the %s as found does not reproduce: %v", kind, err)
				}
				return prog, b
			}
		}
		t.Fatalf("no %s", kind)
		return nil, nil
	}
	for _, tc := range []struct {
		name, src string
		kind      engine.BugKind
		spoil     func(b *engine.Bug)
		want      string
	}{
		{"the race's other access", "var x int\nvar y int\n\nthread a {\n    y = 1\n    x = 1\n}\n\nthread b {\n    x = 2\n}\n", engine.BugDataRace,
			func(b *engine.Bug) { b.Other.Range.Start.Line, b.Other.Range.End.Line = 4, 4 }, "no data race with the access"},
		{"the holder's lock", holderModel, engine.BugDeadlock,
			func(b *engine.Bug) { b.Schedule, b.Choices = b.Schedule[:len(b.Schedule)-1], nil }, "can move"},
		{"the writer of what the assertion reads", writerModel, engine.BugAssertion,
			func(b *engine.Bug) { b.Schedule, b.Choices = b.Schedule[1:], nil }, "not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, b := first(t, tc.src, tc.kind)
			spoilt := *b
			if b.Other != nil {
				o := *b.Other
				spoilt.Other = &o
			}
			spoilt.Schedule = slices.Clone(b.Schedule)
			spoilt.SetTrace(nil)
			tc.spoil(&spoilt)
			err := engine.Reproduce(prog, &spoilt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("spoilt %v (of %v): %v, want an error saying %q", spoilt.Schedule, b.Schedule, err, tc.want)
			}
		})
	}
}

const holderModel = `var m mutex
var x int
var y int

thread a {
    x = 1
    lock(m)
}

thread b {
    lock(m)
    y = 1
    y = 2
}
`

const writerModel = `var x int
var z int

thread a {
    x = 1
    z = 1
}

thread c {
    assert x == 0, "x was written"
}
`

// TestSliceTargetsNameEveryKind: the slicer's names of the bug kinds are
// the engine's (slicing.TargetOf), and every kind but the step bound is
// sliced.
func TestSliceTargetsNameEveryKind(t *testing.T) {
	for _, k := range engine.BugKinds() {
		if got := slicing.TargetOf(string(k)); (got == slicing.None) != (k == engine.BugStepBound) {
			t.Errorf("%s: target %v", k, got)
		}
	}
}
