package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"weft/analysis/lower"
	"weft/engine"
	"weft/examples"
)

// load parses, checks and lowers a model, failing the test on any error.
func load(t testing.TB, name, src string) *engine.Program {
	t.Helper()
	ld := lower.Load(name, []byte(src))
	for _, d := range ld.Diagnostics {
		if d.Severity == 1 {
			t.Fatalf("%s: %s\n%s", name, d, src)
		}
	}
	if ld.Exec == nil {
		t.Fatalf("%s: not lowered", name)
	}
	if m := maxStepsDirective.FindStringSubmatch(src); m != nil {
		n, _ := strconv.Atoi(m[1])
		stepBounds.Store(ld.Exec, n)
	}
	return ld.Exec
}

// defaultTestMaxSteps is the step bound of the tests' explorations.
const defaultTestMaxSteps = 2000

// A test program may set its own step bound with a line
// "// max-steps: N": a spin-wait model reaches any bound, and DFS has about
// N^k interleavings of a spin of N steps beside k steps of a setter.
var (
	maxStepsDirective = regexp.MustCompile(`(?m)^// max-steps: (\d+)$`)
	stepBounds        sync.Map // *engine.Program → int, from load
)

// maxSteps is the step bound to explore prog with.
func maxSteps(prog *engine.Program) int {
	if n, ok := stepBounds.Load(prog); ok {
		return n.(int)
	}
	return defaultTestMaxSteps
}

// outcome is what an exploration handed to OnExecution, in a form two
// modes can compare.
type outcome struct {
	res *engine.Result
	// traces holds the Foata normal forms of the executions that did not
	// end in a stop (collected only when asked for).
	traces map[string]bool
	// finals holds the final shared memory of the executions that did not
	// end in a stop (collected with traces): CDPOR, which merges traces
	// whose order only conditionally matters, must reach each of them.
	finals map[string]bool
	// nonStopped counts the executions whose last event is not a stop
	// (they ended normally, in a deadlock, or at the step bound); stops
	// those that ended in a stop (assertion, assume, runtime error, local
	// budget), assumeEnded those of them that ended in a failed assume.
	nonStopped, stops, assumeEnded int64
	// restarts counts the coarse explorations given up at a data race.
	restarts int
}

func explore(t testing.TB, prog *engine.Program, algo engine.Algorithm, traces bool) outcome {
	t.Helper()
	return exploreWith(t, prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog)}, traces)
}

