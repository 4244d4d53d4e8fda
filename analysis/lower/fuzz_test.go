package lower_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/analysis/lower"
	"weft/grammar"
	"weft/source"
)

// FuzzLoad runs the whole front end (parse, check, lower) on any text: it
// never panics (Check and Lower turn a panic into an internal-error
// diagnostic, which fails the target), every diagnostic has a range
// inside the file whose lines and columns agree with the text, and a file
// without errors is lowered. Seeds: the analysis's golden sources, the
// examples, every shape of nesting just past the limit and else-if
// chains; the corpus is in testdata/fuzz/FuzzLoad.
//
//	go test ./analysis/lower -run XXX -fuzz FuzzLoad -fuzztime 5m -parallel 1
func FuzzLoad(f *testing.F) {
	archives, _ := filepath.Glob(filepath.Join("..", "testdata", "*.txtar"))
	for _, name := range archives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if filepath.Ext(file.Name) == ".weft" {
				f.Add(string(file.Data))
			}
		}
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	for _, name := range examples {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(string(src))
		}
	}
	for _, p := range deepPrograms {
		f.Add(p.build(grammar.MaxNesting + 1))
	}
	f.Add(longElseIf(3, false))
	f.Add(longElseIf(300, true))
	f.Fuzz(func(t *testing.T, src string) {
		ld := lower.Load("fuzz.weft", []byte(src))
		checkDiagnostics(t, []byte(src), ld.Diagnostics)
		if !source.HasErrors(ld.Diagnostics) && ld.Exec == nil {
			t.Fatal("no errors, but not lowered")
		}
		if source.HasErrors(ld.Diagnostics) && ld.Exec != nil {
			t.Fatal("lowered despite errors")
		}
	})
}
