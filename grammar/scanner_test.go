package grammar

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/source"
)

// renderTokens prints tokens compactly: operators and keywords as themselves,
// IDENT(x), INT(42), STRING("s"), COMMENT(...), ILLEGAL(#); an inserted
// semicolon is "NL", an explicit one ";". The final EOF is left out.
func renderTokens(toks []Token) string {
	var parts []string
	for _, t := range toks {
		switch t.Kind {
		case EOF:
			continue
		case IDENT, INT, STRING, COMMENT, ILLEGAL:
			parts = append(parts, t.Kind.String()+"("+t.Text+")")
		case SEMICOLON:
			if t.Text == "\n" {
				parts = append(parts, "NL")
			} else {
				parts = append(parts, ";")
			}
		default:
			parts = append(parts, t.Kind.String())
		}
	}
	return strings.Join(parts, " ")
}

func TestScanTokens(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", ""},
		{"spaces", " \t\r\n \n", ""},
		{"ident", "abc _x x1 ñandú", "IDENT(abc) IDENT(_x) IDENT(x1) IDENT(ñandú) NL"},
		{"keywords", "const var thread proc spawn join lock unlock assert assume atomic if else while for in",
			"const var thread proc spawn join lock unlock assert assume atomic if else while for in"},
		{"semi keywords", "return\nbreak\ncontinue\ntrue\nfalse\nint\nbool\nmutex\ntid\ncond\n",
			"return NL break NL continue NL true NL false NL int NL bool NL mutex NL tid NL cond NL"},
		{"version 2 keywords", "func trylock wait signal broadcast choose await cond",
			"func trylock wait signal broadcast choose await cond NL"},
		{"no semi after version 2 keywords", "func\ntrylock\nwait\nsignal\nbroadcast\nchoose\nawait\n",
			"func trylock wait signal broadcast choose await"},
		{"ints", "0 42 0x2A 0XfF 9223372036854775807", "INT(0) INT(42) INT(0x2A) INT(0XfF) INT(9223372036854775807) NL"},
		{"range", "0..N", "INT(0) .. IDENT(N) NL"},
		{"range spaced", "lo .. hi", "IDENT(lo) .. IDENT(hi) NL"},
		{"range hex", "0x1..0x2", "INT(0x1) .. INT(0x2) NL"},
		{"operators", "+ - * / % && || ! == != < <= > >= = += -= *= /= %= ++ -- ( ) [ ] { } , ;",
			"+ - * / % && || ! == != < <= > >= = += -= *= /= %= ++ -- ( ) [ ] { } , ;"},
		{"compound no spaces", "a*=b/=c%=d/ /e", "IDENT(a) *= IDENT(b) /= IDENT(c) %= IDENT(d) / / IDENT(e) NL"},
		{"slash before comment", "a/=b//c", "IDENT(a) /= IDENT(b) COMMENT(//c) NL"},
		{"no spaces", "a+=b-1==c&&!d", "IDENT(a) += IDENT(b) - INT(1) == IDENT(c) && ! IDENT(d) NL"},
		{"plusplus", "a+++b", "IDENT(a) ++ + IDENT(b) NL"},
		{"string", `"a\"b\\c\n"`, `STRING("a\"b\\c\n") NL`},
		{"line comment", "x // hi\ny", "IDENT(x) COMMENT(// hi) NL IDENT(y) NL"},
		{"line comment crlf", "x // hi\r\ny", "IDENT(x) COMMENT(// hi) NL IDENT(y) NL"},
		{"block comment", "x /* a */ y", "IDENT(x) COMMENT(/* a */) IDENT(y) NL"},
		{"block comment newline", "x /* a\n */ y", "IDENT(x) COMMENT(/* a\n */) NL IDENT(y) NL"},
		{"block comment newline no semi", "x = /* a\n */ y", "IDENT(x) = COMMENT(/* a\n */) IDENT(y) NL"},
		{"comment at eof", "x // c", "IDENT(x) COMMENT(// c) NL"},
		{"comments only", "// a\n/* b */", "COMMENT(// a) COMMENT(/* b */)"},
		{"no semi after operator", "x +\ny", "IDENT(x) + IDENT(y) NL"},
		{"no semi after comma", "f(a,\nb)", "IDENT(f) ( IDENT(a) , IDENT(b) ) NL"},
		{"semi after closers", ")\n]\n}\n++\n--\n", ") NL ] NL } NL ++ NL -- NL"},
		{"no semi after open", "{\n(\n[\n", "{ ( ["},
		{"no semi after keyword", "lock\nif\nelse\n", "lock if else"},
		{"explicit semi", "x; y;\nz", "IDENT(x) ; IDENT(y) ; IDENT(z) NL"},
		{"statement", "thread t[i in 0..N] {\n\tx[i] = spawn p(1, true)\n}\n",
			"thread IDENT(t) [ IDENT(i) in INT(0) .. IDENT(N) ] { IDENT(x) [ IDENT(i) ] = spawn IDENT(p) ( INT(1) , true ) NL } NL"},
		{"illegal", "a # b", "IDENT(a) ILLEGAL(#) IDENT(b) NL"},
		{"illegal ends line", "a = #\nb", "IDENT(a) = ILLEGAL(#) NL IDENT(b) NL"},
		{"single amp", "a & b", "IDENT(a) ILLEGAL(&) IDENT(b) NL"},
		{"colon assign", "a := 1", "IDENT(a) ILLEGAL(:=) INT(1) NL"},
		{"dot", "1.5", "INT(1) ILLEGAL(.) INT(5) NL"},
		{"bad number", "12ab", "INT(12ab) NL"},
		{"unterminated string", "\"abc\nx", "STRING(\"abc) NL IDENT(x) NL"},
		{"unterminated comment", "x /* abc", "IDENT(x) COMMENT(/* abc) NL"},
		{"bom", "\uFEFFx", "IDENT(x) NL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, _ := Tokenize([]byte(tt.src))
			if got := renderTokens(toks); got != tt.want {
				t.Errorf("Tokenize(%q)\n got  %s\n want %s", tt.src, got, tt.want)
			}
			checkTokenList(t, []byte(tt.src), toks)
		})
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		src      string
		code     string // "" for no error
		msg      string // substring of the message
		from, to int
	}{
		{"x = 1", "", "", 0, 0},
		{"9223372036854775807", "", "", 0, 0},
		{"0x7FFFFFFFFFFFFFFF", "", "", 0, 0},
		{"9223372036854775808", CodeInvalidInt, "out of range", 0, 19},
		{"x = 99999999999999999999999", CodeInvalidInt, "out of range", 4, 27},
		{"0x8000000000000000", CodeInvalidInt, "out of range", 0, 18},
		{"0x", CodeInvalidInt, "no digits", 0, 2},
		{"007", CodeInvalidInt, "leading zero", 0, 3},
		{"12ab", CodeInvalidInt, "invalid integer literal", 0, 4},
		{"0x1G", CodeInvalidInt, "invalid integer literal", 0, 4},
		{`"abc`, CodeUnterminatedString, "not terminated", 0, 4},
		{"\"abc\nx", CodeUnterminatedString, "not terminated", 0, 4},
		{`"a\tb"`, CodeInvalidEscape, `'\t'`, 2, 4},
		{`"a\`, CodeUnterminatedString, "not terminated", 0, 3},
		{"/* abc", CodeUnterminatedComment, "not terminated", 0, 2},
		{"x # y", CodeInvalidChar, "'#'", 2, 3},
		{"x @", CodeInvalidChar, "'@'", 2, 3},
		{"a & b", CodeInvalidChar, "'&&'", 2, 3},
		{"a | b", CodeInvalidChar, "'||'", 2, 3},
		{"a := 1", CodeInvalidChar, "':='", 2, 4},
		{"a.b", CodeInvalidChar, "'.'", 1, 2},
		{"x \x00", CodeInvalidChar, "U+0000", 2, 3},
		{"x \xff y", CodeInvalidChar, "UTF-8", 2, 3},
		{"// \xff", CodeInvalidChar, "UTF-8", 3, 4},
		{"\"\xfe\"", CodeInvalidChar, "UTF-8", 1, 2},
		{"x € y", CodeInvalidChar, "'€'", 2, 5},
	}
	for _, tt := range tests {
		toks, errs := Tokenize([]byte(tt.src))
		checkTokenList(t, []byte(tt.src), toks)
		if tt.code == "" {
			if len(errs) != 0 {
				t.Errorf("Tokenize(%q): unexpected errors %v", tt.src, errs)
			}
			continue
		}
		if len(errs) != 1 {
			t.Errorf("Tokenize(%q): want 1 error, got %v", tt.src, errs)
			continue
		}
		e := errs[0]
		if e.Code != tt.code || !strings.Contains(e.Message, tt.msg) || e.Severity != source.Error ||
			e.Range.Start.Offset != tt.from || e.Range.End.Offset != tt.to {
			t.Errorf("Tokenize(%q): got %s [%d,%d) %q, want %s [%d,%d) containing %q",
				tt.src, e.Code, e.Range.Start.Offset, e.Range.End.Offset, e.Message, tt.code, tt.from, tt.to, tt.msg)
		}
	}
}

func TestScanPositions(t *testing.T) {
	// é is 2 bytes and 1 UTF-16 unit; 😀 is 4 bytes and 2 units.
	src := "x /* é😀 */ y\n\"😀\" 😀z\n  w"
	toks, _ := Tokenize([]byte(src))
	type tk struct {
		kind     Kind
		text     string
		pos, end source.Pos
	}
	p := func(off, line, col int) source.Pos { return source.Pos{Offset: off, Line: line, Col: col} }
	want := []tk{
		{IDENT, "x", p(0, 0, 0), p(1, 0, 1)},
		{COMMENT, "/* é😀 */", p(2, 0, 2), p(14, 0, 11)},
		{IDENT, "y", p(15, 0, 12), p(16, 0, 13)},
		{SEMICOLON, "\n", p(16, 0, 13), p(17, 1, 0)},
		{STRING, "\"😀\"", p(17, 1, 0), p(23, 1, 4)},
		{ILLEGAL, "😀", p(24, 1, 5), p(28, 1, 7)},
		{IDENT, "z", p(28, 1, 7), p(29, 1, 8)},
		{SEMICOLON, "\n", p(29, 1, 8), p(30, 2, 0)},
		{IDENT, "w", p(32, 2, 2), p(33, 2, 3)},
		{SEMICOLON, "\n", p(33, 2, 3), p(33, 2, 3)},
		{EOF, "", p(33, 2, 3), p(33, 2, 3)},
	}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens (%s), want %d", len(toks), renderTokens(toks), len(want))
	}
	for i, w := range want {
		g := toks[i]
		if g.Kind != w.kind || g.Text != w.text || g.Pos != w.pos || g.End != w.end {
			t.Errorf("token %d: got %v %q %+v %+v, want %v %q %+v %+v", i, g.Kind, g.Text, g.Pos, g.End, w.kind, w.text, w.pos, w.end)
		}
	}
	checkTokenList(t, []byte(src), toks)
}

func TestScanNextAfterEOF(t *testing.T) {
	s := NewScanner([]byte("x"))
	var kinds []Kind
	for i := 0; i < 5; i++ {
		kinds = append(kinds, s.Next().Kind)
	}
	want := []Kind{IDENT, SEMICOLON, EOF, EOF, EOF}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("got %v, want %v", kinds, want)
		}
	}
}

func TestScanMultilineCommentSemicolon(t *testing.T) {
	// The semicolon a multi-line comment inserts comes after the comment,
	// with no width, at the comment's end.
	src := "a /* 1\n2 */ b"
	toks, _ := Tokenize([]byte(src))
	if toks[2].Kind != SEMICOLON || toks[2].Pos != toks[1].End || toks[2].End != toks[1].End {
		t.Errorf("got %+v after %+v", toks[2], toks[1])
	}
}

// checkTokenList verifies that tokens are in order, do not overlap, have
// posConsistent positions, and end with EOF at the end of src.
func checkTokenList(t testing.TB, src []byte, toks []Token) {
	t.Helper()
	sf := source.NewFile("", src)
	prevEnd := 0
	for i, tok := range toks {
		if !posConsistent(sf, tok.Pos) || !posConsistent(sf, tok.End) {
			t.Fatalf("token %d %v %q: inconsistent position %+v-%+v (want %+v-%+v)",
				i, tok.Kind, tok.Text, tok.Pos, tok.End, sf.Pos(tok.Pos.Offset), sf.Pos(tok.End.Offset))
		}
		if tok.Pos.Offset > tok.End.Offset || tok.Pos.Offset < prevEnd {
			t.Fatalf("token %d %v %q at [%d,%d) out of order (previous ended at %d)",
				i, tok.Kind, tok.Text, tok.Pos.Offset, tok.End.Offset, prevEnd)
		}
		if tok.Kind != SEMICOLON || tok.Text != "\n" {
			if got := string(src[tok.Pos.Offset:tok.End.Offset]); got != tok.Text {
				t.Fatalf("token %d %v: Text %q but source has %q", i, tok.Kind, tok.Text, got)
			}
		}
		prevEnd = tok.End.Offset
	}
	if len(toks) == 0 || toks[len(toks)-1].Kind != EOF || toks[len(toks)-1].Pos.Offset != len(src) {
		t.Fatalf("tokens do not end with EOF at %d", len(src))
	}
}

// posConsistent reports whether p is a valid position inside the file whose
// line and column agree with the file's own index.
func posConsistent(sf *source.File, p source.Pos) bool {
	return p.IsValid() && p.Offset <= len(sf.Text) && sf.Pos(p.Offset) == p
}

// TestScanGoldenSources checks the token invariants on every golden parse
// source.
func TestScanGoldenSources(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.txtar"))
	for _, name := range files {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := txtarSection(ar, "src.weft")
		toks, _ := Tokenize(src)
		checkTokenList(t, src, toks)
	}
}

// TestScanKeywordsComplete checks that every keyword (and nothing else)
// scans as its kind.
func TestScanKeywordsComplete(t *testing.T) {
	for k := keywordBeg + 1; k < keywordEnd; k++ {
		toks, errs := Tokenize([]byte(k.String()))
		if toks[0].Kind != k || len(errs) != 0 {
			t.Errorf("%q scanned as %v", k.String(), toks[0].Kind)
		}
		for _, name := range []string{k.String() + "x", "_" + k.String(), strings.ToUpper(k.String())} {
			if toks, _ := Tokenize([]byte(name)); toks[0].Kind != IDENT {
				t.Errorf("%q scanned as %v", name, toks[0].Kind)
			}
		}
	}
}
