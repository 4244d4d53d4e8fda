package query

import (
	"strings"
	"testing"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// FuzzQueries runs every query on any text, at the start, the end and a
// dozen positions in between (both sides of every marker byte the
// mutator may place): none panics, and every answer is well formed:
// ranges inside the file with the lines and UTF-16 columns of their
// offsets, tokens on one line each and in order without overlap, folds
// that end after they start, edits in order without overlap. Seeds: the
// analysis's golden sources, the examples, the golden models here and
// some half-typed text.
//
//	go test ./analysis/query -run XXX -fuzz FuzzQueries -fuzztime 5m -parallel 1
func FuzzQueries(f *testing.F) {
	for _, src := range corpus(f) {
		f.Add(string(src))
	}
	for _, s := range []string{
		"", "\n", "‸", "thread t {", "thread t { x = co", "thread t { spawn p(1, ",
		"proc p(a int, b", "var a [2][2]int = {{1, 2}, {3", "thread w[i in 0..",
		"thread t { if x { } else ", "/* 😀\n é */ thread t { var größe int = 1; größe = größe }",
		"const N = 2\r\nthread t {\r\n    // a\r\n    // b\r\n    lock(\r\n", "\uFEFFvar x int\n",
		generateModelString(40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		src := source.NewFile("fuzz.weft", []byte(text))
		file, _ := grammar.ParseFile("fuzz.weft", src.Text)
		prog := analysis.Check(file)
		runAll(t, src, file, prog)
	})
}

func generateModelString(lines int) string { return string(generateModel(lines)) }

// runAll runs every query at a few positions of src and checks the
// answers' shape.
func runAll(t *testing.T, src *source.File, file *grammar.File, prog *analysis.Program) {
	n := len(src.Text)
	offsets := []int{0, n}
	for i := 1; i < 12; i++ {
		offsets = append(offsets, n*i/12)
	}
	for i := 0; i < n && len(offsets) < 40; i++ {
		if c := src.Text[i]; c == '(' || c == ',' || c == '.' || c == '=' || c == '{' {
			offsets = append(offsets, i, i+1)
		}
	}
	whole := source.Range{Start: src.Pos(0), End: src.Pos(n)}

	var last source.Range
	for i, tok := range SemanticTokens(src, prog) {
		checkRange(t, src, tok.Range)
		if tok.Range.Start.Line != tok.Range.End.Line || tok.Range.End.Offset == tok.Range.Start.Offset {
			t.Fatalf("token %s spans lines or is empty", tok.Range)
		}
		if i > 0 && tok.Range.Start.Offset < last.End.Offset {
			t.Fatalf("token %s overlaps or precedes %s", tok.Range, last)
		}
		if tok.Type >= numTokenTypes {
			t.Fatalf("token type %d", tok.Type)
		}
		last = tok.Range
	}
	var checkSymbols func([]Symbol)
	checkSymbols = func(syms []Symbol) {
		for _, s := range syms {
			checkRange(t, src, s.Range)
			checkRange(t, src, s.SelectionRange)
			if s.Name == "" || s.Kind == 0 {
				t.Fatalf("symbol %+v has no name or kind", s)
			}
			if s.SelectionRange.Start.Offset < s.Range.Start.Offset || s.SelectionRange.End.Offset > s.Range.End.Offset {
				t.Fatalf("symbol %s: selection %s outside %s", s.Name, s.SelectionRange, s.Range)
			}
			checkSymbols(s.Children)
		}
	}
	checkSymbols(Symbols(prog))
	for _, fold := range FoldingRanges(src, file) {
		if fold.EndLine <= fold.StartLine || fold.StartLine < 0 || fold.EndLine >= src.LineCount() {
			t.Fatalf("fold %+v in %d lines", fold, src.LineCount())
		}
	}
	for _, h := range InlayHints(prog, whole) {
		checkRange(t, src, source.Range{Start: h.Pos, End: h.Pos})
		if h.Label == "" {
			t.Fatalf("empty hint at %s", h.Pos)
		}
	}

	for _, off := range offsets {
		pos := src.Pos(off)
		if r, ok := Definition(prog, pos); ok {
			checkRange(t, src, r)
		}
		for _, r := range References(prog, pos, true) {
			checkRange(t, src, r)
		}
		for _, h := range Highlights(prog, pos) {
			checkRange(t, src, h.Range)
		}
		if r, _, err := PrepareRename(src, prog, pos); err == nil {
			checkRange(t, src, r)
			edits, err := Rename(src, prog, pos, "renamed_ü")
			for i, e := range edits {
				checkRange(t, src, e.Range)
				if i > 0 && e.Range.Start.Offset < edits[i-1].Range.End.Offset {
					t.Fatalf("edits out of order: %v", edits)
				}
			}
			if err != nil && !strings.Contains(err.Error(), "renamed_ü") {
				t.Fatalf("rename error %q does not name the new name", err)
			}
		}
		items, replace := Complete(src, prog, pos)
		checkRange(t, src, replace)
		if replace.End.Offset != off {
			t.Fatalf("replace range %s does not end at the cursor %d", replace, off)
		}
		for _, it := range items {
			if it.Label == "" || it.Kind == 0 {
				t.Fatalf("completion %+v", it)
			}
		}
		if sig, ok := SignatureHelp(src, prog, pos); ok {
			units := len(utf16Units(sig.Label))
			for _, p := range sig.Params {
				if p.Start < 0 || p.End > units || p.Start > p.End {
					t.Fatalf("parameter %+v outside %q", p, sig.Label)
				}
			}
		}
		for _, h := range InlayHints(prog, source.Range{Start: pos, End: pos}) {
			if h.Pos.Offset != off {
				t.Fatalf("hint at %s outside the range %s", h.Pos, pos)
			}
		}
	}
}

// TestNilInputs: every query answers nothing, without panicking, when it
// is given nothing.
func TestNilInputs(t *testing.T) {
	var pos source.Pos
	if _, ok := Definition(nil, pos); ok {
		t.Error("Definition(nil)")
	}
	empty := &analysis.Program{}
	for _, prog := range []*analysis.Program{nil, empty} {
		if References(prog, pos, true) != nil || Highlights(prog, pos) != nil || Symbols(prog) != nil ||
			InlayHints(prog, source.Range{}) != nil {
			t.Error("a query on an empty program found something")
		}
		if _, _, err := PrepareRename(nil, prog, pos); err == nil {
			t.Error("PrepareRename(nil)")
		}
		if items, _ := Complete(nil, prog, pos); items != nil {
			t.Error("Complete(nil)")
		}
		if _, ok := SignatureHelp(nil, prog, pos); ok {
			t.Error("SignatureHelp(nil)")
		}
		if SemanticTokens(nil, prog) != nil || FoldingRanges(nil, nil) != nil {
			t.Error("tokens or folds of nothing")
		}
	}
	// A text with a Program checked from nothing: the text alone.
	src := source.NewFile("x.weft", []byte("thread t { x = 1 }\n"))
	if toks := SemanticTokens(src, analysis.Check(nil)); len(toks) == 0 {
		t.Error("no lexical tokens without a tree")
	}
	if items, _ := Complete(src, analysis.Check(nil), src.Pos(11)); len(items) == 0 {
		t.Error("no keywords without a tree")
	}
}
