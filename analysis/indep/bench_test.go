package indep

import (
	"context"
	"testing"
	"weft/analysis/internal/benchmodel"

	"weft/analysis/access"
	"weft/analysis/lower"
)

// BenchmarkAnalyze1000 is Analyze on a 1,000-line model, the access
// summary excluded: what the language server adds per snapshot.
func BenchmarkAnalyze1000(b *testing.B) {
	ld := lower.Load("bench.weft", []byte(benchmodel.Generate(1000)))
	if ld.Exec == nil {
		b.Fatal(ld.Diagnostics)
	}
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(context.Background(), ld.Program, ld.Exec, sum, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
