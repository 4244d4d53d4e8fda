package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
	"weft/replay"
)

// replayArrayLimit is how many elements of an array a replay shows
// (without --full-state).
const replayArrayLimit = 16

// replayFlags are the flags of weft replay: its own and weft check's.
type replayFlags struct {
	check     checkFlags
	bug       int
	trace     string
	schedule  string
	fullState bool
}

func (r *replayFlags) register(fs *flag.FlagSet) {
	r.check.register(fs)
	fs.Var(newIntFlag(&r.bug, 0, 1, maxCountLimit), "bug", "replay bug `N` (1-based) of what 'weft check' reports with the same flags (with --trace: of the saved report)")
	fs.StringVar(&r.trace, "trace", "", "replay a bug from `CHECK.json`, the JSON printed by 'weft check --json' (bug 1, or --bug N)")
	fs.StringVar(&r.schedule, "schedule", "", "replay the schedule `S`: the thread index (0-based) of each step, runs written THREAD*COUNT, as in 0*3,1,2*10 (what 'weft check' prints)")
	fs.BoolVar(&r.fullState, "full-state", false, "show every variable after every step, arrays in full")
}

func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var r replayFlags
	r.register(fs)
	f := &r.check
	bugN, tracePath, schedule, fullState := &r.bug, &r.trace, &r.schedule, &r.fullState
	pos, done, code := parseCommand(fs, args, stdout, stderr)
	if done {
		return code
	}
	f.noteSet(fs)
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "weft replay: want exactly one FILE (see weft help replay)")
		return exitUsage
	}
	sources := 0
	for _, given := range []bool{*schedule != "", *tracePath != "", *bugN != 0 && *tracePath == ""} {
		if given {
			sources++
		}
	}
	if sources > 1 {
		fmt.Fprintln(stderr, "weft replay: give one of --schedule, --bug N, --trace F.json (with --trace, --bug picks the bug)")
		return exitUsage
	}
	path := pos[0]
	src, err := readModel(path)
	if err != nil {
		fmt.Fprintln(stderr, "weft replay:", err)
		return exitUsage
	}
	ld := lower.Load(path, src)
	if ld.Exec == nil {
		printDiagnostics(stderr, path, ld.Diagnostics)
		return exitUsage
	}
	var bug *engine.Bug
	switch {
	case *schedule != "":
		var s []int32
		if s, err = decodeSchedule(*schedule); err == nil {
			bug = &engine.Bug{Schedule: s, NoSpinWait: f.noSpinWait, SpuriousWakeups: f.spurious}
		}
	case *tracePath != "":
		bug, err = bugFromJSON(*tracePath, max(*bugN, 1), path, src)
		if err == nil && f.allSteps {
			// The whole execution the report keeps beside a slice
			// (full_schedule), as --all-steps replays with --bug N.
			bug = bug.Full()
		}
	default:
		bug, err = findBug(ctx, path, ld, f, max(*bugN, 1), stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "weft replay:", err)
		return exitUsage
	}
	if bug.Kind != "" {
		fmt.Fprintf(stdout, "replaying %s at %s (%d steps)\n", replay.Headline(string(bug.Kind), bug.Message), humanPos(path, bug.Range), len(bug.Schedule))
	} else {
		fmt.Fprintf(stdout, "replaying a schedule of %d steps\n", len(bug.Schedule))
	}
	show := newStateView(ld.Exec, *fullState)
	show.initial(stdout)
	events, m, err := engine.Replay(ld.Exec, bug.Schedule, bug.ReplayOptions(), func(st engine.ReplayStep) {
		fmt.Fprintf(stdout, "\nstep %d  %s  %s  (%d:%d)\n", st.Index+1, st.Trace.Thread, st.Trace.Op,
			st.Trace.Range.Start.Line+1, st.Trace.Range.Start.Col+1)
		show.step(stdout, st.M, st.Event)
	})
	if err != nil {
		fmt.Fprintln(stderr, "weft replay: the schedule does not fit the program:", err)
		return exitUsage
	}
	if bug.Kind == "" {
		maxSteps := 0
		if f.set["max-steps"] {
			maxSteps = f.maxSteps
		}
		kind, msg := scheduleEnd(ld.Exec, bug, events, m, maxSteps)
		if kind == "" {
			fmt.Fprintf(stdout, "\nthe schedule ends without a bug%s\n", msg)
			return exitOK
		}
		fmt.Fprintf(stdout, "\nreproduced: %s: %s\n", kind, msg)
		return exitBug
	}
	if err := engine.Reproduce(ld.Exec, bug); err != nil {
		fmt.Fprintln(stdout, "\nNOT reproduced:", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "\nreproduced: %s\n", replay.Headline(string(bug.Kind), bug.Message))
	return exitBug
}

