package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// holderGoesOn deadlocks with a blocked at lock(m), which b took and kept
// before finishing with two writes the deadlock does not depend on.
const holderGoesOn = `var m mutex
var x int
var y int

thread a {
    x = 1
    lock(m)
}

thread b {
    lock(m)
    y = 1
    y = 2
}
`

// TestCheckShowsSlices: weft check shows each bug's causal slice and says
// so; --all-steps shows the whole execution; the JSON says which
// ("sliced", "full_trace_length", "full_schedule"); and every replay hint,
// of the slice or of the whole execution, reproduces its bug, a saved
// report's slice of a deadlock too (weft replay --trace).
func TestCheckShowsSlices(t *testing.T) {
	model := writeFile(t, "holder.weft", holderGoesOn)
	fig1 := "../../examples/fig1_racy.weft"
	for _, tc := range []struct {
		name      string
		args      []string
		wantHuman []string // lines the human output has
		sliced    bool     // the deadlock's (first bug's) JSON
		length    int      // its trace_length
	}{
		{"sliced", []string{model}, []string{"trace (2 of 4 steps: those the bug depends on, --all-steps shows all;", "unblock none of those that are"}, true, 2},
		{"all steps", []string{"--all-steps", model}, []string{"trace (4 steps; replay with: weft replay " + model + " --schedule 0,1*3)"}, false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := runCLI(t, append([]string{"check", "--quiet"}, tc.args...)...)
			if code != exitBug {
				t.Fatalf("exit %d\n%s", code, out)
			}
			for _, want := range tc.wantHuman {
				if !strings.Contains(out, want) {
					t.Errorf("the output has no %q:\n%s", want, out)
				}
			}
			code, out, _ = runCLI(t, append([]string{"check", "--quiet", "--json"}, tc.args...)...)
			var v checkJSON
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if code != exitBug || len(v.Bugs) == 0 {
				t.Fatalf("exit %d, %d bugs", code, len(v.Bugs))
			}
			b := v.Bugs[0]
			if b.Kind != "deadlock" || b.Sliced != tc.sliced || b.TraceLength != tc.length || len(b.Schedule) != tc.length || b.FullTraceLength != 4 ||
				(len(b.FullSchedule) == 4) != tc.sliced {
				t.Errorf("bug 1: %s, sliced %v, %d steps (schedule %v), whole %d (%v); want a deadlock, sliced %v, %d steps of 4",
					b.Kind, b.Sliced, b.TraceLength, b.Schedule, b.FullTraceLength, b.FullSchedule, tc.sliced, tc.length)
			}
			report := writeFile(t, "report.json", out)
			for i, bj := range v.Bugs {
				for _, replay := range [][]string{strings.Fields(bj.Replay)[1:], {"replay", "--trace", report, "--bug", string(rune('1' + i)), model}} {
					code, out, errs := runCLI(t, replay...)
					if code != exitBug || !strings.Contains(out, "\nreproduced: "+bj.Kind) {
						t.Errorf("%v: exit %d\n%s\n%s", replay, code, out, errs)
					}
				}
			}
		})
	}
	// fig1_racy's assertion: 7 steps, none of them count's.
	_, out, _ := runCLI(t, "check", "--quiet", "--json", fig1)
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	for _, b := range v.Bugs {
		if b.Kind != "assertion" {
			continue
		}
		if b.TraceLength != 7 || !b.Sliced || b.FullTraceLength <= 7 {
			t.Errorf("fig1_racy's assertion: %d steps, sliced %v, of %d", b.TraceLength, b.Sliced, b.FullTraceLength)
		}
		for _, st := range b.Trace {
			if st.Thread == "count" {
				t.Errorf("fig1_racy's assertion: the slice keeps count's %q", st.Op)
			}
		}
	}
}
