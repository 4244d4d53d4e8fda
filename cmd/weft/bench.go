package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"weft/benchmarks"
	"weft/engine"
)

// The benchmark suites: files of the benchmarks folder (see its
// expected.tsv), by name.
var suites = map[string][]string{
	// The rows of the QPOR paper's comparison that the project tracks.
	"paper": {
		"disp_5_2", "disp_5_3", "disp_5_4", "disp_5_5",
		"mpat_4", "mpat_5", "mpat_6",
		"mpc_2_5", "mpc_3_5", "mpc_4_5",
		"pi_5", "pi_6", "pi_7", "pi_8",
		"pol_7_3", "pol_8_3", "pol_9_3", "pol_10_3", "pol_11_3", "pol_12_3",
		"fig1_2", "fig1_4", "fig1_6", "fig1_8", "fig1_10", "fig1_12",
	},
	// Small instances: seconds in all, for a quick look.
	"quick": {"disp_5_2", "mpat_4", "mpc_2_5", "pi_5", "pol_4_3", "fig1_6"},
	// The Fig. 1 program for K = 2..12: SDPOR's SSBs grow exponentially.
	"fig1": {"fig1_2", "fig1_3", "fig1_4", "fig1_5", "fig1_6", "fig1_7", "fig1_8", "fig1_9", "fig1_10", "fig1_11", "fig1_12"},
}

// benchRow is one (instance, mode) measurement.
type benchRow struct {
	Instance   string  `json:"instance"`
	Mode       string  `json:"mode"`
	Threads    int     `json:"threads"`
	Expected   int64   `json:"expected_traces"`
	Executions int64   `json:"executions"`
	SSB        int64   `json:"ssb"`
	Complete   bool    `json:"complete"`
	Seconds    float64 `json:"seconds"`
	ExecPerSec float64 `json:"executions_per_second"`
	MemoryMB   float64 `json:"peak_rss_mb"`
	Bugs       int     `json:"bugs"`
	Error      string  `json:"error,omitempty"`
}

// modeArgs turns a mode name into check flags: an algorithm of the
// engine (dfs, sdpor, cdpor, qpor, optimal), or qpor followed by its k
// (qpor2).
func modeArgs(mode string) ([]string, error) {
	for _, a := range engine.Algorithms {
		if mode == string(a) {
			return []string{"--algo", mode}, nil
		}
	}
	if rest, ok := strings.CutPrefix(mode, string(engine.QPOR)); ok {
		k, err := strconv.Atoi(rest)
		if lim := engine.OptionLimits().K; err != nil || !lim.Contains(int64(k)) {
			return nil, fmt.Errorf("mode %q: want qpor followed by a k from %d to %d, as in qpor2", mode, lim.Min, lim.Max)
		}
		return []string{"--algo", "qpor", "--k", strconv.Itoa(k)}, nil
	}
	return nil, fmt.Errorf("unknown mode %q (modes: %s, qpor<k>)", mode, algoList())
}

// benchFlags are the flags of weft bench.
type benchFlags struct {
	suite   string
	algos   string
	timeout time.Duration
	dir     string
	csv     string
	json    string
	weft    string
}

func (f *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.suite, "suite", "paper", "which instances, `NAME`: paper, quick, fig1 or all")
	fs.StringVar(&f.algos, "algos", "sdpor", "the `MODES` to compare, comma-separated: "+algoList()+", or qpor<k> (qpor2)")
	fs.Var(newDurationFlag(&f.timeout, 120*time.Second, time.Millisecond, maxTimeout), "timeout", "time limit `D` per run")
	fs.StringVar(&f.dir, "dir", "", "run the benchmarks of the folder `DIR` (with its expected.tsv) instead of those built into weft")
	fs.StringVar(&f.csv, "csv", "", "also write the rows as CSV to `FILE`")
	fs.StringVar(&f.json, "json", "", "also write the rows and how they were obtained as JSON to `FILE`")
	fs.StringVar(&f.weft, "weft", "", "the weft `BINARY` to measure (default: this one)")
}

