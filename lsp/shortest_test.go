package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/examples"
	"weft/replay"
)

// cliBug is a bug of weft check --json, as far as the comparison goes.
type cliBug struct {
	Kind  string       `json:"kind"`
	Range replay.Range `json:"range"`
	Other *struct {
		Range replay.Range `json:"range"`
	} `json:"other"`
	Trace []struct {
		Thread string       `json:"thread"`
		Range  replay.Range `json:"range"`
	} `json:"trace"`
}

// bugLine says a bug and its trace in one comparable line: kind, where,
// the other access of a race, then the trace's steps (thread@line:col).
func bugLine(kind string, rng replay.Range, other *replay.Range, steps []string) string {
	s := fmt.Sprintf("%s %d:%d", kind, rng.Start.Line, rng.Start.Character)
	if other != nil {
		s += fmt.Sprintf(" other %d:%d", other.Start.Line, other.Start.Character)
	}
	return s + fmt.Sprintf(" (%d steps) %s", len(steps), strings.Join(steps, " "))
}

// cliBugs are the bugs weft check --algo algo --json finds in path, as
// bugLines in its order.
func cliBugs(t *testing.T, bin, path, algo string, k int) []string {
	t.Helper()
	args := []string{"check", "--algo", algo, "--json", "--quiet"}
	if algo == string(engine.QPOR) {
		args = append(args, "--k", strconv.Itoa(k))
	}
	out, _ := exec.Command(bin, append(args, path)...).Output()
	var cli struct {
		Bugs []cliBug `json:"bugs"`
	}
	if err := json.Unmarshal(out, &cli); err != nil {
		t.Fatalf("weft check's JSON: %v\n%s", err, out)
	}
	var lines []string
	for _, b := range cli.Bugs {
		steps := make([]string, len(b.Trace))
		for i, st := range b.Trace {
			steps[i] = fmt.Sprintf("%s@%d:%d", st.Thread, st.Range.Start.Line, st.Range.Start.Character)
		}
		var other *replay.Range
		if b.Other != nil {
			other = &b.Other.Range
		}
		lines = append(lines, bugLine(b.Kind, b.Range, other, steps))
	}
	return lines
}

// serverBugs are the bugs the server's latest diagnostics of u show, as
// bugLines in their order, each trace from weft.trace.
func serverBugs(t *testing.T, c *testClient, u uri.URI) []string {
	t.Helper()
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	var lines []string
	for _, d := range p.diags {
		var data bugData
		if len(d.Data) == 0 || json.Unmarshal(d.Data, &data) != nil || data.BugID == "" || data.OtherSide {
			continue // a static diagnostic, or a race's other access
		}
		res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdTrace, Arguments: []protocol.LSPAny{rawJSON(string(u)), rawJSON(data.BugID)}})
		if err != nil {
			t.Fatalf("weft.trace %s: %v", data.BugID, err)
		}
		var tr replay.Document
		if err := json.Unmarshal(res, &tr); err != nil {
			t.Fatal(err)
		}
		if data.Steps != len(tr.Steps) {
			t.Errorf("bug %s: the diagnostic says %d steps, weft.trace gives %d", data.BugID, data.Steps, len(tr.Steps))
		}
		steps := make([]string, len(tr.Steps))
		for i, st := range tr.Steps {
			steps[i] = fmt.Sprintf("%s@%d:%d", st.Thread, st.Range.Start.Line, st.Range.Start.Character)
		}
		var other *replay.Range
		for _, r := range d.RelatedInformation {
			if strings.HasPrefix(r.Message, "the other access: ") {
				o := replay.Range{Start: replay.Position{Line: int(r.Location.Range.Start.Line), Character: int(r.Location.Range.Start.Character)}}
				other = &o
			}
		}
		rng := replay.Range{Start: replay.Position{Line: int(d.Range.Start.Line), Character: int(d.Range.Start.Character)}}
		lines = append(lines, bugLine(codeOf(d), rng, other, steps))
	}
	return lines
}

