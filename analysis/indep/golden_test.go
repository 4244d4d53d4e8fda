package indep

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/analysis/access"
	"weft/analysis/lower"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden runs the analysis on each model of testdata/*.txtar (the
// file "model.weft") and compares WriteText's output with the file
// "pairs" (go test -update rewrites it).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			for _, fl := range ar.Files {
				if fl.Name == "model.weft" {
					src = fl.Data
				}
			}
			got := analyzeText(t, src)
			found := false
			for i := range ar.Files {
				if ar.Files[i].Name == "pairs" {
					found = true
					if *update {
						ar.Files[i].Data = got
					} else if !bytes.Equal(ar.Files[i].Data, got) {
						t.Errorf("pairs differ; got:\n%s\nwant:\n%s", got, ar.Files[i].Data)
					}
				}
			}
			if !found {
				if !*update {
					t.Fatal("no pairs file (run with -update)")
				}
				ar.Files = append(ar.Files, txtar.File{Name: "pairs", Data: got})
			}
			if *update {
				if err := os.WriteFile(f, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func analyzeText(t *testing.T, src []byte) []byte {
	t.Helper()
	r := load(t, string(src))
	var b bytes.Buffer
	if err := r.WriteText(&b, src); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func load(t *testing.T, src string) *Result {
	t.Helper()
	ld := lower.Load("model.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatalf("does not load: %v", ld.Diagnostics)
	}
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(context.Background(), ld.Program, ld.Exec, sum, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