// benchModels are where weft bench reads its models: the files built
// into weft, or a folder's.
type benchModels struct {
	files fs.FS
	dir   string // the folder, or "" for the built-in files
	tmp   string // where the built-in models are written for the runs
}

// path returns a file the child weft can check for the model inst,
// writing the built-in one to the temporary folder.
func (b *benchModels) path(inst string) (string, error) {
	if b.dir != "" {
		return filepath.Join(b.dir, inst+".weft"), nil
	}
	src, err := fs.ReadFile(b.files, inst+".weft")
	if err != nil {
		return "", fmt.Errorf("built-in benchmark %s: %w", inst, err)
	}
	p := filepath.Join(b.tmp, inst+".weft")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		return "", fmt.Errorf("writing the benchmark %s: %w", inst, err)
	}
	return p, nil
}

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("bench", flag.ContinueOnError)
	var bf benchFlags
	bf.register(flags)
	suite, modes, timeout, csvPath, jsonPath, binary := &bf.suite, &bf.algos, &bf.timeout, &bf.csv, &bf.json, &bf.weft
	pos, done, code := parseCommand(flags, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintln(stderr, "weft bench: unexpected arguments:", strings.Join(pos, " "))
		return exitUsage
	}
	models := &benchModels{files: benchmarks.Files, dir: bf.dir}
	if bf.dir != "" {
		models.files = os.DirFS(bf.dir)
	}
	expected, order, err := readExpected(models.files, "expected.tsv")
	if err != nil {
		if bf.dir != "" {
			err = fmt.Errorf("--dir %s: %w (want a folder of benchmarks with their expected.tsv)", bf.dir, err)
		}
		fmt.Fprintln(stderr, "weft bench:", err)
		return exitUsage
	}
	instances := suites[*suite]
	if *suite == "all" {
		instances = order
	}
	if instances == nil {
		fmt.Fprintf(stderr, "weft bench: unknown suite %q (paper, quick, fig1, all)\n", *suite)
		return exitUsage
	}
	for _, inst := range instances {
		if _, ok := expected[inst]; !ok {
			fmt.Fprintf(stderr, "weft bench: %s is not in expected.tsv\n", inst)
			return exitUsage
		}
	}
	var modeList []string
	for _, m := range strings.Split(*modes, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if _, err := modeArgs(m); err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
		modeList = append(modeList, m)
	}
	if len(modeList) == 0 {
		fmt.Fprintln(stderr, "weft bench: --algos names no mode")
		return exitUsage
	}
	if bf.dir == "" {
		if models.tmp, err = os.MkdirTemp("", "weft-bench-"); err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
		defer os.RemoveAll(models.tmp)
	}
	self := *binary
	if self == "" {
		if self, err = os.Executable(); err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
	}
	how := benchProvenance(args)
	fmt.Fprintln(stdout, how)
	fmt.Fprintf(stdout, "\n%-10s %4s %9s  %-8s %9s %9s %10s %9s %8s\n", "instance", "thr", "traces", "mode", "execs", "ssb", "time", "execs/s", "MB")
	var rows []benchRow
	failed := false
	for _, inst := range instances {
		want := expected[inst]
		file, err := models.path(inst)
		if err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
		for _, mode := range modeList {
			if ctx.Err() != nil {
				return exitUsage
			}
			row := runBench(ctx, self, file, inst, mode, want, *timeout)
			rows = append(rows, row)
			status := ""
			switch {
			case row.Error != "":
				status = "  ERROR: " + row.Error
				failed = true
			case !row.Complete:
				status = "  (timeout)"
			case mode == string(engine.DFS): // dfs counts interleavings, not traces
			case mode == string(engine.CDPOR) && row.Executions > want:
				// cdpor merges traces whose steps commute where they
				// meet: at most one execution per trace.
				status = fmt.Sprintf("  MISMATCH: at most %d traces expected", want)
				failed = true
			case mode != string(engine.CDPOR) && row.Executions != want:
				status = fmt.Sprintf("  MISMATCH: %d traces expected", want)
				failed = true
			}
			fmt.Fprintf(stdout, "%-10s %4d %9d  %-8s %9d %9d %9.3fs %9.0f %8.1f%s\n", inst, row.Threads, want, mode,
				row.Executions, row.SSB, row.Seconds, row.ExecPerSec, row.MemoryMB, status)
		}
	}
	if *csvPath != "" {
		if err := writeBenchCSV(*csvPath, rows); err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
	}
	if *jsonPath != "" {
		var buf bytes.Buffer
		writeJSON(&buf, map[string]any{"how": how, "rows": rows})
		if err := os.WriteFile(*jsonPath, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(stderr, "weft bench:", err)
			return exitUsage
		}
	}
	if failed {
		return exitBug
	}
	return exitOK
}

