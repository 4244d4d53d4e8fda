package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestIcs compares `weft ics` on fig1 with testdata/ics_fig1.txt (go
// test -update-ics rewrites it) and checks the JSON's shape.
func TestIcs(t *testing.T) {
	code, out, errOut := runCLI(t, "ics", "--no-smt", "../../examples/fig1.weft")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden := filepath.Join("testdata", "ics_fig1.txt")
	if os.Getenv("WEFT_UPDATE_ICS") != "" {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("weft ics differs (WEFT_UPDATE_ICS=1 rewrites it); got:\n%s", out)
	}

	code, out, errOut = runCLI(t, "ics", "--json", "--no-smt", "../../examples/fig1.weft")
	if code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var v icsOutput
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if v.File != "../../examples/fig1.weft" || v.SMT || len(v.Notes) != 1 || v.Notes[0] != noSMTNote || len(v.Pairs) == 0 {
		t.Fatalf("JSON %+v", v)
	}
	found := false
	for _, p := range v.Pairs {
		if p.A.Text == "x[w] = 7" && p.B.Text == "x[i] = 0" {
			found = len(p.Conditions) == 1 && p.Conditions[0].Text == "w != i" && p.Conditions[0].Origin == "index" &&
				p.A.Line == 22 && p.A.Thread == "writer" && len(p.A.Writes) == 1 && p.A.Writes[0] == "x[w]"
		}
	}
	if !found {
		t.Errorf("no pair x[w] = 7 / x[i] = 0 with w != i in %s", out)
	}

	if code, _, _ := runCLI(t, "ics"); code != exitUsage {
		t.Errorf("no file: exit %d", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.weft")
	if err := os.WriteFile(bad, []byte("thread t { x = 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "ics", bad); code != exitUsage || errOut == "" {
		t.Errorf("type error: exit %d, %q", code, errOut)
	}
}
