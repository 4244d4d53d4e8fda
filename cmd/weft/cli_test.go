package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"weft/engine"
)

// TestMain lets the test binary stand in for weft's working process in
// TestSupervisor: with crashHelperEnv set, it is a child that crashes.
func TestMain(m *testing.M) {
	switch os.Getenv(crashHelperEnv) {
	case "":
		code := m.Run()
		weft.Remove()
		os.Exit(code)
	case "crash":
		becomeChild()
		go func() { panic("a crash on another goroutine, which nothing can recover") }()
		select {}
	case "exit3":
		becomeChild()
		os.Exit(exitIncomplete)
	}
}

const crashHelperEnv = "WEFT_TEST_CRASH_HELPER"

// TestSupervisor: a crash of the working process (here, an unrecovered
// panic on another goroutine) ends weft with exit code 4 and says so;
// other exit codes pass through.
func TestSupervisor(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skipf("no executable to run as the child: %v", err)
	}
	for _, tc := range []struct {
		helper string
		code   int
		says   string
	}{
		{"crash", exitInternal, "internal error: the checker crashed"},
		{"exit3", exitIncomplete, ""},
	} {
		t.Setenv(crashHelperEnv, tc.helper)
		errf, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		code, err := supervise(self, nil, errf, errf)
		if err != nil {
			t.Fatal(err)
		}
		errf.Close()
		errs, _ := os.ReadFile(errf.Name())
		if code != tc.code || !strings.Contains(string(errs), tc.says) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", tc.helper, code, errs, tc.code, tc.says)
		}
	}
}

// TestMessages: each usage mistake gets a message about itself.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		stdout     string
		stderr     string
		wantStdout bool
	}{
		{args: []string{"check", "../../examples/fig1.weft", "--k", "2"}, stderr: "--k applies to --algo qpor only"},
		{args: []string{"check", "../../examples/fig1.weft", "--algo", "optimal", "--k", "2"}, stderr: "--k applies to --algo qpor only"},
		{args: []string{"check", "../../examples/fig1.weft", "--timeout", "-5s"}, stderr: `invalid value "-5s" for --timeout: want a duration such as 90s or 5m, from 0s to 100000h`},
		{args: []string{"check", "../../examples/fig1.weft", "--max-executions", "-1"}, stderr: `invalid value "-1" for --max-executions: want an integer from 0 to 9223372036854775807`},
		{args: []string{"check"}, stderr: "no model given"},
		{args: []string{"check", "--help"}, stdout: "usage: weft check [flags] FILE"},
		{args: []string{"help", "check"}, stdout: "--max-bugs"},
		{args: []string{"help", "replay"}, stdout: "--schedule"},
		{args: []string{"fmt", "-h"}, stdout: "usage: weft fmt"},
		{args: []string{"help", "dap"}, stdout: "usage: weft dap [--stdio]"},
		{args: []string{"dap", "--help"}, stderr: "usage: weft dap [--stdio]"},
		{args: []string{"dap", "extra"}, stderr: "weft dap: unexpected argument \"extra\""},
		{args: []string{"check", "no/such/file.weft"}, stderr: "no/such/file.weft: no such file"},
		{args: []string{"replay", "../../examples/lost_update.weft", "--schedule", "0*x"}, stderr: "the count must be a positive integer"},
		{args: []string{"replay", "../../examples/lost_update.weft", "--schedule", "7"}, stderr: "does not fit the program: step 1: no thread 7"},
	} {
		_, out, errs := runCLI(t, tc.args...)
		if tc.stdout != "" && !strings.Contains(out, tc.stdout) {
			t.Errorf("%v: stdout %q does not say %q", tc.args, out, tc.stdout)
		}
		if tc.stderr != "" && !strings.Contains(errs, tc.stderr) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, errs, tc.stderr)
		}
	}
}

func TestStepBoundMessage(t *testing.T) {
	p := writeFile(t, "spin.weft", "var f int\nthread t {\n    while f == 0 {\n    }\n}\n")
	_, out, _ := runCLI(t, "check", p, "--max-steps", "1")
	if !strings.Contains(out, "step bound of 1 step ") {
		t.Errorf("output:\n%s", out)
	}
}

