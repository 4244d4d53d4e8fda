package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// defaultTimeout is the time budget of one model's check unless --timeout
// says otherwise: long enough for any model meant to be checked in full,
// short enough that a runaway one ends with an honest "incomplete".
const defaultTimeout = 5 * time.Minute

// checkFlags are the flags shared by check and replay.
type checkFlags struct {
	algo          string
	noSMT         bool
	noOverflow    bool
	k             int
	timeout       time.Duration
	maxExecutions int64
	maxSteps      int
	maxBugs       int
	maxMemory     byteSize
	json          bool
	quiet         bool
	fullTrace     bool
	allSteps      bool
	noSpinWait    bool
	noRaceCheck   bool
	spurious      bool
	statefulPOR   string
	exactStates   bool
	bitstate      bool

	set map[string]bool // the flags given on the command line
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.algo, "algo", string(engine.SDPOR), "the exploration `MODE`: "+algoList())
	fs.BoolVar(&f.noSMT, "no-smt", false, "cdpor: syntactic independence conditions only (do not ask z3)")
	fs.BoolVar(&f.noOverflow, "assume-no-overflow", false, "cdpor: also take as independent atomic blocks that commute unless their arithmetic overflows (an overflow only another order reaches may then be missed)")
	lim := engine.OptionLimits()
	fs.Var(newLimitFlag(&f.k, lim.K), "k", "the k of k-partial alternatives, `K` (qpor only)")
	fs.Var(newDurationFlag(&f.timeout, defaultTimeout, 0, maxTimeout), "timeout", "time budget `D` per model, such as 90s or 5m (0: none); past it the result is incomplete")
	fs.Var(newLimitFlag(&f.maxExecutions, lim.MaxExecutions), "max-executions", "stop after `N` executions (0: no limit)")
	fs.Var(newLimitFlag(&f.maxSteps, lim.MaxSteps), "max-steps", "a step-bound bug when an execution makes `N` visible steps")
	fs.Var(newLimitFlag(&f.maxBugs, lim.MaxBugs), "max-bugs", "stop at the `N`-th distinct bug (0: find them all)")
	fs.Var(&f.maxMemory, "max-memory", "memory budget `SIZE`, such as 2GB (0: a quarter of the machine's memory); reaching it ends the check incomplete")
	fs.BoolVar(&f.json, "json", false, "print JSON (one object per model; an array of them for several models)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress and no 'found:' lines on stderr")
	fs.BoolVar(&f.fullTrace, "full-trace", false, "with --json: every step of every trace (long traces are cut to their first and last 200 steps otherwise)")
	fs.BoolVar(&f.allSteps, "all-steps", false, "show each bug's whole execution, not only the steps the bug depends on (its causal slice)")
	fs.BoolVar(&f.noSpinWait, "no-spin-wait", false, "let while loops that only read spin on (up to --max-steps) instead of waiting for a write (awaits always wait)")
	fs.BoolVar(&f.noRaceCheck, "no-race-check", false, "do not look for data races: check the other bugs with every access sequentially consistent (the verdict then assumes no data races)")
	fs.BoolVar(&f.spurious, "spurious-wakeups", false, "explore spurious wake-ups: a thread waiting on a condition variable may wake up without a signal")
	fs.StringVar(&f.statefulPOR, "stateful-por", string(engine.DefaultStatefulPOR), "stateful: the partial-order reduction `POR`: "+statefulPORList())
	fs.BoolVar(&f.exactStates, "exact-states", false, "stateful: store visited states whole rather than as 128-bit fingerprints (no collision possible; more memory)")
	fs.BoolVar(&f.bitstate, "bitstate", false, "stateful: when the visited states fill the memory budget, go on with bitstate hashing (the result then says it may have skipped states) instead of stopping")
}

