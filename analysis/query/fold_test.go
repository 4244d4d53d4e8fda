package query

import (
	"fmt"
	"strings"
	"testing"

	"weft/source"
)

func TestFoldingRanges(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // "start-end kind", 1-based lines
	}{
		{"line comments after code are not a run", "var a int // one\nvar b int // two\nvar c int // three\n", ""},
		{"a run of line comments, then one alone", "// a\n// b\n    // c\nvar x int\n\n// d\nvar y int\n", "1-3 comment"},
		{"a run broken by a blank line", "// a\n// b\n\n// c\n// d\n", "1-2 comment 4-5 comment"},
		{"block comment, and one on a single line", "/* a\n b\n*/\n/* c */\n", "1-3 comment"},
		{"the closing brace stays visible", "thread t {\n    if true {\n        x = 1\n    } else {\n        x = 2\n    }\n}\n",
			"1-6 region 2-3 region 4-5 region"},
		{"a closing brace after code is folded", "thread t {\n    x = 1 }\n", "1-2 region"},
		{"one-line blocks do not fold", "thread t { x = 1 }\nthread u {\n}\n", ""},
		{"initialiser list", "var a [2][2]int = {\n    {1, 2},\n    {3,\n     4}}\n", "1-4 region 3-4 region"},
		{"CRLF line ends", "// a\r\n// b\r\nthread t {\r\n    x = 1\r\n}\r\n", "1-2 comment 3-4 region"},
		{"a body left open", "thread t {\n    x = 1\n    y = 2", "1-3 region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModel(t, tt.text)
			var got []string
			for _, f := range FoldingRanges(m.src, m.file) {
				got = append(got, fmt.Sprintf("%d-%d %s", f.StartLine+1, f.EndLine+1, f.Kind))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

// TestCommentTokens: a multi-line comment gives one token per non-empty
// line, without the \r of CRLF line ends, with UTF-16 columns.
func TestCommentTokens(t *testing.T) {
	text := "x /* 😀 a\r\n\r\n  é b */ y // c\r\n"
	src := source.NewFile("c.weft", []byte(text))
	var got []string
	for _, tok := range SemanticTokens(src, nil) {
		checkRange(t, src, tok.Range)
		got = append(got, fmt.Sprintf("%s %s %q", tok.Range, tok.Type, text[tok.Range.Start.Offset:tok.Range.End.Offset]))
	}
	want := []string{
		`1:3-1:10 comment "/* 😀 a"`,
		`3:1-3:9 comment "  é b */"`,
		`3:12-3:16 comment "// c"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestInlayHintsInRange(t *testing.T) {
	m := parseModel(t, "const N = 2\nconst M = N + 1\nconst L = 5\nthread w[i in 0..«b»M] {\n    var x [«c»M]int\n    x[0] = i\n}\nthread v[i in 0..2] {}\n")
	all := InlayHints(m.prog, source.Range{Start: m.src.Pos(0), End: m.src.Pos(len(m.src.Text))})
	if got := formatHints(all); got != "2:16 \"= 3\" padding-left\n4:21 \"3 instances\" padding-right\n5:17 \"[3]int\" padding-left\n" {
		t.Errorf("all hints:\n%s", got)
	}
	line4 := source.Range{Start: m.pos(t, "b"), End: m.pos(t, "c")}
	if got := formatHints(InlayHints(m.prog, line4)); got != "4:21 \"3 instances\" padding-right\n" {
		t.Errorf("hints of line 4:\n%s", got)
	}
}
