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
//   - `// want loops forever`, once, in the header (examples.ForeverMarker,
//     which the tests of other packages read through
//     examples.LoopsForever): the model has executions that never end (a
//     server loop, a lock taken and released forever). Only the stateful
//     mode can finish it. Not with `want traces` nor a step-bound marker.
//
// In every mode (sdpor, cdpor, qpor with k = 1, optimal, dfs where the
// example has few enough interleavings, and the stateful mode with each
// of its reductions: none, spor, de, dl) the set of (kind, line) pairs of
// the bugs found must equal the markers' set exactly, and every bug must
// replay. The POR modes must also explore exactly N executions that do
// not stop (cdpor at most N: it merges traces that differ only in the
// order of steps that commute where they meet); dfs explores one per
// interleaving, and engine's TestExamples checks that its traces are the
// POR modes' ones; the stateful mode stops at states it has seen, so its
// executions are not counted. A model that loops forever is held to its
// markers by the stateful mode alone; each stateless mode explores it
// with a small step bound and execution budget and must report a
// step-bound bug, and nothing unmarked besides. Any other comment
// starting with "want" is an error, so a misspelt marker cannot silently
// check nothing.
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
	"time"

	"weft/analysis"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
	"weft/examples"
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
	// forever: a `want loops forever` marker, the model has executions
	// that never end.
	forever bool
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
	wantForever = regexp.MustCompile(`^//\s*want loops forever\s*$`)
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
		if wantForever.MatchString(c.Text) {
			if want.forever {
				return want, fmt.Errorf("line %d: a second `want loops forever` marker", line)
			}
			want.forever = true
			continue
		}
		m := wantBugs.FindStringSubmatch(c.Text)
		if m == nil {
			return want, fmt.Errorf("line %d: malformed marker %q (want `// want: KIND, …`, `// want traces: N` or `// want loops forever`)", line, c.Text)
		}
		for _, k := range strings.Split(m[1], ",") {
			kind := engine.BugKind(strings.TrimSpace(k))
			if !slices.Contains(bugKinds, kind) {
				return want, fmt.Errorf("line %d: unknown bug kind %q (one of %v)", line, kind, bugKinds)
			}
			want.bugs = append(want.bugs, bugAt{kind, line})
		}
	}
	if want.forever && want.traces >= 0 {
		return want, fmt.Errorf("`want traces` and `want loops forever` together: a model whose executions do not end has no trace count")
	}
	if want.forever && slices.ContainsFunc(want.bugs, func(b bugAt) bool { return b.kind == engine.BugStepBound }) {
		return want, fmt.Errorf("a step-bound marker in a model that loops forever: the stateful mode finds no step-bound bug there, and the stateless modes' is at no fixed line")
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
	{"stateful-none", engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: engine.StatefulNone}}},
	{"stateful-spor", engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: engine.StatefulSPOR}}},
	{"stateful-de", engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: engine.StatefulDE}}},
	{"stateful-dl", engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: engine.StatefulDL}}},
}

// exampleTimeout bounds one exploration of one example, so that a model
// that loops forever without saying so fails instead of hanging the test
// (the examples take well under a second in every mode).
const exampleTimeout = time.Minute

