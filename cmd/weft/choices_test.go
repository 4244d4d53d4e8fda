package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
	"weft/replay"
	"weft/source"
)

// chooseProgram is, by hand (the front end's choose is not needed here):
// thread a { x = choose 0..4 }; thread b { assert x != 3 }.
func chooseProgram() *engine.Program {
	ranges := func(n int) []source.Range {
		r := make([]source.Range, n)
		for i := range r {
			r[i] = source.Range{Start: source.Pos{Offset: i, Line: i}, End: source.Pos{Offset: i + 1, Line: i}}
		}
		return r
	}
	a := &ir.Body{Name: "a", Frame: []int64{0, 0, 4, 0}, Code: []ir.Instr{
		{Op: ir.OpChoose, A: 0, B: 1, C: 2}, // s0 = choose [s1, s2)
		{Op: ir.OpStore, A: 0, B: 3},        // x = s0
		{Op: ir.OpEnd},
	}, Locals: []ir.LocalVar{{Name: "v", Slot: 0, Size: 1, Scope: source.Range{End: source.Pos{Offset: 100}}}}}
	b := &ir.Body{Name: "b", Frame: []int64{0, 0, 3, 0}, Messages: []string{"x is not 3"}, Code: []ir.Instr{
		{Op: ir.OpLoad, A: 0, B: 3},
		{Op: ir.OpNe, A: 1, B: 0, C: 2},
		{Op: ir.OpAssert, B: 1, C: 0},
		{Op: ir.OpEnd},
	}}
	a.Ranges, b.Ranges = ranges(3), ranges(4)
	return &engine.Program{Bodies: []*ir.Body{a, b}, Threads: []ir.ThreadSpec{{Name: "a", Body: 0}, {Name: "b", Body: 1}},
		Locations: []ir.Location{{Name: "x", Atomic: true}}, Vars: []ir.SharedVar{{Name: "x", Size: 1}}, Init: []int64{0}}
}

// TestChoicesRoundTrip: a bug whose schedule took another alternative
// than the first goes into the JSON with its choices (and "choice" on the
// step), is read back by package replay, and replays to the same bug; its
// replay hint re-runs the check rather than spelling out a schedule.
func TestChoicesRoundTrip(t *testing.T) {
	prog := chooseProgram()
	res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.SDPOR, SpuriousWakeups: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Choices == nil {
		t.Fatalf("bugs %+v", res.Bugs)
	}
	src := []byte("// a model\n")
	f := &checkFlags{algo: "sdpor", maxSteps: engine.DefaultMaxSteps, spurious: true}
	c := &checked{path: "m.weft", src: src, flags: f, prog: prog, res: res, status: "bugs"}
	out := resultJSON(c, false)
	bj := out.Bugs[0]
	if !slices.Equal(bj.Choices, res.Bugs[0].Choices) || bj.Trace[0].Choice != 3 || bj.Trace[0].Op != "choose v = 3" || !bj.SpuriousWakeups {
		t.Errorf("JSON bug: choices %v, first step %+v, spurious %v", bj.Choices, bj.Trace[0], bj.SpuriousWakeups)
	}
	if !strings.Contains(bj.Replay, "--bug 1") || !strings.Contains(bj.Replay, "--spurious-wakeups") {
		t.Errorf("replay hint %q: want --bug 1 and --spurious-wakeups", bj.Replay)
	}
	var buf bytes.Buffer
	writeJSON(&buf, out)
	if !strings.Contains(buf.String(), `"choice": 3`) {
		t.Errorf("no \"choice\": 3 in\n%s", buf.String())
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	reports, err := replay.ReadReports(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Select(reports, "m.weft", src)
	if err != nil {
		t.Fatal(err)
	}
	bug, err := r.Bug(1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bug.Choices, res.Bugs[0].Choices) || !bug.SpuriousWakeups {
		t.Errorf("read back: choices %v, spurious %v", bug.Choices, bug.SpuriousWakeups)
	}
	if err := engine.Reproduce(prog, bug); err != nil {
		t.Errorf("the bug read back does not reproduce: %v", err)
	}
	// Without "choices", a complete trace's "choice" fields give them.
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["bugs"].([]any)[0].(map[string]any), "choices")
	data, _ := json.Marshal(doc)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	reports, _ = replay.ReadReports(path)
	if bug, err = reports[0].Bug(1); err != nil || !slices.Equal(bug.Choices, res.Bugs[0].Choices) {
		t.Errorf("choices from the trace: %v (%v)", bug.Choices, err)
	}
}
