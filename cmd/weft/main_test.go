package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExitCodes(t *testing.T) {
	syntax := writeFile(t, "bad.weft", "thread t {\n    x = \n}\n")
	types := writeFile(t, "types.weft", "var x int\nthread t {\n    x = true\n}\n")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no bug", []string{"check", "../../examples/fig1.weft"}, exitOK},
		{"bug", []string{"check", "../../examples/lost_update.weft"}, exitBug},
		{"flags after file", []string{"check", "../../examples/fig1.weft", "--algo", "dfs", "--max-executions", "5"}, exitIncomplete},
		{"incomplete with a bug", []string{"check", "../../examples/lost_update.weft", "--max-bugs", "1"}, exitBug},
		{"syntax error", []string{"check", syntax}, exitUsage},
		{"type error", []string{"check", types}, exitUsage},
		{"missing file", []string{"check", "no/such/file.weft"}, exitUsage},
		{"directory without models", []string{"check", "."}, exitUsage},
		// The models that loop forever (examples/README.md) would run a
		// stateless mode to its time budget: a small budget of steps
		// and executions ends each.
		{"directory", []string{"check", "../../examples", "--max-steps", "200", "--max-executions", "300"}, exitBug},
		{"pattern", []string{"check", "../../examples/...", "--max-steps", "200", "--max-executions", "300"}, exitBug},
		{"several files", []string{"check", "../../examples/fig1.weft", "../../examples/peterson.weft"}, exitOK},
		{"several files, one missing", []string{"check", "../../examples/fig1.weft", "no/such.weft"}, exitUsage},
		{"unknown algo", []string{"check", "../../examples/fig1.weft", "--algo", "magic"}, exitUsage},
		{"unknown flag", []string{"check", "--frobnicate", "../../examples/fig1.weft"}, exitUsage},
		{"two missing files", []string{"check", "a.weft", "b.weft"}, exitUsage},
		{"check --help", []string{"check", "--help"}, exitOK},
		{"help check", []string{"help", "check"}, exitOK},
		{"help dap", []string{"help", "dap"}, exitOK},
		{"dap with an argument", []string{"dap", "report.json"}, exitUsage},
		{"help unknown", []string{"help", "frob"}, exitUsage},
		{"k without qpor", []string{"check", "../../examples/fig1.weft", "--k", "2"}, exitUsage},
		{"negative timeout", []string{"check", "../../examples/fig1.weft", "--timeout", "-5s"}, exitUsage},
		{"no command", nil, exitUsage},
		{"unknown command", []string{"frob"}, exitUsage},
		{"version", []string{"version"}, exitOK},
		{"help", []string{"help"}, exitOK},
		{"fmt -l clean", []string{"fmt", "-l", "../../examples/fig1.weft"}, exitOK},
		{"fmt syntax error", []string{"fmt", syntax}, exitUsage},
		{"replay", []string{"replay", "../../examples/lost_update.weft", "--bug", "2"}, exitBug},
		{"replay missing bug", []string{"replay", "../../examples/fig1.weft"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
		})
	}
}

func TestHumanDiagnostics(t *testing.T) {
	p := writeFile(t, "types.weft", "var x int\nthread t {\n    x = true\n}\n")
	_, _, errs := runCLI(t, "check", p)
	want := p + ":3:9: error: "
	if !strings.HasPrefix(errs, want) {
		t.Errorf("diagnostic %q does not start with %q", errs, want)
	}
}

