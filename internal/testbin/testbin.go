// Package testbin builds the weft binary for tests that run it as a
// subprocess (the language server, the debug adapter, hostile inputs):
// once per test binary, into a temporary directory that Remove deletes.
// A package declares one Binary and calls Remove from its TestMain.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binary is weft, built on first use.
type Binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Path builds weft (the first time) and returns its path; a failed
// build fails the test.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "weft-test-bin")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "weft")
		if out, err := exec.Command("go", "build", "-o", b.path, "weft/cmd/weft").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build weft/cmd/weft: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Remove deletes the built binary, if any.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
