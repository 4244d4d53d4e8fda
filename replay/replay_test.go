package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/engine"
)

// load checks an example with DFS and returns its program and its bug
// of the given kind.
func load(t *testing.T, name string, kind engine.BugKind) (*engine.Program, *engine.Bug, []byte) {
	t.Helper()
	path := filepath.Join("..", "examples", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ld := lower.Load(path, src)
	if ld.Exec == nil {
		t.Fatalf("%s: %v", name, ld.Diagnostics)
	}
	res, err := engine.Explore(context.Background(), ld.Exec, engine.Options{Algorithm: engine.DFS})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		if b.Kind == kind {
			return ld.Exec, b, src
		}
	}
	t.Fatalf("%s: no %s bug in %d", name, kind, len(res.Bugs))
	return nil, nil, nil
}

// The document of lost_update's assertion: every step with its event,
// the state after it, and the threads in creation order.
func TestBuildAssertion(t *testing.T) {
	prog, bug, _ := load(t, "lost_update.weft", engine.BugAssertion)
	doc, err := Build(context.Background(), prog, bug, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	if doc.Kind != "assertion" || doc.Message != "an increment was lost" || doc.Range.Start.Line != 18 || doc.StateOmitted {
		t.Errorf("document %+v", doc)
	}
	if strings.Join(doc.Threads, " ") != "incr[0] incr[1] main" {
		t.Errorf("threads %v", doc.Threads)
	}
	if len(doc.Steps) != len(bug.Schedule) {
		t.Fatalf("%d steps for a schedule of %d", len(doc.Steps), len(bug.Schedule))
	}
	ends := 0
	for _, st := range doc.Steps {
		want := Event{Kind: strings.Fields(st.Op)[0], Object: "c"}
		switch want.Kind {
		case "join":
			want.Object = strings.Fields(st.Op)[1]
		case "assertion":
			want = Event{Kind: "stop"}
		}
		if st.Event != want {
			t.Errorf("step %d %q: event %+v, want %+v", st.Step, st.Op, st.Event, want)
		}
		if st.Ends {
			ends++
			if st.Event.Kind != "write" || !strings.HasPrefix(st.Thread, "incr") {
				t.Errorf("step %d %s %q ends its thread", st.Step, st.Thread, st.Op)
			}
		}
		if len(st.Shared) != 1 || st.Shared[0].Name != "c" {
			t.Errorf("step %d: shared %v", st.Step, st.Shared)
		}
	}
	if ends != 2 {
		t.Errorf("%d steps end a thread, want the two increments'", ends)
	}
	last := doc.Steps[len(doc.Steps)-1]
	if last.Thread != "main" || last.Shared[0].Value != "1" || doc.RaceSteps != nil {
		t.Errorf("last step %+v, race steps %v", last, doc.RaceSteps)
	}
	for _, th := range last.ThreadStates {
		if (th.Name == "main") != (th.Status == "failing") || (th.Name != "main" && (th.Status != "finished" || th.Range != nil)) {
			t.Errorf("after the last step: %+v", th)
		}
	}
}

// A data race's document names its two steps.
func TestBuildRace(t *testing.T) {
	for _, name := range []string{"lost_update.weft", "fig1_racy.weft"} {
		prog, bug, _ := load(t, name, engine.BugDataRace)
		doc, err := Build(context.Background(), prog, bug, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.RaceSteps) != 2 {
			t.Fatalf("%s: race steps %v", name, doc.RaceSteps)
		}
		a, b := doc.Steps[doc.RaceSteps[0]-1], doc.Steps[doc.RaceSteps[1]-1]
		if b.Step != len(doc.Steps) || a.Step >= b.Step || a.Thread != bug.Other.Thread || b.Thread != bug.Thread ||
			a.Range != RangeOf(bug.Other.Range) || a.Event.Object != b.Event.Object {
			t.Errorf("%s: race steps %+v and %+v for %s", name, a, b, bug.Message)
		}
	}
}

// Past MaxStateSteps the steps come without states; past MaxSteps the
// trace is refused; a cancelled context stops the build.
func TestBuildLimits(t *testing.T) {
	prog, bug, _ := load(t, "lost_update.weft", engine.BugAssertion)
	doc, err := Build(context.Background(), prog, bug, Options{MaxStateSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.StateOmitted || len(doc.Steps) != len(bug.Schedule) || doc.Steps[0].Shared != nil || doc.Steps[0].Event.Kind != "read" {
		t.Errorf("without states: %+v", doc)
	}
	if strings.Join(doc.Threads, " ") != "incr[0] incr[1] main" {
		t.Errorf("threads %v", doc.Threads)
	}
	if _, err := Build(context.Background(), prog, bug, Options{MaxSteps: 3}); !errors.Is(err, ErrTooLong) {
		t.Errorf("a trace past MaxSteps: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, prog, bug, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	bad := *bug
	bad.Schedule = []int32{7}
	if _, err := Build(context.Background(), prog, &bad, Options{}); err == nil || !strings.Contains(err.Error(), "does not replay") {
		t.Errorf("a schedule that does not fit: %v", err)
	}
}

// report writes a report of bug as `weft check --json` would (the fields
// a replay reads) for the model file, next to it.
func report(t *testing.T, dir, file string, src []byte, bug *engine.Bug) string {
	t.Helper()
	r := Report{File: file, SourceSHA256: SourceHash(src), Bugs: []ReportBug{{Kind: string(bug.Kind), Message: bug.Message,
		Thread: bug.Thread, Range: RangeOf(bug.Range), Schedule: bug.Schedule, LocalBudget: bug.LocalBudget}}}
	if o := bug.Other; o != nil {
		r.Bugs[0].Other = &ReportSide{Thread: o.Thread, Op: o.Op, Range: RangeOf(o.Range)}
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadReport(t *testing.T) {
	_, bug, src := load(t, "lost_update.weft", engine.BugDataRace)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.weft")
	if err := os.WriteFile(model, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := report(t, dir, "m.weft", src, bug) // relative to the report's directory
	doc, err := LoadReport(context.Background(), rep, 1, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.File != model || doc.URI != "file://"+model || doc.BugID != "report.json#1" || len(doc.RaceSteps) != 2 || doc.Kind != "data-race" ||
		doc.SourceSHA256 != SourceHash(src) {
		t.Errorf("document %+v", doc)
	}
	for _, c := range []struct {
		name   string
		n      int
		model  string
		change func()
		want   string
	}{
		{name: "no bug 2", n: 2, want: "has no bug 2 (it has 1)"},
		{name: "bug 0", n: 0, want: "numbered from 1"},
		{name: "another model", n: 1, model: filepath.Join("..", "examples", "fig1.weft"), want: "is a check of m.weft, not of"},
		{name: "missing model", n: 1, model: filepath.Join(dir, "gone.weft"), want: "no such file"},
		{name: "changed model", n: 1, change: func() { os.WriteFile(model, append([]byte("// edited\n"), src...), 0o644) }, want: "the file changed since"},
		{name: "model gone", n: 1, change: func() { os.Remove(model) }, want: "which is not there"},
	} {
		if c.change != nil {
			c.change()
		}
		_, err := LoadReport(context.Background(), rep, c.n, c.model, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	for name, text := range map[string]string{"not JSON": "{", "not a report": `{"steps": []}`, "empty array": "[]"} {
		p := filepath.Join(dir, "bad.json")
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := ReadReports(p); err == nil {
			t.Errorf("%s: read as a report", name)
		}
	}
}

// Of an array of reports, Select picks the model's by hash or by name.
func TestSelect(t *testing.T) {
	a, b := []byte("var a int\n"), []byte("var b int\n")
	reports := []Report{{File: "x/a.weft", SourceSHA256: SourceHash(a), Bugs: []ReportBug{}, Path: "r.json"},
		{File: "x/b.weft", SourceSHA256: SourceHash(b), Bugs: []ReportBug{}, Path: "r.json"}}
	if r, err := Select(reports, "elsewhere/b.weft", b); err != nil || r != &reports[1] {
		t.Errorf("by hash: %v %v", r, err)
	}
	if _, err := Select(reports, "x/b.weft", a[:3]); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("by name, changed: %v", err)
	}
	if _, err := Select(reports, "c.weft", []byte("other")); err == nil || !strings.Contains(err.Error(), "has no check of c.weft") {
		t.Errorf("neither: %v", err)
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Document {
		return &Document{Threads: []string{"a", "b"}, Steps: []Step{{Step: 1, Thread: "a"}, {Step: 2, Thread: "b",
			ThreadStates: []ThreadState{{Name: "a"}, {Name: "b"}}}}, RaceSteps: []int{1, 2}}
	}
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(*Document){
		"numbering":      func(d *Document) { d.Steps[1].Step = 3 },
		"unknown thread": func(d *Document) { d.Steps[0].Thread = "c" },
		"unknown state":  func(d *Document) { d.Steps[1].ThreadStates[0].Name = "c" },
		"twice":          func(d *Document) { d.Threads = []string{"a", "a", "b"} },
		"race step":      func(d *Document) { d.RaceSteps = []int{0, 2} },
	} {
		d := ok()
		spoil(d)
		if d.Validate() == nil {
			t.Errorf("%s: valid", name)
		}
	}
}

// A deadlock's document says of each blocked thread what it waits for
// and who holds it, at the operation it waits at.
func TestBuildDeadlockWaits(t *testing.T) {
	prog, bug, src := load(t, "philosophers_deadlock.weft", engine.BugDeadlock)
	doc, err := Build(context.Background(), prog, bug, Options{})
	if err != nil {
		t.Fatal(err)
	}
	line := -1
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "lock(fork[(i + 1) % N])") && line < 0 {
			line = i
		}
	}
	last := doc.Steps[len(doc.Steps)-1]
	if len(last.ThreadStates) != 3 {
		t.Fatalf("threads after the last step: %+v", last.ThreadStates)
	}
	for k, th := range last.ThreadStates {
		want := fmt.Sprintf("lock fork[%d], held by phil[%d]", (k+1)%3, (k+1)%3)
		if th.Status != "blocked" || th.Waits != want || th.Range == nil || th.Range.Start.Line != line {
			t.Errorf("%s: %+v, want blocked at line %d: %q", th.Name, th, line+1, want)
		}
	}
	for _, st := range doc.Steps {
		for _, th := range st.ThreadStates {
			if (th.Status == "blocked") != (th.Waits != "") {
				t.Errorf("step %d: %s is %s, waits %q", st.Step, th.Name, th.Status, th.Waits)
			}
		}
	}
}

// TestBuildSlicedAndFull: the document of a sliced bug says how long the
// whole execution is (fullSteps); that of bug.Full() has every step of
// it and no fullSteps.
func TestBuildSlicedAndFull(t *testing.T) {
	path := filepath.Join("..", "examples", "fig1_racy.weft")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prog := lower.Load(path, src).Exec
	// sdpor's assertion of fig1_racy is 7 of 17 steps (weft check).
	res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.SDPOR})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Bugs, func(b *engine.Bug) bool { return b.Kind == engine.BugAssertion })
	if i < 0 {
		t.Fatalf("no assertion in %d bugs", len(res.Bugs))
	}
	bug := res.Bugs[i]
	if !bug.Sliced() {
		t.Fatalf("fig1_racy's assertion is not sliced (%d steps): the test needs a sliced bug", len(bug.Schedule))
	}
	for _, tc := range []struct {
		name      string
		bug       *engine.Bug
		steps     int
		fullSteps int
	}{
		{"slice", bug, len(bug.Schedule), len(bug.FullSchedule)},
		{"full", bug.Full(), len(bug.FullSchedule), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Build(context.Background(), prog, tc.bug, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Steps) != tc.steps || doc.FullSteps != tc.fullSteps {
				t.Errorf("%d steps, fullSteps %d; want %d and %d", len(doc.Steps), doc.FullSteps, tc.steps, tc.fullSteps)
			}
			if last := doc.Steps[len(doc.Steps)-1]; last.Event.Kind != "stop" {
				t.Errorf("the last step %+v is not the failing one", last)
			}
		})
	}
}