// TestTracesSameAsCLI: for every example, the bugs the server shows once
// a check is complete, and their traces, are exactly weft check --json's
// in the same mode: the same set, each with the same (shortest, sliced)
// trace. Then, asked for a check in another mode (Run optimal now, here
// sdpor, whose bugs and traces differ from qpor's on fig1_racy), exactly
// that mode's: nothing of the earlier check stays, not even a shorter
// trace of the same bug.
func TestTracesSameAsCLI(t *testing.T) {
	bin := buildWeft(t)
	paths, err := filepath.Glob("../examples/*.weft")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// cdpor off: its constraints come from z3 in the
			// background, and the mode of the first check would depend
			// on when they are ready.
			c := startServer(t, map[string]any{"idleDelayMs": 0, "cdpor": false, "escalationAlgorithm": string(engine.SDPOR)})
			u := c.open("m.weft", string(text))
			complete := func(after int, algo string) status {
				var st status
				c.waitFor("a complete check", 60*time.Second, func() bool {
					for _, s := range c.statuses[min(after, len(c.statuses)):] {
						if s.URI == u && s.Complete && s.State != stateChecking && (algo == "" || s.Algorithm == algo) {
							st = s
							return true
						}
					}
					return false
				})
				return st
			}
			st := complete(0, "")
			if got, want := serverBugs(t, c, u), cliBugs(t, bin, path, st.Algorithm, st.K); !slices.Equal(got, want) {
				t.Errorf("after the %s check, the server shows\n\t%s\nweft check --algo %s shows\n\t%s", st.Algorithm, strings.Join(got, "\n\t"), st.Algorithm, strings.Join(want, "\n\t"))
			}
			if examples.LoopsForever(text) {
				return // checked statefully; an sdpor check can only reach the step bound
			}
			c.mu.Lock()
			n := len(c.statuses)
			c.mu.Unlock()
			if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdRunOptimal, Arguments: []protocol.LSPAny{rawJSON(string(u))}}); err != nil {
				t.Fatal(err)
			}
			complete(n, string(engine.SDPOR))
			if got, want := serverBugs(t, c, u), cliBugs(t, bin, path, string(engine.SDPOR), 1); !slices.Equal(got, want) {
				t.Errorf("after the sdpor check, the server shows\n\t%s\nweft check --algo sdpor shows\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// TestRaceBothSides: a data race has a diagnostic on each access. On
// fig1_racy, master's `x[i] = 0` (line 33) and writer's `x[i] = 7` (line
// 17) both carry a data-race warning; the diagnostic of a race's other
// access names the race and the access it is reported at, points to it,
// and offers the race's counterexample.
func TestRaceBothSides(t *testing.T) {
	text := readExample(t, "fig1_racy.weft")
	c := startServer(t, map[string]any{"idleDelayMs": 0, "cdpor": false})
	u := c.open("fig1_racy.weft", text)
	c.waitFor("a complete check", 60*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Complete && st.State == stateBugs
	})
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	raceLines := map[uint32]bool{}
	others := 0
	own := map[string]protocol.Diagnostic{} // the bugs' own diagnostics, by id
	for _, d := range p.diags {
		var data bugData
		if json.Unmarshal(d.Data, &data) == nil && !data.OtherSide {
			own[data.BugID] = d
		}
	}
	for _, d := range p.diags {
		if codeOf(d) != string(engine.BugDataRace) {
			continue
		}
		raceLines[d.Range.Start.Line] = true
		if d.Severity != protocol.DiagnosticSeverityWarning {
			t.Errorf("a race diagnostic at line %d has severity %v, want warning", d.Range.Start.Line+1, d.Severity)
		}
		var data bugData
		if err := json.Unmarshal(d.Data, &data); err != nil || data.BugID == "" {
			t.Fatalf("a race diagnostic without its bug: %s", d.Data)
		}
		if !data.OtherSide {
			continue
		}
		others++
		o, ok := own[data.BugID]
		if !ok {
			t.Fatalf("the other side of bug %s, but not its own diagnostic", data.BugID)
		}
		thread := map[uint32]string{16: "writer[0]", 33: "master"}[o.Range.Start.Line]
		msg := messageOf(d)
		if want := fmt.Sprintf("data race on x[0] with %s at line %d: ", thread, o.Range.Start.Line+1); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "counterexample: ") {
			t.Errorf("the other side's message %q does not name the race and where it is reported (%q)", msg, want)
		}
		if len(d.RelatedInformation) == 0 || d.RelatedInformation[0].Location.Range != o.Range || !strings.Contains(d.RelatedInformation[0].Message, "other access") {
			t.Errorf("the other side's related information %+v does not point to the race's own diagnostic at %+v", d.RelatedInformation, o.Range)
		}
		acts, err := c.server.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: d.Range})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range acts {
			if ca, ok := a.(*protocol.CodeAction); ok && len(ca.Command.Arguments) == 2 && strings.Contains(string(ca.Command.Arguments[1]), data.BugID) {
				found = true
			}
		}
		if !found {
			t.Errorf("no code action for bug %s on its other access at line %d: %+v", data.BugID, d.Range.Start.Line+1, acts)
		}
	}
	for _, line := range []uint32{16, 32} { // 0-based: lines 17 and 33
		if !raceLines[line] {
			t.Errorf("no data-race diagnostic at line %d; race lines (0-based): %v", line+1, raceLines)
		}
	}
	if others == 0 {
		t.Errorf("no diagnostic on a race's other access")
	}
}

