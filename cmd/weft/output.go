package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"weft/engine"
	"weft/replay"
	"weft/source"
)

// The outcome of checking one model: its status word in the JSON and its
// exit code (see main.go).
const (
	statusVerified      = string(engine.StatusVerified)   // complete, no bug, something was checked
	statusVacuous       = string(engine.StatusVacuous)    // complete, no bug, but nothing was checked (see warnings)
	statusBugs          = string(engine.StatusBugs)       // at least one bug (complete or not)
	statusIncomplete    = string(engine.StatusIncomplete) // no bug found, but not every execution was explored
	statusInputError    = "input-error"                   // the file could not be read, parsed or type-checked
	statusInternalError = "internal-error"                // weft failed
)

// exitCodeOf maps a status to the process's exit code.
func exitCodeOf(status string) int {
	switch status {
	case statusBugs:
		return exitBug
	case statusIncomplete:
		return exitIncomplete
	case statusInputError:
		return exitUsage
	case statusInternalError:
		return exitInternal
	}
	return exitOK
}

// worseExit combines the exit codes of several files: an internal error
// beats an input error, which beats a bug, which beats an incomplete
// run, which beats success.
func worseExit(a, b int) int {
	rank := map[int]int{exitOK: 0, exitIncomplete: 1, exitBug: 2, exitUsage: 3, exitInternal: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
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

// maxJSONSteps bounds a trace in the JSON unless --full-trace: its first
// and last halves are kept (the schedule is always complete).
const maxJSONSteps = 400

func printDiagnostics(w io.Writer, path string, diags []source.Diagnostic) {
	for i, d := range diags {
		if i == maxPrintedDiagnostics {
			fmt.Fprintf(w, "%s: and %d more diagnostics\n", path, len(diags)-i)
			return
		}
		fmt.Fprintf(w, "%s: %s: %s\n", humanPos(path, d.Range), d.Severity, d.Message)
	}
}

// checked is one model's check, everything the output needs.
type checked struct {
	path     string
	src      []byte
	flags    *checkFlags
	prog     *engine.Program
	res      *engine.Result
	status   string
	warnings []string
	hint     *hintJSON // advice on another mode (statefulHint), or nil
}

// shown is bug i of c as the output shows it: its causal slice, or
// with --all-steps its whole execution.
func (c *checked) shown(i int) *engine.Bug {
	b := c.res.Bugs[i]
	if c.flags.allSteps {
		return b.Full()
	}
	return b
}

func printResult(w io.Writer, c *checked) {
	res := c.res
	state := "complete"
	switch {
	case res.Stopped == engine.StoppedBitstate:
		state = "INCOMPLETE (" + stoppedWords(res.Stopped) + "): coverage is partial, some states may not have been explored"
	case !res.Complete && res.Algorithm == engine.Stateful:
		state = "INCOMPLETE (" + stoppedWords(res.Stopped) + "): not every state was explored"
	case !res.Complete:
		state = "INCOMPLETE (" + stoppedWords(res.Stopped) + "): not every execution was explored"
	}
	if res.Algorithm == engine.Stateful {
		printStateful(w, c, state)
	} else {
		fmt.Fprintf(w, "%s: %s exploration %s\n", c.path, res.Algorithm, state)
		fmt.Fprintf(w, "  executions: %d (sleep-set blocked: %d, ended by assume: %d)\n", res.Executions, res.SSB, res.AssumeBlocked)
		fmt.Fprintf(w, "  events: %d, longest execution: %d steps, time: %s\n", res.Events, res.MaxDepth, res.Elapsed.Round(time.Microsecond))
	}
	for _, warn := range c.warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	assuming := engine.AssumingWords(res.Assumptions)
	if assuming != "" && c.status != statusVerified {
		fmt.Fprintf(w, "  %s: what this result says holds only then (see docs/cli.md)\n", assuming)
	}
	if len(res.Bugs) == 0 {
		switch c.status {
		case statusVerified:
			if assuming != "" {
				fmt.Fprintf(w, "  no bug found: verified for every interleaving, %s\n", assuming)
				return
			}
			fmt.Fprintln(w, "  no bug found: verified for every interleaving")
		case statusVacuous:
			fmt.Fprintln(w, "  no bug found, vacuously (see the warning): nothing is verified")
		default:
			fmt.Fprintln(w, "  no bug found so far: nothing is verified")
		}
		return
	}
	if len(res.Omitted) == 0 {
		fmt.Fprintf(w, "  %d bug(s):\n", len(res.Bugs))
	} else {
		more := int64(0)
		for _, o := range res.Omitted {
			more += o.Count
		}
		fmt.Fprintf(w, "  %d bug(s), the first %d listed with their traces; not listed:\n", int64(len(res.Bugs))+more, len(res.Bugs))
		for _, o := range res.Omitted {
			fmt.Fprintf(w, "    %s\n", o)
		}
	}
	for i := range res.Bugs {
		b := c.shown(i)
		fmt.Fprintf(w, "\nbug %d: %s at %s in %s: %s\n", i+1, b.Kind, humanPos(c.path, b.Range), b.Thread, bugMessage(b))
		if b.Other != nil {
			fmt.Fprintf(w, "  other access: %s at %s in %s\n", b.Other.Op, humanPos(c.path, b.Other.Range), b.Other.Thread)
		}
		if b.FirstMessage != "" {
			fmt.Fprintf(w, "  (first found as: %s; the shortest trace found is shown)\n", b.FirstMessage)
		}
		n := b.TraceLen()
		if b.Sliced() {
			fmt.Fprintf(w, "  trace (%d of %d steps: those the bug depends on, --all-steps shows all; replay with: %s):\n", n, len(b.FullSchedule), replayHint(c, i))
			if b.Kind == engine.BugDeadlock {
				fmt.Fprintln(w, "  (the steps left out, of threads that are not blocked, unblock none of those that are)")
			}
		} else {
			fmt.Fprintf(w, "  trace (%d steps; replay with: %s):\n", n, replayHint(c, i))
		}
		first, last, err := b.TraceEnds(maxPrintedSteps/2, maxPrintedSteps/2)
		if err != nil {
			fmt.Fprintf(w, "        internal error: %v\n", err)
		}
		for j, st := range first {
			fmt.Fprintf(w, "  %4d  %-14s %-32s %d:%d\n", j+1, st.Thread, st.Op, st.Range.Start.Line+1, st.Range.Start.Col+1)
		}
		if len(last) > 0 {
			fmt.Fprintf(w, "        … %d steps omitted (weft replay shows them all)\n", n-len(first)-len(last))
		}
		for j, st := range last {
			fmt.Fprintf(w, "  %4d  %-14s %-32s %d:%d\n", n-len(last)+j+1, st.Thread, st.Op, st.Range.Start.Line+1, st.Range.Start.Col+1)
		}
	}
}

// maxHintSchedule bounds the --schedule argument a replay hint spells out;
// past it the hint re-runs the check up to the bug (--bug N).
const maxHintSchedule = 240

// replayHint is the command that replays bug i of c at once: the bug's
// schedule when it is short to write down, otherwise the check's own
// options with --bug (the check then stops at that bug).
func replayHint(c *checked, i int) string {
	b := c.shown(i)
	// A schedule with alternatives (the values of chooses, the waiters
	// signals woke) is replayed by re-running the check, and so is the
	// slice of a deadlock: at its end only the threads it shows are
	// blocked, which the whole execution, kept with the bug, confirms.
	if s := encodeSchedule(b.Schedule); len(s) <= maxHintSchedule && b.Choices == nil && !(b.Sliced() && b.Kind == engine.BugDeadlock) {
		hint := "weft replay " + shellQuote(c.path) + " --schedule " + s + c.flags.semanticsArgs()
		if b.Kind == engine.BugStepBound {
			hint += " --max-steps " + strconv.Itoa(c.flags.maxSteps)
		}
		return hint
	}
	hint := "weft replay " + shellQuote(c.path) + " --bug " + strconv.Itoa(i+1) + c.flags.exploreArgs() + cutArgs(c)
	if c.flags.allSteps {
		hint += " --all-steps" // the whole execution, as shown
	}
	return hint
}

// cutArgs are the budget flags of a check that its time or memory
// budget cut: the bugs and traces of such a check are those found when
// it stopped, so the re-run of a --bug hint must stop likewise (weft
// replay then says the trace may differ) rather than run on under the
// default budget to another trace of the bug.
func cutArgs(c *checked) string {
	switch c.res.Stopped {
	case engine.StoppedTimeout:
		return " --timeout " + c.flags.timeout.String()
	case engine.StoppedMemory:
		b := byteSize(c.flags.memoryBudget())
		return " --max-memory " + b.String()
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == ',' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func stoppedWords(s engine.StopReason) string {
	if s == engine.StoppedMaxBugs {
		return "the bug budget (--max-bugs) was reached"
	}
	return s.Words()
}

// The JSON contract of `weft check --json` (see ARCHITECTURE.md and
// docs/cli.md).

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

func fromRange(r rangeJSON) source.Range {
	return source.Range{
		Start: source.Pos{Line: r.Start.Line, Col: r.Start.Character},
		End:   source.Pos{Line: r.End.Line, Col: r.End.Character},
	}
}

type stepJSON struct {
	Thread string    `json:"thread"`
	Op     string    `json:"op"`
	Range  rangeJSON `json:"range"`
	Choice int32     `json:"choice,omitempty"` // the alternative taken, when not the first
}

type otherJSON struct {
	Thread string    `json:"thread"`
	Op     string    `json:"op"`
	Range  rangeJSON `json:"range"`
}

type bugJSON struct {
	Kind         string     `json:"kind"`
	Message      string     `json:"message"`
	FirstMessage string     `json:"first_message,omitempty"`
	Thread       string     `json:"thread"`
	Range        rangeJSON  `json:"range"`
	Other        *otherJSON `json:"other,omitempty"`
	Trace        []stepJSON `json:"trace"`
	TraceLength  int        `json:"trace_length"`
	// TraceOmitted steps are left out of Trace after its first half
	// (without --full-trace); Schedule is always complete.
	TraceOmitted int     `json:"trace_omitted,omitempty"`
	Schedule     []int32 `json:"schedule"`
	// Sliced says that Trace and Schedule are the bug's causal slice (the
	// steps it depends on); FullSchedule and FullChoices are then the
	// whole execution, of FullTraceLength steps (--all-steps shows it).
	Sliced          bool    `json:"sliced"`
	FullTraceLength int     `json:"full_trace_length"`
	FullSchedule    []int32 `json:"full_schedule,omitempty"`
	FullChoices     []int32 `json:"full_choices,omitempty"`
	// Choices is the alternative of each step of Schedule, when some step
	// took another than its first.
	Choices         []int32 `json:"choices,omitempty"`
	LocalBudget     int     `json:"local_budget,omitempty"`
	NoSpinWait      bool    `json:"no_spin_wait,omitempty"`
	SpuriousWakeups bool    `json:"spurious_wakeups,omitempty"`
	Replay          string  `json:"replay"`
}

// omittedJSON is a summary of the bugs of one kind (on one variable, for
// data races) found but not listed with a trace.
type omittedJSON struct {
	Kind     string `json:"kind"`
	Variable string `json:"variable,omitempty"`
	Count    int64  `json:"count"`
	// Lines are the first and last line (1-based) of the bugs; OtherLines
	// those of the other accesses of data races.
	Lines      [2]int  `json:"lines"`
	OtherLines *[2]int `json:"other_lines,omitempty"`
	Summary    string  `json:"summary"`
}

type diagJSON struct {
	Severity string    `json:"severity"`
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Range    rangeJSON `json:"range"`
}

type checkJSON struct {
	File          string            `json:"file"`
	SourceSHA256  string            `json:"source_sha256,omitempty"`
	Status        string            `json:"status"`
	ExitCode      int               `json:"exit_code"`
	Algorithm     string            `json:"algorithm"`
	K             int               `json:"k"`
	MaxSteps      int               `json:"max_steps"`
	MaxMemory     int64             `json:"max_memory,omitempty"`
	Complete      bool              `json:"complete"`
	Stopped       engine.StopReason `json:"stopped,omitempty"`
	Executions    int64             `json:"executions"`
	SSB           int64             `json:"ssb"`
	AssumeBlocked int64             `json:"assume_blocked"`
	SpinBlocked   int64             `json:"spin_blocked"`
	Events        int64             `json:"events"`
	TimeMS        float64           `json:"time_ms"`
	Threads       int               `json:"threads"`
	MaxDepth      int               `json:"max_depth"`
	Bugs          []bugJSON         `json:"bugs"`
	// Stateful is what the stateful mode adds (--algo stateful only).
	Stateful *statefulJSON `json:"stateful,omitempty"`
	// Hint advises another mode (statefulHint); absent when there is
	// nothing to advise.
	Hint *hintJSON `json:"hint,omitempty"`
	// OmittedBugs counts the distinct bugs found beyond those listed in
	// Bugs (the engine keeps engine.DefaultMaxTraces with their traces,
	// and their traces within a quarter of the memory budget).
	OmittedBugs []omittedJSON `json:"omitted_bugs,omitempty"`
	Warnings    []string      `json:"warnings,omitempty"`
	Assumptions []string      `json:"assumptions,omitempty"`
	Diagnostics []diagJSON    `json:"diagnostics,omitempty"`
	Error       string        `json:"error,omitempty"`
}

// statefulJSON is the stateful mode's part of a report.
type statefulJSON struct {
	POR          string `json:"por"`
	ExactStates  bool   `json:"exact_states"`
	States       int64  `json:"states"`
	Transitions  int64  `json:"transitions"`
	Matched      int64  `json:"matched"`
	Retraversals int64  `json:"retraversals"`
	VisitedBytes int64  `json:"visited_bytes"`
	// MissProbability bounds the probability that two distinct states
	// had one fingerprint, so that the second was taken as visited
	// (0 with --exact-states).
	MissProbability float64 `json:"miss_probability"`
}

// hintJSON is advice to check the model in another mode, and why.
type hintJSON struct {
	Algo    string `json:"algo"`    // the mode to try: "stateful"
	Reason  string `json:"reason"`  // "step-bound" or "endless-loop"
	Line    int    `json:"line"`    // 1-based: the step-bound bug's line, or the loop's
	Message string `json:"message"` // the hint in words, as stderr says it
}

// sourceHash is the report's source_sha256, as replay.Select checks it.
func sourceHash(src []byte) string { return replay.SourceHash(src) }

// inputErrorJSON is the JSON of a model that could not be explored.
func inputErrorJSON(path string, f *checkFlags, src []byte, diags []source.Diagnostic) checkJSON {
	out := checkJSON{File: path, Status: statusInputError, ExitCode: exitUsage, Algorithm: f.algo, K: f.k, MaxSteps: f.maxSteps,
		Bugs: []bugJSON{}, Diagnostics: diagnosticsJSON(diags)}
	if src != nil {
		out.SourceSHA256 = sourceHash(src)
	}
	return out
}

func resultJSON(c *checked, fullTrace bool) checkJSON {
	res := c.res
	out := checkJSON{
		File: c.path, SourceSHA256: sourceHash(c.src), Status: c.status, ExitCode: exitCodeOf(c.status),
		Algorithm: c.flags.algo, K: c.flags.k, MaxSteps: c.flags.maxSteps, MaxMemory: c.flags.memoryBudget(),
		Complete: res.Complete, Stopped: res.Stopped,
		Executions: res.Executions, SSB: res.SSB, AssumeBlocked: res.AssumeBlocked, SpinBlocked: res.SpinBlocked, Events: res.Events,
		TimeMS: float64(res.Elapsed.Microseconds()) / 1000, Threads: res.MaxThreads, MaxDepth: res.MaxDepth,
		Stateful: statefulOf(c.flags, res), Hint: c.hint,
		Bugs: []bugJSON{}, Warnings: c.warnings,
	}
	for _, a := range res.Assumptions {
		out.Assumptions = append(out.Assumptions, string(a))
	}
	for i := range res.Bugs {
		b := c.shown(i)
		bj := bugJSON{Kind: string(b.Kind), Message: b.Message, FirstMessage: b.FirstMessage, Thread: b.Thread, Range: toRange(b.Range),
			Trace: []stepJSON{}, TraceLength: b.TraceLen(), Schedule: b.Schedule, Choices: b.Choices, LocalBudget: b.LocalBudget,
			NoSpinWait: b.NoSpinWait, SpuriousWakeups: b.SpuriousWakeups, Replay: replayHint(c, i),
			Sliced: b.Sliced(), FullTraceLength: len(b.Full().Schedule), FullSchedule: b.FullSchedule, FullChoices: b.FullChoices}
		if b.Other != nil {
			bj.Other = &otherJSON{Thread: b.Other.Thread, Op: b.Other.Op, Range: toRange(b.Other.Range)}
		}
		keep := maxJSONSteps / 2
		if fullTrace {
			keep = b.TraceLen()
		}
		first, last, err := b.TraceEnds(keep, keep)
		if err != nil {
			panic(fmt.Sprintf("bug %d: %v", i+1, err)) // the supervisor reports an internal error
		}
		for _, st := range append(first, last...) {
			bj.Trace = append(bj.Trace, stepJSON{Thread: st.Thread, Op: st.Op, Range: toRange(st.Range), Choice: st.Choice})
		}
		bj.TraceOmitted = b.TraceLen() - len(bj.Trace)
		out.Bugs = append(out.Bugs, bj)
	}
	for _, o := range res.Omitted {
		oj := omittedJSON{Kind: string(o.Kind), Variable: o.Variable, Count: o.Count, Lines: o.Lines, Summary: o.String()}
		if o.Kind == engine.BugDataRace {
			lines := o.OtherLines
			oj.OtherLines = &lines
		}
		out.OmittedBugs = append(out.OmittedBugs, oj)
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

// writeJSON prints v indented, except that arrays of numbers (schedules:
// 100,000 entries for a step-bound bug) stay on one line.
func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encoding the JSON output: %v", err))
	}
	w.Write(numberArray.ReplaceAllFunc(buf.Bytes(), func(m []byte) []byte {
		return whitespace.ReplaceAll(m, nil)
	}))
}

// numberArray matches an indented array of integers. A JSON string holds
// no raw newline, so one that starts on a new line is never inside a
// string.
var (
	numberArray = regexp.MustCompile(`\[\n[ ]*-?[0-9]+(,\n[ ]*-?[0-9]+)*\n[ ]*\]`)
	whitespace  = regexp.MustCompile(`\s+`)
)

// encodeSchedule writes a schedule compactly, runs of one thread as
// THREAD*COUNT: [0 0 0 1 2 2] is "0*3,1,2*2".
func encodeSchedule(s []int32) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(int(s[i])))
		if j-i > 1 {
			sb.WriteByte('*')
			sb.WriteString(strconv.Itoa(j - i))
		}
		i = j
	}
	return sb.String()
}

// maxScheduleSteps bounds a schedule given on the command line.
const maxScheduleSteps = 100_000_000

// decodeSchedule reads what encodeSchedule writes.
func decodeSchedule(s string) ([]int32, error) {
	var out []int32
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty schedule")
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		th, cnt, hasCnt := strings.Cut(item, "*")
		t, err := strconv.ParseInt(th, 10, 32)
		if err != nil || t < 0 {
			return nil, fmt.Errorf("schedule item %q: want THREAD or THREAD*COUNT, with THREAD a thread index (0-based)", item)
		}
		n := int64(1)
		if hasCnt {
			n, err = strconv.ParseInt(cnt, 10, 64)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("schedule item %q: the count must be a positive integer", item)
			}
		}
		if int64(len(out))+n > maxScheduleSteps {
			return nil, fmt.Errorf("schedule longer than %d steps", maxScheduleSteps)
		}
		for ; n > 0; n-- {
			out = append(out, int32(t))
		}
	}
	return out, nil
}

