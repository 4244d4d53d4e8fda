//go:build unix

package main

import (
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