// TestTraceAllSteps: weft.trace gives a bug's causal slice, saying how
// long the whole execution is (fullSteps), and with "allSteps" the whole
// execution (Bug.Full), marked allSteps, ending at the same failing
// step; any other third argument is refused.
func TestTraceAllSteps(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0, "cdpor": false})
	u := c.open("fig1_racy.weft", readExample(t, "fig1_racy.weft"))
	c.waitFor("a complete check", 60*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Complete && st.State == stateBugs
	})
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	var id string
	for _, d := range p.diags {
		var data bugData
		if codeOf(d) == string(engine.BugAssertion) && json.Unmarshal(d.Data, &data) == nil {
			id = data.BugID
		}
	}
	if id == "" {
		t.Fatalf("no assertion diagnostic: %+v", p.diags)
	}
	trace := func(args ...string) (replay.Document, error) {
		params := &protocol.ExecuteCommandParams{Command: cmdTrace}
		for _, a := range append([]string{string(u), id}, args...) {
			params.Arguments = append(params.Arguments, rawJSON(a))
		}
		var doc replay.Document
		res, err := c.server.ExecuteCommand(context.Background(), params)
		if err == nil {
			err = json.Unmarshal(res, &doc)
		}
		return doc, err
	}
	slice, err := trace()
	if err != nil {
		t.Fatal(err)
	}
	full, err := trace(traceAllSteps)
	if err != nil {
		t.Fatal(err)
	}
	// qpor's assertion of fig1_racy: 7 of 15 steps (weft check --algo qpor).
	if len(slice.Steps) != 7 || slice.FullSteps != 15 || slice.AllSteps {
		t.Errorf("the slice: %d steps, fullSteps %d, allSteps %v; want 7, 15, false", len(slice.Steps), slice.FullSteps, slice.AllSteps)
	}
	if len(full.Steps) != 15 || full.FullSteps != 0 || !full.AllSteps || full.BugID != id {
		t.Errorf("all steps: %d steps, fullSteps %d, allSteps %v, bug %q; want 15, 0, true, %q", len(full.Steps), full.FullSteps, full.AllSteps, full.BugID, id)
	}
	if len(full.Steps) > 0 && len(slice.Steps) > 0 {
		if a, b := full.Steps[len(full.Steps)-1], slice.Steps[len(slice.Steps)-1]; a.Event.Kind != "stop" || a.Thread != b.Thread || a.Range != b.Range {
			t.Errorf("the whole execution ends at %+v, the slice at %+v", a, b)
		}
	}
	if _, err := trace("everything"); err == nil || !strings.Contains(err.Error(), traceAllSteps) {
		t.Errorf("a third argument other than %q: %v, want an error naming it", traceAllSteps, err)
	}
}