// scheduleEnd says which bug, if any, the replayed schedule ends in: a
// failing last step, a deadlock, a data race of the last step, or, when
// maxSteps is set, the step bound. Otherwise msg may say why not.
func scheduleEnd(prog *engine.Program, bug *engine.Bug, events []engine.Event, m *engine.Machine, maxSteps int) (kind engine.BugKind, msg string) {
	schedule := bug.Schedule
	if n := len(events); n > 0 {
		last := &events[n-1]
		switch last.Stop {
		case engine.StopAssertion:
			return engine.BugAssertion, last.Message
		case engine.StopRuntimeError:
			return engine.BugRuntimeError, last.Message
		case engine.StopAssume:
			return "", " (its last step is a failed assume: the execution is discarded)"
		}
	}
	as := func(kind engine.BugKind) *engine.Bug {
		b := *bug
		b.Kind = kind
		return &b
	}
	if engine.Reproduce(prog, as(engine.BugDeadlock)) == nil {
		return engine.BugDeadlock, "every thread left is blocked"
	}
	if len(schedule) > 0 && engine.Reproduce(prog, as(engine.BugDataRace)) == nil {
		return engine.BugDataRace, "the last step races with an earlier access not ordered by synchronisation"
	}
	if maxSteps > 0 && len(schedule) >= maxSteps {
		return engine.BugStepBound, fmt.Sprintf("the schedule reaches the step bound (--max-steps %d)", maxSteps)
	}
	return "", ""
}