// TestVacuous: a model with nothing to check, or whose every execution
// is discarded by assume, is not reported as verified.
func TestVacuous(t *testing.T) {
	for _, tc := range []struct{ name, src, warning string }{
		{"empty", "", "declares no thread"},
		{"only declarations", "var x int\n", "declares no thread"},
		{"every execution assumed away", "var x int\nthread t {\n    assume x == 1\n    assert false, \"never\"\n}\n", "every execution (1) ended in a failed assume"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, "m.weft", tc.src)
			code, out, errs := runCLI(t, "check", p)
			if code != exitOK || strings.Contains(out, "verified for every") || !strings.Contains(out, tc.warning) {
				t.Errorf("exit %d\n%s%s", code, out, errs)
			}
			_, js, _ := runCLI(t, "check", p, "--json")
			var v checkJSON
			if err := json.Unmarshal([]byte(js), &v); err != nil {
				t.Fatal(err)
			}
			if v.Status != statusVacuous || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], tc.warning) {
				t.Errorf("status %q, warnings %q", v.Status, v.Warnings)
			}
		})
	}
	// Some executions assumed away: verified, and the count is shown.
	p := writeFile(t, "some.weft", "var x atomic int\nthread a {\n    x = 1\n}\nthread b {\n    assume x == 1\n}\n")
	code, out, _ := runCLI(t, "check", p)
	if code != exitOK || !strings.Contains(out, "verified for every") || !regexp.MustCompile(`ended by assume: [1-9]`).MatchString(out) {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestJSONShapes: one object for one file, an array for several or for a
// directory; a file that cannot be read still gets its object.
func TestJSONShapes(t *testing.T) {
	code, out, _ := runCLI(t, "check", "--json", "no/such/file.weft")
	var one checkJSON
	if err := json.Unmarshal([]byte(out), &one); err != nil {
		t.Fatalf("missing file: not one JSON object: %v\n%s", err, out)
	}
	if code != exitUsage || one.Status != statusInputError || one.ExitCode != exitUsage || len(one.Diagnostics) != 1 || one.Diagnostics[0].Code != "read-error" {
		t.Errorf("missing file: exit %d, %+v", code, one)
	}

	code, out, _ = runCLI(t, "check", "--json", "--quiet", "../../examples/fig1.weft", "../../examples/lost_update.weft")
	var many []checkJSON
	if err := json.Unmarshal([]byte(out), &many); err != nil {
		t.Fatalf("two files: not a JSON array: %v", err)
	}
	if code != exitBug || len(many) != 2 || many[0].Status != statusVerified || many[1].Status != statusBugs {
		t.Errorf("two files: exit %d, %d objects", code, len(many))
	}

	// The budgets keep the examples that loop forever short (sdpor
	// does not complete them); only the number of reports matters here.
	_, out, _ = runCLI(t, "check", "--json", "--quiet", "--max-steps", "200", "--max-executions", "300", "../../examples/...")
	many = nil
	if err := json.Unmarshal([]byte(out), &many); err != nil {
		t.Fatalf("pattern: not a JSON array: %v", err)
	}
	files, _ := filepath.Glob("../../examples/*.weft")
	if len(many) != len(files) {
		t.Errorf("pattern: %d objects for %d files", len(many), len(files))
	}
}

func TestMaxBugsFlag(t *testing.T) {
	code, out, _ := runCLI(t, "check", "--json", "../../examples/lost_update.weft", "--max-bugs", "1")
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if code != exitBug || len(v.Bugs) != 1 || v.Complete || v.Stopped != "max-bugs" {
		t.Errorf("exit %d, %d bugs, complete=%v stopped=%q", code, len(v.Bugs), v.Complete, v.Stopped)
	}
}

// TestFmt: -l lists and exits 0 as gofmt does; standard input and
// directories are formatted.
func TestFmt(t *testing.T) {
	ugly := "var x int\nthread t {\nx = 1\n}\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "ugly.weft")
	if err := os.WriteFile(p, []byte(ugly), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "fmt", "-l", dir)
	if code != exitOK || strings.TrimSpace(out) != p {
		t.Errorf("fmt -l DIR: exit %d, %q", code, out)
	}
	var stdout, stderr bytes.Buffer
	code = cmdFmt(nil, strings.NewReader(ugly), &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "    x = 1") {
		t.Errorf("fmt stdin: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	if code, _, _ := runCLI(t, "fmt", "-w", dir+"/..."); code != exitOK {
		t.Errorf("fmt -w DIR/...: exit %d", code)
	}
	if code, out, _ := runCLI(t, "fmt", "-l", p); code != exitOK || out != "" {
		t.Errorf("after -w: exit %d, %q", code, out)
	}
}

var hintRE = regexp.MustCompile(`replay with: (weft replay [^)]*)\)`)

// TestReplayHints: every replay command that check prints reproduces its
// bug, including the options the check ran with.
func TestReplayHints(t *testing.T) {
	spin := writeFile(t, "spin.weft", "var f int\nvar a [100000]int\nthread t {\n    while f == 0 {\n        a[1] = a[1] + 1\n    }\n}\n")
	for _, args := range [][]string{
		{"../../examples/lost_update.weft"},
		{"../../examples/philosophers_deadlock.weft"},
		{"../../examples/runtime_error.weft", "--algo", "optimal"},
		{spin, "--max-steps", "10"},
	} {
		_, out, _ := runCLI(t, append([]string{"check"}, args...)...)
		hints := hintRE.FindAllStringSubmatch(out, -1)
		if len(hints) == 0 {
			t.Errorf("%v: no replay hint in\n%s", args, out)
		}
		for _, h := range hints {
			fields := strings.Fields(h[1])[1:] // drop "weft"
			code, rep, errs := runCLI(t, fields...)
			if code != exitBug || !strings.Contains(rep, "reproduced:") {
				t.Errorf("%s: exit %d\n%s%s", h[1], code, rep, errs)
			}
		}
	}
	// A long schedule is hinted as --bug N with the check's options.
	c := &checked{path: "m.weft", flags: &checkFlags{algo: "qpor", k: 2, maxSteps: 10}}
	sched := make([]int32, 2*maxHintSchedule)
	for i := range sched {
		sched[i] = int32(i % 2)
	}
	c.res = &engine.Result{Bugs: []*engine.Bug{{Schedule: sched}}}
	if got, want := replayHint(c, 0), "weft replay m.weft --bug 1 --algo qpor --k 2 --max-steps 10"; got != want {
		t.Errorf("hint %q, want %q", got, want)
	}
	// Replaying by bug number carries --max-steps.
	code, rep, _ := runCLI(t, "replay", spin, "--bug", "1", "--max-steps", "10")
	if code != exitBug || !strings.Contains(rep, "(10 steps)") {
		t.Errorf("replay --bug 1 --max-steps 10: exit %d\n%s", code, rep)
	}
}

// TestReplayOutput: a replay shows the state once, then what each step
// changed; long arrays are elided unless --full-state.
func TestReplayOutput(t *testing.T) {
	spin := writeFile(t, "spin.weft", "var f int\nvar a [100000]int\nthread t {\n    var l [100]int\n    while f == 0 {\n        a[1] = a[1] + 1\n        l[2] = a[1]\n    }\n}\n")
	code, out, errs := runCLI(t, "replay", spin, "--schedule", "0*1000")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"initially: f = 0, a = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, … 99984 more}",
		"  shared: a[1] = 1\n", "l = (100 elements; --full-state shows them)", "the schedule ends without a bug"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q", want)
		}
	}
	if len(out) > 100_000 {
		t.Errorf("replay of 1,000 steps printed %d bytes", len(out))
	}
	_, full, _ := runCLI(t, "replay", spin, "--schedule", "0*4", "--full-state")
	if !strings.Contains(full, "l = {0, 0, 1, 0") {
		t.Errorf("--full-state does not show the local array:\n%.2000s", full)
	}
}

