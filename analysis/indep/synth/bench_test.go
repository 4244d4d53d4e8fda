package synth

import (
	"context"
	"testing"
)

// BenchmarkPair measures whole syntheses (every query, one solver
// process already started): go test -bench Pair ./analysis/indep/synth/
func BenchmarkPair(b *testing.B) {
	for _, c := range []struct {
		name, src string
		q, r      int
		opts      Options
	}{
		{"ex6", ex6, 0, 1, Options{}},
		{"ex6-int64", ex6, 0, 1, Options{Int64: true}},
		{"pi", "var pi int\nproc term(s int) { atomic { pi = pi + s } }\nthread main { spawn term(1); spawn term(2) }\n", 0, 0, Options{}},
		{"res", resSrc, 0, 0, Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := solver(b)
			prog, blocks := load(b, c.src)
			queries := 0
			for i := 0; i < b.N; i++ {
				res, err := Pair(context.Background(), s, prog, blocks[c.q], blocks[c.r], c.opts)
				if err != nil {
					b.Fatal(err)
				}
				queries = res.Queries
			}
			b.ReportMetric(float64(queries), "queries/op")
		})
	}
}
