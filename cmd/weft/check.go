package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"weft/analysis/lower"
	"weft/engine"
	"weft/source"
)

// maxFileSize bounds the models weft reads: a model is a few hundred
// lines; anything past this is not a model.
const maxFileSize = 16 << 20

// checkFlags are the flags shared by check and replay.
type checkFlags struct {
	algo          string
	k             int
	timeout       time.Duration
	maxExecutions int64
	maxSteps      int
	json          bool
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.algo, "algo", string(engine.SDPOR), "exploration: "+algoList())
	fs.IntVar(&f.k, "k", 1, "k of k-partial alternatives (qpor)")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop exploring after this long (0: no limit)")
	fs.Int64Var(&f.maxExecutions, "max-executions", 0, "stop after this many executions (0: no limit)")
	fs.IntVar(&f.maxSteps, "max-steps", engine.DefaultMaxSteps, "visible steps per execution before a step-bound bug")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
}

func (f *checkFlags) options() (engine.Options, error) {
	algo := engine.Algorithm(f.algo)
	known := false
	for _, a := range engine.Algorithms {
		known = known || a == algo
	}
	if !known {
		return engine.Options{}, fmt.Errorf("unknown --algo %q (available: %s)", f.algo, algoList())
	}
	if f.maxSteps <= 0 {
		return engine.Options{}, errors.New("--max-steps must be positive")
	}
	if f.k < 1 {
		return engine.Options{}, errors.New("--k must be at least 1")
	}
	if f.maxExecutions < 0 || f.timeout < 0 {
		return engine.Options{}, errors.New("--max-executions and --timeout must not be negative")
	}
	return engine.Options{Algorithm: algo, K: f.k, MaxSteps: f.maxSteps, MaxExecutions: f.maxExecutions}, nil
}

func algoList() string {
	var names []string
	for _, a := range engine.Algorithms {
		names = append(names, string(a))
	}
	return strings.Join(names, ", ")
}

// parseArgs parses flags that may come before or after the positional
// arguments (weft check FILE --json), returning the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// readModel reads a model file, refusing what cannot be one.
func readModel(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("%s is %d bytes; models are limited to %d", path, st.Size(), maxFileSize)
	}
	return os.ReadFile(path)
}

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f checkFlags
	f.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "weft check: want exactly one FILE")
		return exitUsage
	}
	opts, err := f.options()
	if err != nil {
		fmt.Fprintln(stderr, "weft check:", err)
		return exitUsage
	}
	path := pos[0]
	src, err := readModel(path)
	if err != nil {
		fmt.Fprintln(stderr, "weft check:", err)
		return exitUsage
	}
	ld := lower.Load(path, src)
	if source.HasErrors(ld.Diagnostics) || ld.Exec == nil {
		if f.json {
			writeJSON(stdout, checkJSON{File: path, Algorithm: f.algo, K: f.k, Diagnostics: diagnosticsJSON(ld.Diagnostics), Bugs: []bugJSON{}})
		} else {
			printDiagnostics(stderr, path, ld.Diagnostics)
		}
		return exitUsage
	}
	if !f.json {
		printDiagnostics(stderr, path, ld.Diagnostics) // warnings
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	if !f.json {
		opts.OnBug = func(b *engine.Bug) {
			fmt.Fprintf(stderr, "found: %s at %s: %s\n", b.Kind, humanPos(path, b.Range), b.Message)
		}
	}
	res, err := engine.Explore(ctx, ld.Exec, opts)
	if err != nil {
		fmt.Fprintln(stderr, "weft check:", err)
		return exitUsage
	}
	if f.json {
		out := resultJSON(path, f.algo, f.k, res)
		out.Diagnostics = diagnosticsJSON(ld.Diagnostics)
		writeJSON(stdout, out)
	} else {
		printResult(stdout, path, res)
	}
	if len(res.Bugs) > 0 {
		return exitBug
	}
	return exitOK
}

func humanPos(path string, r source.Range) string {
	return fmt.Sprintf("%s:%d:%d", path, r.Start.Line+1, r.Start.Col+1)
}

// maxPrintedDiagnostics bounds the human output on hopeless input (a
// binary file yields an error per line); --json prints them all.
const maxPrintedDiagnostics = 100

// maxPrintedSteps bounds a trace in the human output (a step-bound trace
// has 100,000 steps): its first and last halves are shown.
const maxPrintedSteps = 60

func printDiagnostics(w io.Writer, path string, diags []source.Diagnostic) {
	for i, d := range diags {
		if i == maxPrintedDiagnostics {
			fmt.Fprintf(w, "%s: and %d more diagnostics\n", path, len(diags)-i)
			return
		}
		fmt.Fprintf(w, "%s: %s: %s\n", humanPos(path, d.Range), d.Severity, d.Message)
	}
}

