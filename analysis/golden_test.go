package analysis_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

var update = flag.Bool("update", false, "rewrite the .golden sections of testdata/*.txtar")

// markerRE matches an expectation comment: /* ERROR "text" */ or
// /* WARNING "text" */. The text must be a substring of the message of a
// diagnostic on the same line (or equal its code).
var markerRE = regexp.MustCompile(`/\*\s*(ERROR|WARNING)\s+"((?:[^"\\]|\\.)*)"\s*\*/`)

type marker struct {
	line     int // 0-based
	severity source.Severity
	text     string
}

func markers(src []byte) []marker {
	var ms []marker
	for line, text := range strings.Split(string(src), "\n") {
		for _, m := range markerRE.FindAllStringSubmatch(text, -1) {
			sev := source.Error
			if m[1] == "WARNING" {
				sev = source.Warning
			}
			ms = append(ms, marker{line: line, severity: sev, text: strings.ReplaceAll(m[2], `\"`, `"`)})
		}
	}
	return ms
}

// checkSource parses and checks src; it returns all diagnostics, the
// parser's first.
func checkSource(name string, src []byte) (*analysis.Program, []source.Diagnostic) {
	file, perrs := grammar.ParseFile(name, src)
	prog := analysis.Check(file)
	all := append(append([]source.Diagnostic(nil), perrs...), prog.Diagnostics...)
	return prog, all
}

func formatDiags(ds []source.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s %s %s: %s\n", d.Range, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ar := parseArchive(data)
		changed := false
		for i := range ar.Files {
			f := &ar.Files[i]
			if !strings.HasSuffix(f.Name, ".weft") {
				continue
			}
			name := filepath.Base(path) + "/" + f.Name
			t.Run(name, func(t *testing.T) {
				_, diags := checkSource(f.Name, f.Data)
				matchMarkers(t, f.Data, diags)
				got := formatDiags(diags)
				goldenName := strings.TrimSuffix(f.Name, ".weft") + ".golden"
				gi := -1
				for j := range ar.Files {
					if ar.Files[j].Name == goldenName {
						gi = j
					}
				}
				if *update {
					if gi < 0 {
						ar.Files = append(ar.Files, archiveFile{Name: goldenName})
						gi = len(ar.Files) - 1
						changed = true
					}
					if string(ar.Files[gi].Data) != got {
						ar.Files[gi].Data = []byte(got)
						changed = true
					}
					return
				}
				if gi < 0 {
					t.Errorf("no %s section; run go test -update", goldenName)
					return
				}
				if want := string(ar.Files[gi].Data); want != got {
					t.Errorf("diagnostics differ from %s (run go test -update if intended)\n--- got\n%s--- want\n%s", goldenName, got, want)
				}
			})
		}
		if changed {
			if err := os.WriteFile(path, formatArchive(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// matchMarkers pairs every marker with one diagnostic on its line and
// reports markers and diagnostics left unpaired.
func matchMarkers(t *testing.T, src []byte, diags []source.Diagnostic) {
	t.Helper()
	ms := markers(src)
	used := make([]bool, len(diags))
	for _, m := range ms {
		found := false
		for i, d := range diags {
			if used[i] || d.Range.Start.Line != m.line || d.Severity != m.severity {
				continue
			}
			if strings.Contains(d.Message, m.text) || d.Code == m.text {
				used[i] = true
				found = true
				break
			}
		}
		if !found {
			t.Errorf("line %d: no %s matching %q", m.line+1, m.severity, m.text)
		}
	}
	for i, d := range diags {
		if !used[i] {
			t.Errorf("unexpected diagnostic %s %s [%s]: %s", d.Range.Start, d.Severity, d.Code, d.Message)
		}
	}
}
