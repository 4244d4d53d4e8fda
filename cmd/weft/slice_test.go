package main

import (
	"encoding/json"
	"fmt"
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

// chooserModel has an assertion whose slice leaves out b's writes, and
// whose schedule has a choice (so its replay hint is --bug N).
const chooserModel = `var x int
var y int

thread a {
    var v int
    v = choose 0..2
    x = v
}

thread b {
    y = 1
    y = 2
}

thread c {
    assert x != 1, "x is 1"
}
`

// checkReplays runs each bug's replay hint, and replays it from the
// report (report, v): each reproduces its bug, with the trace as long as
// the report's.
func checkReplays(t *testing.T, model, report string, v checkJSON) {
	t.Helper()
	saved := writeFile(t, "report.json", report)
	for i, bj := range v.Bugs {
		for _, replay := range [][]string{strings.Fields(bj.Replay)[1:], {"replay", "--trace", saved, "--bug", fmt.Sprint(i + 1), model}} {
			code, out, errs := runCLI(t, replay...)
			steps := strings.Contains(out, fmt.Sprintf("(%d steps)\n", bj.TraceLength)) || strings.Contains(out, fmt.Sprintf("replaying a schedule of %d steps\n", bj.TraceLength))
			if code != exitBug || !strings.Contains(out, "\nreproduced: "+bj.Kind) || !steps {
				t.Errorf("%v: exit %d, want bug %d reproduced in %d steps\n%s\n%s", replay, code, i+1, bj.TraceLength, out, errs)
			}
		}
	}
}

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
			checkReplays(t, model, out, v)
		})
	}
	// A choose makes the hint re-run the check (--bug N): with
	// --all-steps, the re-run replays the whole execution, as shown.
	chooser := writeFile(t, "chooser.weft", chooserModel)
	for _, args := range [][]string{{chooser}, {"--all-steps", chooser}} {
		_, out, _ := runCLI(t, append([]string{"check", "--quiet", "--json"}, args...)...)
		var v checkJSON
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		bugHint := false
		for _, b := range v.Bugs {
			bugHint = bugHint || strings.Contains(b.Replay, " --bug ")
		}
		if !bugHint {
			t.Errorf("%v: no --bug hint among %d bugs", args, len(v.Bugs))
		}
		checkReplays(t, chooser, out, v)
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
