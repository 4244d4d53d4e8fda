package grammar

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/source"
)

// fuzzSeeds adds the sources of the golden parse cases, the examples and a
// few awkward inputs to f's corpus.
func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.txtar"))
	for _, name := range files {
		if ar, err := txtar.ParseFile(name); err == nil {
			if src := txtarSection(ar, "src.weft"); src != nil {
				f.Add(src)
			}
		}
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.weft"))
	for _, name := range examples {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		"", "\n", "x", "0..N", "\"", "/*", "/**/", "//", "\xff", "\uFEFF", "é😀",
		"thread t {", "thread t { x = a[(1 + ", "}}}}", "{{{{", "((((", "a[[[[",
		"var a [2][2]int = {{1, 2}, {3", "proc p(a int, b", "spawn p(", "x := 1",
		"if x { } else", "for i in 0..", "thread t[i in", "const = ", "\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	// Some shapes of nesting just past the limit (not all: checking
	// positions on their long lines is slow), and a long else-if chain,
	// for the mutator to cut and splice.
	for _, sh := range nestShapes {
		switch sh.name {
		case "sum", "index chain", "right-nested sum", "ifs":
			f.Add([]byte(sh.build(MaxNesting + 1)))
		}
	}
	f.Add(longElseIf(1000))
}

// FuzzScan: the scanner never panics and terminates; its tokens are in
// order, do not overlap, have consistent positions and texts, and end with
// EOF at the end of the input.
//
//	go test ./grammar -run XXX -fuzz FuzzScan -fuzztime 5m -parallel 1
func FuzzScan(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s := NewScanner(src)
		var toks []Token
		// Every token but an inserted semicolon consumes at least one
		// byte, and at most one semicolon is inserted per other token.
		limit := 2*len(src) + 4
		for {
			tok := s.Next()
			toks = append(toks, tok)
			if tok.Kind == EOF {
				break
			}
			if len(toks) > limit {
				t.Fatalf("no EOF after %d tokens", len(toks))
			}
		}
		checkTokenList(t, src, toks)
		sf := source.NewFile("", src)
		for _, d := range s.Errors() {
			if !posConsistent(sf, d.Range.Start) || !posConsistent(sf, d.Range.End) ||
				d.Range.End.Offset < d.Range.Start.Offset || d.Code == "" || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
	})
}

// FuzzParse: the parser never panics; required children are present; all
// node positions are valid, consistent and inside [0, len(src)], children
// inside their parents; every diagnostic has a valid range, and there is
// at most one per line.
//
//	go test ./grammar -run XXX -fuzz FuzzParse -fuzztime 5m -parallel 1
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := ParseFile("fuzz.weft", src)
		checkParseTree(t, src, file, diags)
		lines := map[int]bool{}
		for _, d := range diags {
			if lines[d.Range.Start.Line] {
				t.Fatalf("two errors on line %d: %v", d.Range.Start.Line+1, diags)
			}
			lines[d.Range.Start.Line] = true
		}
	})
}
