package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"weft/internal/testbin"
)

// The hostile-input suite: models and command lines meant to exhaust
// weft (memory, time, stack, output), each run as `weft` in a subprocess
// under a memory and a time ceiling. Exceeding a ceiling kills the run and
// fails the test; so does a crash, a wrong exit code, or output that does
// not say what it must. The ceilings are several times what each case
// takes here: they catch a return of the quadratic or exponential
// behaviour each case once had, not a slow machine.

type hostileCase struct {
	name   string
	model  func() string // the model's source
	args   []string      // after "check" (or the command, if args[0] is one)
	exits  []int         // acceptable exit codes
	stdout []string      // what stdout must contain
	maxMB  int           // peak resident memory ceiling
	maxDur time.Duration // wall-time ceiling
	maxOut int           // ceiling on stdout bytes (0: 1 MB)
}

var hostileCases = []hostileCase{
	// Item 1: memory grows as threads × steps (dense vector clocks).
	{
		name: "spawn-join chain of 8000 threads",
		model: func() string {
			return "var n int\nproc link(d int) {\n    if d > 0 {\n        var t tid = spawn link(d - 1)\n        join t\n    }\n    n = d\n}\nthread main {\n    var t tid = spawn link(8000)\n    join t\n}\n"
		},
		args: []string{"--max-executions", "1"}, exits: []int{exitOK, exitBug, exitIncomplete},
		maxMB: 600, maxDur: 60 * time.Second,
	},
	{
		name:  "unbounded recursive spawn",
		model: func() string { return "proc p() {\n    spawn p()\n}\nthread main {\n    spawn p()\n}\n" },
		args:  []string{"--max-executions", "1"}, exits: []int{exitBug, exitIncomplete},
		maxMB: 1000, maxDur: 60 * time.Second,
	},
	{
		name: "pool of 10000 spawned workers",
		model: func() string {
			return "var c int\nvar m mutex\nproc worker(i int) {\n    lock(m)\n    c = c + i\n    unlock(m)\n}\nthread main {\n    for i in 0..10000 {\n        spawn worker(i)\n    }\n}\n"
		},
		args: []string{"--max-executions", "1"}, exits: []int{exitOK, exitIncomplete},
		maxMB: 600, maxDur: 60 * time.Second,
	},
	{
		name: "10000 declared threads",
		model: func() string {
			return "var c int\nvar m mutex\nthread t[i in 0..10000] {\n    lock(m)\n    c = c + 1\n    unlock(m)\n}\n"
		},
		args: []string{"--max-executions", "1"}, exits: []int{exitIncomplete},
		maxMB: 600, maxDur: 60 * time.Second,
	},
	// Item 2: memory grows with code size × steps.
	{
		name:  "40000 distinct assignments, dfs",
		model: func() string { return assignments(40000) },
		args:  []string{"--algo", "dfs"}, exits: []int{exitOK},
		maxMB: 500, maxDur: 60 * time.Second,
	},
	{
		name:  "200000 distinct assignments, sdpor",
		model: func() string { return assignments(200000) },
		args:  []string{"--algo", "sdpor", "--max-steps", "300000"}, exits: []int{exitOK},
		maxMB: 1000, maxDur: 60 * time.Second,
	},
	// Item 3: deep expressions (stack overflow in analysis).
	{
		name:  "a million-term sum",
		model: func() string { return "const A = 1" + strings.Repeat("+1", 1_000_000) + "\nthread t {\n}\n" },
		exits: []int{exitUsage}, // nesting-too-deep, located
		maxMB: 1500, maxDur: 60 * time.Second,
	},
	{
		name: "a million indexes",
		model: func() string {
			return "var a [2]int\nthread t {\n    var x int = a" + strings.Repeat("[0]", 1_000_000) + "\n}\n"
		},
		exits: []int{exitUsage},
		maxMB: 1500, maxDur: 60 * time.Second,
	},
	// Item 4: quadratic else-if chains.
	{
		name: "100000 else-if",
		model: func() string {
			var b strings.Builder
			b.WriteString("var x int\nthread t {\n    var r int\n    if x == 0 {\n        r = 0\n    }")
			for i := 1; i < 100000; i++ {
				fmt.Fprintf(&b, " else if x == %d {\n        r = %d\n    }", i, i)
			}
			b.WriteString("\n}\n")
			return b.String()
		},
		exits: []int{exitOK},
		maxMB: 1500, maxDur: 60 * time.Second,
	},
	// Item 5: quadratic shared reads.
	{
		name:  "90000 shared reads, sdpor",
		model: func() string { return sharedReads(90000) },
		args:  []string{"--algo", "sdpor"}, exits: []int{exitOK},
		maxMB: 500, maxDur: 10 * time.Second,
	},
	{
		name:  "90000 shared reads, optimal",
		model: func() string { return sharedReads(90000) },
		args:  []string{"--algo", "optimal"}, exits: []int{exitOK},
		maxMB: 500, maxDur: 10 * time.Second,
	},
	// Item 6: a total memory budget.
	{
		name:  "100 threads with 8 MB arrays under a 256 MB budget",
		model: bigArrays,
		args:  []string{"--max-memory", "256MB"}, exits: []int{exitIncomplete},
		stdout: []string{"the memory budget ran out"},
		maxMB:  600, maxDur: 60 * time.Second,
	},
	{
		name:  "100 threads with 8 MB arrays under a 1 GB budget",
		model: bigArrays,
		args:  []string{"--max-memory", "1GB", "--timeout", "5s"}, exits: []int{exitIncomplete},
		stdout: []string{"INCOMPLETE"},
		maxMB:  1500, maxDur: 60 * time.Second,
	},
	// Item 10: output size.
	{
		name:  "JSON of a 100000-step livelock",
		model: func() string { return "var f int\nthread t {\n    while f == 0 {\n    }\n}\n" },
		// Without spin-waiting, the spin runs to the step bound.
		args: []string{"--json", "--algo", "dfs", "--no-spin-wait"}, exits: []int{exitBug},
		stdout: []string{`"kind": "step-bound"`},
		maxMB:  300, maxDur: 30 * time.Second, maxOut: 1 << 20,
	},
	{
		name: "replay of a livelock over a big array",
		model: func() string {
			return "var f int\nvar a [100000]int\nthread t {\n    while f == 0 {\n        a[1] = a[1] + 1\n    }\n}\n"
		},
		args:   []string{"replay", "MODEL", "--schedule", "0*3000"},
		exits:  []int{exitOK},
		stdout: []string{"… 99984 more}", "a[1] = 1000"},
		maxMB:  300, maxDur: 30 * time.Second, maxOut: 1 << 20,
	},
	// Item 7: replay of a step-bound bug starts at once, with the check's bound.
	{
		name: "replay of a livelock by bug number",
		model: func() string {
			return "var f int\nthread t {\n    while f == 0 {\n    }\n}\nthread u {\n    f = 0\n}\n"
		},
		args:   []string{"replay", "MODEL", "--bug", "1", "--max-steps", "10", "--no-spin-wait"},
		exits:  []int{exitBug},
		stdout: []string{"(10 steps)", "reproduced: step-bound"},
		maxMB:  300, maxDur: 10 * time.Second,
	},
	// Issue 9: deadlines and the memory budget hold while bugs pour in,
	// in long unfolding operations, and on endless spawning.
	{
		name: "30000 distinct stores beside one, dfs", model: func() string { return storesBesideOne(30000) },
		args: []string{"--algo", "dfs", "--timeout", "2s", "--max-memory", "512MB"}, exits: []int{exitBug},
		maxMB: 700, maxDur: 5 * time.Second,
	},
	{
		name: "30000 distinct stores beside one, sdpor", model: func() string { return storesBesideOne(30000) },
		args: []string{"--algo", "sdpor", "--timeout", "2s", "--max-memory", "512MB"}, exits: []int{exitBug},
		maxMB: 700, maxDur: 5 * time.Second,
	},
	{
		name: "30000 distinct stores beside one, cdpor", model: func() string { return storesBesideOne(30000) },
		args: []string{"--algo", "cdpor", "--no-smt", "--timeout", "2s", "--max-memory", "512MB"}, exits: []int{exitBug, exitIncomplete},
		maxMB: 700, maxDur: 5 * time.Second,
	},
	{
		name: "30000 distinct stores beside one, qpor", model: func() string { return storesBesideOne(30000) },
		args: []string{"--algo", "qpor", "--timeout", "2s", "--max-memory", "512MB"}, exits: []int{exitBug},
		maxMB: 700, maxDur: 5 * time.Second,
	},
	{
		name: "30000 distinct stores beside one, optimal", model: func() string { return storesBesideOne(30000) },
		args: []string{"--algo", "optimal", "--timeout", "2s", "--max-memory", "512MB"}, exits: []int{exitBug},
		maxMB: 700, maxDur: 5 * time.Second,
	},
	{
		// A test-and-set that finds the lock taken writes true over
		// true: the loop changes nothing and waits (language.md, spin
		// loops), so the lock, once a runaway, is verified.
		name: "test-and-set spin lock, qpor", model: tasLock,
		args: []string{"--algo", "qpor", "--timeout", "2s"}, exits: []int{exitOK},
		stdout: []string{"no bug found"},
		maxMB:  1000, maxDur: 5 * time.Second,
	},
	{
		// A test-and-set that finds the lock taken writes true over
		// true: the loop changes nothing and waits (language.md, spin
		// loops), so the lock, once a runaway, is verified.
		name: "test-and-set spin lock, optimal", model: tasLock,
		args: []string{"--algo", "optimal", "--timeout", "2s"}, exits: []int{exitOK},
		stdout: []string{"no bug found"},
		maxMB:  1000, maxDur: 5 * time.Second,
	},
	{
		name:  "self-spawning proc under a 64 MB budget, sdpor",
		model: func() string { return "proc p() {\n    spawn p()\n}\nthread main {\n    spawn p()\n}\n" },
		args:  []string{"--algo", "sdpor", "--max-memory", "64MB"}, exits: []int{exitIncomplete},
		stdout: []string{"the memory budget ran out"},
		maxMB:  300, maxDur: 10 * time.Second,
	},
	{
		name:  "self-spawning proc under a 64 MB budget, optimal",
		model: func() string { return "proc p() {\n    spawn p()\n}\nthread main {\n    spawn p()\n}\n" },
		args:  []string{"--algo", "optimal", "--max-memory", "64MB"}, exits: []int{exitIncomplete},
		stdout: []string{"the memory budget ran out"},
		maxMB:  300, maxDur: 10 * time.Second,
	},
}

