package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"weft/internal/z3"
)

// overflowModel has two overflow errors (a + b wraps past the int64
// maximum in the order a, d), which cdpor misses when it may merge the
// blocks on conditions synthesised over unbounded integers.
const overflowModel = `var c int

thread a {
    atomic { c = c + 9223372036854775807 }
}

thread b {
    atomic { c = c - 1 }
}

thread d {
    atomic { c = c + 1 }
}
`

// condModel waits on a condition variable with an if, not a loop: it is
// correct only if no wake-up is spurious, so its verdict must say that it
// assumes none unless they are explored (then the assertion fails).
const condModel = `var m mutex
var cv cond
var ready bool

thread waiter {
    lock(m)
    if !ready {
        wait(cv, m)
    }
    assert ready, "woken before ready"
    unlock(m)
}

thread setter {
    lock(m)
    ready = true
    signal(cv)
    unlock(m)
}
`

// TestVerdictAssumptions: a verdict that rests on an assumption names it
// in the text and the JSON; one that does not, names none.
func TestVerdictAssumptions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		args      []string
		status    string
		want      []string // JSON assumptions
		says      string   // in the text
	}{
		{"no overflow assumed", overflowModel, []string{"--algo", "cdpor", "--assume-no-overflow"}, statusVerified, []string{"no-overflow"}, "verified for every interleaving, assuming no overflow"},
		{"overflow explored", overflowModel, []string{"--algo", "cdpor"}, statusBugs, nil, "integer overflow"},
		{"no spurious wake-ups", condModel, nil, statusVerified, []string{"no-spurious-wakeups"}, "verified for every interleaving, assuming no spurious wake-ups"},
		{"spurious wake-ups explored", condModel, []string{"--spurious-wakeups"}, statusBugs, nil, "woken before ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != nil && tc.want[0] == "no-overflow" {
				requireZ3(t)
			}
			p := writeFile(t, "m.weft", tc.src)
			_, out, errs := runCLI(t, append([]string{"check", p}, tc.args...)...)
			if !strings.Contains(out, tc.says) {
				t.Errorf("the text does not say %q:\n%s%s", tc.says, out, errs)
			}
			_, js, _ := runCLI(t, append([]string{"check", p, "--json"}, tc.args...)...)
			var v checkJSON
			if err := json.Unmarshal([]byte(js), &v); err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.status || !slices.Equal(v.Assumptions, tc.want) {
				t.Errorf("status %q, assumptions %q; want %q, %q", v.Status, v.Assumptions, tc.status, tc.want)
			}
		})
	}
}

// requireZ3 skips a test whose figures need the SMT synthesis when z3
// cannot be found (.ci/run installs it, so CI runs the test).
func requireZ3(t *testing.T) {
	t.Helper()
	if err := z3.Available(z3.Config{}); err != nil {
		t.Skipf("z3 not found (%v): the no-overflow conditions are SMT's", err)
	}
}