// statefulPORList lists the stateful mode's reductions for messages.
func statefulPORList() string {
	var names []string
	for _, p := range engine.StatefulPORs() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// noteSet records which flags the command line gave (after parsing).
func (f *checkFlags) noteSet(fs *flag.FlagSet) {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
}

func (f *checkFlags) options() (engine.Options, error) {
	algo := engine.Algorithm(f.algo)
	known := false
	for _, a := range engine.Algorithms {
		known = known || a == algo
	}
	switch {
	case !known:
		return engine.Options{}, fmt.Errorf("unknown --algo %q (available: %s)", f.algo, algoList())
	case f.set["k"] && algo != engine.QPOR:
		return engine.Options{}, fmt.Errorf("--k applies to --algo qpor only; %s does not use it", algo)
	}
	for _, name := range []string{"stateful-por", "exact-states", "bitstate"} {
		if f.set[name] && algo != engine.Stateful {
			return engine.Options{}, fmt.Errorf("--%s applies to --algo stateful only; %s does not use it", name, algo)
		}
	}
	por := engine.StatefulPOR(f.statefulPOR)
	if !slices.Contains(engine.StatefulPORs(), por) {
		return engine.Options{}, fmt.Errorf("unknown --stateful-por %q (available: %s)", f.statefulPOR, statefulPORList())
	}
	// The flags refuse values out of range as they are parsed; these
	// are for flags set otherwise (tests, the replay hint's round trip).
	lim := engine.OptionLimits()
	for _, r := range []struct {
		name string
		v    int64
		lim  engine.Limit
	}{
		{"max-steps", int64(f.maxSteps), lim.MaxSteps},
		{"k", int64(f.k), lim.K},
		{"max-executions", f.maxExecutions, lim.MaxExecutions},
		{"max-bugs", int64(f.maxBugs), lim.MaxBugs},
		{"timeout", int64(f.timeout), engine.Limit{Min: 0, Max: int64(maxTimeout)}},
		{"max-memory", int64(f.maxMemory), lim.MaxMemory},
	} {
		if !r.lim.Contains(r.v) {
			return engine.Options{}, fmt.Errorf("--%s %d is out of range: want %d to %d", r.name, r.v, r.lim.Min, r.lim.Max)
		}
	}
	return engine.Options{Algorithm: algo, QPOR: engine.QPOROptions{K: f.k}, MaxSteps: f.maxSteps, MaxExecutions: f.maxExecutions, MaxBugs: f.maxBugs,
		MaxMemory: f.memoryBudget(), NoSpinWait: f.noSpinWait, SpuriousWakeups: f.spurious, NoRaceCheck: f.noRaceCheck,
		Stateful: engine.StatefulOptions{POR: por, ExactStates: f.exactStates, Bitstate: f.bitstate}}, nil
}

// memoryBudget is the --max-memory in bytes, the default filled in.
func (f *checkFlags) memoryBudget() int64 {
	if f.maxMemory > 0 {
		return int64(f.maxMemory)
	}
	return engine.DefaultMaxMemory()
}

// exploreArgs are the flags that decide which bugs an exploration finds
// and in which order, as a command line would give them (for a replay
// hint that re-runs the check).
func (f *checkFlags) exploreArgs() string {
	s := " --algo " + f.algo
	if engine.Algorithm(f.algo) == engine.QPOR && f.k != 1 {
		s += " --k " + strconv.Itoa(f.k)
	}
	if f.maxSteps != engine.DefaultMaxSteps {
		s += " --max-steps " + strconv.Itoa(f.maxSteps)
	}
	if f.maxExecutions > 0 {
		s += " --max-executions " + strconv.FormatInt(f.maxExecutions, 10)
	}
	if f.maxBugs > 0 {
		// The traces of a check cut at its N-th bug are not always those
		// of a check that goes on (a shorter one may be found later).
		s += " --max-bugs " + strconv.Itoa(f.maxBugs)
	}
	if engine.Algorithm(f.algo) == engine.Stateful {
		// The reduction decides which states and paths are explored.
		s += " --stateful-por " + f.statefulPOR
		if f.exactStates {
			s += " --exact-states"
		}
		if f.bitstate {
			s += " --bitstate"
		}
	}
	if engine.Algorithm(f.algo) == engine.CDPOR {
		// The constraints decide which orders cdpor merges.
		if f.noSMT {
			s += " --no-smt"
		}
		if f.noOverflow {
			s += " --assume-no-overflow"
		}
	}
	return s + f.semanticsArgs()
}

// semanticsArgs are the flags that change what the program's executions
// are, which a replay needs too.
func (f *checkFlags) semanticsArgs() string {
	s := ""
	if f.noSpinWait {
		s += " --no-spin-wait"
	}
	if f.spurious {
		s += " --spurious-wakeups"
	}
	return s
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

// parseCommand parses a subcommand's arguments; help (-h, --help) prints
// the command's usage on stdout. It returns done with the exit code when
// the command should not go on.
func parseCommand(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, done bool, code int) {
	fs.SetOutput(io.Discard) // the error is printed below, help on stdout
	fs.Usage = func() {}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(stdout, fs.Name())
		return nil, true, exitOK
	}
	if err != nil {
		// Package flag names a flag -name; weft's help writes --name.
		msg := strings.Replace(err.Error(), "for flag -", "for --", 1)
		msg = strings.Replace(msg, "not defined: -", "not defined: --", 1)
		fmt.Fprintf(stderr, "weft %s: %s\nrun 'weft help %s' for its usage\n", fs.Name(), msg, fs.Name())
		return nil, true, exitUsage
	}
	return pos, false, 0
}

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var f checkFlags
	f.register(fs)
	pos, done, code := parseCommand(fs, args, stdout, stderr)
	if done {
		return code
	}
	f.noteSet(fs)
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "weft check: no model given: want FILE, DIR or DIR/... (see weft help check)")
		return exitUsage
	}
	opts, err := f.options()
	if err != nil {
		fmt.Fprintln(stderr, "weft check:", err)
		return exitUsage
	}
	// The engine measures its heap against the budget; Go's collector,
	// told the same limit, collects harder before it is reached.
	debug.SetMemoryLimit(opts.MaxMemory)
	files, errs := expandArgs(pos)
	code = exitOK
	var outs []checkJSON
	for _, err := range errs {
		fmt.Fprintln(stderr, "weft check:", err)
		out := inputErrorJSON("", &f, nil, nil)
		out.Error = err.Error()
		outs = append(outs, out)
		code = exitUsage
	}
	for i, path := range files {
		if ctx.Err() != nil {
			break // interrupted: the files not checked are not reported as checked
		}
		if i > 0 && !f.json {
			fmt.Fprintln(stdout)
		}
		out := checkFile(ctx, path, &f, opts, stdout, stderr)
		outs = append(outs, out)
		code = worseExit(code, out.ExitCode)
	}
	if checkedFiles := len(outs) - len(errs); ctx.Err() != nil && checkedFiles < len(files) {
		fmt.Fprintf(stderr, "weft check: interrupted: %d of %d files not checked\n", len(files)-checkedFiles, len(files))
		code = worseExit(code, exitIncomplete)
	}
	oneFile := len(pos) == 1 && namesOneFile(pos[0]) && len(outs) == 1
	if !oneFile {
		// Several models: one line that counts them by verdict, last on
		// stdout; with --json on stderr, so that stdout stays one array.
		w := stdout
		if f.json {
			w = stderr
		} else if len(outs) > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintln(w, checkSummary(outs, len(files)+len(errs)))
	}
	if f.json {
		switch {
		case oneFile:
			writeJSON(stdout, outs[0]) // one model: one object (the CI contract)
		default:
			if outs == nil {
				outs = []checkJSON{}
			}
			writeJSON(stdout, outs)
		}
	}
	return code
}

