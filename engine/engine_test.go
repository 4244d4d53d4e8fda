package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/analysis"
	"weft/engine"
)

// load parses, checks and lowers a model, failing the test on any error.
func load(t testing.TB, name, src string) *engine.Program {
	t.Helper()
	ld := analysis.Load(name, []byte(src))
	for _, d := range ld.Diagnostics {
		if d.Severity == 1 {
			t.Fatalf("%s: %s\n%s", name, d, src)
		}
	}
	if ld.Exec == nil {
		t.Fatalf("%s: not lowered", name)
	}
	return ld.Exec
}

// outcome is what an exploration found, in a form two modes can compare.
type outcome struct {
	res    *engine.Result
	traces map[string]bool // Foata normal forms of the non-stopped executions
	stops  int             // executions that ended in a stop (assert, assume, runtime error)
	// restarts counts the coarse explorations given up at a data race.
	restarts int
}

func explore(t testing.TB, prog *engine.Program, algo engine.Algorithm, traces bool) outcome {
	t.Helper()
	return exploreWith(t, prog, engine.Options{Algorithm: algo, MaxSteps: 2000}, traces)
}

// exploreWith explores with opts, collecting the Foata normal forms of the
// executions that did not stop early when traces is set.
func exploreWith(t testing.TB, prog *engine.Program, opts engine.Options, traces bool) outcome {
	t.Helper()
	out := outcome{traces: make(map[string]bool)}
	opts.OnExecution = func(events []engine.Event, m *engine.Machine) {
		if len(events) > 0 && events[len(events)-1].Stop != engine.NoStop {
			out.stops++
			return
		}
		if traces {
			out.traces[foata(events, m)] = true
		}
	}
	opts.OnRestart = func() {
		out.restarts++
		out.stops = 0
		out.traces = make(map[string]bool)
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	out.res = res
	return out
}

// threadID names a thread by its stable identity: declared threads by
// index, spawned threads by their parent and spawn index.
func threadID(m *engine.Machine, t int32) string {
	th := m.Threads[t]
	if th.Parent < 0 {
		return fmt.Sprint(t)
	}
	return threadID(m, th.Parent) + "/" + fmt.Sprint(th.SpawnIndex)
}

// foata computes a canonical form of the Mazurkiewicz trace of an
// execution: its events grouped in Foata levels (an event's level is one
// more than the highest level of the earlier events it depends on), each
// level sorted.
func foata(events []engine.Event, m *engine.Machine) string {
	level := make([]int, len(events))
	lastOf := map[int32]int{}
	for i := range events {
		e := &events[i]
		lv := 0
		for j := 0; j < i; j++ {
			f := &events[j]
			if f.Thread == e.Thread || dependentEvents(f, e, m) {
				if level[j]+1 > lv {
					lv = level[j] + 1
				}
			}
		}
		level[i] = lv
		lastOf[e.Thread] = i
	}
	byLevel := map[int][]string{}
	max := 0
	for i := range events {
		e := &events[i]
		byLevel[level[i]] = append(byLevel[level[i]], fmt.Sprintf("%s.%d", threadID(m, e.Thread), e.Index))
		if level[i] > max {
			max = level[i]
		}
	}
	var sb strings.Builder
	for l := 0; l <= max; l++ {
		s := byLevel[l]
		sort.Strings(s)
		sb.WriteString(strings.Join(s, ","))
		sb.WriteByte('|')
	}
	return sb.String()
}

// dependentEvents is the dependence of language.md, computed
// independently of the engine's: same location with a write, same mutex,
// spawn before the child's steps, a thread's last step before its join.
func dependentEvents(f, e *engine.Event, m *engine.Machine) bool {
	if f.Kind == engine.EvSpawn && f.Loc == e.Thread {
		return true
	}
	if e.Kind == engine.EvJoin && e.Loc == f.Thread && f.Finished {
		return true
	}
	type acc struct {
		loc   int32
		write bool
	}
	list := func(ev *engine.Event) []acc {
		switch ev.Kind {
		case engine.EvRead:
			return []acc{{ev.Loc, false}}
		case engine.EvWrite, engine.EvLock, engine.EvUnlock:
			return []acc{{ev.Loc, true}}
		case engine.EvAtomic:
			var out []acc
			for _, a := range ev.Acc {
				out = append(out, acc{a.Loc, a.Write})
			}
			return out
		}
		return nil
	}
	for _, a := range list(f) {
		for _, b := range list(e) {
			if a.loc == b.loc && (a.write || b.write) {
				return true
			}
		}
	}
	return false
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

// dfsReference explores prog with dfs, the exhaustive reference, unless
// it has too many interleavings for that (ok is false then).
func dfsReference(t *testing.T, prog *engine.Program) (ref outcome, ok bool) {
	t.Helper()
	probe, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, MaxExecutions: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if !probe.Complete {
		return outcome{}, false
	}
	return explore(t, prog, engine.DFS, true), true
}

// compareModes checks the two properties every POR mode must have against
// the exhaustive reference: the same bugs, and (where no execution stops
// early) one execution per Mazurkiewicz trace.
func compareModes(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	ref, ok := dfsReference(t, prog)
	if !ok {
		return
	}
	got := explore(t, prog, engine.SDPOR, true)
	if a, b := strings.Join(bugKeys(ref.res), "\n"), strings.Join(bugKeys(got.res), "\n"); a != b {
		t.Errorf("%s: bugs differ\ndfs:\n%s\nsdpor:\n%s\nprogram:\n%s", name, a, b, src)
	}
	if ref.stops == 0 {
		// Every trace is explored; exactly once, unless an atomic block's
		// accesses depend on what it reads (then dependence is conservative).
		if len(got.traces) != len(ref.traces) {
			t.Errorf("%s: sdpor covered %d distinct traces, want %d\n%s", name, len(got.traces), len(ref.traces), src)
		}
		if got.res.Executions != int64(len(ref.traces)) && !prog.HasUnstableAtomics() {
			t.Errorf("%s: sdpor explored %d executions, want %d traces (dfs: %d interleavings)\n%s",
				name, got.res.Executions, len(ref.traces), ref.res.Executions, src)
		}
	}
	for i, b := range got.res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s: sdpor bug %d (%s: %s) does not reproduce: %v", name, i+1, b.Kind, b.Message, err)
		}
	}
	for i, b := range ref.res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s: dfs bug %d (%s: %s) does not reproduce: %v", name, i+1, b.Kind, b.Message, err)
		}
	}
}