// runBench measures one run in a child process, so that its peak memory is
// its own.
func runBench(ctx context.Context, self, file, inst, mode string, want int64, timeout time.Duration) benchRow {
	row := benchRow{Instance: inst, Mode: mode, Expected: want}
	margs, _ := modeArgs(mode)
	args := append([]string{"check", file, "--json", "--timeout", timeout.String()}, margs...)
	cctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, self, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// One process, so that the peak memory measured is the checker's (see
	// supervise.go).
	cmd.Env = append(os.Environ(), noSupervisorEnv+"=1")
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && (ee.ExitCode() == exitBug || ee.ExitCode() == exitIncomplete)) {
		row.Error = strings.TrimSpace(firstLine(errb.String() + " " + err.Error()))
		return row
	}
	var res checkJSON
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		row.Error = "unreadable output: " + err.Error()
		return row
	}
	if len(res.Diagnostics) > 0 && res.Executions == 0 {
		row.Error = res.Diagnostics[0].Message
		return row
	}
	row.Threads, row.Executions, row.SSB, row.Complete, row.Bugs = res.Threads, res.Executions, res.SSB, res.Complete, len(res.Bugs)
	row.Seconds = res.TimeMS / 1000
	if row.Seconds > 0 {
		row.ExecPerSec = float64(res.Executions+res.SSB) / row.Seconds
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		row.MemoryMB = float64(ru.Maxrss) / 1024 // Linux reports KiB
	}
	return row
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// readExpected reads expected.tsv (file, traces, …) from files.
func readExpected(files fs.FS, path string) (map[string]int64, []string, error) {
	data, err := fs.ReadFile(files, path)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]int64{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), "\t")
		if line == 1 || len(fields) < 2 {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		name := strings.TrimSuffix(fields[0], ".weft")
		out[name] = n
		order = append(order, name)
	}
	return out, order, sc.Err()
}

func writeBenchCSV(path string, rows []benchRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"instance", "mode", "threads", "expected_traces", "executions", "ssb", "complete", "seconds", "executions_per_second", "peak_rss_mb", "bugs", "error"})
	for _, r := range rows {
		w.Write([]string{r.Instance, r.Mode, strconv.Itoa(r.Threads), strconv.FormatInt(r.Expected, 10),
			strconv.FormatInt(r.Executions, 10), strconv.FormatInt(r.SSB, 10), strconv.FormatBool(r.Complete),
			strconv.FormatFloat(r.Seconds, 'f', 4, 64), strconv.FormatFloat(r.ExecPerSec, 'f', 0, 64),
			strconv.FormatFloat(r.MemoryMB, 'f', 1, 64), strconv.Itoa(r.Bugs), r.Error})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchProvenance says how the figures were obtained, so anyone can rerun
// them.
func benchProvenance(args []string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("weft %s, %s, %s/%s, %d CPUs, host %s, %s\n"+
		"command: weft bench %s\n"+
		"each row: one run of `weft check FILE --json --algo …` in its own process; time is the exploration's\n"+
		"own clock, execs/s counts every explored execution (SSBs included), MB is the child's peak RSS;\n"+
		"traces are the exact Mazurkiewicz trace counts of benchmarks/expected.tsv (DPU's, for the paper's rows); cdpor may explore fewer",
		version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), host,
		time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "))
}
