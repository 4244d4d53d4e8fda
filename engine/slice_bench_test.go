package engine_test

import (
	"context"
	"testing"

	"weft/engine"
)

// BenchmarkSlicing: what slicing every bug as it is found costs an
// exploration that finds its bugs over and over (fig1_racy in dfs: a race
// or the assertion in most of its executions), against FullTraces.
func BenchmarkSlicing(b *testing.B) {
	prog := load(b, "fig1_racy", readExampleB(b, "fig1_racy.weft"))
	for _, full := range []bool{true, false} {
		name := "sliced"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if _, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, FullTraces: full}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