// knownCase is a program with its number of Mazurkiewicz traces (0:
// unknown, compared with dfs only).
type knownCase struct {
	name   string
	src    string
	traces int64
}

// knownCountCases are the programs whose trace counts are known by hand.
func knownCountCases() []knownCase {
	return []knownCase{
		{"lock counter 2", lockCounterSrc(2), 2},
		{"lock counter 3", lockCounterSrc(3), 6},
		{"lock counter 4", lockCounterSrc(4), 24},
		{"lock counter 5", lockCounterSrc(5), 120},
		{"two reads one write", `
var x atomic int
thread r1 {
    var a int = x
    assert a >= 0
}
thread r2 {
    var a int = x
    assert a >= 0
}
thread w {
    x = 1
}
`, 4},
		{"fig1 N=3", fig1(3), 6},
		{"lock order inversion", `
var m mutex
var n mutex
thread a {
    lock(m)
    lock(n)
    unlock(n)
    unlock(m)
}
thread b {
    lock(n)
    lock(m)
    unlock(m)
    unlock(n)
}
`, 3},
		{"fig1 N=5", fig1(5), 10},
		{"atomic increments", `
var x int
thread t[i in 0..3] {
    atomic {
        x = x + 1
    }
}
`, 6},
		{"spawn and join", `
var x int
var m mutex
proc w(v int) {
    lock(m)
    x = x + v
    unlock(m)
}
thread main {
    var a tid = spawn w(1)
    var b tid = spawn w(2)
    join a
    join b
    assert x == 3
}
`, 2},
		{"readers and writers", `
var x int
var y int
thread w1 {
    x = 1
    y = 1
}
thread w2 {
    y = 2
    x = 2
}
thread r {
    var a int = x
    var b int = y
}
`, 0},
	}
}

