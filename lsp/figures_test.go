//go:build linux

package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
)

// TestFigures measures the language server's figures (the issue's
// "Figures for the closing note"), through the subprocess server as an
// editor sees it. It runs only when asked:
//
//	WEFT_LSP_FIGURES=1 go test ./lsp -run TestFigures -v
//
// and prints, each with how it was measured:
//   - syntax-diagnostics latency after an edit of a 1,000-line model;
//   - time from didOpen to the first bug diagnostic of three examples;
//   - time from an edit to the cancellation of a running exploration;
//   - the server's CPU while idle after a verification;
//   - its RSS after the soak test's 10,000 edits.
//
// It fails only if something it waits for never comes; the figures are
// for people to read.
func TestFigures(t *testing.T) {
	if os.Getenv("WEFT_LSP_FIGURES") == "" {
		t.Skip("set WEFT_LSP_FIGURES=1 to measure the language server's figures")
	}
	t.Run("diagnostics latency", figureDiagnosticsLatency)
	t.Run("first bug", figureFirstBug)
	t.Run("cancellation", figureCancellation)
	t.Run("idle CPU", figureIdleCPU)
	t.Run("RSS after the soak", func(t *testing.T) {
		c := startServer(t, map[string]any{"idleDelayMs": 100, "quickBudgetMs": 500})
		rss := soak(t, c, soakEdits, rand.New(rand.NewPCG(1, 2)))
		t.Logf("FIGURE RSS after the soak (%d random edits): %d MB (before the edits %d MB; peak VmHWM %d MB)",
			soakEdits, rss.after>>10, rss.before>>10, rss.peak>>10)
	})
}

// thousandLines is a valid model of 1,000 lines: threads of 19 lines
// under a header, and comments to make up the count.
func thousandLines() string {
	var b strings.Builder
	b.WriteString("// A model of 1,000 lines for the latency figure.\nvar m mutex\nvar total int\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "var a%d int\n", i)
	}
	for i := 0; ; i++ {
		block := fmt.Sprintf(`
thread t%d {
    // the %d-th worker
    lock(m)
    a%d = a%d + 1
    total = total + a%d
    assert total < 1000000, "the total stays small"
    unlock(m)
    if a%d > 3 {
        a%d = 0
    }
    for j in 0..2 {
        lock(m)
        total = total - j
        unlock(m)
    }
    var k int
    k = a%d * 2
    a%d = k - a%d
}
`, i, i, i, i, i, i, i, i, i, i)
		if strings.Count(b.String()+block, "\n") > 1000 {
			break
		}
		b.WriteString(block)
	}
	for n := strings.Count(b.String(), "\n"); n < 1000; n++ {
		b.WriteString("// padding\n")
	}
	return b.String()
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// Syntax-diagnostics latency: 200 edits of a 1,000-line model, alternately
// typing a stray character into a statement (a syntax error) and deleting
// it; each time from just before didChange is written to the arrival of
// the publishDiagnostics of that version. The next edit waits for it.
func figureDiagnosticsLatency(t *testing.T) {
	c := startServer(t, nil) // the default settings: checks wait 300 ms of quiet
	text := thousandLines()
	if n := strings.Count(text, "\n"); n != 1000 {
		t.Fatalf("the model has %d lines", n)
	}
	u := c.open("thousand.weft", text)
	c.waitFor("clean diagnostics", 10*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 1 && len(p.diags) == 0
	})
	rng := rand.New(rand.NewPCG(3, 4))
	lines := strings.Split(text, "\n")
	var lat []time.Duration
	version := int32(1)
	var errorsSeen int
	for i := 0; i < 200; i++ {
		// Line l holds `    lock(m)` etc.; insert "@" at column 4, then remove it.
		l := 60 + rng.IntN(900)
		for !strings.HasPrefix(lines[l], "    ") {
			l++
		}
		version++
		start := time.Now()
		c.change(u, version, partial(uint32(l), 4, uint32(l), 4, "@"))
		lat = append(lat, waitVersion(c, u, version, start))
		errorsSeen += diagCount(c, u)
		version++
		start = time.Now()
		c.change(u, version, partial(uint32(l), 4, uint32(l), 5, ""))
		lat = append(lat, waitVersion(c, u, version, start))
		if n := diagCount(c, u); n != 0 {
			t.Fatalf("version %d, the fix, has %d diagnostics", version, n)
		}
		if len(lat) >= 200 {
			break
		}
	}
	if errorsSeen == 0 {
		t.Fatalf("the stray characters made no diagnostics")
	}
	t.Logf("FIGURE syntax-diagnostics latency, 1,000-line model, %d edits (half make a syntax error, half fix it), didChange → publishDiagnostics of that version: p50 %v, p95 %v, max %v",
		len(lat), percentile(lat, 0.5).Round(10*time.Microsecond), percentile(lat, 0.95).Round(10*time.Microsecond), percentile(lat, 1).Round(10*time.Microsecond))
}

