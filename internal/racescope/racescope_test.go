package racescope

import (
	"strings"
	"testing"
)

// TestConcurrent: every way the package doc lists of running code on a
// second goroutine makes a package Concurrent, through its own files, its
// tests, or what it or its tests link; a goroutine only in the tests of a
// package it imports does not; a package with none of them is not.
func TestConcurrent(t *testing.T) {
	const quietSrc = "package q\n\nfunc F() int { return 1 }\n"
	tests := []struct {
		name string
		pkgs []Package
		want string // why weft/p is Concurrent (a substring), "" if not
	}{
		{"one goroutine", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{
				"p.go":      []byte("package p\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n"),
				"p_test.go": []byte("package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { t.Run(\"x\", func(t *testing.T) { F() }) }\n"),
			}, Imports: []string{"fmt"}, TestImports: []string{"testing"}},
		}, ""},
		{"go statement", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n\nfunc F() {\n\tgo F()\n}\n")}},
		}, "p.go: line 4 starts a goroutine"},
		{"go statement in a test", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p_test.go": []byte("package p\n\nfunc f() { go func() {}() }\n")}},
		}, "p_test.go: line 3 starts a goroutine"},
		{"parallel tests", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p_test.go": []byte("package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { t.Parallel() }\n")}},
		}, "calls Parallel"},
		{"a timer's callback", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n\nimport \"time\"\n\nvar T = time.AfterFunc(0, func() {})\n")}, Imports: []string{"time"}},
		}, "calls AfterFunc"},
		{"a finalizer", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n\nimport \"runtime\"\n\nfunc F(x *int) { runtime.SetFinalizer(x, nil) }\n")}, Imports: []string{"runtime"}},
		}, "calls SetFinalizer"},
		{"os/exec", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p_test.go": []byte("package p_test\n\nimport \"os/exec\"\n\nvar C = exec.Command(\"true\")\n")}, TestImports: []string{"os/exec"}},
		}, "imports os/exec"},
		{"linked through two packages", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, Imports: []string{"weft/q"}},
			{ImportPath: "weft/q", Files: map[string][]byte{"q.go": []byte("package q\n")}, Imports: []string{"weft/r"}},
			{ImportPath: "weft/r", Files: map[string][]byte{"r.go": []byte("package r\n\nfunc F() { go F() }\n")}},
		}, "imports weft/q (imports weft/r (r.go: line 3 starts a goroutine))"},
		{"linked by the tests", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, TestImports: []string{"weft/p", "weft/r"}},
			{ImportPath: "weft/r", Files: map[string][]byte{"r.go": []byte("package r\n\nfunc F() { go F() }\n")}},
		}, "its tests import weft/r"},
		{"a goroutine in an imported package's tests", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, Imports: []string{"weft/q"}},
			{ImportPath: "weft/q", Files: map[string][]byte{"q.go": []byte(quietSrc), "q_test.go": []byte("package q\n\nfunc f() { go f() }\n")}},
		}, ""},
		{"a package outside the module", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, Imports: []string{"github.com/x/y"}},
		}, "imports github.com/x/y (outside the module"},
		{"a quiet package outside the module", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, TestImports: []string{"golang.org/x/tools/txtar"}},
		}, ""},
		{"a package of the module not listed", []Package{
			{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n")}, Imports: []string{"weft/unlisted"}},
		}, "imports weft/unlisted (not read)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			why, err := Concurrent("weft", tc.pkgs)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := why["weft/p"]
			if !ok {
				t.Fatalf("no answer for weft/p: %v", why)
			}
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("why = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUnreadable: a file that does not parse is an error, not a package
// left out of the race run.
func TestUnreadable(t *testing.T) {
	_, err := Concurrent("weft", []Package{{ImportPath: "weft/p", Files: map[string][]byte{"p.go": []byte("package p\n\nfunc {")}}})
	if err == nil || !strings.Contains(err.Error(), "weft/p") {
		t.Errorf("err = %v, want a parse error naming weft/p", err)
	}
}
