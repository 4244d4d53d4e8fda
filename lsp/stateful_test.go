package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/replay"
)

// tasForever is a test-and-set spin lock whose workers take and release
// it forever: a stateless check can only reach the step bound; the
// stateful one verifies it.
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

// tasBroken is tasForever with the test and the set apart: two workers
// can both find the lock free, and mutual exclusion fails.
const tasBroken = `var locked atomic bool
var counter atomic int

thread worker[i in 0..2] {
    while true {
        var got bool = false
        while !got {
            var was bool = locked
            if !was {
                locked = true
                got = true
            }
        }
        counter = counter + 1
        assert counter == 1, "mutual exclusion"
        counter = counter - 1
        locked = false
    }
}
`

// cyclesUntilStopped has no endless loop, but a stateless check reaches
// the step bound: a runs round its loop as long as b has not stopped it.
const cyclesUntilStopped = `var stop atomic bool
var x int

thread a {
    var i int = 0
    while !stop {
        i = (i + 1) % 2
        x = i
    }
}

thread b {
    stop = true
}
`

// TestStatefulEscalation: a model that loops forever, or whose stateless
// check reaches the step bound, is checked statefully, and the status
// says so (mode, why); a verified one keeps no step-bound diagnostic, a
// buggy one gets its bugs with replayable traces; a plain client (no
// weft/status) hears of it through window/logMessage and the bugs'
// related information.
func TestStatefulEscalation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
		state string
		why   string // in the status's modeWhy
		bug   string // the code of the bug expected, if any
	}{
		{"spin lock forever", tasForever, stateVerified, "loops forever", ""},
		{"broken spin lock forever", tasBroken, stateBugs, "loops forever", "assertion"},
		{"step bound of a stateless check", cyclesUntilStopped, stateVerified, "reached the step bound", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServer(t, map[string]any{"idleDelayMs": 0, "maxSteps": 1000})
			u := c.open("m.weft", tc.model)
			c.waitFor("the stateful verdict, in the status and the log", 60*time.Second, func() bool {
				st, ok := c.latestStatus(u)
				logged := slices.ContainsFunc(c.logs, func(l string) bool { return strings.Contains(l, "m.weft: stateful check: ") })
				return ok && st.State == tc.state && st.Complete && logged
			})
			c.mu.Lock()
			st, _ := c.latestStatus(u)
			p, _ := c.latestDiags(u)
			logs := strings.Join(c.logs, "\n")
			c.mu.Unlock()
			if st.Mode != string(engine.Stateful) || st.Algorithm != string(engine.Stateful) || !strings.Contains(st.ModeWhy, tc.why) {
				t.Errorf("status %+v: want mode and algorithm stateful, why saying %q", st, tc.why)
			}
			if !strings.Contains(st.Message, "state") || !strings.Contains(st.Message, tc.why) {
				t.Errorf("status message %q: want the states and why", st.Message)
			}
			if hasCode(p.diags, string(engine.BugStepBound)) {
				t.Errorf("a step-bound diagnostic after the stateful verdict: %+v", p.diags)
			}
			if !strings.Contains(logs, "stateful check: ") || !strings.Contains(logs, tc.why) {
				t.Errorf("window/logMessage does not say the stateful check and why:\n%s", logs)
			}
			if tc.bug == "" {
				if len(p.diags) != 0 {
					t.Errorf("diagnostics of a verified model: %+v", p.diags)
				}
				return
			}
			var bugID string
			for _, d := range p.diags {
				if codeOf(d) != tc.bug {
					continue
				}
				var data bugData
				if err := json.Unmarshal(d.Data, &data); err != nil {
					t.Fatal(err)
				}
				bugID = data.BugID
				said := false
				for _, r := range d.RelatedInformation {
					said = said || strings.HasPrefix(r.Message, "found by a stateful check: ")
				}
				if !said {
					t.Errorf("the %s diagnostic does not say the stateful check found it: %+v", tc.bug, d.RelatedInformation)
				}
			}
			if bugID == "" {
				t.Fatalf("no %s diagnostic: %+v", tc.bug, p.diags)
			}
			res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdTrace, Arguments: []protocol.LSPAny{rawJSON(string(u)), rawJSON(bugID)}})
			if err != nil {
				t.Fatal(err)
			}
			var tr replay.Document
			if err := json.Unmarshal(res, &tr); err != nil {
				t.Fatal(err)
			}
			if tr.Kind != tc.bug || len(tr.Steps) == 0 {
				t.Errorf("the trace of the %s: kind %q, %d steps", tc.bug, tr.Kind, len(tr.Steps))
			}
		})
	}
}

