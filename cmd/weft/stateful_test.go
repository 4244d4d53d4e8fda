package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"weft/engine"
	"weft/engine/ir"
)

// tasForever is a test-and-set spin lock whose workers take and release
// it forever: every stateless mode reaches the step bound, the stateful
// mode verifies it.
const tasForever = `var locked atomic bool
var counter int

thread worker[i in 0..2] {
    while true {
        var got bool = false
        while !got {
            atomic {
                if !locked {
                    locked = true
                    got = true
                }
            }
        }
        counter = counter + 1
        assert counter == 1, "mutual exclusion"
        counter = counter - 1
        locked = false
    }
}
`

// blockedForever: the first execution (a before b) ends in a deadlock
// with b blocked inside its endless loop, so a check cut after it has
// no step-bound bug.
const blockedForever = `var m mutex
var x int

thread a {
    lock(m)
}

thread b {
    while true {
        lock(m)
        x = 1
        unlock(m)
    }
}
`

// waitsForever waits on a condition variable forever: with spurious
// wake-ups (which the stateful mode does not explore) it reaches the step
// bound.
const waitsForever = `var m mutex
var c cond

thread a {
    while true {
        lock(m)
        wait(c, m)
        unlock(m)
    }
}

thread b {
    lock(m)
    signal(c)
    unlock(m)
}
`

// TestStatefulReport: the human report of a stateful check says what was
// stored and explored, and what its verdict rests on, instead of the
// stateless counts (executions, longest execution).
func TestStatefulReport(t *testing.T) {
	model := writeFile(t, "tas.weft", tasForever)
	code, stdout, _ := runCLI(t, "check", "--quiet", "--algo", "stateful", model)
	if code != exitOK {
		t.Fatalf("exit %d, want %d:\n%s", code, exitOK, stdout)
	}
	for _, want := range []string{
		"stateful exploration (--stateful-por dl) complete",
		"states stored: ", "transitions: ", "matched: ", "re-traversals: ",
		"peak visited-set memory: ", "states per second: ",
		"probability that a fingerprint collision hid a state: ≤ ",
		"verified for every interleaving, assuming no two distinct states with one fingerprint",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout)
		}
	}
	for _, not := range []string{"executions:", "longest execution", "sleep-set blocked"} {
		if strings.Contains(stdout, not) {
			t.Errorf("the stateful report says %q, a stateless count:\n%s", not, stdout)
		}
	}
}

// TestStatefulReportEnds: the lines a stateful result's end gives, from
// results made up for the cases a small model cannot reach on demand:
// bitstate hashing (partial coverage, never "verified") and exact states
// (no collision to estimate).
func TestStatefulReportEnds(t *testing.T) {
	stats := engine.Stats{States: 1234567, Transitions: 2345678, Matched: 1111111, Retraversals: 42, VisitedBytes: 3 << 20, Elapsed: 2 * time.Second}
	for _, tc := range []struct {
		name  string
		res   engine.Result
		exact bool
		want  []string
		not   []string
	}{
		{"fingerprints", engine.Result{Stats: stats, Algorithm: engine.Stateful, Complete: true, MissProbability: 2.3e-36},
			false, []string{"states stored: 1,234,567, transitions: 2,345,678, matched: 1,111,111, re-traversals: 42",
				"peak visited-set memory: 3.0 MiB, states per second: 617,283", "hid a state: ≤ 2.3e-36", "verified for every interleaving"},
			[]string{"INCOMPLETE", "bitstate"}},
		{"exact states", engine.Result{Stats: stats, Algorithm: engine.Stateful, Complete: true},
			true, []string{"states stored whole (--exact-states): no state can be missed by a collision", "verified for every interleaving"},
			[]string{"probability"}},
		{"time budget", engine.Result{Stats: stats, Algorithm: engine.Stateful, Stopped: engine.StoppedTimeout, MissProbability: 1e-30},
			false, []string{"INCOMPLETE (the time budget ran out): not every state was explored", "nothing is verified"},
			[]string{"verified for every", "execution"}},
		{"bitstate", engine.Result{Stats: stats, Algorithm: engine.Stateful, Stopped: engine.StoppedBitstate, MissProbability: 1e-30},
			false, []string{"INCOMPLETE", "coverage is partial", "bitstate hashing", "nothing is verified"},
			[]string{"verified for every", "probability"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &checkFlags{algo: string(engine.Stateful), statefulPOR: string(engine.StatefulDL), exactStates: tc.exact}
			prog := &engine.Program{Threads: make([]ir.ThreadSpec, 1)}
			status, warnings := engine.Verdict(prog, &tc.res)
			var out bytes.Buffer
			printResult(&out, &checked{path: "m.weft", flags: f, prog: prog, res: &tc.res, status: string(status), warnings: warnings})
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the report does not say %q:\n%s", w, out.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("the report says %q:\n%s", n, out.String())
				}
			}
		})
	}
}

