package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestReplayTraceAllSteps: weft replay --trace of a saved report of
// sliced bugs replays, with --all-steps, each bug's whole execution (the
// report's full_schedule), as --all-steps does with --bug N; without it,
// the slice. (--all-steps was ignored with --trace: the slice was
// replayed.)
func TestReplayTraceAllSteps(t *testing.T) {
	model := writeFile(t, "holder.weft", holderGoesOn)
	_, out, _ := runCLI(t, "check", "--quiet", "--json", model)
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	saved := writeFile(t, "report.json", out)
	for i, b := range v.Bugs {
		if !b.Sliced {
			continue
		}
		for _, c := range []struct {
			extra []string
			steps int
		}{
			{nil, b.TraceLength},
			{[]string{"--all-steps"}, b.FullTraceLength},
		} {
			args := append([]string{"replay", "--trace", saved, "--bug", fmt.Sprint(i + 1), model}, c.extra...)
			code, rep, errs := runCLI(t, args...)
			if code != exitBug || !strings.Contains(rep, fmt.Sprintf("(%d steps)\n", c.steps)) || !strings.Contains(rep, "\nreproduced: ") {
				t.Errorf("%v: exit %d, want bug %d reproduced in %d steps\n%s\n%s", args, code, i+1, c.steps, rep, errs)
			}
		}
	}
}