// exploreWith explores with opts, classifying the executions handed to
// OnExecution (and collecting the Foata normal forms of those that did not
// stop when traces is set). It checks that the statistics agree with the
// executions: every execution counted is handed over, and AssumeBlocked
// counts those whose last event is a failed assume.
func exploreWith(t testing.TB, prog *engine.Program, opts engine.Options, traces bool) outcome {
	t.Helper()
	out := outcome{traces: make(map[string]bool), finals: make(map[string]bool)}
	var fw foataWriter
	opts.OnExecution = func(events []engine.Event, m *engine.Machine) {
		last := engine.NoStop
		if len(events) > 0 {
			last = events[len(events)-1].Stop
		}
		switch last {
		case engine.NoStop:
			out.nonStopped++
			if traces {
				if form := fw.form(events, m); !out.traces[string(form)] {
					out.traces[string(form)] = true
				}
				out.finals[fmt.Sprint(m.Mem)] = true
			}
		case engine.StopAssume:
			out.assumeEnded++
			out.stops++
		default:
			out.stops++
		}
	}
	opts.OnRestart = func() {
		// The executions of the coarse exploration do not count.
		out = outcome{traces: make(map[string]bool), finals: make(map[string]bool), restarts: out.restarts + 1}
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	out.res = res
	mode := modeName(opts)
	if n := out.nonStopped + out.stops; res.Executions != n {
		t.Errorf("%s: Executions = %d, but %d executions were handed to OnExecution", mode, res.Executions, n)
	}
	if res.AssumeBlocked != out.assumeEnded {
		t.Errorf("%s: AssumeBlocked = %d, but %d executions handed to OnExecution end in a failed assume", mode, res.AssumeBlocked, out.assumeEnded)
	}
	return out
}

// modeName names the mode opts select, as the tests' messages do.
func modeName(opts engine.Options) string {
	if opts.Algorithm == engine.QPOR {
		return fmt.Sprintf("qpor-k%d", max(opts.QPOR.K, 1))
	}
	if opts.Algorithm == "" {
		return string(engine.SDPOR)
	}
	return string(opts.Algorithm)
}

// bugKeys summarises the bugs of a result: kind and place.
func bugKeys(res *engine.Result) []string {
	var keys []string
	for _, b := range res.Bugs {
		k := fmt.Sprintf("%s@%s", b.Kind, b.Range)
		if b.Other != nil {
			a, c := b.Range.String(), b.Other.Range.String()
			if c < a {
				a, c = c, a
			}
			k = fmt.Sprintf("%s@%s~%s", b.Kind, a, c)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// dfsBudget is how many interleavings dfsReference may explore for a
// random or hand-written program (WEFT_DFS_BUDGET overrides it, to
// compare larger programs); exampleDFSBudget is the budget for the
// examples, whose dfs references have up to 1.9 million (fig1 on N = 2).
var dfsBudget = envInt("WEFT_DFS_BUDGET", 20_000)

const exampleDFSBudget = 2_000_000

// envInt is the integer value of the environment variable name, or def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// dfsReference explores prog with dfs, the exhaustive reference, and skips
// the calling test (visibly, with the reason) when prog has more than
// budget interleavings: then there is nothing to compare with.
func dfsReference(t *testing.T, prog *engine.Program, src string, budget int64) outcome {
	t.Helper()
	key := fmt.Sprintf("%d\n%s", budget, src)
	ref, ok := expensiveRefs[key]
	if !ok {
		ref = exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog), MaxExecutions: budget}, true)
		if ref.res.Executions > 100_000 {
			expensiveRefs[key] = ref
		}
	}
	if !ref.res.Complete {
		t.Skipf("not compared with dfs: more than %d interleavings", budget)
	}
	return ref
}

// expensiveRefs keeps the dfs references that took long to compute (some
// examples have millions of interleavings), for the next test that
// compares with them. Tests do not run in parallel here.
var expensiveRefs = map[string]outcome{}

// hitStepBound reports whether some execution of res ran into the step
// bound.
func hitStepBound(res *engine.Result) bool {
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			return true
		}
	}
	return false
}

// checkAgainstDFS checks what a POR mode found (got) against the
// exhaustive reference ref; unfolding says the mode is qpor or optimal.
//
// Without the step bound, every mode finds exactly dfs's bugs, and the
// executions that do not end in a stop are compared trace by trace: such
// an execution contains no stop step, so every POR mode explores exactly
// one execution per Mazurkiewicz trace among them, even when other
// executions stop early (where modes legitimately count differently).
// When dfs hits the step bound, counts mean nothing (the bound cuts
// executions at different places in different modes) and only the bugs
// are compared, by checkBugsUnderStepBound.
func checkAgainstDFS(t *testing.T, name, mode string, prog *engine.Program, src string, ref, got outcome) {
	t.Helper()
	defer checkReproduce(t, name, mode, prog, got.res)
	if hitStepBound(ref.res) {
		checkBugsUnderStepBound(t, name, mode, src, ref.res, got.res)
		return
	}
	if a, b := strings.Join(bugKeys(ref.res), "\n"), strings.Join(bugKeys(got.res), "\n"); a != b {
		t.Errorf("%s: bugs differ\ndfs:\n%s\n%s:\n%s\nprogram:\n%s", name, a, mode, b, src)
	}
	if missing, extra := diffSets(ref.traces, got.traces); len(missing)+len(extra) > 0 {
		t.Errorf("%s: %s's executions that did not stop cover %d traces, dfs's %d: %d missing, %d not dfs's (first missing %q, first extra %q)\n%s",
			name, mode, len(got.traces), len(ref.traces), len(missing), len(extra), first(missing), first(extra), src)
	}
	// An atomic block whose accesses depend on what it reads makes
	// dependence conservative: every trace is still covered, but maybe
	// more than once.
	if !prog.HasUnstableAtomics() && got.nonStopped != int64(len(ref.traces)) {
		t.Errorf("%s: %s explored %d executions that did not stop, want one per trace: %d (dfs: %d such interleavings)\n%s",
			name, mode, got.nonStopped, len(ref.traces), ref.nonStopped, src)
	}
	// A failed assume that some execution reaches is reached in every
	// mode: a stop is dependent with every other step, so no mode can
	// prune all the executions that reach it.
	if (ref.assumeEnded > 0) != (got.assumeEnded > 0) {
		t.Errorf("%s: dfs has %d executions ended by a failed assume, %s %d\n%s", name, ref.assumeEnded, mode, got.assumeEnded, src)
	}
}

