package engine_test

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/engine"
)

// TestHunt is a long differential run over generated programs, off unless
// WEFT_HUNT=N is set (N programs) or WEFT_LONG=1 (longHuntPrograms
// programs in every mode). Unlike TestRandomPrograms it goes on
// after a mismatch, prints each one and ends with a summary:
//
//	WEFT_HUNT=20000 go test ./engine -run TestHunt -count=1 -v -timeout 0
//
// WEFT_HUNT_SEED is the first seed (default 1); WEFT_HUNT_GEN is random
// (default) or spin; WEFT_HUNT_MODES lists the modes (default sdpor; also
// qpor1, qpor2, qpor3, optimal); WEFT_HUNT_SHRINK=1 shrinks the first
// mismatch of each mode and prints it.
//
// For every program where dfs completes: each mode must report dfs's bugs
// (kind and place; see huntCompare for programs that reach the step
// bound), and where no execution reaches the step bound and no atomic
// block is unstable, its executions that did not stop must be as many as
// the Foata normal forms of dfs's (a stop is dependent with every step, so
// executions that never stop are still one per trace), and cover the same
// ones.
func TestHunt(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("WEFT_HUNT"))
	allModes := false
	if err != nil {
		if !longRun() {
			t.Skip("WEFT_HUNT=N runs the hunt over N programs (WEFT_LONG=1: over longHuntPrograms, in every mode)")
		}
		n, allModes = longHuntPrograms, true
	}
	first := int64(1)
	if v, err := strconv.ParseInt(os.Getenv("WEFT_HUNT_SEED"), 10, 64); err == nil {
		first = v
	}
	gen, maxSteps := randomProgram, 2000
	if os.Getenv("WEFT_HUNT_GEN") == "spin" {
		gen, maxSteps = spinProgram, spinMaxSteps
	}
	modes := []string{"sdpor"}
	if allModes {
		modes = []string{"sdpor", "qpor1", "qpor2", "qpor3", "optimal"}
	}
	if v := os.Getenv("WEFT_HUNT_MODES"); v != "" {
		modes = strings.Split(v, ",")
	}
	shrink := os.Getenv("WEFT_HUNT_SHRINK") == "1"

	type tally struct{ compared, counted, mismatches int }
	tallies := map[string]*tally{}
	for _, m := range modes {
		tallies[m] = &tally{}
	}
	skipped, bounded, unstable := 0, 0, 0
	var sizes []int64
	start := time.Now()
	for seed := first; seed < first+int64(n); seed++ {
		src := gen(rand.New(rand.NewSource(seed)))
		name := fmt.Sprintf("seed %d", seed)
		prog := load(t, name, src)
		ref, ok := huntDFS(t, prog, maxSteps)
		if !ok {
			skipped++
			t.Logf("%s: dfs does not finish within %d interleavings", name, huntMaxDFS)
			continue
		}
		sizes = append(sizes, ref.res.Executions)
		hitBound := hitStepBound(ref.res)
		if hitBound {
			bounded++
		}
		if prog.HasUnstableAtomics() {
			unstable++
		}
		for _, mode := range modes {
			tl := tallies[mode]
			tl.compared++
			if !hitBound && !prog.HasUnstableAtomics() {
				tl.counted++
			}
			msg := huntCompare(t, prog, mode, maxSteps, ref)
			if msg == "" {
				continue
			}
			tl.mismatches++
			t.Errorf("%s: %s: %s\n%s", name, mode, msg, src)
			if shrink && tl.mismatches == 1 {
				small := shrinkProgram(src, func(s string) bool {
					p, ok := tryLoad(s)
					if !ok {
						return false
					}
					r, ok := huntDFS(t, p, maxSteps)
					return ok && huntCompare(t, p, mode, maxSteps, r) != ""
				})
				p, _ := tryLoad(small)
				r, _ := huntDFS(t, p, maxSteps)
				t.Logf("%s: %s: shrunk to:\n%s\n%s", name, mode, small, huntCompare(t, p, mode, maxSteps, r))
			}
		}
		if (seed-first+1)%1000 == 0 {
			t.Logf("%d programs, %v", seed-first+1, time.Since(start).Round(time.Second))
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	pct := func(p int) int64 {
		if len(sizes) == 0 {
			return 0
		}
		return sizes[(len(sizes)-1)*p/100]
	}
	t.Logf("the generator threw away %d programs with more than %d interleavings", genRejected, genMaxInterleavings)
	t.Logf("%d programs from seed %d in %v: %d not compared (dfs over %d interleavings), %d reach the step bound, %d have unstable atomic blocks; dfs interleavings: median %d, p90 %d, p99 %d, max %d",
		n, first, time.Since(start).Round(time.Second), skipped, huntMaxDFS, bounded, unstable, pct(50), pct(90), pct(99), pct(100))
	for _, m := range modes {
		tl := tallies[m]
		t.Logf("%s: %d programs compared (bugs), %d of them also by count; %d mismatches", m, tl.compared, tl.counted, tl.mismatches)
	}
}

// longHuntPrograms is how many programs WEFT_LONG=1 hunts over (when
// WEFT_HUNT does not say), in every mode.
const longHuntPrograms = 4000

// huntMaxDFS is the most interleavings the hunt lets dfs explore.
const huntMaxDFS = 20000

// huntDFS explores prog with dfs, unless it has more than huntMaxDFS
// interleavings.
func huntDFS(t testing.TB, prog *engine.Program, maxSteps int) (outcome, bool) {
	ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps, MaxExecutions: huntMaxDFS + 1}, true)
	return ref, ref.res.Complete
}

