//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A report or a model that is not a regular file is refused at once,
// with what it is: a FIFO blocked the open until a writer came, and
// /dev/zero read 256 MB of zeros.
func TestReadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxReportSize + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		name, path, want string
	}{
		{"a FIFO", fifo, "named pipe"},
		{"a character device", "/dev/zero", "device"},
		{"a directory", dir, "is a directory"},
		{"a file over the limit", huge, "limited to"},
		{"no file", filepath.Join(dir, "none.json"), "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.path); c.want != "no such file" && err != nil {
				t.Skipf("%s: %v", c.path, err)
			}
			type result struct {
				err error
			}
			done := make(chan result, 2)
			go func() {
				_, err := ReadReports(c.path)
				done <- result{err}
			}()
			go func() {
				_, err := readFile(c.path, MaxModelSize, "models") // as LoadReport reads the model
				done <- result{err}
			}()
			for range 2 {
				select {
				case r := <-done:
					if r.err == nil || !strings.Contains(r.err.Error(), c.want) {
						t.Errorf("%s: %v, want an error saying %q", c.path, r.err, c.want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s: no answer in 5 s", c.path)
				}
			}
		})
	}
}