// checkBugsUnderStepBound compares bugs when some dfs execution hits the
// step bound (engine/doc.go says what each mode promises then). Every
// mode reports a step-bound bug iff dfs does: where a looping thread is
// cut depends on the mode, so it is compared by kind. The POR modes bound
// each step's causal past rather than whole executions, so they find every
// other bug of dfs and may find more, in executions longer than the bound
// (each must reproduce, checked by checkAgainstDFS).
func checkBugsUnderStepBound(t *testing.T, name, mode string, src string, ref, got *engine.Result) {
	t.Helper()
	for _, e := range stepBoundDiffs(mode, ref, got) {
		t.Errorf("%s: %s\n%s", name, e, src)
	}
}

// stepBoundDiffs is the rule of checkBugsUnderStepBound (also read by
// TestHunt): what breaks it.
func stepBoundDiffs(mode string, ref, got *engine.Result) (errs []string) {
	refKeys, gotKeys := withoutStepBound(bugKeys(ref)), withoutStepBound(bugKeys(got))
	if hitStepBound(got) != hitStepBound(ref) {
		errs = append(errs, fmt.Sprintf("%s reports a step-bound bug: %v, dfs: %v", mode, hitStepBound(got), hitStepBound(ref)))
	}
	if missing, _ := diffSets(keySet(refKeys), keySet(gotKeys)); len(missing) > 0 {
		errs = append(errs, fmt.Sprintf("%s misses dfs's bugs %v (dfs hit the step bound)", mode, missing))
	}
	return errs
}

// keySet is a set of bug keys.
func keySet(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// withoutStepBound drops the step-bound bugs from bug keys.
func withoutStepBound(keys []string) []string {
	out := keys[:0:0]
	for _, k := range keys {
		if !strings.HasPrefix(k, string(engine.BugStepBound)+"@") {
			out = append(out, k)
		}
	}
	return out
}

// checkReproduce checks that every bug of res replays to the same bug.
func checkReproduce(t *testing.T, name, mode string, prog *engine.Program, res *engine.Result) {
	t.Helper()
	for i, b := range res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s: %s bug %d (%s: %s) does not reproduce: %v", name, mode, i+1, b.Kind, b.Message, err)
		}
	}
}