// hugeForever loops forever through more states than any check visits.
const hugeForever = `var c [3]int

thread w[i in 0..3] {
    var k int = 0
    while true {
        k = (k + 1) % 1000000
        c[i] = k
    }
}
`

// TestStatefulCancelledByEdit: an edit cancels a stateful check like any
// other, within a second.
func TestStatefulCancelledByEdit(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0, "quickBudgetMs": 600000})
	u := c.open("huge.weft", hugeForever)
	c.waitFor("the stateful check running", 20*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateChecking && !st.Waiting && st.Algorithm == string(engine.Stateful) && st.States > 0
	})
	time.Sleep(500 * time.Millisecond)
	edited := time.Now()
	c.change(u, 2, whole("var x int\n\nthread t {\n    x = 1\n}\n"))
	c.waitFor("the new version's status", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Version == 2
	})
	took := time.Since(edited)
	t.Logf("the new version's first status %v after the edit", took)
	if took > time.Second {
		t.Errorf("the stateful check ran on %v after the edit, want at most a second", took)
	}
	c.waitFor("the new version verified", 20*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Version == 2 && st.State == stateVerified
	})
}

var _ = uri.URI("")

// TestStatefulPlainClient: a client that takes no weft/status still sees
// that the model was checked statefully, and why: in window/logMessage
// and in the status lens.
func TestStatefulPlainClient(t *testing.T) {
	c := startServerWith(t, map[string]any{"idleDelayMs": 0}, clientConfig{noWeftStatus: true})
	u := c.open("tas.weft", tasForever)
	c.waitFor("the stateful verdict in the log", 60*time.Second, func() bool {
		for _, l := range c.logs {
			if strings.Contains(l, "tas.weft: stateful check: ✓ Verified") {
				return true
			}
		}
		return false
	})
	c.mu.Lock()
	logs := strings.Join(c.logs, "\n")
	custom := c.custom
	c.mu.Unlock()
	if !strings.Contains(logs, "the model loops forever (the `while true` loop at line 5") {
		t.Errorf("the log does not say why the check is stateful:\n%s", logs)
	}
	if custom != 0 {
		t.Errorf("%d custom notifications sent to a client that did not opt in", custom)
	}
	lenses, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lenses) == 0 || !strings.HasPrefix(lenses[0].Command.Title, "✓ Verified") || !strings.Contains(lenses[0].Command.Title, "checked statefully") {
		t.Errorf("the status lens %+v does not say verified, statefully", lenses)
	}
}

// lockServer is a server loop under a mutex: its words cannot race
// (analysis/access.RaceFreeWords), which the stateful mode must be told
// to match its states as weft check does.
const lockServer = `var m mutex
var x int

thread w[i in 0..3] {
    while true {
        lock(m)
        x = x + 1
        assert x == 1, "one at a time"
        x = x - 1
        unlock(m)
    }
}
`

// TestStatefulSameAsCLI: the server's stateful check is weft check
// --algo stateful's, with the same static facts (invisible steps,
// race-free words): the same verdict over the same number of states.
func TestStatefulSameAsCLI(t *testing.T) {
	bin := buildWeft(t)
	cases := []struct{ name, model string }{{"lock server", lockServer}, {"spin lock", tasForever}, {"broken spin lock", tasBroken}}
	// The models of the comparison with SPIN, each of which loops
	// forever.
	paths, err := filepath.Glob("../benchmarks/stateful/*.weft")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no models in benchmarks/stateful: %v", err)
	}
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, model string }{filepath.Base(p), string(text)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.weft")
			if err := os.WriteFile(path, []byte(tc.model), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command(bin, "check", "--algo", "stateful", "--json", "--quiet", path).Output()
			var cli struct {
				Status   string `json:"status"`
				Stateful struct {
					States int64 `json:"states"`
				} `json:"stateful"`
			}
			if err := json.Unmarshal(out, &cli); err != nil {
				t.Fatalf("weft check's JSON: %v\n%s", err, out)
			}
			c := startServer(t, map[string]any{"idleDelayMs": 0})
			u := c.open("m.weft", tc.model)
			c.waitFor("a complete stateful check", 60*time.Second, func() bool {
				st, ok := c.latestStatus(u)
				return ok && st.Complete && st.Algorithm == string(engine.Stateful)
			})
			c.mu.Lock()
			st, _ := c.latestStatus(u)
			c.mu.Unlock()
			if st.State != cli.Status || st.States != cli.Stateful.States {
				t.Errorf("the server: %s over %d states; weft check: %s over %d", st.State, st.States, cli.Status, cli.Stateful.States)
			}
		})
	}
}
