package query

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

var update = flag.Bool("update", false, "rewrite the output sections of testdata/*.txtar")

// TestGolden runs the file-wide queries on the model.weft section of each
// testdata/*.txtar and compares their output with the tokens, symbols,
// folds and hints sections (go test -update rewrites them).
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var text []byte
			for _, f := range ar.Files {
				if f.Name == "model.weft" {
					text = f.Data
				}
			}
			if text == nil {
				t.Fatal("no model.weft section")
			}
			src := source.NewFile("model.weft", text)
			file, _ := grammar.ParseFile("model.weft", text)
			prog := analysis.Check(file)
			whole := source.Range{Start: src.Pos(0), End: src.Pos(len(text))}
			outputs := []struct{ name, got string }{
				{"tokens", formatTokens(src, SemanticTokens(src, prog))},
				{"symbols", formatSymbols(Symbols(prog), "")},
				{"folds", formatFolds(FoldingRanges(src, file))},
				{"hints", formatHints(InlayHints(prog, whole))},
			}
			changed := false
			for _, out := range outputs {
				name, got := out.name, out.got
				i := sectionIndex(ar, name)
				if i < 0 {
					if !*update {
						t.Errorf("no %s section (run with -update)", name)
						continue
					}
					ar.Files = append(ar.Files, txtar.File{Name: name})
					i = len(ar.Files) - 1
				}
				if want := string(ar.Files[i].Data); got != want {
					if *update {
						ar.Files[i].Data = []byte(got)
						changed = true
						continue
					}
					t.Errorf("%s differs:\n%s", name, lineDiff(want, got))
				}
			}
			if changed {
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func sectionIndex(ar *txtar.Archive, name string) int {
	for i, f := range ar.Files {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

func formatTokens(src *source.File, toks []Token) string {
	var b bytes.Buffer
	for _, t := range toks {
		fmt.Fprintf(&b, "%s %s", t.Range, t.Type)
		if t.Mods != 0 {
			fmt.Fprintf(&b, " [%s]", t.Mods)
		}
		fmt.Fprintf(&b, " %q\n", src.Text[t.Range.Start.Offset:t.Range.End.Offset])
	}
	return b.String()
}

func formatSymbols(syms []Symbol, indent string) string {
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "%s%s %s %q %s sel %s\n", indent, s.Kind, s.Name, s.Detail, s.Range, s.SelectionRange)
		b.WriteString(formatSymbols(s.Children, indent+"    "))
	}
	return b.String()
}

func formatFolds(folds []Fold) string {
	var b strings.Builder
	for _, f := range folds {
		fmt.Fprintf(&b, "%d-%d %s\n", f.StartLine+1, f.EndLine+1, f.Kind)
	}
	return b.String()
}

func formatHints(hints []InlayHint) string {
	var b strings.Builder
	for _, h := range hints {
		fmt.Fprintf(&b, "%s %q", h.Pos, h.Label)
		if h.PaddingLeft {
			b.WriteString(" padding-left")
		}
		if h.PaddingRight {
			b.WriteString(" padding-right")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
