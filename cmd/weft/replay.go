package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"weft/analysis/lower"
	"weft/engine"
	"weft/source"
)

func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f checkFlags
	f.register(fs)
	bugN := fs.Int("bug", 1, "the bug to replay (1-based, in the order weft check reports them)")
	tracePath := fs.String("trace", "", "replay a bug from the JSON printed by 'weft check --json'")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "weft replay: want exactly one FILE")
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
	if *tracePath != "" {
		bug, err = bugFromJSON(*tracePath, *bugN)
	} else {
		bug, err = findBug(ctx, ld.Exec, &f, *bugN)
	}
	if err != nil {
		fmt.Fprintln(stderr, "weft replay:", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "replaying %s: %s at %s (%d steps)\n", bug.Kind, bug.Message, humanPos(path, bug.Range), len(bug.Schedule))
	_, _, err = engine.Replay(ld.Exec, bug.Schedule, bug.LocalBudget, func(st engine.ReplayStep) {
		fmt.Fprintf(stdout, "\nstep %d  %s  %s  (%d:%d)\n", st.Index+1, st.Trace.Thread, st.Trace.Op,
			st.Trace.Range.Start.Line+1, st.Trace.Range.Start.Col+1)
		fmt.Fprintf(stdout, "  shared: %s\n", formatShared(ld.Exec, st.M))
		if locals := formatLocals(st.M, st.Event.Thread); locals != "" {
			fmt.Fprintf(stdout, "  locals of %s: %s\n", st.Trace.Thread, locals)
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "weft replay: the trace does not fit the program:", err)
		return exitUsage
	}
	if err := engine.Reproduce(ld.Exec, bug); err != nil {
		fmt.Fprintln(stdout, "\nNOT reproduced:", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "\nreproduced: %s: %s\n", bug.Kind, bug.Message)
	return exitBug
}

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
	res, err := engine.Explore(ctx, prog, opts)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > len(res.Bugs) {
		return nil, fmt.Errorf("no bug %d: the check found %d", n, len(res.Bugs))
	}
	return res.Bugs[n-1], nil
}

func bugFromJSON(path string, n int) (*engine.Bug, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out checkJSON
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n < 1 || n > len(out.Bugs) {
		return nil, fmt.Errorf("%s has no bug %d (it has %d)", path, n, len(out.Bugs))
	}
	b := out.Bugs[n-1]
	r := source.Range{
		Start: source.Pos{Line: b.Range.Start.Line, Col: b.Range.Start.Character},
		End:   source.Pos{Line: b.Range.End.Line, Col: b.Range.End.Character},
	}
	return &engine.Bug{Kind: engine.BugKind(b.Kind), Message: b.Message, Thread: b.Thread, Range: r, Schedule: b.Schedule}, nil
}

func formatShared(prog *engine.Program, m *engine.Machine) string {
	var parts []string
	for _, v := range prog.Vars {
		parts = append(parts, v.Name+" = "+engine.FormatWords(prog, m, v.Offset, v.Size, v.Dims))
	}
	return strings.Join(parts, ", ")
}

func formatLocals(m *engine.Machine, t int32) string {
	th := m.Threads[t]
	var parts []string
	for _, lv := range th.Body.Locals {
		parts = append(parts, lv.Name+" = "+engine.FormatLocal(m, th, lv))
	}
	return strings.Join(parts, ", ")
}
