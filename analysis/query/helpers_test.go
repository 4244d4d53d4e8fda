package query

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/tools/txtar"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// A model in a test is written with markers that are removed before
// parsing: ‸ marks the cursor, «name» a named position.

type model struct {
	src  *source.File
	file *grammar.File
	prog *analysis.Program
	at   map[string]source.Pos // "" is the cursor ‸
}

func parseModel(t testing.TB, marked string) *model {
	t.Helper()
	var b strings.Builder
	offsets := make(map[string]int)
	for i := 0; i < len(marked); {
		switch {
		case strings.HasPrefix(marked[i:], "‸"):
			if _, dup := offsets[""]; dup {
				t.Fatalf("two cursors in %q", marked)
			}
			offsets[""] = b.Len()
			i += len("‸")
		case strings.HasPrefix(marked[i:], "«"):
			end := strings.Index(marked[i:], "»")
			if end < 0 {
				t.Fatalf("unclosed « in %q", marked)
			}
			offsets[marked[i+len("«"):i+end]] = b.Len()
			i += end + len("»")
		default:
			b.WriteByte(marked[i])
			i++
		}
	}
	text := []byte(b.String())
	m := &model{src: source.NewFile("test.weft", text), at: make(map[string]source.Pos)}
	m.file, _ = grammar.ParseFile("test.weft", text)
	m.prog = analysis.Check(m.file)
	for name, off := range offsets {
		m.at[name] = m.src.Pos(off)
	}
	return m
}

// pos returns the position of a marker.
func (m *model) pos(t testing.TB, name string) source.Pos {
	t.Helper()
	p, ok := m.at[name]
	if !ok {
		t.Fatalf("no marker %q", name)
	}
	return p
}

// word returns the range of the name that starts at marker name.
func (m *model) word(t testing.TB, name string) source.Range {
	t.Helper()
	p := m.pos(t, name)
	end := p.Offset
	for end < len(m.src.Text) {
		r := rune(m.src.Text[end])
		if r >= 0x80 || isIdentPart(r) {
			end++
			continue
		}
		break
	}
	return source.Range{Start: p, End: m.src.Pos(end)}
}

// show renders a range with the text it covers: `3:5-3:10 "count"`.
func (m *model) show(r source.Range) string {
	s, e := r.Start.Offset, r.End.Offset
	if s < 0 || e > len(m.src.Text) || s > e {
		return r.String() + " (out of the file)"
	}
	return fmt.Sprintf("%s %q", r, m.src.Text[s:e])
}

// checkRange fails unless both ends of r are in the file and carry the
// line and UTF-16 column of their offset.
func checkRange(t testing.TB, src *source.File, r source.Range) {
	t.Helper()
	for _, p := range []source.Pos{r.Start, r.End} {
		if p.Offset < 0 || p.Offset > len(src.Text) {
			t.Fatalf("range %s: offset %d outside the file (%d bytes)", r, p.Offset, len(src.Text))
		}
		if want := src.Pos(p.Offset); p != want {
			t.Fatalf("range %s: position %+v, the text says %+v", r, p, want)
		}
	}
	if r.End.Offset < r.Start.Offset {
		t.Fatalf("range %s ends before it starts", r)
	}
}

// corpus returns the Weft sources of the analysis's golden tests and of
// the examples: real models, with and without errors.
func corpus(t testing.TB) map[string][]byte {
	t.Helper()
	out := make(map[string][]byte)
	archives, _ := filepath.Glob(filepath.Join("..", "testdata", "*.txtar"))
	for _, name := range archives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".weft") {
				out[filepath.Base(name)+"/"+f.Name] = f.Data
			}
		}
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	for _, name := range examples {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(name)] = data
	}
	if len(out) < 10 {
		t.Fatalf("only %d sources in the corpus", len(out))
	}
	return out
}

func utf16Units(s string) []uint16  { return utf16.Encode([]rune(s)) }
func utf16Decode(u []uint16) []rune { return utf16.Decode(u) }