// statefulOf is the stateful part of res's report (nil for other modes).
func statefulOf(f *checkFlags, res *engine.Result) *statefulJSON {
	if res.Algorithm != engine.Stateful {
		return nil
	}
	return &statefulJSON{POR: f.statefulPOR, ExactStates: f.exactStates, States: res.States, Transitions: res.Transitions,
		Matched: res.Matched, Retraversals: res.Retraversals, VisitedBytes: res.VisitedBytes, MissProbability: res.MissProbability}
}

// printStateful prints the head of a stateful check's report: what was
// stored and explored, and what the verdict's state matching rests on.
func printStateful(w io.Writer, c *checked, state string) {
	res := c.res
	fmt.Fprintf(w, "%s: stateful exploration (--stateful-por %s) %s\n", c.path, c.flags.statefulPOR, state)
	fmt.Fprintf(w, "  states stored: %s, transitions: %s, matched: %s, re-traversals: %s\n",
		groupDigits(res.States), groupDigits(res.Transitions), groupDigits(res.Matched), groupDigits(res.Retraversals))
	rate := "-"
	if secs := res.Elapsed.Seconds(); secs > 0 {
		rate = groupDigits(int64(float64(res.States) / secs))
	}
	fmt.Fprintf(w, "  peak visited-set memory: %s, states per second: %s, time: %s\n", humanBytes(res.VisitedBytes), rate, res.Elapsed.Round(time.Microsecond))
	switch {
	case res.Stopped == engine.StoppedBitstate:
		fmt.Fprintln(w, "  states: 128-bit fingerprints until the visited set filled its memory, then bitstate hashing, which may take two states for one and skip the second: coverage is partial, nothing is verified")
	case c.flags.exactStates:
		fmt.Fprintln(w, "  states stored whole (--exact-states): no state can be missed by a collision")
	default:
		fmt.Fprintf(w, "  probability that a fingerprint collision hid a state: ≤ %s (128-bit fingerprints; --exact-states stores states whole)\n", probability(res.MissProbability))
	}
}

// probability writes a small probability briefly: 2.3e-36.
func probability(p float64) string {
	if p == 0 {
		return "0"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// groupDigits writes n with thousands separators: 12,345.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// humanBytes writes a size in the largest binary unit that keeps it at
// least 1: 1.5 MiB.
func humanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[i]
}

// bugMessage is a bug's message in a headline: a data race's names its
// other access's thread and line, so that two races reported at one
// access read differently (the JSON keeps the message as it is, with the
// other access in its own field).
func bugMessage(b *engine.Bug) string {
	if b.Kind == engine.BugDataRace && b.Other != nil {
		return replay.RaceWith(b.Message, b.Other.Thread, b.Other.Range.Start.Line+1)
	}
	return b.Message
}
