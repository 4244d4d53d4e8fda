//go:build linux

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"weft/replay"
)

// nvimReport is what testdata/nvim/lost_update.lua writes: what Neovim's
// own LSP client saw and did.
type nvimReport struct {
	Nvim      string   `json:"nvim"`
	Reached   []string `json:"reached"`
	Error     string   `json:"error"`
	Statuses  []string `json:"statuses"`
	Published []struct {
		Version json.RawMessage `json:"version"`
		Count   int             `json:"count"`
		Ms      int             `json:"ms"`
	} `json:"published"`
	FirstBugsMs int `json:"first_bugs_ms"`
	Diagnostics []struct {
		Code     string `json:"code"`
		Lnum     int    `json:"lnum"`
		Col      int    `json:"col"`
		Severity int    `json:"severity"` // vim.diagnostic.severity: 1 error, 2 warning
		Source   string `json:"source"`
		Message  string `json:"message"`
	} `json:"diagnostics"`
	HoverPosition struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	} `json:"hover_position"`
	Hover struct {
		Err          json.RawMessage `json:"err"`
		Result       json.RawMessage `json:"result"`
		HandlerError string          `json:"handler_error"`
	} `json:"hover"`
	Lenses []struct {
		Line    int    `json:"line"`
		Title   string `json:"title"`
		Command string `json:"command"`
	} `json:"lenses"`
	RanLens struct {
		Line  int    `json:"line"`
		Title string `json:"title"`
	} `json:"ran_lens"`
	Command struct {
		Err    json.RawMessage `json:"err"`
		Result json.RawMessage `json:"result"`
	} `json:"command"`
	Picked        []string  `json:"picked"` // the lens and code action vim.ui.select was offered and took
	Shown         nvimShown `json:"shown"`  // the showDocument of the lens
	Action        nvimShown `json:"action_shown"`
	ActionCommand struct {
		Err json.RawMessage `json:"err"`
	} `json:"action_command"`
	Exit struct {
		Code   int `json:"code"`
		Signal int `json:"signal"`
	} `json:"exit"`
}

// nvimShown is a window/showDocument Neovim handled: the file and its
// first lines.
type nvimShown struct {
	URI   string   `json:"uri"`
	Path  string   `json:"path"`
	Lines []string `json:"lines"`
}

// decodeErr reads a handler's err: nil when there was none (Neovim's
// vim.NIL is JSON null).
func decodeErr(raw json.RawMessage) *lspError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var e lspError
	if err := json.Unmarshal(raw, &e); err != nil {
		return &lspError{Code: -1, Message: fmt.Sprintf("undecodable error %s", raw)}
	}
	return &e
}

