package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestRepository: on this module, the race run keeps the packages whose
// tests run code on several goroutines (the language server, the
// debugger, the CLI, replay's FIFO test, the driver, z3) and leaves out
// those whose tests run one (the examples, the interpreter, the
// explorations, the front end), and says which on standard error.
func TestRepository(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"weft/..."}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	kept := make(map[string]bool)
	for _, p := range strings.Fields(out.String()) {
		kept[p] = true
	}
	for _, p := range []string{"weft/lsp", "weft/dap", "weft/cmd/weft", "weft/replay", "weft/engine/internal/driver", "weft/internal/z3", "weft/analysis/indep/synth", "weft/engine"} {
		if !kept[p] {
			t.Errorf("%s is left out of the race run", p)
		}
	}
	for _, p := range []string{"weft/examples", "weft/engine/interp", "weft/engine/internal/unfolding", "weft/engine/internal/stateful", "weft/grammar", "weft/analysis"} {
		if kept[p] {
			t.Errorf("%s is kept in the race run, though its tests run one goroutine", p)
		}
		if !strings.Contains(errOut.String(), " "+p+" ") && !strings.HasSuffix(strings.TrimSpace(errOut.String()), " "+p) {
			t.Errorf("standard error does not say %s is left out: %s", p, errOut.String())
		}
	}
}