// diffSets returns the sorted keys of want missing from got, and of got
// not in want.
func diffSets(want, got map[string]bool) (missing, extra []string) {
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// compareModes checks sdpor against the exhaustive reference (see
// checkAgainstDFS), skipping visibly when dfs has more than dfsBudget
// interleavings.
func compareModes(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	compareModesWithin(t, name, prog, src, dfsBudget)
}

func compareModesWithin(t *testing.T, name string, prog *engine.Program, src string, budget int64) {
	t.Helper()
	ref := dfsReference(t, prog, src, budget)
	checkReproduce(t, name, "dfs", prog, ref.res)
	sd := explore(t, prog, engine.SDPOR, true)
	checkAgainstDFS(t, name, "sdpor", prog, src, ref, sd)
	checkCDPOR(t, name, prog, src, engine.Options{}, ref, sd)
}

// checkCDPOR explores prog with CDPOR (opts otherwise) and checks it
// against dfs's reference and sdpor's outcome: the same bugs as dfs
// (under the step bound, checkBugsUnderStepBound's rule), every final
// state of dfs's executions that did not stop reached, and no more such
// executions than sdpor (CDPOR may merge traces, never split them).
func checkCDPOR(t *testing.T, name string, prog *engine.Program, src string, opts engine.Options, ref, sd outcome) *engine.Result {
	t.Helper()
	opts.Algorithm = engine.CDPOR
	if opts.MaxSteps == 0 {
		opts.MaxSteps = maxSteps(prog)
	}
	got := exploreWith(t, prog, opts, true)
	defer checkReproduce(t, name, "cdpor", prog, got.res)
	if hitStepBound(ref.res) {
		checkBugsUnderStepBound(t, name, "cdpor", src, ref.res, got.res)
		return got.res
	}
	// Data races: every pair dfs reports, and maybe more (see
	// clocks.FullRaceWalk), each of which reproduces (checkReproduce).
	split := func(keys []string) (races, others map[string]bool) {
		races, others = map[string]bool{}, map[string]bool{}
		for _, k := range keys {
			if strings.HasPrefix(k, string(engine.BugDataRace)+"@") {
				races[k] = true
			} else {
				others[k] = true
			}
		}
		return races, others
	}
	refRaces, refOthers := split(bugKeys(ref.res))
	gotRaces, gotOthers := split(bugKeys(got.res))
	if missing, extra := diffSets(refOthers, gotOthers); len(missing)+len(extra) > 0 {
		t.Errorf("%s: bugs differ: cdpor misses %v, has more %v\nprogram:\n%s", name, missing, extra, src)
	}
	if missing, _ := diffSets(refRaces, gotRaces); len(missing) > 0 {
		t.Errorf("%s: cdpor misses dfs's data races %v\nprogram:\n%s", name, missing, src)
	}
	if missing, extra := diffSets(ref.finals, got.finals); len(missing)+len(extra) > 0 {
		t.Errorf("%s: cdpor's executions end in %d final states, dfs's in %d: %d missing, %d not dfs's (first missing %q)\n%s",
			name, len(got.finals), len(ref.finals), len(missing), len(extra), first(missing), src)
	}
	if sd.res != nil && sd.res.Complete && got.nonStopped > sd.nonStopped {
		t.Errorf("%s: cdpor explored %d executions that did not stop, sdpor %d\n%s", name, got.nonStopped, sd.nonStopped, src)
	}
	if (ref.assumeEnded > 0) != (got.assumeEnded > 0) {
		t.Errorf("%s: dfs has %d executions ended by a failed assume, cdpor %d\n%s", name, ref.assumeEnded, got.assumeEnded, src)
	}
	return got.res
}

// TestExamples checks every example in sdpor against dfs.
func TestExamples(t *testing.T) {
	forEachExample(t, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareModesWithin(t, name, prog, src, exampleDFSBudget)
	})
}

// TestRandomPrograms is the property-based test: random small programs,
// where sdpor must agree with dfs as checkAgainstDFS says.
func TestRandomPrograms(t *testing.T) { forEachRandomProgram(t, compareModes) }

// TestSpinPrograms: random programs in which a thread spins on a flag
// that another sets after steps of its own (plain, atomic, or under a
// mutex), every mode against dfs. Some schedules spin until the step
// bound, so bugs are compared (checkBugsUnderStepBound), not counts: the
// unfolding modes once missed every bug behind such a wait.
func TestSpinPrograms(t *testing.T) {
	forEachProgram(t, spinProgram, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareModes(t, name, prog, src)
		compareQPOR(t, name, prog, src)
	})
}

// smallerInstances gives, for an example with too many interleavings for
// dfs, a smaller instance of the same model to compare the modes on: the
// example's text with one line changed (short: the line in -short runs,
// the race detector's, where dfs is ten times slower; "" for the
// example itself). (examples_test.go checks the examples themselves in
// every mode, and in dfs where it can.)
var smallerInstances = map[string]struct{ old, new, short, why string }{
	"fig1.weft": {"const N = 3", "const N = 2", "const N = 1",
		"N = 3 has over 30 million interleavings, N = 2 1.9 million (-short: N = 1, 21)"},
	"fig1_racy.weft": {"const N = 3", "", "const N = 2",
		"N = 3 has 284,874 interleavings (-short: N = 2, 2,160)"},
}