// Neovim (the Debian package, headless, its built-in LSP client) opens an
// example with a known bug: the bug diagnostics arrive with their codes at
// the lines the example's `// want:` markers give; a hover is asked for; the
// replay lens appears and running it answers the counterexample.
func TestNeovim(t *testing.T) {
	nvim := neovim(t)
	bin := buildWeft(t)
	model, err := filepath.Abs("../examples/lost_update.weft")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/nvim/lost_update.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := wantMarkers(t, model)

	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	// Neovim's state, logs and caches go to the test's directory, not home.
	cmd.Env = append(os.Environ(),
		"WEFT_BIN="+bin, "WEFT_MODEL="+model, "WEFT_NVIM_OUT="+out, "WEFT_NVIM_TIMEOUT_MS=20000",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
	)
	// On timeout, kill Neovim and the server it started: the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("nvim killed after %v (timeout); output:\n%s", elapsed, output.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no report (%v, exit: %v); output:\n%s", err, runErr, output.String())
	}
	var r nvimReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	t.Logf("nvim %s: %v in all, first bug diagnostics %d ms after start_client", r.Nvim, elapsed.Round(time.Millisecond), r.FirstBugsMs)
	if r.Error != "" {
		t.Fatalf("the script stopped after %v: %s\noutput:\n%s", r.Reached, r.Error, output.String())
	}

	// Diagnostics: exactly the marked bugs, at the marked lines, on the
	// statement's first character.
	got := map[string]bool{}
	for _, d := range r.Diagnostics {
		key := fmt.Sprintf("%s@%d:%d", d.Code, d.Lnum, d.Col)
		got[key] = true
		if d.Source != "weft" {
			t.Errorf("%s: source %q, want weft", key, d.Source)
		}
		wantSev := 1
		if d.Code == "data-race" {
			wantSev = 2
		}
		if d.Severity != wantSev {
			t.Errorf("%s: severity %d, want %d", key, d.Severity, wantSev)
		}
		if !strings.Contains(d.Message, "counterexample: ") {
			t.Errorf("%s: message %q does not give the counterexample's length", key, d.Message)
		}
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no diagnostic %s; got %v", w, keys(got))
		}
	}
	if len(got) != len(want) {
		t.Errorf("diagnostics %v, want exactly %v", keys(got), want)
	}
	if n := len(r.Statuses); n == 0 || r.Statuses[n-1] != stateBugs {
		t.Errorf("weft/status states %v: want them to end with %q", r.Statuses, stateBugs)
	}

	// Hover on `c` in `var c int`.
	switch e := decodeErr(r.Hover.Err); {
	case e != nil:
		t.Errorf("hover: error %d %q", e.Code, e.Message)
	default:
		// The hover of a shared variable names the threads that access it.
		if !strings.Contains(string(r.Hover.Result), "incr") {
			t.Errorf("hover of the shared variable c does not name incr, which writes it: %s", r.Hover.Result)
		}
	}
	if r.Hover.HandlerError != "" {
		t.Errorf("Neovim's hover handler failed on the answer: %s", r.Hover.HandlerError)
	}

	// Code lenses: the status at the top, a replay above each bug.
	replayTitle := regexp.MustCompile(`^Replay: .+ \((\d+) steps?\)$`)
	lensAt := map[int][]string{}
	for _, l := range r.Lenses {
		lensAt[l.Line] = append(lensAt[l.Line], l.Title)
		if replayTitle.MatchString(l.Title) && l.Command != cmdReplay {
			t.Errorf("lens %q runs %q, want %s", l.Title, l.Command, cmdReplay)
		}
	}
	if top := lensAt[0]; len(top) == 0 || !strings.HasPrefix(top[0], "2 bugs") {
		t.Errorf("lenses at the top %q: want the status (2 bugs) first", top)
	}
	for _, d := range r.Diagnostics {
		found := false
		for _, title := range lensAt[d.Lnum] {
			found = found || replayTitle.MatchString(title)
		}
		if !found {
			t.Errorf("no replay lens at line %d (the %s); lenses: %v", d.Lnum, d.Code, lensAt)
		}
	}

	// Running the assertion's replay lens answers its counterexample.
	m := replayTitle.FindStringSubmatch(r.RanLens.Title)
	if m == nil || r.RanLens.Line != assertLine(t, want) {
		t.Fatalf("ran lens %q at line %d: want the replay of the assertion", r.RanLens.Title, r.RanLens.Line)
	}
	if e := decodeErr(r.Command.Err); e != nil {
		t.Fatalf("%s: error %d %q", cmdReplay, e.Code, e.Message)
	}
	var tr replay.Document
	if err := json.Unmarshal(r.Command.Result, &tr); err != nil {
		t.Fatalf("%s answered %s: %v", cmdReplay, r.Command.Result, err)
	}
	steps, _ := strconv.Atoi(m[1])
	if tr.Kind != "assertion" || len(tr.Steps) != steps || tr.StateOmitted {
		t.Errorf("trace: kind %q, %d steps (state omitted: %v); want an assertion in %d steps with its states", tr.Kind, len(tr.Steps), tr.StateOmitted, steps)
	}
	if want := []string{"incr[0]", "incr[1]", "main"}; strings.Join(tr.Threads, " ") != strings.Join(want, " ") {
		t.Errorf("trace threads %v, want %v", tr.Threads, want)
	}
	if n := len(tr.Steps); n > 0 {
		last := tr.Steps[n-1]
		if last.Thread != "main" || int(last.Range.Start.Line) != r.RanLens.Line || !strings.Contains(last.Op, "assert") {
			t.Errorf("last step %+v: want main failing the assertion at line %d", last, r.RanLens.Line)
		}
	}

	// The lens and the code action showed the counterexample as text,
	// in the cache directory (XDG_CACHE_HOME, the test's).
	for _, c := range []struct {
		what  string
		shown nvimShown
	}{{"the lens", r.Shown}, {"the code action", r.Action}} {
		if !strings.HasPrefix(c.shown.Path, filepath.Join(dir, "cache", "weft", "replays")) {
			t.Errorf("%s showed %q, not a file of the replay directory", c.what, c.shown.Path)
		}
		if len(c.shown.Lines) == 0 || !strings.HasPrefix(c.shown.Lines[0], "replaying assertion: an increment was lost") {
			t.Errorf("%s showed a file that begins %q, not the counterexample", c.what, c.shown.Lines)
		}
	}
	if e := decodeErr(r.ActionCommand.Err); e != nil {
		t.Errorf("the code action's command: error %d %q", e.Code, e.Message)
	}
	if n := len(r.Picked); n == 0 || !strings.HasPrefix(r.Picked[n-1], "Show counterexample (") {
		t.Errorf("picked %q: want the code action Show counterexample last", r.Picked)
	}

	if r.Exit.Code != 0 || r.Exit.Signal != 0 {
		t.Errorf("the server exited with code %d signal %d after Neovim stopped it, want 0", r.Exit.Code, r.Exit.Signal)
	}
	if runErr != nil {
		t.Errorf("nvim: %v; output:\n%s", runErr, output.String())
	}
}

