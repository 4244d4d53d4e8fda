package engine_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// How big the engine's tests are. A plain `go test ./engine` runs every
// random-program test with every generator and every mode, on fewer
// seeds than the long campaigns: it must stay under two minutes on a
// quiet 2-core machine. WEFT_LONG=1 gives every test its full strength
// (the seeds each had before the default run was cut, the larger sizes,
// and TestHunt over longHuntPrograms programs in every mode):
//
//	WEFT_LONG=1 go test ./engine -count=1 -timeout 0
//
// the run before an exploration change lands. -short (the race
// detector's run) is smaller still. WEFT_RANDOM_PROGRAMS=N (and
// WEFT_V2_PROGRAMS=N for the hand-built generators) sets the seeds of
// every random-program test, overriding all three.

// longRun reports whether WEFT_LONG=1 asks for the long campaigns.
func longRun() bool { return os.Getenv("WEFT_LONG") == "1" }

// sizes is how many seeds (or how big a size) a test uses in each run.
type sizes struct {
	def   int // go test ./engine
	short int // go test -short ./engine
	long  int // WEFT_LONG=1 go test ./engine
}

// n is the size of this run; the environment variable env, when it holds
// a number, overrides it.
func (s sizes) n(env string) int {
	return s.pick(testing.Short(), longRun(), os.Getenv(env))
}

// pick is n with the run given: WEFT_LONG wins over -short, an override
// over both.
func (s sizes) pick(short, long bool, override string) int {
	if v, err := strconv.Atoi(override); err == nil {
		return v
	}
	switch {
	case long:
		return s.long
	case short:
		return s.short
	}
	return s.def
}

// TestSizes: the run picks its size (WEFT_LONG over -short, an override
// over both), and every size table the tests use keeps the default run
// meeting every generator (at least one seed) and the long run at least
// as strong as the default.
func TestSizes(t *testing.T) {
	s := sizes{def: 100, short: 40, long: 300}
	for _, tc := range []struct {
		short, long bool
		override    string
		want        int
	}{
		{false, false, "", 100},
		{true, false, "", 40},
		{false, true, "", 300},
		{true, true, "", 300},
		{false, false, "7", 7},
		{true, true, "7", 7},
		{false, true, "many", 300},
	} {
		if got := s.pick(tc.short, tc.long, tc.override); got != tc.want {
			t.Errorf("short %v, long %v, override %q: %d, want %d", tc.short, tc.long, tc.override, got, tc.want)
		}
	}
	for name, s := range testSizes {
		if s.short < 1 || s.short > s.def || s.def > s.long {
			t.Errorf("%s: sizes %+v: want 1 <= short <= default <= long", name, s)
		}
	}
}

// testSizes are the sizes of the tests, in one place: the seeds of the
// random-program tests (the long values are the seeds each ran before
// issue 28 cut the default run), and the other sizes the default run
// shrinks. The slowest random campaigns were cut again, to about half,
// when .ci/run took 566 s (TestCDPORRandom, TestV2Random, the stateful
// comparisons with dfs and the state counts, …: 48 s of the engine's
// 121 s): the default run checks every generator and mode on fewer seeds,
// WEFT_LONG=1 on as many as before.
var testSizes = map[string]sizes{
	"TestRandomPrograms":           {def: 60, short: 60, long: 300},
	"TestStatefulAgainstDFSRandom": {def: 50, short: 40, long: 1000},
	"TestStatefulAgainstDFSSpin":   {def: 50, short: 40, long: 1000},
	"TestStatefulAgainstDFSV2":     {def: 100, short: 40, long: 1000},
	"TestSpinPrograms":             {def: 50, short: 40, long: 150},
	"TestQPORRandomPrograms":       {def: 40, short: 40, long: 150},
	"TestCoarseRaceFreePrograms":   {def: 70, short: 50, long: 200},
	"TestCDPORRandom":              {def: 20, short: 20, long: 120},
	"TestCDPORAnalysisRandom":      {def: 20, short: 20, long: 60},
	"TestV2SourcePrograms":         {def: 70, short: 40, long: 200},
	"TestFoataLevels":              {def: 20, short: 20, long: 100},
	"TestTraceEvents":              {def: 20, short: 10, long: 40},
	"TestCanonicalReports":         {def: 20, short: 20, long: 200},
	"TestSlicedTraces":             {def: 30, short: 10, long: 200},
	"TestNoRaceCheck":              {def: 30, short: 15, long: 300},
	"TestV2Random":                 {def: 50, short: 50, long: 300},
	"TestCondRandomEveryMode":      {def: 100, short: 100, long: 300},
	"TestUnfoldingV2Random":        {def: 70, short: 60, long: 200},
	// The stateful mode (stateful_test.go, gen_cyclic_test.go): every
	// variant on each program, so fewer seeds than the stateless tests.
	"TestStatefulExactStates": {def: 20, short: 20, long: 300},
	"TestEnumerateStates":     {def: 20, short: 20, long: 300},
	"TestStatefulStates":      {def: 15, short: 15, long: 200},
	"TestStatefulCyclic":      {def: 30, short: 30, long: 1000},
	"TestCyclicGenerator":     {def: 60, short: 30, long: 1000},
	// The most machine states of a cyclic program (gen_cyclic_test.go):
	// DE-S-POR's re-traversals grow fast with them.
	"cyclic states": {def: 600, short: 300, long: 4000},
	// The most machine states enumerateStates goes to for one program
	// (stateful_test.go; fig1 with N = 5 has more than 50,000).
	"enumerated states": {def: 50_000, short: 20_000, long: 1_000_000},
	// The most states (of none) on which a cyclic program is explored
	// with DE-S-POR, whose re-traversals took 49 s on 4,841 states where
	// none took 0.17 s (a larger limit in WEFT_CYCLIC_DE_STATES).
	"cyclic de states": {def: 800, short: 400, long: 2500},
	// The values of a choose (a power of two).
	"TestChooseManyValues": {def: 1 << 14, short: 1 << 12, long: 1 << 16},
	// The budget in MiB under which TestMemoryBudget's undo log runs out.
	"TestMemoryBudget": {def: 64, short: 16, long: 64},
	// The budget in KiB under which TestMemoryBudgetIsPerExploration's
	// threads spawn.
	"TestMemoryBudgetIsPerExploration": {def: 2048, short: 1024, long: 4096},
	// The stores of the hostile model of TestBudgetsHoldOnHostileModels.
	"TestBudgetsHoldOnHostileModels": {def: 30_000, short: 5_000, long: 30_000},
}

// size is the size of the calling test (its top-level name in
// testSizes) in this run; env, when it holds a number, overrides it.
func size(t *testing.T, env string) int {
	t.Helper()
	name, _, _ := strings.Cut(t.Name(), "/")
	s, ok := testSizes[name]
	if !ok {
		t.Fatalf("%s has no sizes in testSizes", name)
	}
	return s.n(env)
}