// checkSummary is the last line of a check of several models: how many
// were checked (of asked, when an interrupt left some unchecked) and how
// many of them are verified, have bugs, are incomplete or could not be
// checked (an input or internal error); vacuous ones are counted when
// there are any.
func checkSummary(outs []checkJSON, asked int) string {
	var verified, vacuous, bugs, incomplete, errs int
	for _, o := range outs {
		switch o.Status {
		case statusVerified:
			verified++
		case statusVacuous:
			vacuous++
		case statusBugs:
			bugs++
		case statusIncomplete:
			incomplete++
		default:
			errs++
		}
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	var b strings.Builder
	b.WriteString("checked " + plural(len(outs), "model", "models"))
	if asked > len(outs) {
		fmt.Fprintf(&b, " of %d (interrupted)", asked)
	}
	fmt.Fprintf(&b, ": %d verified, ", verified)
	if vacuous > 0 {
		fmt.Fprintf(&b, "%d vacuous, ", vacuous)
	}
	fmt.Fprintf(&b, "%d with bugs, %d incomplete, %s", bugs, incomplete, plural(errs, "error", "errors"))
	return b.String()
}

// explore runs the exploration of a loaded model with the options of f
// (opts, from f.options, with any callbacks): what weft check reports and
// what weft replay --bug re-runs, so that both find the same bugs with
// the same traces. For cdpor it computes the independence constraints as
// the check does; when it cannot, it says so on warn (if not nil), after
// prefix.
func explore(ctx context.Context, ld *lower.Loaded, f *checkFlags, opts engine.Options, warn io.Writer, prefix string) (*engine.Result, error) {
	if opts.Algorithm == engine.CDPOR {
		// The independence constraints CDPOR uses beside its own: the
		// syntactic rules and, when z3 is there, SMT synthesis.
		ics, _, err := constraintsOf(ctx, ld, f.noSMT, f.noOverflow)
		if err == nil {
			opts.CDPOR.Constraints = ics.Constraints()
		} else if warn != nil {
			fmt.Fprintf(warn, "%s: independence constraints not computed (%v): cdpor uses its own conditions only\n", prefix, err)
		}
	}
	if opts.Algorithm == engine.Stateful {
		// The steps no other thread's step depends with (S-POR's
		// invisible steps) and the words that cannot race, from the
		// static access analysis.
		sites, free, err := statefulFacts(ctx, ld)
		if err == nil {
			opts.Stateful.Invisible, opts.Stateful.RaceFree = sites, free
		} else if warn != nil {
			fmt.Fprintf(warn, "%s: static facts not computed (%v): every step is taken as visible and every word as racy\n", prefix, err)
		}
	}
	return engine.Explore(ctx, ld.Exec, opts)
}

// checkFile checks one model and prints its human report (unless --json);
// it returns the model's JSON, which says its exit code. A panic inside
// weft is an internal error of this model, reported as such.
func checkFile(ctx context.Context, path string, f *checkFlags, opts engine.Options, stdout, stderr io.Writer) (out checkJSON) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("internal error: %v", r)
			fmt.Fprintf(stderr, "weft check: %s: %s (this is a bug in weft; please report it with the model)\n%s", path, msg, debug.Stack())
			out = checkJSON{File: path, Status: statusInternalError, ExitCode: exitInternal, Algorithm: f.algo, K: f.k,
				MaxSteps: f.maxSteps, Bugs: []bugJSON{}, Error: msg}
		}
	}()
	src, err := readModel(path)
	if err != nil {
		fmt.Fprintln(stderr, "weft check:", err)
		out = inputErrorJSON(path, f, nil, []source.Diagnostic{{Severity: source.Error, Code: "read-error", Message: err.Error()}})
		out.Error = err.Error()
		return out
	}
	ld := lower.Load(path, src)
	if source.HasErrors(ld.Diagnostics) || ld.Exec == nil {
		if !f.json {
			printDiagnostics(stderr, path, ld.Diagnostics)
		}
		return inputErrorJSON(path, f, src, ld.Diagnostics)
	}
	if !f.json {
		printDiagnostics(stderr, path, ld.Diagnostics) // warnings
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	prog := newProgress(stderr, path, f.quiet)
	prog.stateful = opts.Algorithm == engine.Stateful
	opts.OnProgress, opts.ProgressInterval = prog.update, progressTick
	if !f.quiet {
		opts.OnBug = func(b *engine.Bug) {
			prog.clear()
			fmt.Fprintf(stderr, "found: %s at %s: %s\n", b.Kind, humanPos(path, b.Range), bugMessage(b))
		}
	}
	var warn io.Writer
	if !f.json {
		warn = stderr
	}
	res, err := explore(ctx, ld, f, opts, warn, "weft check: "+path)
	prog.clear()
	var unsupported *engine.UnsupportedError
	if errors.As(err, &unsupported) {
		// The mode does not explore a feature the model uses: an input
		// error that says which modes do.
		diags := []source.Diagnostic{{Range: unsupported.Range, Severity: source.Error, Code: "unsupported-feature", Message: unsupported.Error()}}
		if !f.json {
			printDiagnostics(stderr, path, diags)
		}
		out = inputErrorJSON(path, f, src, append(ld.Diagnostics, diags...))
		out.Error = unsupported.Error()
		return out
	}
	if err != nil {
		panic(fmt.Sprintf("the lowered program is invalid: %v", err))
	}
	c := &checked{path: path, src: src, flags: f, prog: ld.Exec, res: res}
	status, warnings := engine.Verdict(ld.Exec, res)
	c.status, c.warnings = string(status), warnings
	if engine.Unsupported(ld.Exec, engine.Options{Algorithm: engine.Stateful, SpuriousWakeups: opts.SpuriousWakeups}) == nil {
		// Never suggest a mode that would refuse the model.
		c.hint = statefulHint(path, ld.Program, res)
	}
	if !f.json {
		printResult(stdout, c)
		if c.hint != nil {
			fmt.Fprintln(stderr, "hint: "+c.hint.Message)
		}
	}
	out = resultJSON(c, f.fullTrace)
	out.Diagnostics = diagnosticsJSON(ld.Diagnostics)
	if len(out.Diagnostics) == 0 {
		out.Diagnostics = nil
	}
	return out
}

