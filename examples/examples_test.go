// Package examples_test checks the example models of examples/: each one
// parses and type-checks without any diagnostic (no warnings either), is
// already in canonical format, starts with a comment block that says what
// it shows, and explores, in every mode, to exactly what its markers say.
//
// # Markers
//
// An example's expected outcome is written once, in the example, as
// comments the test reads (in the spirit of go/types' /* ERROR */ test
// markers); the prose around them is for users and is not parsed.
//
//   - `// want: KIND[, KIND]…` at the end of a line: a bug of each KIND is
//     reported at this line. KIND is a bug kind of the JSON contract:
//     assertion, deadlock, runtime-error, data-race, step-bound. The line
//     of a bug is the start line of its Range (for a deadlock, where the
//     first deadlocked thread waits); a data race has two lines, its two
//     accesses, and both need a marker (the same line if both accesses
//     are there).
//   - `// want traces: N`, once, in the header: the program has N
//     Mazurkiewicz traces among its maximal executions that do not end in
//     a stop (a failed assertion, assume, or a runtime error), which is
//     the number of such executions every POR mode explores, however
//     executions that stop are counted. Omit it where it is not
//     meaningful: when some execution runs into the step bound, or some
//     atomic block's accesses depend on what it reads (then sdpor may
//     explore a trace twice).
//
// In every mode (sdpor, cdpor, qpor with k = 1, optimal, and dfs where the
// example has few enough interleavings) the set of (kind, line) pairs of
// the bugs found must equal the markers' set exactly. The POR modes must
// also explore exactly N executions that do not stop (cdpor at most N: it
// merges traces that differ only in the order of steps that commute where
// they meet); dfs explores one
// per interleaving, and engine's TestExamples checks that its traces are
// the POR modes' ones. Any other comment starting with "want" is an error,
// so a misspelt marker cannot silently check nothing.
package examples_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"weft/analysis"
	"weft/analysis/lower"
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
			if !strings.HasPrefix(string(src), "//") {
				t.Errorf("%s does not start with a comment block saying what it shows", name)
			}
		})
	}
}

// expectation is what an example's markers say.
type expectation struct {
	bugs   []bugAt // sorted
	traces int64   // -1: no `want traces` marker
}

// bugAt is a bug kind reported at a line (1-based).
type bugAt struct {
	kind engine.BugKind
	line int
}

func (b bugAt) String() string { return fmt.Sprintf("%s at line %d", b.kind, b.line) }

func compareBugAt(a, b bugAt) int {
	if a.line != b.line {
		return a.line - b.line
	}
	return strings.Compare(string(a.kind), string(b.kind))
}

var (
	// wantComment: a comment that means to be a marker.
	wantComment = regexp.MustCompile(`^//\s*want`)
	wantBugs    = regexp.MustCompile(`^//\s*want:\s*(\S.*?)\s*$`)
	wantTraces  = regexp.MustCompile(`^//\s*want traces:\s*([0-9]+)\s*$`)
)

var bugKinds = []engine.BugKind{engine.BugAssertion, engine.BugDeadlock, engine.BugRuntimeError, engine.BugDataRace, engine.BugStepBound}

// parseMarkers reads the markers of an example from its comments.
func parseMarkers(file *grammar.File) (expectation, error) {
	want := expectation{traces: -1}
	for _, c := range file.Comments {
		if !wantComment.MatchString(c.Text) {
			continue
		}
		line := c.Start.Line + 1
		if m := wantTraces.FindStringSubmatch(c.Text); m != nil {
			if want.traces >= 0 {
				return want, fmt.Errorf("line %d: a second `want traces` marker", line)
			}
			n, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				return want, fmt.Errorf("line %d: %v", line, err)
			}
			want.traces = n
			continue
		}
		m := wantBugs.FindStringSubmatch(c.Text)
		if m == nil {
			return want, fmt.Errorf("line %d: malformed marker %q (want `// want: KIND, …` or `// want traces: N`)", line, c.Text)
		}
		for _, k := range strings.Split(m[1], ",") {
			kind := engine.BugKind(strings.TrimSpace(k))
			if !slices.Contains(bugKinds, kind) {
				return want, fmt.Errorf("line %d: unknown bug kind %q (one of %v)", line, kind, bugKinds)
			}
			want.bugs = append(want.bugs, bugAt{kind, line})
		}
	}
	slices.SortFunc(want.bugs, compareBugAt)
	if n := len(want.bugs); n != len(slices.CompactFunc(slices.Clone(want.bugs), func(a, b bugAt) bool { return a == b })) {
		return want, fmt.Errorf("a bug kind is marked twice on one line")
	}
	return want, nil
}

// bugLines is the sorted set of (kind, line) pairs of the bugs of res.
func bugLines(res *engine.Result) []bugAt {
	var got []bugAt
	for _, b := range res.Bugs {
		got = append(got, bugAt{b.Kind, b.Range.Start.Line + 1})
		if b.Other != nil {
			got = append(got, bugAt{b.Kind, b.Other.Range.Start.Line + 1})
		}
	}
	slices.SortFunc(got, compareBugAt)
	return slices.Compact(got)
}