// storesBesideOne is a thread of n distinct stores to x beside a thread
// that writes x once: n distinct data races, each with a trace of up to n
// steps.
func storesBesideOne(n int) string {
	var b strings.Builder
	b.WriteString("var x int\nthread a {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    x = %d\n", i)
	}
	b.WriteString("}\nthread b {\n    x = 1\n}\n")
	return b.String()
}

// tasLock is a test-and-set spin lock of three threads.
func tasLock() string {
	return "var l atomic bool\nvar c int\n\nfunc tas() bool {\n    var old bool\n    atomic {\n        old = l\n        l = true\n    }\n    return old\n}\n\nthread t[i in 0..3] {\n    while tas() {\n    }\n    c = c + 1\n    l = false\n}\n"
}

func bigArrays() string {
	return "var c atomic int\nthread t[i in 0..100] {\n    var a [1048576]int\n    a[i] = 1\n    c = c + a[i]\n}\n"
}

func assignments(n int) string {
	var b strings.Builder
	b.WriteString("var x int\nthread t {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    x = %d\n", i)
	}
	b.WriteString("}\n")
	return b.String()
}

func sharedReads(n int) string {
	return fmt.Sprintf("var x int\nthread t {\n    var r int\n    for i in 0..%d {\n        r = r + x\n    }\n    assert r == 0, \"x is never written\"\n}\n", n)
}