func TestKnownCounts(t *testing.T) {
	for _, tc := range knownCountCases() {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			o := explore(t, prog, engine.SDPOR, false)
			if !o.res.Complete {
				t.Fatalf("incomplete")
			}
			for _, b := range o.res.Bugs {
				if b.Kind != engine.BugDeadlock && tc.traces > 0 {
					t.Fatalf("unexpected bug %s: %s", b.Kind, b.Message)
				}
			}
			if tc.traces > 0 && o.res.Executions != tc.traces {
				t.Errorf("sdpor: %d executions, want %d traces", o.res.Executions, tc.traces)
			}
			compareModes(t, tc.name, prog, tc.src)
		})
	}
}

func fig1(n int) string {
	return fmt.Sprintf(`
const N = %d
var x [N]int
var c int
var mc mutex
var mx [N]mutex
thread writer[w in 0..N] {
    lock(mx[w])
    x[w] = 7
    unlock(mx[w])
}
thread count {
    for j in 1..N {
        lock(mc)
        c = c + 1
        unlock(mc)
    }
}
thread master {
    var i int
    lock(mc)
    i = c
    unlock(mc)
    lock(mx[i])
    x[i] = 0
    assert x[i] == 0, "master's write survives"
    unlock(mx[i])
}
`, n)
}

func TestBugKinds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []engine.BugKind
	}{
		{"philosophers deadlock", `
var fork [3]mutex
thread phil[i in 0..3] {
    lock(fork[i])
    lock(fork[(i + 1) % 3])
    unlock(fork[(i + 1) % 3])
    unlock(fork[i])
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"lost update", `
var c int
thread t[i in 0..2] {
    c = c + 1
}
thread check {
    join t[0]
    join t[1]
    assert c == 2, "lost update"
}
`, []engine.BugKind{engine.BugAssertion, engine.BugDataRace}},
		{"division by zero", `
var d int = 1
thread a {
    atomic {
        d = d - 1
    }
}
thread b {
    var x int
    atomic {
        x = 10 / d
    }
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"unlock not held", `
var m mutex
thread a {
    unlock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"relock", `
var m mutex
thread a {
    lock(m)
    lock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"index out of range", `
var x [2]int
var i int
thread a {
    i = 2
}
thread b {
    var k int = i
    x[k] = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugRuntimeError}},
		{"overflow", `
var x int = 9223372036854775807
thread a {
    x = x + 1
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"step bound", `
var x int
thread a {
    while true {
        x = 1
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"spin until set", `
var x int
thread spinner {
    while x == 0 {
    }
}
thread setter {
    x = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugStepBound}},
		{"local infinite loop", `
thread a {
    var i int
    while true {
        i = 1 - i
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"join self deadlock", `
thread a {
    join a
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"assume is not a bug", `
var x atomic int
thread a {
    x = 1
}
thread b {
    assume x == 1
}
`, nil},
		{"atomic accesses do not race", `
var x int
thread a {
    atomic {
        x = 1
    }
}
thread b {
    atomic {
        x = 2
    }
}
`, nil},
		{"atomic variables do not race", `
var x atomic int
thread a {
    x = 1
}
thread b {
    x = 2
}
`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			for _, algo := range engine.Algorithms {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 500, LocalBudget: 1_000_000})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[engine.BugKind]bool{}
				for _, b := range res.Bugs {
					kinds[b.Kind] = true
					if err := engine.Reproduce(prog, b); err != nil {
						t.Errorf("%s: %s bug does not reproduce: %v", algo, b.Kind, err)
					}
				}
				var got []engine.BugKind
				for k := range kinds {
					got = append(got, k)
				}
				sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("%s: bug kinds %v, want %v", algo, got, tc.want)
				}
			}
		})
	}
}

