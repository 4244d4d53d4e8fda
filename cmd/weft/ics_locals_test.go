package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"weft/internal/testmodels"
)

// TestIcsSameNamedLocals: two compare-and-swap blocks whose threads both
// have locals expected, desired and ok. Every local of the second
// thread is written other.NAME (a plain name reads as the first
// thread's), so no condition text holds from c = 0, where a;b ends with
// c = 1 and b;a with c = 2. The false text was
// `c != expected && expected != desired`.
func TestIcsSameNamedLocals(t *testing.T) {
	src := testmodels.SameNamedCAS
	path := filepath.Join(t.TempDir(), "cas.weft")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "ics", "--json", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct {
		SMT   bool     `json:"smt"`
		Notes []string `json:"notes"`
		Pairs []struct {
			Conditions []struct {
				Text   string `json:"text"`
				Origin string `json:"origin"`
			} `json:"conditions"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !v.SMT {
		t.Skipf("no SMT synthesis (z3 missing?): %v", v.Notes)
	}
	if len(v.Pairs) != 1 {
		t.Fatalf("%d pairs, want 1:\n%s", len(v.Pairs), out)
	}
	smt := 0
	for _, c := range v.Pairs[0].Conditions {
		if c.Origin != "smt" {
			continue
		}
		smt++
		if c.Text == "c != expected && expected != desired" {
			t.Errorf("the issue's false condition %q is shown", c.Text)
		}
		// The state of the issue: a's locals plain, b's qualified.
		st := map[string]int64{"c": 0, "expected": 1, "desired": 2, "ok": 0, "other.expected": 0, "other.desired": 1, "other.ok": 0}
		if holds(t, c.Text, st) {
			t.Errorf("%q holds from c = 0 (a's expected 1, desired 2; b's 0, 1), where the blocks do not commute", c.Text)
		}
	}
	if smt == 0 {
		t.Fatalf("no smt condition:\n%s", out)
	}
	if !strings.Contains(out, "other.desired") {
		t.Errorf("no condition names b's desired as other.desired:\n%s", out)
	}
}

// holds evaluates a condition of the shape the CAS pair gets: literals
// (comparisons of names and constants, names of bools) joined by &&.
func holds(t *testing.T, text string, st map[string]int64) bool {
	t.Helper()
	val := func(s string) int64 {
		s = strings.TrimSpace(s)
		if v, ok := st[s]; ok {
			return v
		}
		var n int64
		for _, r := range s {
			if r < '0' || r > '9' {
				t.Fatalf("cannot evaluate %q in %q", s, text)
			}
			n = n*10 + int64(r-'0')
		}
		return n
	}
	for _, lit := range strings.Split(text, "&&") {
		lit = strings.TrimSpace(lit)
		var ok bool
		switch {
		case strings.Contains(lit, "!="):
			p := strings.SplitN(lit, "!=", 2)
			ok = val(p[0]) != val(p[1])
		case strings.Contains(lit, "=="):
			p := strings.SplitN(lit, "==", 2)
			ok = val(p[0]) == val(p[1])
		case strings.HasPrefix(lit, "!"):
			ok = val(lit[1:]) == 0
		default:
			ok = val(lit) != 0
		}
		if !ok {
			return false
		}
	}
	return true
}