// statefulFacts are what the static access analysis tells the stateful
// mode about ld: the instructions whose steps no step of another thread
// is dependent with (access.Summary.InvisibleSites), and the words that
// cannot race (access.Summary.RaceFreeWords).
func statefulFacts(ctx context.Context, ld *lower.Loaded) (map[ir.Site]bool, []bool, error) {
	sum, err := access.Analyze(ctx, ld.Program, ld.Exec)
	if err != nil {
		return nil, nil, err
	}
	sites, ok := sum.InvisibleSites(ctx)
	free, ok2 := sum.RaceFreeWords(ctx)
	if !ok || !ok2 {
		return nil, nil, ctx.Err()
	}
	return sites, free, nil
}

// The reasons of a hint (hintJSON.Reason).
const (
	hintStepBound   = "step-bound"   // a step-bound bug
	hintEndlessLoop = "endless-loop" // a while-true loop no break leaves, in an incomplete check
)

// statefulHint is the advice to check a model with --algo stateful, when
// a check in another mode could not decide it for a reason that mode
// has and the stateful one has not: a step-bound bug (which may be a
// loop that never ends, not a bug), or a loop that never ends
// (analysis.Program.EndlessLoops) in a check that did not complete. A
// complete check of such a model leaves nothing to advise: the loop was
// never reached, or reached only where its thread blocks. nil when there
// is nothing to say.
func statefulHint(path string, prog *analysis.Program, res *engine.Result) *hintJSON {
	if res.Algorithm == engine.Stateful {
		return nil
	}
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			return &hintJSON{Algo: string(engine.Stateful), Reason: hintStepBound, Line: b.Range.Start.Line + 1,
				Message: fmt.Sprintf("%s: the step-bound bug may be a loop that does not end rather than a bug: try --algo stateful, "+
					"which explores each state once, so a loop that comes back to a state it was in is explored once and is no bug "+
					"(one whose state keeps changing still reaches the step bound)", humanPos(path, b.Range))}
		}
	}
	for _, o := range res.Omitted {
		if o.Kind == engine.BugStepBound {
			return &hintJSON{Algo: string(engine.Stateful), Reason: hintStepBound, Line: o.Lines[0],
				Message: fmt.Sprintf("%s:%d: the step-bound bugs may be loops that do not end rather than bugs: try --algo stateful, "+
					"which explores each state once, so a loop that comes back to a state it was in is explored once and is no bug", path, o.Lines[0])}
		}
	}
	if res.Complete {
		return nil
	}
	if loops := prog.EndlessLoops(); len(loops) > 0 {
		return &hintJSON{Algo: string(engine.Stateful), Reason: hintEndlessLoop, Line: loops[0].Start.Line + 1,
			Message: fmt.Sprintf("%s: this model loops forever: a thread that reaches this `while true` loop (no break leaves it) "+
				"never finishes, so a %s exploration of it can only end at the step bound or a budget: try --algo stateful, "+
				"which explores each state once and can verify a loop that comes back to a state it was in", humanPos(path, loops[0]), res.Algorithm)}
	}
	return nil
}
