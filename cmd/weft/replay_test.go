//go:build unix

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// weft replay --trace refuses what is not a regular file at once: a
// FIFO blocked it until a writer came, /dev/zero read 256 MB first.
func TestReplayTraceNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "named pipe"},
		{"/dev/zero", "device"},
		{t.TempDir(), "is a directory"},
	} {
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errs := runCLI(t, "replay", "../../examples/lost_update.weft", "--trace", c.path)
			done <- result{code, errs}
		}()
		select {
		case r := <-done:
			if r.code != exitUsage || !strings.Contains(r.errs, c.want) {
				t.Errorf("--trace %s: exit %d: %s, want %d saying %q", c.path, r.code, r.errs, exitUsage, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("--trace %s: no answer in 5 s", c.path)
		}
	}
}

// Every command that reads a model refuses what is not a regular file at
// once: weft check FIFO waited for a writer that never came.
func TestModelNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "model.weft")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for _, cmd := range [][]string{{"check"}, {"replay", "--schedule", "0"}, {"fmt"}, {"ics"}} {
		for _, c := range []struct{ path, want string }{
			{fifo, "named pipe"},
			{"/dev/zero", "device"},
		} {
			args := append([]string{cmd[0], c.path}, cmd[1:]...)
			done := make(chan string, 1)
			go func() {
				code, out, errs := runCLI(t, args...)
				if code != exitUsage || !strings.Contains(out+errs, c.want) {
					done <- fmt.Sprintf("exit %d: %s%s, want %d saying %q", code, out, errs, exitUsage, c.want)
					return
				}
				done <- ""
			}()
			select {
			case msg := <-done:
				if msg != "" {
					t.Errorf("weft %s: %s", strings.Join(args, " "), msg)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("weft %s: no answer in 5 s", strings.Join(args, " "))
			}
		}
	}
}

// TestReplaySaysKindOnce: the bug's kind is said once on the replay's
// first and last lines: a deadlock's message starts with "deadlock:", and
// "reproduced: deadlock: deadlock: …" said it twice.
func TestReplaySaysKindOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"found", []string{"replay", "../../examples/philosophers_deadlock.weft"},
			[]string{"replaying deadlock: phil[0] waits", "\nreproduced: deadlock: phil[0] waits"}},
		{"schedule", []string{"replay", "../../examples/philosophers_deadlock.weft", "--schedule", "0,1,2"},
			[]string{"\nreproduced: deadlock: every thread left is blocked"}},
		{"race", []string{"replay", "../../examples/fig1_racy.weft"},
			[]string{"\nreproduced: data-race: data race on "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != exitBug {
				t.Fatalf("exit %d, want %d\n%s", code, exitBug, errs)
			}
			if strings.Contains(out, "deadlock: deadlock:") {
				t.Errorf("the kind is said twice:\n%s", tail(out, 400))
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, tail(out, 400))
				}
			}
		})
	}
}
