package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine"
)

// FuzzExplore runs the whole pipeline (parse, check, lower, explore with
// small budgets) on arbitrary text: whatever the input, nothing panics,
// lowered programs validate, and every bug found reproduces.
func FuzzExplore(f *testing.F) {
	for _, dir := range []string{"../examples", "../benchmarks"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.weft"))
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte(fig1(2)))
	f.Fuzz(func(t *testing.T, src []byte) {
		ld := lower.Load("fuzz.weft", src)
		if ld.Exec == nil {
			return
		}
		for _, algo := range engine.Algorithms {
			// With these budgets no input needs a minute: running out of
			// it is a hang (a runaway exploration), not slowness.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := engine.Explore(ctx, ld.Exec, engine.Options{
				Algorithm: algo, MaxExecutions: 30, MaxSteps: 300, LocalBudget: 20000,
			})
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
			if res.Stopped == "timeout" {
				t.Fatalf("%s: still exploring after a minute with budgets of 30 executions of 300 steps", algo)
			}
			for _, b := range res.Bugs {
				if err := engine.Reproduce(ld.Exec, b); err != nil {
					t.Fatalf("%s: %s bug does not reproduce: %v", algo, b.Kind, err)
				}
			}
		}
	})
}