// TestExamples checks every example with both modes.
func TestExamples(t *testing.T) { forEachExample(t, compareModes) }

// TestRandomPrograms is the property-based test: random small programs,
// where sdpor must find dfs's bugs and, where no execution stops early,
// explore exactly one execution per Mazurkiewicz trace.
func TestRandomPrograms(t *testing.T) { forEachRandomProgram(t, 300, 60, compareModes) }

// forEachExample runs check on every model of ../examples.
func forEachExample(t *testing.T, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	files, _ := filepath.Glob("../examples/*.weft")
	if len(files) == 0 {
		t.Skip("no examples")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			check(t, f, load(t, f, string(src)), string(src))
		})
	}
}

// forEachRandomProgram runs check on n seeded random programs (short in
// -short mode; WEFT_RANDOM_PROGRAMS overrides), stopping at the first
// failing seed.
func forEachRandomProgram(t *testing.T, n, short int, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	forEachProgram(t, n, short, randomProgram, check)
}

// forEachProgram is forEachRandomProgram with another generator.
func forEachProgram(t *testing.T, n, short int, gen func(*rand.Rand) string, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	if testing.Short() {
		n = short
	}
	if v, err := strconv.Atoi(os.Getenv("WEFT_RANDOM_PROGRAMS")); err == nil {
		n = v
	}
	for seed := int64(1); seed <= int64(n); seed++ {
		src := gen(rand.New(rand.NewSource(seed)))
		name := fmt.Sprintf("seed %d", seed)
		check(t, name, load(t, name, src), src)
		if t.Failed() {
			t.Logf("reproduce with seed %d", seed)
			return
		}
	}
}

// TestCancellation: an exploration returns promptly when its context ends,
// says it is incomplete, and reports progress meanwhile.
func TestCancellation(t *testing.T) {
	prog := load(t, "lock counter 12", lockCounterSrc(12)) // 12! executions: far more than fit in the test
	ctx, cancel := context.WithCancel(context.Background())
	progress := 0
	done := make(chan *engine.Result)
	go func() {
		res, err := engine.Explore(ctx, prog, engine.Options{
			OnProgress:       func(engine.Stats) { progress++ },
			ProgressInterval: time.Millisecond,
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(50 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	res := <-done
	latency := time.Since(cancelled)
	if res.Complete || res.Stopped != "cancelled" {
		t.Errorf("complete=%v stopped=%q", res.Complete, res.Stopped)
	}
	if latency > 20*time.Millisecond {
		t.Errorf("took %v to stop after cancel", latency)
	}
	if progress == 0 {
		t.Errorf("no progress reported")
	}
	t.Logf("stopped %v after cancel, %d executions, %d progress reports", latency, res.Executions, progress)

	// A deadline is reported as a timeout.
	tctx, tcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer tcancel()
	res, err := engine.Explore(tctx, prog, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "timeout" {
		t.Errorf("stopped=%q, want timeout", res.Stopped)
	}
}

// TestBugsStream: OnBug sees each bug once, as it is found, before Explore
// returns.
func TestBugsStream(t *testing.T) {
	prog := load(t, "racy", `
var c int
thread t[i in 0..3] {
    c = c + 1
}
`)
	var streamed []*engine.Bug
	res, err := engine.Explore(context.Background(), prog, engine.Options{OnBug: func(b *engine.Bug) { streamed = append(streamed, b) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(streamed) == 0 || len(streamed) != len(res.Bugs) {
		t.Fatalf("streamed %d bugs, result has %d", len(streamed), len(res.Bugs))
	}
	for i := range streamed {
		if streamed[i].Kind != res.Bugs[i].Kind || streamed[i].Range != res.Bugs[i].Range {
			t.Errorf("bug %d differs", i)
		}
		if len(res.Bugs[i].Schedule) > len(streamed[i].Schedule) {
			t.Errorf("bug %d: the result's trace is longer than the first one found", i)
		}
	}
}