// huntCompare explores prog in mode and returns what differs from dfs's
// outcome ref ("" if nothing).
func huntCompare(t testing.TB, prog *engine.Program, mode string, maxSteps int, ref outcome) string {
	opts := engine.Options{MaxSteps: maxSteps}
	switch mode {
	case "sdpor":
		opts.Algorithm = engine.SDPOR
	case "qpor1", "qpor2", "qpor3":
		opts.Algorithm, opts.QPOR.K = engine.QPOR, int(mode[4]-'0')
	case "optimal":
		opts.Algorithm = engine.Optimal
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	got := exploreWith(t, prog, opts, true)
	var msgs []string
	if hitStepBound(ref.res) {
		msgs = append(msgs, stepBoundDiffs(mode, ref.res, got.res)...)
	} else if a, b := strings.Join(bugKeys(ref.res), " "), strings.Join(bugKeys(got.res), " "); a != b {
		msgs = append(msgs, fmt.Sprintf("bugs differ: dfs [%s], %s [%s]", a, mode, b))
	}
	if !hitStepBound(ref.res) && !prog.HasUnstableAtomics() {
		if n := got.res.Executions - int64(got.stops); n != int64(len(ref.traces)) || len(got.traces) != len(ref.traces) {
			msgs = append(msgs, fmt.Sprintf("%d executions that did not stop covering %d traces, want %d traces (dfs: %d interleavings; %s: %d executions, %d stopped)",
				n, len(got.traces), len(ref.traces), ref.res.Executions, mode, got.res.Executions, got.stops))
		}
	}
	return strings.Join(msgs, "; ")
}

// shrinkProgram removes lines of src (single lines, then whole blocks:
// a line ending in "{" with everything up to its closing "}") as long as
// bad still holds, until no single removal keeps it: a small
// delta-debugging loop.
func shrinkProgram(src string, bad func(string) bool) string {
	lines := strings.Split(strings.TrimSpace(src), "\n")
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(lines); i++ {
			// The block that line i opens, or the line alone.
			j := i + 1
			if strings.HasSuffix(strings.TrimSpace(lines[i]), "{") {
				ind := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
				for j < len(lines) && !(strings.TrimSpace(lines[j]) == "}" && len(lines[j])-len(strings.TrimLeft(lines[j], " ")) == ind) {
					j++
				}
				j++
			}
			for _, hi := range []int{j, i + 1} {
				if hi > len(lines) {
					continue
				}
				cand := append(append([]string(nil), lines[:i]...), lines[hi:]...)
				if bad(strings.Join(cand, "\n") + "\n") {
					lines = cand
					changed = true
					i--
					break
				}
			}
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
