package query

import (
	"fmt"
	"strings"
	"testing"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// generateModel writes a clean model of about lines lines: constants,
// shared variables of every kind, procs with parameters, thread arrays
// and single threads with nested blocks, comments of both kinds.
func generateModel(lines int) []byte {
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	line("// A generated model for the editor queries.")
	line("const N = 4")
	line("const M = N * 2 + 1")
	line("var data [N][M]int")
	line("var total atomic int")
	line("var locks [N]mutex")
	line("var big mutex")
	line("var init [3]int = {")
	line("    1, 2,")
	line("    3,")
	line("}")
	line("proc helper(k int, up bool) {")
	line("    var acc int = k")
	line("    if up {")
	line("        acc = acc + 1")
	line("    }")
	line("    lock(locks[k %% N])")
	line("    data[k %% N][0] += acc")
	line("    unlock(locks[k %% N])")
	line("}")
	for t := 0; n < lines; t++ {
		line("/* thread %d:", t)
		line("   does its share */")
		if t%2 == 0 {
			line("thread worker%d[w in 0..N] {", t)
		} else {
			line("thread single%d {", t)
			line("    var w int = %d %% N", t)
		}
		line("    var sum int")
		line("    var h tid = spawn helper(w, true)")
		line("    // the main loop")
		line("    // over every column")
		line("    for i in 0..M {")
		line("        lock(locks[w])")
		line("        data[w][i] = data[w][i] + i * %d - sum", t%5+1)
		line("        sum += data[w][i]")
		line("        unlock(locks[w])")
		line("        if sum > 100 {")
		line("            break")
		line("        } else if sum < 0 {")
		line("            continue")
		line("        }")
		line("    }")
		line("    atomic {")
		line("        total += sum + init[w %% 3]")
		line("    }")
		line("    join h")
		line("    lock(big)")
		line("    assert total >= 0, \"invariant %d\"", t)
		line("    unlock(big)")
		line("}")
	}
	return []byte(b.String())
}

func TestGeneratedModelIsClean(t *testing.T) {
	src := generateModel(1000)
	file, perrs := grammar.ParseFile("gen.weft", src)
	prog := analysis.Check(file)
	if len(perrs) > 0 || prog.HasErrors() {
		t.Fatalf("%v %v", perrs, prog.Diagnostics)
	}
}

// BenchmarkQueries runs every query on a generated 1,000-line model, at
// positions in its last thread (on a shared variable inside a loop, on a
// local, in a spawn's arguments).
//
//	go test ./analysis/query -run XXX -bench Queries -benchtime 20x
func BenchmarkQueries(b *testing.B) {
	text := generateModel(1000)
	src := source.NewFile("gen.weft", text)
	file, _ := grammar.ParseFile("gen.weft", text)
	prog := analysis.Check(file)
	// Positions in the last thread, where the queries that read the
	// tokens before the cursor do the most work.
	last := strings.LastIndex(string(text), "data[w][i] = ")
	at := src.Pos(last + 1)
	local := src.Pos(strings.Index(string(text[last:]), "sum") + last + 1)
	call := strings.LastIndex(string(text), "helper(w, ") + len("helper(w, ")
	spawn := src.Pos(call)
	whole := source.Range{Start: src.Pos(0), End: src.Pos(len(text))}
	if !strings.Contains(string(text[at.Offset-1:at.Offset+4]), "data") {
		b.Fatal("position not on data")
	}
	if lines := src.LineCount(); lines < 1000 || lines > 1030 {
		b.Fatalf("%d lines", lines)
	}
	for _, q := range []struct {
		name string
		run  func() int
	}{
		{"Definition", func() int { _, ok := Definition(prog, at); return btoi(ok) }},
		{"References", func() int { return len(References(prog, at, true)) }},
		{"Highlights", func() int { return len(Highlights(prog, local)) }},
		{"PrepareRename", func() int { _, _, err := PrepareRename(src, prog, local); return btoi(err == nil) }},
		{"RenameLocal", func() int { e, _ := Rename(src, prog, local, "acc2"); return len(e) }},
		{"RenameShared", func() int { e, _ := Rename(src, prog, at, "table"); return len(e) }},
		{"Symbols", func() int { return len(Symbols(prog)) }},
		{"SemanticTokens", func() int { return len(SemanticTokens(src, prog)) }},
		{"FoldingRanges", func() int { return len(FoldingRanges(src, file)) }},
		{"Complete", func() int { c, _ := Complete(src, prog, at); return len(c) }},
		{"SignatureHelp", func() int { _, ok := SignatureHelp(src, prog, spawn); return btoi(ok) }},
		{"InlayHints", func() int { return len(InlayHints(prog, whole)) }},
	} {
		b.Run(q.name, func(b *testing.B) {
			if q.run() == 0 {
				b.Fatalf("%s found nothing", q.name)
			}
			for b.Loop() {
				q.run()
			}
		})
	}
}

func btoi(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
