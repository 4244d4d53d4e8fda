// Package examples_test checks the example models of examples/: each one
// parses and type-checks without any diagnostic (no warnings either), is
// already in canonical format, starts with a comment block that says what
// it shows and what a checker should find ("Expected: …"), and explores to
// exactly that.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"weft/analysis"
	"weft/engine"
	"weft/grammar"
)

func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.weft")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 12 {
		t.Fatalf("found %d examples, want at least 12", len(files))
	}
	return files
}

func TestExamples(t *testing.T) {
	for _, name := range exampleFiles(t) {
		t.Run(strings.TrimSuffix(name, ".weft"), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, diags := grammar.ParseFile(name, src)
			for _, d := range diags {
				t.Errorf("%s:%s", name, d)
			}
			if len(diags) > 0 {
				return
			}
			prog := analysis.Check(file)
			for _, d := range prog.Diagnostics {
				t.Errorf("%s:%s [%s]", name, d, d.Code)
			}
			out, err := grammar.Format(file, src)
			if err != nil {
				t.Fatalf("Format: %v", err)
			}
			if !bytes.Equal(out, src) {
				t.Errorf("%s is not in canonical format; weft fmt gives:\n%s", name, out)
			}
			if !strings.HasPrefix(string(src), "//") || !strings.Contains(string(src), "Expected:") {
				t.Errorf("%s does not start with a comment block saying what is expected", name)
			}
		})
	}
}

// expectation is what the header comment of an example promises.
type expectation struct {
	// bugs maps each kind of bug the model has to the 1-based lines its
	// reports may point at (for a data race, either access).
	bugs map[engine.BugKind][]int
	// traces is the number of Mazurkiewicz traces, which a complete
	// exploration counts as its executions; 0 where executions stop early
	// (a failed assume, or a bug while other threads still have steps),
	// since tools then legitimately count differently.
	traces int64
}

var expectations = map[string]expectation{
	"atomic_counter.weft": {traces: 6},
	"double_unlock.weft": {bugs: map[engine.BugKind][]int{
		engine.BugRuntimeError: {17},
	}},
	"fig1.weft": {traces: 6},
	"fig1_racy.weft": {bugs: map[engine.BugKind][]int{
		engine.BugDataRace:  {17, 33, 34},
		engine.BugAssertion: {34},
	}},
	"flag_handoff.weft": {bugs: map[engine.BugKind][]int{
		engine.BugDataRace: {15, 16, 20, 21},
	}, traces: 2},
	"lost_update.weft": {bugs: map[engine.BugKind][]int{
		engine.BugDataRace:  {12},
		engine.BugAssertion: {18},
	}, traces: 4},
	"peterson.weft": {},
	"philosophers_deadlock.weft": {bugs: map[engine.BugKind][]int{
		engine.BugDeadlock: {16},
	}, traces: 7},
	"philosophers_ordered.weft": {traces: 6},
	"prodcons.weft":             {},
	"runtime_error.weft": {bugs: map[engine.BugKind][]int{
		engine.BugRuntimeError: {22},
	}, traces: 6},
	"thread_pool.weft": {traces: 6},
	"ticket_lock.weft": {},
}

// TestExpectedOutcomes explores every example completely (SDPOR) and
// compares the bugs found and the number of executions with its header.
func TestExpectedOutcomes(t *testing.T) {
	for _, name := range exampleFiles(t) {
		t.Run(strings.TrimSuffix(name, ".weft"), func(t *testing.T) {
			want, ok := expectations[name]
			if !ok {
				t.Fatalf("no expectation recorded for %s", name)
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, diags := grammar.ParseFile(name, src)
			if len(diags) > 0 {
				t.Fatalf("%s: %v", name, diags)
			}
			prog, err := analysis.Lower(analysis.Check(file))
			if err != nil {
				t.Fatalf("lowering %s: %v", name, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: engine.SDPOR})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete {
				t.Fatalf("exploration incomplete (%s) after %d executions", res.Stopped, res.Executions)
			}
			found := map[engine.BugKind]bool{}
			for _, b := range res.Bugs {
				lines, ok := want.bugs[b.Kind]
				if !ok {
					t.Errorf("unexpected %s", describeBug(b))
					continue
				}
				found[b.Kind] = true
				at := slices.Contains(lines, b.Range.Start.Line+1)
				if b.Other != nil {
					at = at || slices.Contains(lines, b.Other.Range.Start.Line+1)
				}
				if !at {
					t.Errorf("%s, expected at line %v", describeBug(b), lines)
				}
			}
			for kind := range want.bugs {
				if !found[kind] {
					t.Errorf("no %s found", kind)
				}
			}
			if want.traces > 0 && res.Executions != want.traces {
				t.Errorf("%d executions, want %d (one per Mazurkiewicz trace)", res.Executions, want.traces)
			}
		})
	}
}

func describeBug(b *engine.Bug) string {
	s := fmt.Sprintf("%s in %s at line %d: %s", b.Kind, b.Thread, b.Range.Start.Line+1, b.Message)
	if b.Other != nil {
		s += fmt.Sprintf(" (other access by %s at line %d)", b.Other.Thread, b.Other.Range.Start.Line+1)
	}
	return s
}
