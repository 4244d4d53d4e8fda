package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"weft/analysis/lower"
	"weft/engine"
	"weft/replay"
)

// replayArrayLimit is how many elements of an array a replay shows
// (without --full-state).
const replayArrayLimit = 16

func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var f checkFlags
	f.register(fs)
	bugN := fs.Int("bug", 0, "replay the N-th bug (1-based) that 'weft check' reports with the same flags")
	tracePath := fs.String("trace", "", "replay a bug from the JSON printed by 'weft check --json'")
	schedule := fs.String("schedule", "", "replay this schedule (THREAD or THREAD*COUNT, comma-separated)")
	fullState := fs.Bool("full-state", false, "show every variable after every step, arrays in full")
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
	if *bugN < 0 || (*bugN == 0 && f.set["bug"]) {
		fmt.Fprintln(stderr, "weft replay: --bug must be at least 1")
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
	default:
		bug, err = findBug(ctx, ld.Exec, &f, max(*bugN, 1))
	}
	if err != nil {
		fmt.Fprintln(stderr, "weft replay:", err)
		return exitUsage
	}
	if bug.Kind != "" {
		fmt.Fprintf(stdout, "replaying %s: %s at %s (%d steps)\n", bug.Kind, bug.Message, humanPos(path, bug.Range), len(bug.Schedule))
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
	fmt.Fprintf(stdout, "\nreproduced: %s: %s\n", bug.Kind, bug.Message)
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

// findBug re-runs the check with f's options until its n-th bug is found
// (the exploration is deterministic, so this is the check's n-th bug).
func findBug(ctx context.Context, prog *engine.Program, f *checkFlags, n int) (*engine.Bug, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	// The check numbers the bugs it lists with their traces; the engine
	// may find others it only counts (Result.Omitted), so the search
	// stops at the n-th bug listed, not at the n-th found (MaxBugs).
	ctx, found := context.WithCancel(ctx)
	defer found()
	listed := 0
	opts.OnBug = func(*engine.Bug) {
		if listed++; listed == n {
			found()
		}
	}
	res, err := engine.Explore(ctx, prog, opts)
	if err != nil {
		return nil, err
	}
	if n > len(res.Bugs) {
		if !res.Complete {
			return nil, fmt.Errorf("no bug %d: the check found %d before it stopped (%s)", n, len(res.Bugs), stoppedWords(res.Stopped))
		}
		return nil, fmt.Errorf("no bug %d: the check finds %d", n, len(res.Bugs))
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
	case engine.EvWrite, engine.EvLock, engine.EvUnlock:
		locs = append(locs, ev.Loc)
	case engine.EvAtomic:
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
