package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"weft/internal/testmodels"

	"weft/internal/z3"
	"weft/internal/z3/z3test"
)

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
		{"no overflow assumed", testmodels.Overflow, []string{"--algo", "cdpor", "--assume-no-overflow"}, statusVerified, []string{"no-overflow"}, "verified for every interleaving, assuming no overflow"},
		{"overflow explored", testmodels.Overflow, []string{"--algo", "cdpor"}, statusBugs, nil, "integer overflow"},
		{"no spurious wake-ups", testmodels.CondIfWait, nil, statusVerified, []string{"no-spurious-wakeups"}, "verified for every interleaving, assuming no spurious wake-ups"},
		{"spurious wake-ups explored", testmodels.CondIfWait, []string{"--spurious-wakeups"}, statusBugs, nil, "woken before ready"},
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
// cannot be found, or fails it where z3 is required (z3test.Missing:
// .ci/run installs z3 and requires it).
func requireZ3(t *testing.T) {
	t.Helper()
	if err := z3.Available(z3.Config{}); err != nil {
		z3test.Missing(t, "z3 not found (%v): the no-overflow conditions are SMT's", err)
	}
}
