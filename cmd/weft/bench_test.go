package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/engine"
)

// TestBenchAnywhere: weft bench runs its built-in benchmarks from any
// folder (the tests run in cmd/weft, not at the repository's root), cdpor
// among the modes.
func TestBenchAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the quick suite")
	}
	bin := builtWeft(t)
	// Every algorithm is accepted (TestBenchModes); dfs would take
	// minutes on the quick suite, so the run compares cdpor and qpor2.
	modes := []string{string(engine.CDPOR), "qpor2"}
	code, out, errs := runCLI(t, "bench", "--suite", "quick", "--algos", strings.Join(modes, ","), "--weft", bin, "--timeout", "60s")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, m := range modes {
		if rows := strings.Count(out, "  "+m+" "); rows != len(suites["quick"]) {
			t.Errorf("%d rows of mode %s, want %d\n%s", rows, m, len(suites["quick"]), out)
		}
	}
	if strings.Contains(out, "MISMATCH") || strings.Contains(out, "ERROR") {
		t.Errorf("output:\n%s", out)
	}
}

// TestBenchDir: --dir runs a folder's benchmarks, and a folder without
// expected.tsv is a usage error that says what --dir wants.
func TestBenchDir(t *testing.T) {
	empty := t.TempDir()
	code, _, errs := runCLI(t, "bench", "--dir", empty)
	if code != exitUsage || !strings.Contains(errs, "--dir "+empty) || !strings.Contains(errs, "expected.tsv") {
		t.Errorf("empty --dir: exit %d: %s", code, errs)
	}
	dir := t.TempDir()
	src, err := os.ReadFile("../../benchmarks/fig1_2.weft")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "fig1_2.weft"), src, 0o644)
	os.WriteFile(filepath.Join(dir, "expected.tsv"), []byte("file\ttraces\tcomplete_bug_free\nfig1_2.weft\t4\tyes\n"), 0o644)
	if testing.Short() {
		return
	}
	code, out, errs := runCLI(t, "bench", "--dir", dir, "--suite", "all", "--algos", "cdpor,sdpor", "--weft", builtWeft(t))
	if code != exitOK || strings.Count(out, "fig1_2 ") != 2 {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestBenchModes: every algorithm of the engine is a mode, and qpor<k>
// is qpor with that k; anything else is refused.
func TestBenchModes(t *testing.T) {
	for _, a := range engine.Algorithms {
		if args, err := modeArgs(string(a)); err != nil || args[1] != string(a) {
			t.Errorf("mode %s: %v %v", a, args, err)
		}
	}
	for _, tc := range []struct {
		mode string
		want string // the check flags, or "" for an error
	}{
		{"qpor3", "--algo qpor --k 3"},
		{"qpor0", ""},
		{"qpor2147483648", ""},
		{"qporx", ""},
		{"magic", ""},
	} {
		args, err := modeArgs(tc.mode)
		if got := strings.Join(args, " "); got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("mode %s: %q, %v; want %q", tc.mode, got, err, tc.want)
		}
	}
}
