package lsp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"weft/engine"
	"weft/source"
)

// TestLensTitles: each replay lens names its bug, so that two lenses on
// one line can be told apart.
func TestLensTitles(t *testing.T) {
	at := func(line int) source.Range {
		return source.Range{Start: source.Pos{Line: line}, End: source.Pos{Line: line}}
	}
	race := func(line int, msg, other string, otherLine int) *bugReport {
		return &bugReport{kind: engine.BugDataRace, message: msg, rng: at(line), schedule: make([]int32, 6),
			other: &engine.RaceSide{Thread: other, Range: at(otherLine), Op: "write of x[0]"}}
	}
	for _, tc := range []struct {
		name string
		bugs []*bugReport
		want []string
	}{
		{"race", []*bugReport{race(16, "data race on x[0]: read of x[0] by master and write of x[0] by writer[0] are not ordered by synchronisation", "master", 33)},
			[]string{"Replay: race on x[0] with master (6 steps)"}},
		{"assertion with a message", []*bugReport{{kind: engine.BugAssertion, message: "master's write survives", schedule: make([]int32, 9)}},
			[]string{"Replay: assertion 'master's write survives' (9 steps)"}},
		{"assertion without a message", []*bugReport{{kind: engine.BugAssertion, message: "assertion x == 2 failed", schedule: make([]int32, 1)}},
			[]string{"Replay: assertion 'x == 2' (1 step)"}},
		{"deadlock", []*bugReport{{kind: engine.BugDeadlock, message: "deadlock: phil[0] waits at lock(fork[1]) held by phil[1]", schedule: make([]int32, 4)}},
			[]string{"Replay: deadlock (4 steps)"}},
		{"runtime error", []*bugReport{{kind: engine.BugRuntimeError, message: "division by zero", schedule: make([]int32, 3)}},
			[]string{"Replay: division by zero (3 steps)"}},
		{"step bound", []*bugReport{{kind: engine.BugStepBound, message: "the execution ran past the step bound of 50 steps", schedule: make([]int32, 50)}},
			[]string{"Replay: step bound (50 steps)"}},
		{"long message", []*bugReport{{kind: engine.BugAssertion, message: strings.Repeat("a", 60), schedule: make([]int32, 2)}},
			[]string{"Replay: assertion '" + strings.Repeat("a", 47) + "…' (2 steps)"}},
		{"two races on one line with one thread", []*bugReport{
			race(16, "data race on x[0]: read of x[0] by master and write of x[0] by writer[0] are not ordered by synchronisation", "master", 33),
			race(16, "data race on x[0]: write of x[0] by master and write of x[0] by writer[0] are not ordered by synchronisation", "master", 32),
			race(20, "data race on y: write of y by master and write of y by writer[0] are not ordered by synchronisation", "master", 32),
		}, []string{"Replay: race on x[0] with master at line 34 (6 steps)", "Replay: race on x[0] with master at line 33 (6 steps)", "Replay: race on y with master (6 steps)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lensTitles(tc.bugs); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestLensTitlesServed: on fig1_racy, the lenses the server answers name
// their bugs, and the two on master's read (the assertion and a race)
// differ.
func TestLensTitlesServed(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0, "cdpor": false})
	u := c.open("fig1_racy.weft", readExample(t, "fig1_racy.weft"))
	c.waitFor("a complete check", 60*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Complete && st.State == stateBugs
	})
	lenses, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[uint32][]string{}
	for _, l := range lenses[1:] { // the first is the status
		if l.Command.Command == cmdReplay {
			byLine[l.Range.Start.Line] = append(byLine[l.Range.Start.Line], l.Command.Title)
		}
	}
	want := map[uint32][]string{ // qpor's bugs (TestTracesSameAsCLI checks them against weft check)
		16: {"Replay: race on x[0] with master (5 steps)"},
		33: {"Replay: assertion 'master's write survives' (7 steps)", "Replay: race on x[0] with writer[0] (6 steps)"},
	}
	for line, titles := range want {
		got := slices.Sorted(slices.Values(byLine[line]))
		if !slices.Equal(got, titles) {
			t.Errorf("the lenses at line %d: %q, want %q", line+1, got, titles)
		}
	}
	if len(byLine) != len(want) {
		t.Errorf("lenses on lines %v, want on %d lines", byLine, len(want))
	}
}
