package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"weft/engine"
)

// qporModes are the unfolding-based modes checked against dfs.
var qporModes = []struct {
	name  string
	algo  engine.Algorithm
	k     int
	prune bool // prune U at the end of every call of Explore
}{
	{"qpor-k1", engine.QPOR, 1, false},
	{"qpor-k2", engine.QPOR, 2, false},
	{"qpor-k3", engine.QPOR, 3, false},
	{"optimal", engine.Optimal, 0, false},
	{"qpor-k1-pruning", engine.QPOR, 1, true},
	{"optimal-pruning", engine.Optimal, 0, true},
}

func exploreK(t testing.TB, prog *engine.Program, algo engine.Algorithm, k int, prune bool) outcome {
	t.Helper()
	opts := engine.Options{Algorithm: algo, QPOR: engine.QPOROptions{K: k}, MaxSteps: maxSteps(prog)}
	if prune {
		engine.PruneAlways(&opts)
	}
	return exploreWith(t, prog, opts, true)
}

// compareQPOR is compareModes for the unfolding-based modes (see
// checkAgainstDFS); besides, none of them meets an anomaly, and optimal
// never explores a sleep-set-blocked execution.
func compareQPOR(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	compareQPORWithin(t, name, prog, src, dfsBudget)
}

func compareQPORWithin(t *testing.T, name string, prog *engine.Program, src string, budget int64) {
	t.Helper()
	skipIfRefused(t, prog, engine.Optimal)
	ref := dfsReference(t, prog, src, budget)
	for _, mode := range qporModes {
		got := exploreK(t, prog, mode.algo, mode.k, mode.prune)
		if n := engine.Anomalies(got.res); n != 0 {
			t.Errorf("%s: %s: %d anomalies (unenabled clues, changing atomic footprints, broken indexes); the first: %s", name, mode.name, n, engine.FirstAnomaly(got.res))
		}
		if !got.res.Complete {
			t.Errorf("%s: %s incomplete", name, mode.name)
		}
		if mode.algo == engine.Optimal && got.res.SSB != 0 {
			t.Errorf("%s: optimal explored %d sleep-set-blocked executions\n%s", name, got.res.SSB, src)
		}
		checkAgainstDFS(t, name, mode.name, prog, src, ref, got)
	}
}

// TestQPORKnownCounts: the programs of TestKnownCounts (and one with
// plain reads and writes), in every unfolding-based mode.
func TestQPORKnownCounts(t *testing.T) {
	for _, tc := range knownCountCases() {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			if tc.traces > 0 {
				for _, mode := range qporModes {
					o := exploreK(t, prog, mode.algo, mode.k, mode.prune)
					if o.res.Executions != tc.traces {
						t.Errorf("%s: %d executions, want %d traces", mode.name, o.res.Executions, tc.traces)
					}
				}
			}
			compareQPOR(t, tc.name, prog, tc.src)
		})
	}
}

// TestQPORExamples checks every example in the unfolding-based modes.
func TestQPORExamples(t *testing.T) {
	forEachExample(t, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareQPORWithin(t, name, prog, src, exampleDFSBudget)
	})
}

// TestQPORRandomPrograms is TestRandomPrograms for the unfolding-based
// modes (WEFT_RANDOM_PROGRAMS sets the number of programs).
func TestQPORRandomPrograms(t *testing.T) { forEachRandomProgram(t, compareQPOR) }

// quickBenchmarkTraces: the benchmarks with at most this many traces are
// checked by a plain go test (the smaller instances of every family, each
// well under a second in every mode); the larger ones only on request.
const quickBenchmarkTraces = 2000

// TestQPORBenchmarks checks the exact number of executions (one per
// Mazurkiewicz trace, counted by DPU for the paper's rows) of the
// benchmarks of ../benchmarks/expected.tsv, and that they are complete and
// bug-free. By default: qpor with k = 1, 2, 3 and optimal on every row
// with at most quickBenchmarkTraces traces. WEFT_QPOR_BENCH
// ("optimal,qpor:1,qpor:2") picks the modes and runs every row, or those
// whose file contains WEFT_QPOR_FILES.
func TestQPORBenchmarks(t *testing.T) {
	type mode struct {
		algo engine.Algorithm
		k    int
	}
	modes := []mode{{engine.QPOR, 1}, {engine.QPOR, 2}, {engine.QPOR, 3}, {engine.Optimal, 0}}
	all := false
	if env := os.Getenv("WEFT_QPOR_BENCH"); env != "" {
		all, modes = true, nil
		for _, m := range strings.Split(env, ",") {
			algo, k := engine.Algorithm(m), 0
			if i := strings.IndexByte(m, ':'); i >= 0 {
				algo = engine.Algorithm(m[:i])
				k, _ = strconv.Atoi(m[i+1:])
			}
			modes = append(modes, mode{algo, k})
		}
	}
	tsv, err := os.ReadFile("../benchmarks/expected.tsv")
	if err != nil {
		t.Fatal(err)
	}
	filter := os.Getenv("WEFT_QPOR_FILES")
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:] {
		f := strings.Fields(line)
		file := f[0]
		want, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("expected.tsv: %s: %v", file, err)
		}
		if !strings.Contains(file, filter) || !all && want > quickBenchmarkTraces {
			continue
		}
		src, err := os.ReadFile(filepath.Join("../benchmarks", file))
		if err != nil {
			t.Fatal(err)
		}
		prog := load(t, file, string(src))
		for _, m := range modes {
			name := modeName(engine.Options{Algorithm: m.algo, QPOR: engine.QPOROptions{K: m.k}})
			checked++
			t.Run(file+"/"+name, func(t *testing.T) {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: m.algo, QPOR: engine.QPOROptions{K: m.k}})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("executions %7d (want %7d) ssb %7d events %9d bugs %d time %v",
					res.Executions, want, res.SSB, res.Events, len(res.Bugs), res.Elapsed.Round(1e6))
				if res.Executions != want || len(res.Bugs) != 0 || !res.Complete {
					t.Errorf("%d executions (want %d), bugs %v, complete %v", res.Executions, want, bugKeys(res), res.Complete)
				}
			})
		}
	}
	t.Logf("%d exact counts checked", checked)
}