// neovim returns the path of nvim (0.7 or later), installing the Debian
// package when it is missing and this process may; it skips the test only
// when nvim is absent and cannot be installed.
func neovim(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("nvim")
	if err != nil {
		if why := installNeovim(); why != nil {
			t.Skipf("nvim is not installed and could not be installed (%v); install it with `apt-get install -y neovim` (.ci/run does)", why)
		}
		if path, err = exec.LookPath("nvim"); err != nil {
			t.Skipf("apt-get installed neovim but nvim is not on PATH: %v", err)
		}
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatalf("nvim --version: %v", err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	var major, minor int
	if _, err := fmt.Sscanf(first, "NVIM v%d.%d", &major, &minor); err != nil {
		t.Fatalf("nvim --version says %q: %v", first, err)
	}
	if major == 0 && minor < 7 {
		t.Skipf("%s is older than 0.7, whose LSP API the script uses", first)
	}
	return path
}

// installNeovim runs apt-get install neovim (after apt-get update if the
// first attempt fails); nil when it worked.
func installNeovim() error {
	if os.Geteuid() != 0 {
		return errors.New("not root, so apt-get cannot install it")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return errors.New("no apt-get on this machine")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v: %s", strings.Join(args, " "), err, lastLines(string(out), 3))
		}
		return nil
	}
	if err := run("install", "-y", "neovim"); err != nil {
		if err := run("update"); err != nil {
			return err
		}
		return run("install", "-y", "neovim")
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}

// wantMarkers reads an example's `// want: CODE` markers as
// "CODE@LINE:COL": the 0-based line of the marker and the byte column of
// the statement's first character.
func wantMarkers(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		text := sc.Text()
		_, code, ok := strings.Cut(text, "// want: ")
		if !ok || strings.HasPrefix(strings.TrimSpace(text), "//") {
			continue
		}
		col := len(text) - len(strings.TrimLeft(text, " \t"))
		out = append(out, fmt.Sprintf("%s@%d:%d", strings.TrimSpace(code), line, col))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s has no // want: markers", path)
	}
	return out
}

// assertLine is the line of the assertion among the markers.
func assertLine(t *testing.T, want []string) int {
	t.Helper()
	for _, w := range want {
		if rest, ok := strings.CutPrefix(w, "assertion@"); ok {
			line, _, _ := strings.Cut(rest, ":")
			n, _ := strconv.Atoi(line)
			return n
		}
	}
	t.Fatalf("no assertion marker in %v", want)
	return -1
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