// waitVersion waits for the diagnostics of version and returns how long
// after start they arrived (as the client's reader timed them).
func waitVersion(c *testClient, u uri.URI, version int32, start time.Time) time.Duration {
	c.waitFor(fmt.Sprintf("diagnostics of version %d", version), 10*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == version
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.diags {
		if p.uri == u && p.version == version {
			return p.at.Sub(start)
		}
	}
	panic("unreachable")
}

func diagCount(c *testClient, u uri.URI) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, _ := c.latestDiags(u)
	return len(p.diags)
}

// Time from didOpen to the first bug diagnostic, with the default settings
// (the check starts after the 300 ms quiet period, so that is in the
// figure) and with no quiet period; 5 opens each (a new document each
// time, in one server), the median and the slowest.
func figureFirstBug(t *testing.T) {
	for _, idle := range []int{300, 0} {
		c := startServer(t, map[string]any{"idleDelayMs": idle})
		for _, name := range []string{"fig1_racy.weft", "philosophers_deadlock.weft", "lost_update.weft"} {
			text, err := os.ReadFile(filepath.Join("..", "examples", name))
			if err != nil {
				t.Fatal(err)
			}
			var ds []time.Duration
			var first string
			for run := 0; run < 5; run++ {
				start := time.Now()
				u := c.open(fmt.Sprintf("%d-%s", run, name), string(text))
				var code string
				c.waitFor("a bug diagnostic of "+name, 30*time.Second, func() bool {
					p, ok := c.latestDiags(u)
					for _, d := range p.diags {
						if k := codeOf(d); ok && isBugCode(k) {
							code = k
							return true
						}
					}
					return false
				})
				c.mu.Lock()
				for _, p := range c.diags {
					if p.uri == u && hasBug(p) {
						ds = append(ds, p.at.Sub(start))
						break
					}
				}
				c.mu.Unlock()
				first = code
				closeDoc(t, c, u)
			}
			t.Logf("FIGURE didOpen → first bug diagnostic, %s, idleDelayMs %d: median %v, max %v (5 opens; first bug: %s)",
				name, idle, percentile(ds, 0.5).Round(100*time.Microsecond), percentile(ds, 1).Round(100*time.Microsecond), first)
		}
	}
}

func isBugCode(code string) bool { return engine.IsBugKind(code) }

func hasBug(p pubDiags) bool {
	for _, d := range p.diags {
		if isBugCode(codeOf(d)) {
			return true
		}
	}
	return false
}

// cpuNanos is the CPU time the process has used, in nanoseconds: the sum
// of its threads' schedstat (nanosecond resolution, where /proc/PID/stat
// counts 10 ms ticks).
func cpuNanos(t testing.TB, pid int) int64 {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading the server's threads: %v", err)
	}
	var sum int64
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		sum += n
	}
	return sum
}

// cpuTicksMs is utime+stime of /proc/PID/stat in milliseconds.
func cpuTicksMs(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return (utime + stime) * 10 // USER_HZ is 100 on Linux
}