// dfsBudget bounds dfs's interleavings per example: the examples dfs can
// finish have at most a few hundred thousand; fig1 has tens of millions.
const dfsBudget = 500_000

// modes are the explorations every example is checked in.
var modes = []struct {
	name string
	opts engine.Options
}{
	{"dfs", engine.Options{Algorithm: engine.DFS, MaxExecutions: dfsBudget}},
	{"sdpor", engine.Options{Algorithm: engine.SDPOR}},
	{"cdpor", engine.Options{Algorithm: engine.CDPOR}},
	{"qpor-k1", engine.Options{Algorithm: engine.QPOR, QPOR: engine.QPOROptions{K: 1}}},
	{"optimal", engine.Options{Algorithm: engine.Optimal}},
}

// TestExpectedOutcomes explores every example in every mode and compares
// what it finds with the example's markers.
func TestExpectedOutcomes(t *testing.T) {
	for _, name := range exampleFiles(t) {
		t.Run(strings.TrimSuffix(name, ".weft"), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, diags := grammar.ParseFile(name, src)
			if len(diags) > 0 {
				t.Fatalf("%s: %v", name, diags)
			}
			want, err := parseMarkers(file)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			prog, err := lower.Lower(analysis.Check(file))
			if err != nil {
				t.Fatalf("lowering %s: %v", name, err)
			}
			if want.traces >= 0 && prog.HasUnstableAtomics() {
				t.Fatalf("%s has a `want traces` marker, but an atomic block whose accesses depend on what it reads: sdpor's count is not exact", name)
			}
			for _, mode := range modes {
				t.Run(mode.name, func(t *testing.T) { checkOutcome(t, prog, mode.opts, want) })
			}
		})
	}
}

// checkOutcome explores prog with opts and compares the result with the
// markers.
func checkOutcome(t *testing.T, prog *engine.Program, opts engine.Options, want expectation) {
	var nonStopped int64
	opts.OnExecution = func(events []engine.Event, _ *engine.Machine) {
		if len(events) == 0 || events[len(events)-1].Stop == engine.NoStop {
			nonStopped++
		}
	}
	opts.OnRestart = func() { nonStopped = 0 }
	res, err := engine.Explore(context.Background(), prog, opts)
	var unsupported *engine.UnsupportedError
	if errors.As(err, &unsupported) {
		// The mode refuses the model rather than explore it wrongly:
		// nothing to compare, and the test says so.
		t.Skipf("not checked with %s: %v", opts.Algorithm, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		if opts.Algorithm == engine.DFS && res.Stopped == "max-executions" {
			t.Skipf("not checked with dfs: more than %d interleavings", opts.MaxExecutions)
		}
		t.Fatalf("exploration incomplete (%s) after %d executions", res.Stopped, res.Executions)
	}
	got := bugLines(res)
	if !slices.Equal(got, want.bugs) {
		t.Errorf("bugs found: %v\nmarkers:    %v", got, want.bugs)
		for _, b := range res.Bugs {
			t.Logf("found %s", describeBug(b))
		}
	}
	for _, b := range res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s does not reproduce: %v", describeBug(b), err)
		}
	}
	if want.traces >= 0 && opts.Algorithm == engine.CDPOR && nonStopped > want.traces {
		t.Errorf("%d executions that do not stop (of %d), more than the %d Mazurkiewicz traces", nonStopped, res.Executions, want.traces)
	}
	if want.traces >= 0 && opts.Algorithm != engine.DFS && opts.Algorithm != engine.CDPOR && nonStopped != want.traces {
		t.Errorf("%d executions that do not stop (of %d), want %d: one per Mazurkiewicz trace", nonStopped, res.Executions, want.traces)
	}
}

func describeBug(b *engine.Bug) string {
	s := fmt.Sprintf("%s in %s at line %d: %s", b.Kind, b.Thread, b.Range.Start.Line+1, b.Message)
	if b.Other != nil {
		s += fmt.Sprintf(" (other access by %s at line %d)", b.Other.Thread, b.Other.Range.Start.Line+1)
	}
	return s
}

// TestMarkers: the marker parser reads what the package comment says, and
// rejects what it does not.
func TestMarkers(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // the expectation, or the error
	}{
		{"bugs and traces", `// header
// want traces: 4
var c int

thread t {
    c = c + 1 // want: data-race
    assert c == 1 // want: data-race, assertion
}
`, "[data-race at line 6 assertion at line 7 data-race at line 7] traces 4"},
		{"no markers", "var c int\n", "[] traces -1"},
		{"unknown kind", "var c int // want: race\n", `error: line 1: unknown bug kind "race"`},
		{"misspelt", "var c int // wants: data-race\n", "error: line 1: malformed marker"},
		{"malformed", "var c int // want data-race\n", "error: line 1: malformed marker"},
		{"two trace counts", "// want traces: 1\n// want traces: 2\nvar c int\n", "error: line 2: a second `want traces` marker"},
		{"twice on a line", "var c int // want: assertion, assertion\n", "error: a bug kind is marked twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file, diags := grammar.ParseFile("m.weft", []byte(tc.src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			want, err := parseMarkers(file)
			got := fmt.Sprintf("%v traces %d", want.bugs, want.traces)
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}