// TestReplayWrongFile: a trace saved for one model is not replayed on
// another.
func TestReplayWrongFile(t *testing.T) {
	_, out, _ := runCLI(t, "check", "--json", "../../examples/lost_update.weft")
	saved := writeFile(t, "trace.json", out)
	code, _, errs := runCLI(t, "replay", "../../examples/fig1_racy.weft", "--trace", saved)
	if code != exitUsage || !strings.Contains(errs, "is a check of ../../examples/lost_update.weft, not of ../../examples/fig1_racy.weft") {
		t.Errorf("exit %d: %s", code, errs)
	}
	changed := writeFile(t, "lost_update.weft", "// changed\n")
	data, _ := os.ReadFile("../../examples/lost_update.weft")
	os.WriteFile(changed, append([]byte("// changed\n"), data...), 0o644)
	var v checkJSON
	json.Unmarshal([]byte(out), &v)
	v.File = changed
	edited, _ := json.Marshal(v)
	code, _, errs = runCLI(t, "replay", changed, "--trace", writeFile(t, "t2.json", string(edited)))
	if code != exitUsage || !strings.Contains(errs, "another version") {
		t.Errorf("changed file: exit %d: %s", code, errs)
	}
}

// TestJSONSize: a step-bound trace of 100,000 steps (a spin, with
// spin-waiting off; 10,000 with -short, the race detector's run, where
// 100,000 took 57 s) gives a JSON of bounded size (the trace cut, the
// schedule on one line), and --full-trace keeps it whole.
func TestJSONSize(t *testing.T) {
	steps := 100_000
	if testing.Short() {
		steps = 10_000
	}
	bound := strconv.Itoa(steps)
	spin := writeFile(t, "spin.weft", "var f int\nthread t {\n    while f == 0 {\n    }\n}\n")
	_, out, _ := runCLI(t, "check", "--json", "--quiet", "--algo", "dfs", "--no-spin-wait", "--max-steps", bound, spin)
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Bugs) != 1 || len(v.Bugs[0].Trace) != maxJSONSteps || v.Bugs[0].TraceOmitted != steps-maxJSONSteps ||
		v.Bugs[0].TraceLength != steps || len(v.Bugs[0].Schedule) != steps {
		t.Fatalf("unexpected bug: %d bugs", len(v.Bugs))
	}
	if len(out) > 1_000_000 {
		t.Errorf("JSON of %d bytes", len(out))
	}
	_, out, _ = runCLI(t, "check", "--json", "--quiet", "--algo", "dfs", "--no-spin-wait", "--max-steps", bound, "--full-trace", spin)
	v = checkJSON{}
	json.Unmarshal([]byte(out), &v)
	if len(v.Bugs) != 1 || len(v.Bugs[0].Trace) != steps {
		t.Errorf("--full-trace: not the whole trace")
	}
}