func printResult(w io.Writer, path string, res *engine.Result) {
	status := "complete"
	if !res.Complete {
		status = "INCOMPLETE (" + stoppedWords(res.Stopped) + "): not every execution was explored"
	}
	fmt.Fprintf(w, "%s: %s exploration %s\n", path, res.Algorithm, status)
	fmt.Fprintf(w, "  executions: %d (sleep-set blocked: %d, ended by assume: %d)\n", res.Executions, res.SSB, res.AssumeBlocked)
	fmt.Fprintf(w, "  events: %d, longest execution: %d steps, time: %s\n", res.Events, res.MaxDepth, res.Elapsed.Round(time.Microsecond))
	if len(res.Bugs) == 0 {
		if res.Complete {
			fmt.Fprintln(w, "  no bug found: verified for every interleaving")
		} else {
			fmt.Fprintln(w, "  no bug found so far")
		}
		return
	}
	fmt.Fprintf(w, "  %d bug(s):\n", len(res.Bugs))
	for i, b := range res.Bugs {
		fmt.Fprintf(w, "\nbug %d: %s at %s in %s: %s\n", i+1, b.Kind, humanPos(path, b.Range), b.Thread, b.Message)
		if b.Other != nil {
			fmt.Fprintf(w, "  other access: %s at %s in %s\n", b.Other.Op, humanPos(path, b.Other.Range), b.Other.Thread)
		}
		fmt.Fprintf(w, "  trace (%d steps; replay with: weft replay %s --bug %d --algo %s):\n", len(b.Trace), path, i+1, res.Algorithm)
		for j, st := range b.Trace {
			if n := len(b.Trace); n > maxPrintedSteps && j == maxPrintedSteps/2 {
				fmt.Fprintf(w, "        … %d steps omitted (weft replay shows them all)\n", n-maxPrintedSteps)
			}
			if n := len(b.Trace); n > maxPrintedSteps && j >= maxPrintedSteps/2 && j < n-maxPrintedSteps/2 {
				continue
			}
			fmt.Fprintf(w, "  %4d  %-14s %-32s %d:%d\n", j+1, st.Thread, st.Op, st.Range.Start.Line+1, st.Range.Start.Col+1)
		}
	}
}

func stoppedWords(s string) string {
	switch s {
	case "timeout":
		return "the time budget ran out"
	case "cancelled":
		return "cancelled"
	case "max-executions":
		return "the execution budget ran out"
	case engine.StoppedExecutionLength:
		return "an execution grew past the step bound times its number of threads (threads beside a looping one went on)"
	}
	return s
}

// The JSON contract of `weft check --json` (see ARCHITECTURE.md).

type posJSON struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rangeJSON struct {
	Start posJSON `json:"start"`
	End   posJSON `json:"end"`
}

func toRange(r source.Range) rangeJSON {
	return rangeJSON{posJSON{r.Start.Line, r.Start.Col}, posJSON{r.End.Line, r.End.Col}}
}

type stepJSON struct {
	Thread string    `json:"thread"`
	Op     string    `json:"op"`
	Range  rangeJSON `json:"range"`
}

type otherJSON struct {
	Thread string    `json:"thread"`
	Op     string    `json:"op"`
	Range  rangeJSON `json:"range"`
}

type bugJSON struct {
	Kind     string     `json:"kind"`
	Message  string     `json:"message"`
	Thread   string     `json:"thread"`
	Range    rangeJSON  `json:"range"`
	Other    *otherJSON `json:"other,omitempty"`
	Trace    []stepJSON `json:"trace"`
	Schedule []int32    `json:"schedule"`
}

type diagJSON struct {
	Severity string    `json:"severity"`
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Range    rangeJSON `json:"range"`
}

type checkJSON struct {
	File          string     `json:"file"`
	Algorithm     string     `json:"algorithm"`
	K             int        `json:"k"`
	Complete      bool       `json:"complete"`
	Stopped       string     `json:"stopped,omitempty"`
	Executions    int64      `json:"executions"`
	SSB           int64      `json:"ssb"`
	AssumeBlocked int64      `json:"assume_blocked"`
	Events        int64      `json:"events"`
	TimeMS        float64    `json:"time_ms"`
	Threads       int        `json:"threads"`
	MaxDepth      int        `json:"max_depth"`
	Bugs          []bugJSON  `json:"bugs"`
	Diagnostics   []diagJSON `json:"diagnostics,omitempty"`
}

func resultJSON(path, algo string, k int, res *engine.Result) checkJSON {
	out := checkJSON{
		File: path, Algorithm: algo, K: k, Complete: res.Complete, Stopped: res.Stopped,
		Executions: res.Executions, SSB: res.SSB, AssumeBlocked: res.AssumeBlocked, Events: res.Events,
		TimeMS: float64(res.Elapsed.Microseconds()) / 1000, Threads: res.MaxThreads, MaxDepth: res.MaxDepth,
		Bugs: []bugJSON{},
	}
	for _, b := range res.Bugs {
		bj := bugJSON{Kind: string(b.Kind), Message: b.Message, Thread: b.Thread, Range: toRange(b.Range),
			Trace: []stepJSON{}, Schedule: b.Schedule}
		if b.Other != nil {
			bj.Other = &otherJSON{Thread: b.Other.Thread, Op: b.Other.Op, Range: toRange(b.Other.Range)}
		}
		for _, st := range b.Trace {
			bj.Trace = append(bj.Trace, stepJSON{Thread: st.Thread, Op: st.Op, Range: toRange(st.Range)})
		}
		out.Bugs = append(out.Bugs, bj)
	}
	return out
}

func diagnosticsJSON(diags []source.Diagnostic) []diagJSON {
	out := []diagJSON{}
	for _, d := range diags {
		out = append(out, diagJSON{Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Range: toRange(d.Range)})
	}
	return out
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