func TestJSONContract(t *testing.T) {
	code, out, _ := runCLI(t, "check", "../../examples/lost_update.weft", "--json")
	if code != exitBug {
		t.Fatalf("exit %d", code)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, field := range []string{"file", "algorithm", "k", "complete", "executions", "ssb", "assume_blocked", "events", "time_ms", "bugs"} {
		if _, ok := v[field]; !ok {
			t.Errorf("missing field %q", field)
		}
	}
	bugs := v["bugs"].([]any)
	if len(bugs) == 0 {
		t.Fatal("no bugs")
	}
	kinds := map[string]bool{}
	for _, b := range bugs {
		bug := b.(map[string]any)
		kinds[bug["kind"].(string)] = true
		for _, field := range []string{"kind", "message", "thread", "range", "trace"} {
			if _, ok := bug[field]; !ok {
				t.Errorf("bug without %q", field)
			}
		}
		r := bug["range"].(map[string]any)["start"].(map[string]any)
		if _, ok := r["line"]; !ok {
			t.Errorf("range without line")
		}
		if _, ok := r["character"]; !ok {
			t.Errorf("range without character")
		}
		for _, st := range bug["trace"].([]any) {
			step := st.(map[string]any)
			if step["thread"] == "" || step["op"] == "" {
				t.Errorf("empty trace step %v", step)
			}
		}
	}
	if !kinds["assertion"] || !kinds["data-race"] {
		t.Errorf("kinds %v, want assertion and data-race", kinds)
	}
	if v["complete"] != true {
		t.Errorf("complete = %v", v["complete"])
	}

	// Input errors: diagnostics, exit 2, no exploration.
	p := writeFile(t, "undef.weft", "thread t {\n    y = 1\n}\n")
	code, out, _ = runCLI(t, "check", p, "--json")
	if code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	var d struct {
		Diagnostics []struct {
			Severity, Code, Message string
			Range                   rangeJSON
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Diagnostics) != 1 || d.Diagnostics[0].Code != "undefined-name" || d.Diagnostics[0].Range.Start != (posJSON{1, 4}) {
		t.Errorf("diagnostics %+v", d.Diagnostics)
	}
}

func TestIncomplete(t *testing.T) {
	code, out, _ := runCLI(t, "check", "../../benchmarks/fig1_8.weft", "--json", "--max-executions", "3")
	if code != exitIncomplete {
		t.Fatalf("exit %d", code)
	}
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Complete || v.Stopped != "max-executions" || v.Executions != 3 || v.Status != statusIncomplete || v.ExitCode != exitIncomplete {
		t.Errorf("complete=%v stopped=%q executions=%d status=%q exit_code=%d", v.Complete, v.Stopped, v.Executions, v.Status, v.ExitCode)
	}
	_, human, _ := runCLI(t, "check", "../../benchmarks/fig1_8.weft", "--max-executions", "3")
	if !strings.Contains(human, "INCOMPLETE") {
		t.Errorf("human output does not say the exploration is incomplete:\n%s", human)
	}
}

// TestReplayFromJSON saves the JSON of a check and replays each bug from it.
func TestReplayFromJSON(t *testing.T) {
	for _, ex := range []string{"lost_update", "philosophers_deadlock", "runtime_error", "double_unlock", "fig1_racy"} {
		t.Run(ex, func(t *testing.T) {
			file := "../../examples/" + ex + ".weft"
			_, out, _ := runCLI(t, "check", file, "--json")
			var v checkJSON
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			saved := writeFile(t, "trace.json", out)
			for i := range v.Bugs {
				code, rep, errs := runCLI(t, "replay", file, "--trace", saved, "--bug", string(rune('1'+i)))
				if code != exitBug || !strings.Contains(rep, "reproduced: "+v.Bugs[i].Kind) {
					t.Errorf("bug %d (%s): exit %d\n%s\n%s", i+1, v.Bugs[i].Kind, code, rep, errs)
				}
			}
		})
	}
}

func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "weft")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "b.csv"), filepath.Join(dir, "b.json")
	code, out, errs := runCLI(t, "bench", "--suite", "quick", "--algos", "sdpor", "--dir", "../../benchmarks",
		"--weft", bin, "--csv", csvPath, "--json", jsonPath, "--timeout", "60s")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "command: weft bench") || strings.Contains(out, "MISMATCH") {
		t.Errorf("output:\n%s", out)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 1+len(suites["quick"]) {
		t.Errorf("csv has %d lines", lines)
	}
	if code, _, _ := runCLI(t, "bench", "--algos", "magic"); code != exitUsage {
		t.Errorf("unknown mode: exit %d", code)
	}
}