// weft is built once for the tests that run it (removed by TestMain).
var weft testbin.Binary

// builtWeft builds the weft binary once for the tests that run it.
func builtWeft(t *testing.T) string { return weft.Path(t) }

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile-input suite runs without -short")
	}
	bin := builtWeft(t)
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "m.weft")
			if err := os.WriteFile(model, []byte(tc.model()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"check", model}, tc.args...)
			if len(tc.args) > 0 && (tc.args[0] == "replay" || tc.args[0] == "fmt") {
				args = append([]string(nil), tc.args...)
				for i, a := range args {
					if a == "MODEL" {
						args[i] = model
					}
				}
			}
			maxOut := tc.maxOut
			if maxOut == 0 {
				maxOut = 1 << 20
			}
			r := runBounded(t, bin, args, tc.maxMB, tc.maxDur, maxOut)
			t.Logf("exit %d, peak %d MB, %s, %d bytes of output", r.code, r.peakMB, r.elapsed.Round(time.Millisecond), r.outBytes)
			if r.failure != "" {
				t.Fatalf("%s\nstderr:\n%s", r.failure, tail(r.stderr, 2000))
			}
			ok := false
			for _, c := range tc.exits {
				ok = ok || c == r.code
			}
			if !ok {
				t.Errorf("exit %d, want one of %v\nstdout:\n%s\nstderr:\n%s", r.code, tc.exits, tail(r.stdout, 2000), tail(r.stderr, 2000))
			}
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout does not say %q:\n%s", want, tail(r.stdout, 2000))
				}
			}
		})
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