// TestQPORSpinLoop runs a racy spin loop to its step bound (spin-waiting
// off): every read of
// the loop can precede the write, so there is one execution per read
// (n+1), each ending at the bound or after the write. Long runs of one
// thread's reads on a location once made the unfolding modes cubic or
// worse in n (minutes for n = 2,000).
func TestQPORSpinLoop(t *testing.T) {
	prog := load(t, "spin.weft", `var flag int

thread waiter {
    while flag == 0 {
    }
}

thread setter {
    flag = 1
}
`)
	const n = 2000
	for _, mode := range qporModes {
		t.Run(mode.name, func(t *testing.T) {
			if mode.prune {
				t.Skip("pruning after every call is quadratic by design")
			}
			o := exploreWith(t, prog, engine.Options{Algorithm: mode.algo, QPOR: engine.QPOROptions{K: mode.k}, MaxSteps: n, NoSpinWait: true}, false)
			if o.res.Executions != n+1 {
				t.Errorf("%d executions, want %d", o.res.Executions, n+1)
			}
			if got := strings.Join(bugKeys(o.res), " "); !strings.Contains(got, "data-race") || !strings.Contains(got, "step-bound") {
				t.Errorf("bugs %q, want a data race and a step-bound bug", got)
			}
		})
	}
}

// TestQPORLengthCap: in a tree of spawns every event's causal past stays
// short, so the step bound of the unfolding modes never cuts it; the cap
// on a configuration's length ends the exploration, incomplete (it ran
// until memory ran out before the cap).
func TestQPORLengthCap(t *testing.T) {
	prog := load(t, "spawn tree", `proc p() {
    spawn p()
    spawn p()
}

thread main {
    spawn p()
}
`)
	for _, mode := range qporModes {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: mode.algo, QPOR: engine.QPOROptions{K: mode.k}, MaxSteps: 200})
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || res.Stopped != engine.StoppedExecutionLength {
			t.Errorf("%s: complete %v, stopped %q; want incomplete, %q", mode.name, res.Complete, res.Stopped, engine.StoppedExecutionLength)
		}
	}
}

// TestLengthCapLeavesRoom: four threads spin to the step bound (spin-waiting
// off) beside one
// that fails; the length cap (driver.Long) must leave every thread room
// for its steps, so every POR mode completes and finds the failure (a cap
// of four times the bound ended them incomplete, the failure missed).
// DFS has too many interleavings to compare with here.
func TestLengthCapLeavesRoom(t *testing.T) {
	prog := load(t, "spinners", `var v atomic [4]int

thread s[k in 0..4] {
    while v[k] == 0 {
    }
}

thread z {
    assert false, "z fails"
}
`)
	for _, algo := range []engine.Algorithm{engine.SDPOR, engine.QPOR, engine.Optimal} {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 10, NoSpinWait: true})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[engine.BugKind]bool{}
		for _, b := range res.Bugs {
			kinds[b.Kind] = true
		}
		if !res.Complete || !kinds[engine.BugAssertion] || !kinds[engine.BugStepBound] {
			t.Errorf("%s: complete %v (stopped %q), bugs %v; want complete with an assertion and a step-bound bug", algo, res.Complete, res.Stopped, bugKeys(res))
		}
	}
}

// skipIfRefused skips the test, saying why, when mode refuses prog
// (engine.UnsupportedError: a feature the mode does not explore), as
// qpor and optimal do with choose and condition variables: there is
// nothing to compare.
func skipIfRefused(t *testing.T, prog *engine.Program, mode engine.Algorithm) {
	t.Helper()
	if err := refusal(prog, mode); err != nil {
		t.Skipf("not compared in %s: %v", mode, err)
	}
}

// refusal is Explore's refusal of prog in mode, or nil if it explores it.
// Explore refuses before it explores anything, so a cancelled context
// asks without exploring.
func refusal(prog *engine.Program, mode engine.Algorithm) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := engine.Explore(ctx, prog, engine.Options{Algorithm: mode})
	var unsupported *engine.UnsupportedError
	if errors.As(err, &unsupported) {
		return err
	}
	return nil
}