// findBug re-runs the check with f's options, as weft check runs it, and
// returns its n-th bug: the same exploration to the same end (the check
// keeps, per bug, the shortest trace found until it ends, so stopping at
// the n-th bug's first trace would replay another one). It is the
// report's bug n when the check that made the report ended as this one
// does: complete, or stopped by a budget that counts (--max-executions,
// --max-bugs); when this one runs out of time or memory, warn (if not
// nil) says the traces may differ. warn also gets the progress of a long
// re-run.
func findBug(ctx context.Context, path string, ld *lower.Loaded, f *checkFlags, n int, warn io.Writer) (*engine.Bug, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	if f.maxBugs > 0 && n > f.maxBugs {
		return nil, fmt.Errorf("no bug %d: the check stops at its %d-th bug (--max-bugs %d)", n, f.maxBugs, f.maxBugs)
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	if warn != nil {
		// The re-run takes as long as the check: show its progress.
		prog := newProgress(warn, path, f.quiet)
		opts.OnProgress, opts.ProgressInterval = prog.update, progressTick
		defer prog.clear()
	}
	res, err := explore(ctx, ld, f, opts, warn, "weft replay")
	if err != nil {
		return nil, err
	}
	timing := !res.Complete && res.Stopped != engine.StoppedMaxBugs && res.Stopped != engine.StoppedMaxExecutions
	if n > len(res.Bugs) {
		if timing {
			return nil, fmt.Errorf("no bug %d: the check found %d before it stopped (%s)", n, len(res.Bugs), stoppedWords(res.Stopped))
		}
		return nil, fmt.Errorf("no bug %d: the check finds %d", n, len(res.Bugs))
	}
	if timing && warn != nil {
		fmt.Fprintf(warn, "weft replay: the check stopped before it was complete (%s): a check that ran for longer or shorter may report other traces; --trace replays one from its JSON exactly\n", stoppedWords(res.Stopped))
	}
	if f.allSteps {
		return res.Bugs[n-1].Full(), nil
	}
	return res.Bugs[n-1], nil
}

// bugFromJSON reads bug n of the JSON that 'weft check --json' printed,
// for the model path whose text is src.
func bugFromJSON(jsonPath string, n int, path string, src []byte) (*engine.Bug, error) {
	reports, err := replay.ReadReports(jsonPath)
	if err != nil {
		return nil, err
	}
	r, err := replay.Select(reports, path, src)
	if err != nil {
		return nil, err
	}
	return r.Bug(n)
}

// stateView prints a replay's state: everything once at the start, then
// what each step changed: the shared locations it wrote or locked (an
// array element by element) and the locals of its thread that differ
// from that thread's previous step. Arrays longer than replayArrayLimit
// are elided, and the locals of such a size are shown only with full.
type stateView struct {
	prog   *engine.Program
	full   bool
	locals map[*engine.Thread]map[string]string // the locals last shown, per thread
}

func newStateView(prog *engine.Program, full bool) *stateView {
	return &stateView{prog: prog, full: full, locals: map[*engine.Thread]map[string]string{}}
}

func (v *stateView) limit() int {
	if v.full {
		return 0
	}
	return replayArrayLimit
}

// initial shows the shared variables before the first step.
func (v *stateView) initial(w io.Writer) {
	if len(v.prog.Vars) == 0 {
		return
	}
	m := engine.NewMachine(v.prog)
	var parts []string
	for _, sv := range v.prog.Vars {
		parts = append(parts, sv.Name+" = "+engine.FormatWords(v.prog, m, sv.Offset, sv.Size, sv.Dims, v.limit()))
	}
	fmt.Fprintf(w, "\ninitially: %s\n", strings.Join(parts, ", "))
}

func (v *stateView) step(w io.Writer, m *engine.Machine, ev *engine.Event) {
	if v.full {
		var parts []string
		for _, sv := range v.prog.Vars {
			parts = append(parts, sv.Name+" = "+engine.FormatWords(v.prog, m, sv.Offset, sv.Size, sv.Dims, 0))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  shared: %s\n", strings.Join(parts, ", "))
		}
	} else if changed := v.changedShared(m, ev); len(changed) > 0 {
		fmt.Fprintf(w, "  shared: %s\n", strings.Join(changed, ", "))
	}
	if int(ev.Thread) >= len(m.Threads) {
		return
	}
	th := m.Threads[ev.Thread]
	last := v.locals[th]
	if last == nil {
		last = map[string]string{}
		v.locals[th] = last
	}
	var parts []string
	for _, lv := range th.Body.Locals {
		if !v.full && lv.Size > replayArrayLimit {
			if _, seen := last[lv.Name]; !seen {
				last[lv.Name] = ""
				parts = append(parts, fmt.Sprintf("%s = (%d elements; --full-state shows them)", lv.Name, lv.Size))
			}
			continue
		}
		s := engine.FormatLocal(m, th, lv, v.limit())
		if old, seen := last[lv.Name]; v.full || !seen || old != s {
			last[lv.Name] = s
			parts = append(parts, lv.Name+" = "+s)
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  locals of %s: %s\n", th.Name, strings.Join(parts, ", "))
	}
}

// changedShared describes the shared locations ev wrote, locked or
// unlocked, with their values now.
func (v *stateView) changedShared(m *engine.Machine, ev *engine.Event) []string {
	var locs []int32
	switch ev.Kind {
	case ir.EvWrite, ir.EvLock, ir.EvUnlock:
		locs = append(locs, ev.Loc)
	case ir.EvAtomic:
		for _, a := range ev.Acc {
			if a.Write {
				locs = append(locs, a.Loc)
			}
		}
	}
	var out []string
	seen := map[int32]bool{}
	for _, loc := range locs {
		if loc < 0 || int(loc) >= len(v.prog.Locations) || seen[loc] {
			continue
		}
		seen[loc] = true
		out = append(out, v.prog.Locations[loc].Name+" = "+engine.FormatWords(v.prog, m, int(loc), 1, nil, 0))
	}
	return out
}
