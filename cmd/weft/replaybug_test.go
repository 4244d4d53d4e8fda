package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine"
	"weft/examples"
)

// replayStepRE matches a step of weft replay's output: its number, thread
// and operation.
var replayStepRE = regexp.MustCompile(`(?m)^step (\d+)  (\S+)  (.*)  \(\d+:\d+\)$`)

// TestReplayBugMatchesReport: `weft replay FILE --bug N` replays exactly
// the trace that `weft check` reports as bug N (the same schedule, the
// same choices, the same steps), for every bug of every example and of a
// bounded buffer with `if` around `wait`, whose shortest trace is found
// only after the bug first shows up.
func TestReplayBugMatchesReport(t *testing.T) {
	exampleFiles, err := filepath.Glob("../../examples/*.weft")
	if err != nil || len(exampleFiles) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	type run struct {
		file string
		args []string
	}
	var runs []run
	for _, ex := range exampleFiles {
		src, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		if examples.LoopsForever(src) {
			// sdpor does not complete it: its report cannot be
			// compared; the stateful mode's is, below.
			runs = append(runs, run{ex, []string{"--algo", "stateful"}})
			continue
		}
		runs = append(runs, run{ex, nil})
	}
	bbuf := "testdata/bbuf_if.weft"
	for _, args := range [][]string{nil, {"--algo", "dfs"}, {"--algo", "cdpor"}, {"--algo", "cdpor", "--no-smt"},
		{"--algo", "qpor", "--k", "2"}, {"--algo", "optimal"}, {"--max-bugs", "1"}, {"--spurious-wakeups"}} {
		runs = append(runs, run{bbuf, args})
	}
	for _, ex := range []string{"lost_update", "fig1_racy", "philosophers_deadlock", "prodcons_one_cond", "lost_wakeup"} {
		runs = append(runs, run{"../../examples/" + ex + ".weft", []string{"--algo", "cdpor"}},
			run{"../../examples/" + ex + ".weft", []string{"--algo", "optimal"}})
	}
	bugs := 0
	for _, r := range runs {
		name := strings.TrimSuffix(filepath.Base(r.file), ".weft") + strings.Join(r.args, "")
		t.Run(name, func(t *testing.T) {
			_, out, errs := runCLI(t, append([]string{"check", r.file, "--json", "--full-trace", "--quiet"}, r.args...)...)
			var rep checkJSON
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("check: %v\n%s", err, errs)
			}
			if !rep.Complete && rep.Stopped != "max-bugs" {
				t.Fatalf("check incomplete (%s): the report cannot be compared", rep.Stopped)
			}
			for i, b := range rep.Bugs {
				bugs++
				n := strconv.Itoa(i + 1)
				code, replayed, errs := runCLI(t, append([]string{"replay", r.file, "--bug", n}, r.args...)...)
				if code != exitBug {
					t.Errorf("bug %s: replay exit %d\n%s", n, code, errs)
					continue
				}
				if head := fmt.Sprintf("(%d steps)", len(b.Schedule)); !strings.Contains(firstLine(replayed), head) {
					t.Errorf("bug %s: report has %d steps; replay says %q", n, len(b.Schedule), firstLine(replayed))
				}
				steps := replayStepRE.FindAllStringSubmatch(replayed, -1)
				if len(steps) != len(b.Trace) {
					t.Errorf("bug %s: replay shows %d steps, the report's trace %d", n, len(steps), len(b.Trace))
					continue
				}
				for k, s := range steps {
					if want := b.Trace[k]; s[2] != want.Thread || s[3] != want.Op {
						t.Errorf("bug %s step %d: replay %s %q, report %s %q", n, k+1, s[2], s[3], want.Thread, want.Op)
						break
					}
				}
			}
			// The bug the replay re-runs the check for has the
			// report's schedule and choices, step for step.
			var f checkFlags
			fs := flag.NewFlagSet("check", flag.ContinueOnError)
			f.register(fs)
			if err := fs.Parse(r.args); err != nil {
				t.Fatal(err)
			}
			f.noteSet(fs)
			ld := lower.Load(r.file, mustRead(t, r.file))
			for i, b := range rep.Bugs {
				got, err := findBug(context.Background(), r.file, ld, &f, i+1, nil)
				if err != nil {
					t.Errorf("bug %d: %v", i+1, err)
					continue
				}
				if !slices.Equal(got.Schedule, b.Schedule) || !slices.Equal(got.Choices, b.Choices) {
					t.Errorf("bug %d: replayed schedule %s choices %v, report %s choices %v", i+1,
						encodeSchedule(got.Schedule), got.Choices, encodeSchedule(b.Schedule), b.Choices)
				}
			}
		})
	}
	if bugs == 0 {
		t.Error("no bug compared")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	src, err := readModel(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// A check cut by its time or memory budget numbers its bugs and keeps
// their traces as far as it got: its --bug hint re-runs with the same
// budget, so that the re-run stops likewise and weft replay says its
// trace may differ, instead of running on under the default budget to
// another (shorter) trace of bug N without a word.
func TestReplayHintCarriesTheBudgetThatCut(t *testing.T) {
	long := make([]int32, 2*maxHintSchedule)
	for i := range long {
		long[i] = int32(i % 2)
	}
	for _, c := range []struct {
		name    string
		flags   checkFlags
		stopped engine.StopReason
		want    string
	}{
		{"complete", checkFlags{algo: "sdpor", timeout: 10 * time.Second}, "", "weft replay m.weft --bug 1 --algo sdpor"},
		{"cut by time", checkFlags{algo: "sdpor", timeout: 10 * time.Second}, "timeout", "weft replay m.weft --bug 1 --algo sdpor --timeout 10s"},
		{"cut by time, no budget given", checkFlags{algo: "sdpor", timeout: defaultTimeout}, "timeout", "weft replay m.weft --bug 1 --algo sdpor --timeout " + defaultTimeout.String()},
		{"cut by memory", checkFlags{algo: "sdpor", maxMemory: 1 << 30}, engine.StoppedMemory, "weft replay m.weft --bug 1 --algo sdpor --max-memory 1GB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.flags
			f.maxSteps = engine.DefaultMaxSteps
			ch := &checked{path: "m.weft", flags: &f, res: &engine.Result{Complete: c.stopped == "", Stopped: c.stopped, Bugs: []*engine.Bug{{Schedule: long}}}}
			if got := replayHint(ch, 0); got != c.want {
				t.Errorf("hint %q, want %q", got, c.want)
			}
		})
	}
}