type boundedRun struct {
	code     int
	peakMB   int
	elapsed  time.Duration
	stdout   string
	stderr   string
	outBytes int
	failure  string // a ceiling exceeded or a crash
}

// runBounded runs bin with args in one process (no supervisor, so that
// the memory measured is the checker's), killing it past maxMB of resident
// memory (polled), past maxDur, or past maxOut bytes of stdout.
func runBounded(t *testing.T, bin string, args []string, maxMB int, maxDur time.Duration, maxOut int) boundedRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), maxDur)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), noSupervisorEnv+"=1")
	out := &cappedBuffer{max: maxOut}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r boundedRun
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if mb := residentMB(cmd.Process.Pid); mb > maxMB {
					mu.Lock()
					r.failure = fmt.Sprintf("resident memory %d MB exceeds the ceiling of %d MB (killed)", mb, maxMB)
					mu.Unlock()
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	r.elapsed = time.Since(start)
	r.stdout, r.stderr, r.outBytes = out.String(), errb.String(), out.n
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakMB = int(ru.Maxrss / 1024)
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case r.failure != "":
	case ctx.Err() != nil:
		r.failure = fmt.Sprintf("still running after the ceiling of %s (killed)", maxDur)
	case out.n > maxOut:
		r.failure = fmt.Sprintf("more than %d bytes of output", maxOut)
	case r.peakMB > maxMB:
		r.failure = fmt.Sprintf("peak resident memory %d MB exceeds the ceiling of %d MB", r.peakMB, maxMB)
	case strings.Contains(r.stderr, "fatal error:") || strings.Contains(r.stderr, "goroutine ") && strings.Contains(r.stderr, "panic"):
		r.failure = "crashed"
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.code = 0
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return r
}

// residentMB reads a process's resident memory from /proc (0 if unknown).
func residentMB(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb / 1024
		}
	}
	return 0
}

// cappedBuffer keeps the first max bytes written and counts them all.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
	n   int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.n += len(p)
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string { return b.buf.String() }
