package indep

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"weft/analysis/access"
	"weft/analysis/lower"
)

// FuzzAnalyze runs the whole analysis, its text and every statement's
// Interference on any program that loads: no panic, and every table
// entry compiles to something the engine evaluates without failing on
// a zero state's shape.
func FuzzAnalyze(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	for _, src := range engineModels {
		f.Add([]byte(src))
	}
	for seed := range 5 {
		f.Add([]byte(randomIndepModel(uint64(seed))))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ld := lower.Load("fuzz.weft", src)
		if ld.Exec == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sum, err := access.Analyze(ctx, ld.Program, ld.Exec)
		if err != nil {
			return
		}
		r, err := Analyze(ctx, ld.Program, ld.Exec, sum, Options{})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			t.Fatal(err)
		}
		if err := r.WriteText(discard{}, src); err != nil {
			t.Fatal(err)
		}
		for _, st := range sum.Statements() {
			r.Interference(st, nil)
		}
		mem := make([]int64, len(ld.Exec.Init))
		for _, cs := range r.Constraints().Pairs {
			for _, c := range cs {
				c.Holds(liveState{mem, [2][]int64{make([]int64, 64), make([]int64, 64)}})
			}
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
