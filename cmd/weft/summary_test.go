package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSummary: checking several models ends with one line that
// counts them by verdict; in --json mode stdout stays one JSON array and
// the line goes to stderr; one FILE gets no such line.
func TestCheckSummary(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a_ok.weft":     "var x int\nthread t {\n    x = 1\n}\nthread u {\n    join t\n    assert x == 1\n}\n",
		"b_bug.weft":    "var c int\nthread incr[k in 0..2] {\n    c = c + 1\n}\n",
		"c_broken.weft": "thread t {\n    x = \n}\n",
		"d_many.weft":   "var h atomic int\nthread t[k in 0..3] {\n    atomic {\n        h = h + 1\n    }\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const want = "checked 4 models: 1 verified, 1 with bugs, 1 incomplete, 1 error"
	args := []string{"check", dir, "--max-executions", "3", "--quiet"}
	for _, c := range []struct {
		name string
		args []string
		// where the line is, and where it must not be
		in, notIn func(out, errs string) string
	}{
		{"text", args, func(o, _ string) string { return o }, func(_, e string) string { return e }},
		{"json", append(args, "--json"), func(_, e string) string { return e }, func(o, _ string) string { return o }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, errs := runCLI(t, c.args...)
			if got := c.in(out, errs); !strings.HasSuffix(got, "\n"+want+"\n") && got != want+"\n" {
				t.Errorf("the output does not end with %q:\nstdout:\n%s\nstderr:\n%s", want, tail(out, 600), tail(errs, 600))
			}
			if strings.Contains(c.notIn(out, errs), "checked 4 models") {
				t.Errorf("the summary is printed twice")
			}
			if c.name == "json" {
				var reports []checkJSON
				if err := json.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 4 {
					t.Errorf("stdout is not an array of 4 reports (%d, %v)", len(reports), err)
				}
			}
		})
	}
	_, out, errs := runCLI(t, "check", filepath.Join(dir, "a_ok.weft"))
	if strings.Contains(out+errs, "checked 1 model") {
		t.Errorf("one FILE got a summary line:\n%s", out)
	}
}

// TestRaceHeadlinesDiffer: two races reported at one access, whose other
// accesses are on different lines, have headlines that say which: they
// read the same but for the "other access" line below them.
func TestRaceHeadlinesDiffer(t *testing.T) {
	model := writeFile(t, "two.weft", "var x int\nvar y int\n\nthread r {\n    y = x\n}\n\nthread w {\n    x = 1\n    x = 2\n}\n")
	code, out, errs := runCLI(t, "check", model, "--quiet")
	if code != exitBug {
		t.Fatalf("exit %d, want %d\n%s", code, exitBug, errs)
	}
	var heads []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "bug ") {
			_, h, _ := strings.Cut(l, ": ") // without "bug N"
			heads = append(heads, h)
		}
	}
	if len(heads) != 2 || heads[0] == heads[1] {
		t.Fatalf("want two different headlines, got %q\n%s", heads, out)
	}
	for _, line := range []string{"9", "10"} {
		if !strings.Contains(out, "data race on x with w at line "+line+": ") {
			t.Errorf("no headline names the other access at line %s:\n%s", line, out)
		}
	}
}
