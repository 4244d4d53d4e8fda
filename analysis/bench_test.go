package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/analysis"
	"weft/grammar"
)

// generateModel writes a model of about lines lines: constants, shared
// variables, procs and many threads with varied statements.
func generateModel(lines int) []byte {
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	line("// generated model")
	line("const N = 8")
	line("const M = N * 2 + 1")
	line("var data [N][M]int")
	line("var counters [M]int")
	line("var flags [N]bool")
	line("var total atomic int")
	line("var locks [N]mutex")
	line("var big mutex")
	line("var handles [N]tid")
	line("proc helper(k int, up bool) {")
	line("    var acc int = k")
	line("    if up {")
	line("        acc = acc + 1")
	line("    }")
	line("    lock(locks[k %% N])")
	line("    counters[k %% M] += acc")
	line("    unlock(locks[k %% N])")
	line("}")
	for t := 0; n < lines; t++ {
		if t%3 == 0 {
			line("thread worker%d[w in 0..N] {", t)
		} else {
			line("thread single%d {", t)
			line("    var w int = %d %% N", t)
		}
		line("    var sum int")
		line("    var local [4]int = {1, 2, 3, w}")
		line("    var h tid = spawn helper(w, true)")
		line("    for i in 0..M {")
		line("        lock(locks[w])")
		line("        data[w][i] = data[w][i] + i * %d - (sum / 3) %% 7", t%5+1)
		line("        sum += data[w][i]")
		line("        unlock(locks[w])")
		line("        if sum > 100 && !flags[w] {")
		line("            flags[w] = true")
		line("            break")
		line("        } else if sum < 0 {")
		line("            continue")
		line("        }")
		line("    }")
		line("    while sum > 0 {")
		line("        sum = sum - local[sum %% 4] - 1")
		line("    }")
		line("    atomic {")
		line("        total += sum + local[3]")
		line("        counters[(w + %d) %% M]++", t)
		line("    }")
		line("    join h")
		line("    lock(big)")
		line("    assert total >= 0 || counters[0] != -1, \"invariant %d\"", t)
		line("    unlock(big)")
		line("    assume sum == 0")
		line("}")
	}
	return []byte(b.String())
}

func TestGeneratedModelIsClean(t *testing.T) {
	src := generateModel(5000)
	file, perrs := grammar.ParseFile("gen.weft", src)
	if len(perrs) > 0 {
		t.Fatal(perrs[0])
	}
	prog := analysis.Check(file)
	if len(prog.Diagnostics) > 0 {
		t.Fatal(formatDiags(prog.Diagnostics[:min(5, len(prog.Diagnostics))]))
	}
	if len(prog.Threads) < 500 {
		t.Errorf("%d threads", len(prog.Threads))
	}
}

func BenchmarkCheck5000(b *testing.B) {
	src := generateModel(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		file, _ := grammar.ParseFile("gen.weft", src)
		analysis.Check(file)
	}
}

func BenchmarkCheckOnly5000(b *testing.B) {
	src := generateModel(5000)
	file, _ := grammar.ParseFile("gen.weft", src)
	b.ReportAllocs()
	for b.Loop() {
		analysis.Check(file)
	}
}