func TestScheduleEncoding(t *testing.T) {
	for _, s := range [][]int32{{0}, {0, 0, 0, 1, 2, 2}, {3, 1, 3, 1}, make([]int32, 1000)} {
		enc := encodeSchedule(s)
		dec, err := decodeSchedule(enc)
		if err != nil || !slicesEqual(dec, s) {
			t.Errorf("%v -> %q -> %v, %v", s, enc, dec, err)
		}
	}
	if got := encodeSchedule([]int32{0, 0, 0, 1, 2, 2}); got != "0*3,1,2*2" {
		t.Errorf("encoding %q", got)
	}
	for _, bad := range []string{"", "a", "-1", "0*0", "0*-2", "1,,2", "0*1000000000000"} {
		if _, err := decodeSchedule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInterrupted: a cancelled check of several files says which it did
// not check, and exits incomplete.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"check", "../../examples/fig1.weft", "../../examples/peterson.weft"}, &out, &errb)
	if code != exitIncomplete || !strings.Contains(errb.String(), "2 of 2 files not checked") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1024", 1024}, {"512MB", 512 << 20}, {"4GB", 4 << 30}, {"1.5G", 3 << 29}, {"2gib", 2 << 30}, {"64 KB", 64 << 10}, {"7B", 7},
	} {
		var b byteSize
		if err := b.Set(tc.in); err != nil || int64(b) != tc.want {
			t.Errorf("%q: %d, %v; want %d", tc.in, b, err, tc.want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GB", "1XB", "1e30GB"} {
		var b byteSize
		if b.Set(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	b := byteSize(3 << 30)
	if b.String() != "3GB" {
		t.Errorf("String: %s", b.String())
	}
}

// TestFirstMessage: when a shorter trace of a bug replaces the one first
// found and changes its message, the report says what was first found
// (the "found:" line named it).
func TestFirstMessage(t *testing.T) {
	p := writeFile(t, "m.weft", "var x atomic int\nthread a {\n    x = 1\n    x = 2\n    x = 3\n    x = 7\n}\nthread b {\n    var arr [2]int\n    var i int = x + 5\n    arr[i] = 1\n    assert arr[0] == 0, \"\"\n}\n")
	_, out, errs := runCLI(t, "check", p, "--algo", "dfs")
	if !strings.Contains(errs, "found: runtime-error") || !strings.Contains(errs, "index 12 out of range") {
		t.Fatalf("stderr: %s", errs)
	}
	if !strings.Contains(out, "index 5 out of range") || !strings.Contains(out, "(first found as: index 12 out of range [0, 2); the shortest trace found is shown)") {
		t.Errorf("output:\n%s", out)
	}
	_, js, _ := runCLI(t, "check", p, "--algo", "dfs", "--json")
	var v checkJSON
	json.Unmarshal([]byte(js), &v)
	if len(v.Bugs) != 1 || v.Bugs[0].FirstMessage != "index 12 out of range [0, 2)" {
		t.Errorf("JSON bugs: %+v", v.Bugs)
	}
}

// TestOmittedBugs: past the bugs the engine keeps with their traces
// (engine.DefaultMaxTraces), the others are summarised, in the human
// report and in the JSON's omitted_bugs, and only the kept ones get a
// "found:" line.
func TestOmittedBugs(t *testing.T) {
	model := writeFile(t, "m.weft", storesBesideOne(150))
	code, out, errs := runCLI(t, "check", model)
	if code != exitBug {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"150 bug(s), the first 100 listed with their traces; not listed:", "    50 more data races on x, between line 155 and lines "} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out[:min(len(out), 2000)])
		}
	}
	if n := strings.Count(errs, "found: "); n != engine.DefaultMaxTraces {
		t.Errorf("%d found: lines, want %d", n, engine.DefaultMaxTraces)
	}
	_, out, _ = runCLI(t, "check", "--json", model)
	var v checkJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Bugs) != engine.DefaultMaxTraces || len(v.OmittedBugs) != 1 {
		t.Fatalf("%d bugs, %d summaries; want %d and 1", len(v.Bugs), len(v.OmittedBugs), engine.DefaultMaxTraces)
	}
	o := v.OmittedBugs[0]
	if o.Kind != "data-race" || o.Variable != "x" || o.Count != 50 || o.Lines != [2]int{155, 155} || o.OtherLines == nil || o.OtherLines[0] < 3 || o.OtherLines[1] > 152 || !strings.HasPrefix(o.Summary, "50 more data races on x") {
		t.Errorf("omitted_bugs[0] = %+v", o)
	}
}

// TestMaxStepsRange (issue 8): a step bound the engine cannot honour is a
// usage error, not a wrong result nor an internal error; the largest it
// accepts gives lost_update's two bugs.
func TestMaxStepsRange(t *testing.T) {
	tests := []struct {
		steps string
		code  int
		bugs  int
	}{
		{"4611686018427387904", exitUsage, 0},
		{strconv.Itoa(engine.MaxMaxSteps + 1), exitUsage, 0},
		{strconv.Itoa(engine.MaxMaxSteps), exitBug, 2},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, "check", "--json", "../../examples/lost_update.weft", "--max-steps", tt.steps)
		if code != tt.code {
			t.Errorf("--max-steps %s: exit %d, want %d\n%s", tt.steps, code, tt.code, errs)
			continue
		}
		if code == exitBug {
			var v checkJSON
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			if len(v.Bugs) != tt.bugs || !v.Complete {
				t.Errorf("--max-steps %s: %d bugs, complete=%v; want %d, complete", tt.steps, len(v.Bugs), v.Complete, tt.bugs)
			}
		}
	}
}