// TestStatefulHint: a check in a stateless mode that a loop without end
// keeps from deciding suggests --algo stateful, on stderr and in the
// JSON's hint; nothing is suggested otherwise.
func TestStatefulHint(t *testing.T) {
	tas := writeFile(t, "tas.weft", tasForever)
	blocked := writeFile(t, "blocked.weft", blockedForever)
	waits := writeFile(t, "waits.weft", waitsForever)
	for _, tc := range []struct {
		name   string
		args   []string
		reason string // "": no hint
		line   int
	}{
		{"step-bound bug", []string{"--algo", "sdpor", "--max-steps", "200", "--max-bugs", "1", tas}, hintStepBound, 17},
		{"step-bound bug, dfs", []string{"--algo", "dfs", "--max-steps", "200", "--max-bugs", "1", tas}, hintStepBound, 17},
		{"endless loop, cut before any step-bound bug", []string{"--algo", "dfs", "--max-executions", "1", blocked}, hintEndlessLoop, 9},
		{"stateful", []string{"--algo", "stateful", tas}, "", 0},
		{"spurious wake-ups, which the stateful mode explores too", []string{"--algo", "dfs", "--spurious-wakeups", "--max-steps", "200", "--max-bugs", "1", waits}, hintStepBound, 6},
		{"no loop", []string{"--algo", "sdpor", "../../examples/lost_update.weft"}, "", 0},
		{"a bounded loop, complete", []string{"--algo", "sdpor", "../../examples/spinlock.weft"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, stderr := runCLI(t, append([]string{"check", "--quiet"}, tc.args...)...)
			_, stdout, _ := runCLI(t, append([]string{"check", "--quiet", "--json"}, tc.args...)...)
			var out struct {
				Hint *hintJSON `json:"hint"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("the JSON does not decode: %v\n%s", err, stdout)
			}
			hinted := strings.Contains(stderr, "hint: ") && strings.Contains(stderr, "try --algo stateful")
			if tc.reason == "" {
				if hinted || out.Hint != nil {
					t.Fatalf("a hint where none is due: stderr %q, JSON %+v", stderr, out.Hint)
				}
				return
			}
			if !hinted {
				t.Errorf("stderr has no hint: %q", stderr)
			}
			if out.Hint == nil || out.Hint.Algo != "stateful" || out.Hint.Reason != tc.reason || out.Hint.Line != tc.line || out.Hint.Message == "" {
				t.Errorf("JSON hint %+v, want algo stateful, reason %s, line %d, a message", out.Hint, tc.reason, tc.line)
			}
		})
	}
}

// TestStatefulProgress: the progress of a stateful check counts states
// and transitions, not executions (it counts none).
func TestStatefulProgress(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "m.weft", false)
	p.stateful = true
	p.update(engine.Stats{States: 4000, Transitions: 5000, Matched: 1000, Elapsed: 2 * time.Second})
	if got := out.String(); !strings.Contains(got, "m.weft: 4000 states (2000/s), 5000 transitions, 1000 matched") || strings.Contains(got, "execution") {
		t.Errorf("progress %q: want states, transitions and matched, no executions", got)
	}
}