// The budget of a stateless mode on a model that loops forever: it cannot
// finish, and must report a step-bound bug within it. The bound is small
// so that the first execution, which runs a looping thread to it, is
// short.
const (
	foreverMaxSteps   = 200
	foreverExecutions = 300
)

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
			if examples.LoopsForever(src) != want.forever {
				t.Fatalf("%s: the markers say loops forever = %v, examples.LoopsForever %v (other packages' tests ask it): write the marker as %q, on a line of its own", name, want.forever, !want.forever, examples.ForeverMarker)
			}
			prog, err := lower.Lower(analysis.Check(file))
			if err != nil {
				t.Fatalf("lowering %s: %v", name, err)
			}
			if want.traces >= 0 && prog.HasUnstableAtomics() {
				t.Fatalf("%s has a `want traces` marker, but an atomic block whose accesses depend on what it reads: sdpor's count is not exact", name)
			}
			for _, mode := range modes {
				t.Run(mode.name, func(t *testing.T) {
					if want.forever && mode.opts.Algorithm != engine.Stateful {
						checkStepBound(t, prog, mode.opts, want)
						return
					}
					checkOutcome(t, prog, mode.opts, want)
				})
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
	res := explore(t, prog, opts)
	if !res.Complete {
		if opts.Algorithm == engine.DFS && res.Stopped == "max-executions" {
			t.Skipf("not checked with dfs: more than %d interleavings", opts.MaxExecutions)
		}
		hint := ""
		if slices.ContainsFunc(res.Bugs, func(b *engine.Bug) bool { return b.Kind == engine.BugStepBound }) {
			hint = " and a step-bound bug: if the model loops forever, mark it `// want loops forever`"
		}
		t.Fatalf("exploration incomplete (%s) after %d executions%s", res.Stopped, res.Executions, hint)
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
	// The stateful mode stops at a state it has seen: its executions
	// are not one per trace.
	if opts.Algorithm == engine.Stateful {
		return
	}
	if want.traces >= 0 && opts.Algorithm == engine.CDPOR && nonStopped > want.traces {
		t.Errorf("%d executions that do not stop (of %d), more than the %d Mazurkiewicz traces", nonStopped, res.Executions, want.traces)
	}
	if want.traces >= 0 && opts.Algorithm != engine.DFS && opts.Algorithm != engine.CDPOR && nonStopped != want.traces {
		t.Errorf("%d executions that do not stop (of %d), want %d: one per Mazurkiewicz trace", nonStopped, res.Executions, want.traces)
	}
}

// explore explores prog with opts within exampleTimeout, and skips the
// test where the mode refuses the model.
func explore(t *testing.T, prog *engine.Program, opts engine.Options) *engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	res, err := engine.Explore(ctx, prog, opts)
	var unsupported *engine.UnsupportedError
	if errors.As(err, &unsupported) {
		// The mode refuses the model rather than explore it wrongly:
		// nothing to compare, and the test says so.
		t.Skipf("not checked with %s: %v", opts.Algorithm, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkStepBound explores a model that loops forever with a stateless
// mode, within a small step bound and execution budget: the mode cannot
// finish, and must say so with a step-bound bug. Whatever else it finds
// within the budget must be marked (it need not find every marked bug:
// the stateful mode is the one that checks them all), and every bug must
// replay.
func checkStepBound(t *testing.T, prog *engine.Program, opts engine.Options, want expectation) {
	opts.MaxSteps = foreverMaxSteps
	opts.MaxExecutions = foreverExecutions
	res := explore(t, prog, opts)
	switch res.Stopped {
	case engine.NotStopped, engine.StoppedMaxExecutions, engine.StoppedExecutionLength:
	default:
		t.Fatalf("exploration stopped (%s) after %d executions, not by its budget", res.Stopped, res.Executions)
	}
	t.Logf("%d executions (%s), bugs: %v", res.Executions, res.Stopped, bugLines(res))
	stepBound := false
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			stepBound = true
			continue
		}
		for _, at := range bugLines(&engine.Result{Bugs: []*engine.Bug{b}}) {
			if _, ok := slices.BinarySearchFunc(want.bugs, at, compareBugAt); !ok {
				t.Errorf("found %s, which is not marked (no %s)", describeBug(b), at)
				break
			}
		}
	}
	if !stepBound {
		t.Errorf("no step-bound bug within %d executions of at most %d steps (%s, %d executions): does the model loop forever?", foreverExecutions, foreverMaxSteps, res.Stopped, res.Executions)
		for _, b := range res.Bugs {
			t.Logf("found %s", describeBug(b))
		}
	}
	for _, b := range res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s does not reproduce: %v", describeBug(b), err)
		}
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
		{"loops forever", "// header\n// want loops forever\nvar c int\n\nthread t {\n    while true {\n        c = c + 1 // want: data-race\n    }\n}\n", "[data-race at line 7] traces -1 forever"},
		{"loops forever twice", "// want loops forever\n// want loops forever\nvar c int\n", "error: line 2: a second `want loops forever` marker"},
		{"loops forever misspelt", "// want loops forever!\nvar c int\n", "error: line 1: malformed marker"},
		{"loops forever and traces", "// want loops forever\n// want traces: 2\nvar c int\n", "error: `want traces` and `want loops forever` together"},
		{"loops forever and step-bound", "// want loops forever\nvar c int // want: step-bound\n", "error: a step-bound marker in a model that loops forever"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file, diags := grammar.ParseFile("m.weft", []byte(tc.src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			want, err := parseMarkers(file)
			got := fmt.Sprintf("%v traces %d", want.bugs, want.traces)
			if want.forever {
				got += " forever"
			}
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestForeverBugsIntended: the bug the stateful mode (each reduction) finds in each broken
// variant of a model that loops forever is the one the variant was
// written to show, as its replayed trace says (the markers only say the
// kind and line): two threads inside the critical section at once, a
// consumer woken for an item another consumer took, every thread waiting
// on the condition variable nobody signals any more, races between the
// unlocked server and the clients.
func TestForeverBugsIntended(t *testing.T) {
	tests := []struct {
		file  string
		kind  engine.BugKind
		check func(t *testing.T, src string, b *engine.Bug, trace []engine.TraceStep)
	}{
		{"peterson_forever_broken.weft", engine.BugAssertion, bothInside},
		{"dekker_forever_broken.weft", engine.BugAssertion, bothInside},
		{"prodcons_forever_if.weft", engine.BugAssertion, wokenForTakenItem},
		{"prodcons_forever_nosignal.weft", engine.BugDeadlock, func(t *testing.T, _ string, b *engine.Bug, _ []engine.TraceStep) {
			for _, want := range []string{"producer waits on cv notFull", "consumer[0] waits on cv notEmpty", "consumer[1] waits on cv notEmpty"} {
				if !strings.Contains(b.Message, want) {
					t.Errorf("deadlock %q does not say %q", b.Message, want)
				}
			}
		}},
		{"server_forever_racy.weft", engine.BugDataRace, func(t *testing.T, _ string, b *engine.Bug, _ []engine.TraceStep) {
			server, client := b.Thread, b.Other.Thread
			if server != "server" {
				server, client = client, server
			}
			if server != "server" || !strings.HasPrefix(client, "client[") {
				t.Errorf("a race between %s and %s, not between the server and a client", b.Thread, b.Other.Thread)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSuffix(tc.file, ".weft"), func(t *testing.T) {
			src, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			ld := lower.Load(tc.file, src)
			if ld.Exec == nil {
				t.Fatalf("%s does not load: %v", tc.file, ld.Diagnostics)
			}
			for _, por := range engine.StatefulPORs() {
				t.Run(string(por), func(t *testing.T) {
					res := explore(t, ld.Exec, engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: por}})
					if !res.Complete {
						t.Fatalf("exploration incomplete (%s)", res.Stopped)
					}
					n := 0
					for _, b := range res.Bugs {
						if b.Kind != tc.kind {
							t.Errorf("found %s, not a %s", describeBug(b), tc.kind)
							continue
						}
						n++
						if err := engine.Reproduce(ld.Exec, b); err != nil {
							t.Fatalf("%s does not reproduce: %v", describeBug(b), err)
						}
						trace, err := b.Trace()
						if err != nil {
							t.Fatalf("the trace of %s: %v", describeBug(b), err)
						}
						tc.check(t, string(src), b, trace)
					}
					if n == 0 {
						t.Errorf("no %s found", tc.kind)
					}
				})
			}
		})
	}
}

// lineOf is the 1-based line of the first line of src that contains s.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	for i, line := range strings.Split(src, "\n") {
		if strings.Contains(line, s) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}

// bothInside: when the mutual exclusion assertion fails, each of the two
// threads last stepped inside its critical section (from the increment
// of inside to its decrement): both are in it at once.
func bothInside(t *testing.T, src string, b *engine.Bug, trace []engine.TraceStep) {
	if !strings.Contains(b.Message, "mutual exclusion") {
		t.Errorf("the assertion that failed says %q", b.Message)
	}
	from, to := lineOf(t, src, "inside = inside + 1"), lineOf(t, src, "inside = inside - 1")
	last := map[string]int{}
	for _, s := range trace {
		last[s.Thread] = s.Range.Start.Line + 1
	}
	if len(last) != 2 {
		t.Fatalf("%d threads step in the trace, want 2", len(last))
	}
	for th, line := range last {
		if line < from || line > to {
			t.Errorf("%s last stepped at line %d, outside the critical section (lines %d to %d)", th, line, from, to)
		}
	}
}

// wokenForTakenItem: the consumer whose assertion fails last waited on
// notEmpty, and between its wait and its failure the other consumer
// took an item (wrote count).
func wokenForTakenItem(t *testing.T, _ string, b *engine.Bug, trace []engine.TraceStep) {
	if !strings.Contains(b.Message, "a consumer takes a full slot") {
		t.Errorf("the assertion that failed says %q", b.Message)
	}
	waited := -1
	for i, s := range trace {
		if s.Thread == b.Thread && s.Kind == ir.EvWait {
			waited = i
		}
	}
	if waited < 0 {
		t.Fatalf("%s never waits in the trace", b.Thread)
	}
	if trace[waited].Object != "notEmpty" {
		t.Errorf("%s last waits on %q, not notEmpty", b.Thread, trace[waited].Object)
	}
	took := false
	for _, s := range trace[waited+1:] {
		if s.Thread != b.Thread && strings.HasPrefix(s.Thread, "consumer[") && s.Kind == ir.EvWrite && s.Object == "count" {
			took = true
		}
	}
	if !took {
		t.Errorf("no other consumer takes an item between %s's wait and its failure", b.Thread)
	}
}
