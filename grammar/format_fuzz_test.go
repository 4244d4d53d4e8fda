package grammar

import (
	"os"
	"path/filepath"
	"testing"

	"weft/source"
)

// FuzzFormat: Format never panics; it refuses text with syntax errors; for
// text without them it succeeds, and its output reparses without errors
// to the same tree with the same comments, follows the layout rules, and
// is its own formatting. Seeds: the golden inputs, the examples and
// testdata/fuzz/FuzzFormat.
//
//	go test ./grammar -run XXX -fuzz FuzzFormat -fuzztime 5m -parallel 1
func FuzzFormat(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("testdata", "format", "*.input"),
		filepath.Join("..", "examples", "*.weft"),
	} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := ParseFile("fuzz.weft", src)
		out, err := Format(file, src)
		if source.HasErrors(diags) {
			if err == nil {
				t.Fatalf("Format succeeded on text with syntax errors (%v):\n%s", diags[0], out)
			}
			return
		}
		if err != nil {
			t.Fatalf("Format failed on text that parses: %v", err)
		}
		checkFormatted(t, "fuzz.weft", src, out)
	})
}