// Time from an edit to the cancellation of a running exploration: a model
// whose check runs for minutes is open, its check is running (status
// checking, executions > 0, and the server used over half a core in the
// 50 ms before); an edit (a comment line at the top) arrives. Two
// figures, from just before the didChange is written:
//   - "stopped": the diagnostics of the new version arrive. The document's
//     worker analyses the new text only once the old exploration has
//     returned (it runs the exploration itself), so this is the time for
//     the exploration to see the cancellation and return, plus the
//     analysis of the new text and one message.
//   - "off the CPU", from outside: the server's CPU time (its threads'
//     schedstat) sampled every millisecond until a 20 ms window in which
//     it used under 2 ms; the figure is the end of the last 1 ms interval
//     before that window in which it was on the CPU over half the time (0:
//     none after the edit), and the CPU time it used from the edit to that
//     window. The kernel updates schedstat of a running thread at its
//     ticks (CONFIG_HZ=250 here: 4 ms), so this only corroborates the
//     first figure to within a tick.
//
// The quiet period is 1 s, so the new version's check has not started by
// then. 5 edits, each once the previous version's check is running.
func figureCancellation(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 1000, "maxConcurrent": 1})
	pid := c.cmd.Process.Pid
	u := c.open("slow.weft", slowModel)
	var ack, stop, spent []time.Duration
	for v := int32(1); v <= 5; v++ {
		c.waitFor(fmt.Sprintf("version %d checking", v), 20*time.Second, func() bool {
			st, ok := c.latestStatus(u)
			return ok && st.Version == v && st.State == stateChecking && !st.Waiting && st.Executions > 0
		})
		busy := cpuNanos(t, pid)
		time.Sleep(50 * time.Millisecond)
		if used := cpuNanos(t, pid) - busy; used < int64(25*time.Millisecond) {
			t.Fatalf("the server used only %v of CPU in 50 ms while checking", time.Duration(used))
		}
		type sample struct {
			at  time.Time
			cpu int64
		}
		samples := []sample{{time.Now(), cpuNanos(t, pid)}}
		start := samples[0].at
		c.change(u, v+1, partial(0, 0, 0, 0, "// edit\n"))
		// Sample the CPU every millisecond until a quiet 20 ms window.
		quiet := -1
		for time.Since(start) < 900*time.Millisecond && quiet < 0 {
			time.Sleep(time.Millisecond)
			samples = append(samples, sample{time.Now(), cpuNanos(t, pid)})
			last := samples[len(samples)-1]
			for i := len(samples) - 2; i >= 0; i-- {
				if last.at.Sub(samples[i].at) >= 20*time.Millisecond {
					if last.cpu-samples[i].cpu < int64(2*time.Millisecond) {
						quiet = i
					}
					break
				}
			}
		}
		if quiet < 0 {
			t.Errorf("edit %d: the server still used the CPU 900 ms after the edit", v)
		} else {
			// The end of the last busy interval (over half its time on the
			// CPU) before the quiet window.
			stopped := time.Duration(0)
			for k := 1; k <= quiet; k++ {
				if d := samples[k].at.Sub(samples[k-1].at); samples[k].cpu-samples[k-1].cpu > int64(d/2) {
					stopped = samples[k].at.Sub(start)
				}
			}
			stop = append(stop, stopped)
			spent = append(spent, time.Duration(samples[quiet].cpu-samples[0].cpu))
		}
		next := v + 1
		c.waitFor(fmt.Sprintf("a status of version %d", next), 5*time.Second, func() bool {
			st, ok := c.latestStatus(u)
			return ok && st.Version == next
		})
		// The client does not stamp statuses; the analysis publishes the
		// new version's diagnostics just before its first status: take
		// their arrival.
		c.mu.Lock()
		for _, p := range c.diags {
			if p.uri == u && p.version == next {
				ack = append(ack, p.at.Sub(start))
				break
			}
		}
		c.mu.Unlock()
	}
	if len(stop) == 0 || len(ack) == 0 {
		t.Fatalf("nothing measured")
	}
	t.Logf("FIGURE edit → cancellation of a running exploration (%d edits of a model whose check runs for minutes): stopped (the old exploration returned and the new version's diagnostics arrived) median %v, max %v; off the CPU (end of the last busy 1 ms interval; schedstat moves in 4 ms ticks) median %v, max %v; CPU the server used from the edit to the quiet window: median %v, max %v",
		len(stop), percentile(ack, 0.5).Round(10*time.Microsecond), percentile(ack, 1).Round(10*time.Microsecond),
		percentile(stop, 0.5).Round(10*time.Microsecond), percentile(stop, 1).Round(10*time.Microsecond),
		percentile(spent, 0.5).Round(10*time.Microsecond), percentile(spent, 1).Round(10*time.Microsecond))
}

// Idle CPU after a verification: a model verified by the quick check
// (status verified), then 5 s without any message; the server's CPU over
// those 5 s, from the threads' schedstat and from utime+stime.
func figureIdleCPU(t *testing.T) {
	c := startServer(t, nil)
	pid := c.cmd.Process.Pid
	u := c.open("fixed.weft", lostUpdateFixed)
	c.waitFor("verified", 20*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateVerified
	})
	time.Sleep(100 * time.Millisecond) // the last messages go out
	n0, t0 := cpuNanos(t, pid), cpuTicksMs(t, pid)
	start := time.Now()
	time.Sleep(5 * time.Second)
	n1, t1 := cpuNanos(t, pid), cpuTicksMs(t, pid)
	elapsed := time.Since(start)
	used := time.Duration(n1 - n0)
	t.Logf("FIGURE idle CPU over %v after \"verified\": %v of CPU (%.3f%% of one core; utime+stime: %d ms)",
		elapsed.Round(time.Millisecond), used.Round(time.Microsecond), 100*float64(used)/float64(elapsed), t1-t0)
}

func closeDoc(t *testing.T, c *testClient, u uri.URI) {
	t.Helper()
	if err := c.server.DidClose(t.Context(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
}