// forEachExample runs check on every model of ../examples, each in a
// subtest.
func forEachExample(t *testing.T, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	files, _ := filepath.Glob("../examples/*.weft")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			if examples.LoopsForever(text) {
				t.Skipf("loops forever: no stateless mode completes it (examples_test checks it in the stateful mode)")
			}
			src := string(text)
			if inst, ok := smallerInstances[filepath.Base(f)]; ok {
				if !strings.Contains(src, inst.old+"\n") {
					t.Fatalf("%s no longer has the line %q to make a smaller instance", f, inst.old)
				}
				line := inst.new
				if testing.Short() {
					line = inst.short
				}
				if line != "" {
					src = strings.Replace(src, inst.old+"\n", line+"\n", 1)
					t.Logf("compared on a smaller instance, %s: %s", line, inst.why)
				}
			}
			check(t, f, load(t, f, src), src)
		})
	}
}

// forEachRandomProgram runs check on seeded random programs, as many as
// the calling test's testSizes say for this run (WEFT_RANDOM_PROGRAMS
// overrides).
func forEachRandomProgram(t *testing.T, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	forEachProgram(t, randomProgram, check)
}

// maxSkippedPercent is the share of seeds a random-program test may fail
// to compare (their check skipped, dfs having too many interleavings)
// before the test fails: a test that silently compares nothing proves
// nothing.
const maxSkippedPercent = 2

// maxFailingSeeds: after this many failing seeds, the rest are not run
// (one seed's report is usually enough, a few show a pattern).
const maxFailingSeeds = 5

// forEachProgram is forEachRandomProgram with another generator. Each
// seed is a subtest ("seed_17"), so that its skip or failure is visible
// and it can be run alone with -run 'Test…/seed_17$'.
// drawComparable draws programs from gen until one has at most dfsBudget
// interleavings (a DFS without trace bookkeeping tells), so that every
// seed compares with DFS; after maxDraws it returns the last one, which
// the comparison then skips visibly. It returns the program and the
// number of draws.
func drawComparable(t *testing.T, r *rand.Rand, gen func(*rand.Rand) string) (string, int) {
	const maxDraws = 50
	for draw := 1; ; draw++ {
		src := gen(r)
		prog := load(t, "candidate", src)
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog), MaxExecutions: dfsBudget})
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || draw == maxDraws {
			return src, draw
		}
	}
}

func forEachProgram(t *testing.T, gen func(*rand.Rand) string, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	n := size(t, "WEFT_RANDOM_PROGRAMS")
	ran, skipped, failed, redrawn := 0, 0, 0, 0
	for seed := int64(1); seed <= int64(n) && failed < maxFailingSeeds; seed++ {
		src, draws := drawComparable(t, rand.New(rand.NewSource(seed)), gen)
		redrawn += draws - 1
		name := fmt.Sprintf("seed %d", seed)
		ran++
		ok := t.Run(name, func(t *testing.T) {
			defer func() {
				if t.Skipped() {
					skipped++
				}
			}()
			check(t, name, load(t, name, src), src)
		})
		if !ok {
			failed++
		}
	}
	if failed == maxFailingSeeds && ran < n {
		t.Errorf("stopped after %d failing seeds; %d of %d seeds not run", failed, n-ran, n)
	}
	t.Logf("%d seeds run: %d compared, %d skipped (not comparable), %d failed; %d programs drawn again for having more than %d interleavings",
		ran, ran-skipped, skipped, failed, redrawn, dfsBudget)
	if skipped*100 > ran*maxSkippedPercent {
		t.Errorf("%d of %d seeds (%.1f%%) could not be compared, more than %d%%: the test checks too little",
			skipped, ran, 100*float64(skipped)/float64(ran), maxSkippedPercent)
	}
}
