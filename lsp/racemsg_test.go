package lsp

import (
	"strings"
	"testing"

	"weft/engine"
	"weft/source"
)

// TestRaceDiagnosticsDiffer: two races reported at one access whose other
// accesses are on different lines get diagnostics whose messages say
// which other access each is (they read the same before).
func TestRaceDiagnosticsDiffer(t *testing.T) {
	at := func(line int) source.Range {
		return source.Range{Start: source.Pos{Line: line}, End: source.Pos{Line: line}}
	}
	const msg = "data race on x: write of x by w and read of x by r are not ordered by synchronisation"
	d := &document{uri: "file:///m.weft"}
	snap := &snapshot{version: 1}
	var got []string
	for _, other := range []int{8, 9} {
		b := &bugReport{id: "b", snap: snap, kind: engine.BugDataRace, message: msg, thread: "r", rng: at(4), schedule: make([]int32, 2),
			other: &engine.RaceSide{Thread: "w", Range: at(other), Op: "write of x"}}
		got = append(got, messageOf(d.bugDiagnostic(b)))
	}
	if got[0] == got[1] {
		t.Fatalf("both races read %q", got[0])
	}
	for i, want := range []string{"data race on x with w at line 9: write of x", "data race on x with w at line 10: write of x"} {
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("diagnostic %d: %q, want it to start %q", i, got[i], want)
		}
	}
}
