package synth

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"weft/analysis"
	"weft/grammar"
)

// TestCorpus runs every pair of atomic blocks of the examples and the
// benchmarks: no error, and every condition found is sufficient on random
// states (checked by the concrete interpreter of the tests).
func TestCorpus(t *testing.T) {
	s := solver(t)
	var files []string
	for _, dir := range []string{"../../../examples", "../../../benchmarks"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.weft"))
		files = append(files, m...)
	}
	rng := rand.New(rand.NewSource(1))
	pairs, supported, conds := 0, 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, _ := grammar.ParseFile(f, src)
		prog := analysis.Check(file)
		if prog.HasErrors() {
			continue
		}
		var blocks []*grammar.AtomicStmt
		grammar.Inspect(file, func(n grammar.Node) bool {
			if a, ok := n.(*grammar.AtomicStmt); ok {
				blocks = append(blocks, a)
			}
			return true
		})
		if len(blocks) > 12 {
			blocks = blocks[:12]
		}
		for _, q := range blocks {
			for _, r := range blocks {
				pairs++
				res, err := Pair(context.Background(), s, prog, q, r, Options{})
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if res.Unsupported != "" {
					continue
				}
				supported++
				conds += len(res.Conds)
				names := map[string]bool{}
				for side, b := range []*grammar.AtomicStmt{q, r} {
					collectNames(prog, b.Body, side, names)
				}
				for i := 0; i < 300; i++ {
					st := env{}
					for n, isBool := range names {
						if isBool {
							st[n] = rng.Int63n(2)
						} else {
							st[n] = rng.Int63n(7) - 3
						}
					}
					var keep []string
					for n := range names {
						keep = append(keep, n)
					}
					com := commutes(prog, q, r, st, keep)
					for _, e := range res.Conds {
						if eval(e, st) != 0 && !com {
							t.Errorf("%s: %s holds in %v but the blocks do not commute", f, show(e), st)
						}
					}
				}
			}
		}
	}
	t.Logf("%d files, %d pairs, %d supported, %d conditions", len(files), pairs, supported, conds)
}

// collectNames adds the env names of the variables a block mentions
// (bools marked), block-scoped ones included (harmless: they are
// overwritten before being read).
func collectNames(prog *analysis.Program, b *grammar.Block, side int, names map[string]bool) {
	grammar.Inspect(b, func(n grammar.Node) bool {
		switch x := n.(type) {
		case *grammar.IndexExpr:
			o := prog.RootOf(x)
			cv, ok := prog.ConstValues[x.Index]
			if o != nil && ok && cv.IsInt() {
				name := o.Name + "[" + strconv.FormatInt(cv.Int(), 10) + "]"
				if o.Kind != analysis.SharedVar {
					name += "#" + strconv.Itoa(side)
				}
				names[name] = analysis.ScalarOf(o.Type) == analysis.Bool
			}
			return false
		case *grammar.Ident:
			o := prog.Uses[x]
			if o == nil {
				return true
			}
			switch o.Kind {
			case analysis.SharedVar:
				names[o.Name] = o.Type == analysis.Bool
			case analysis.LocalVar, analysis.Param, analysis.LoopVar, analysis.ThreadIndex:
				names[o.Name+"#"+strconv.Itoa(side)] = o.Type == analysis.Bool
			}
		}
		return true
	})
}
