package query

import (
	"strings"
	"testing"
)

// apply applies edits (sorted, disjoint) to text.
func apply(text []byte, edits []Edit) string {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.Write(text[last:e.Range.Start.Offset])
		b.WriteString(e.NewText)
		last = e.Range.End.Offset
	}
	b.Write(text[last:])
	return b.String()
}

func TestRename(t *testing.T) {
	tests := []struct {
		name    string
		marked  string
		newName string
		want    string // the text after renaming, or "error: …" (a part of the message)
	}{
		{"constant everywhere", "const ‸N = 2\nvar a [N]int\nthread t[i in 0..N] { a[i] = N }\n", "SIZE",
			"const SIZE = 2\nvar a [SIZE]int\nthread t[i in 0..SIZE] { a[i] = SIZE }\n"},
		{"local from a use", "var x int\nthread t {\n    var y int = x\n    x = y‸ + 1\n}\n", "z",
			"var x int\nthread t {\n    var z int = x\n    x = z + 1\n}\n"},
		{"same name: no edits", "var x int\nthread t { x‸ = 1 }\n", "x", "var x int\nthread t { x = 1 }\n"},
		{"to a non-ASCII name", "var ‸x int\nthread t { x = 1 }\n", "größe", "var größe int\nthread t { größe = 1 }\n"},
		{"the same name in another body is fine", "thread t { var ‸a int = 1; a = a }\nthread u { var b int = 1; b = b }\n", "b",
			"thread t { var b int = 1; b = b }\nthread u { var b int = 1; b = b }\n"},
		{"a sibling block is fine", "thread t {\n    if true { var ‸a int = 1; a = a }\n    if true { var b int = 1; b = b }\n}\n", "b",
			"thread t {\n    if true { var b int = 1; b = b }\n    if true { var b int = 1; b = b }\n}\n"},
		{"a later block before the declaration is fine", "thread t {\n    if true { var b int = 1; b = b }\n    var ‸a int = 1\n    a = a\n}\n", "b",
			"thread t {\n    if true { var b int = 1; b = b }\n    var b int = 1\n    b = b\n}\n"},
		{"thread index", "var a [2]int\nthread w[‸i in 0..2] { a[i] = i }\n", "k", "var a [2]int\nthread w[k in 0..2] { a[k] = k }\n"},
		{"proc and its spawns", "proc ‸p(n int) { }\nthread t { spawn p(1); var h tid = spawn p(2); join h }\n", "worker",
			"proc worker(n int) { }\nthread t { spawn worker(1); var h tid = spawn worker(2); join h }\n"},
		{"function and its calls, recursive ones included", "func ‸f(n int) int {\n    return f(n - 1)\n}\nthread t { var x int = f(1) + f(2); f(x) }\n", "g",
			"func g(n int) int {\n    return g(n - 1)\n}\nthread t { var x int = g(1) + g(2); g(x) }\n"},
		{"function parameter", "func f(‸n int) int {\n    return n * n\n}\n", "k", "func f(k int) int {\n    return k * k\n}\n"},
		{"a function would collide with a shared variable", "var g int\nfunc ‸f() {\n}\n", "g",
			"error: cannot rename f to g: shared variable g is already declared at 1:5 in the same scope"},
		{"a function's local would hide the function", "func f() int {\n    var ‸a int = 1\n    return a\n}\n", "f",
			"error: cannot rename a to f: it would hide the function f declared at 1:6"},

		{"not an identifier", "var ‸x int\n", "2x", `error: "2x" is not a name`},
		{"empty", "var ‸x int\n", "", "error: the new name is empty"},
		{"with a space", "var ‸x int\n", "a b", `error: "a b" is not a name`},
		{"keyword", "var ‸x int\n", "while", `error: "while" is a keyword`},
		{"type keyword", "var ‸x int\n", "tid", `error: "tid" is a keyword`},
		{"version 2 keyword", "var ‸x int\n", "await", `error: "await" is a keyword`},
		{"no name at the cursor", "var x int\n‸\n", "y", "error: there is no declared name here"},
		{"unresolved name", "thread t { y‸ = 1 }\n", "z", "error: there is no declared name here"},
		{"top-level collision", "const N = 1\nvar ‸x int\n", "N",
			"error: cannot rename x to N: constant N is already declared at 1:7 in the same scope"},
		{"collision with a later local", "thread t {\n    var ‸a int = 1\n    var b int = a\n    b = b\n}\n", "b",
			"error: cannot rename a to b: local variable b is already declared at 3:9 in the same scope"},
		{"collision with a parameter", "proc p(a int, ‸b bool) { }\n", "a",
			"error: cannot rename b to a: parameter a is already declared at 1:8 in the same scope"},
		{"a local would hide a shared variable", "var total int\nthread t { var ‸s int = 1; total = s }\n", "total",
			"error: cannot rename s to total: it would hide the shared variable total declared at 1:5"},
		{"a local would hide an outer local", "thread t {\n    var a int = 1\n    if a > 0 { var ‸b int = a; a = b }\n}\n", "a",
			"error: cannot rename b to a: it would hide the local variable a declared at 2:9"},
		{"an inner local would hide the renamed one", "thread t {\n    var ‸a int = 1\n    if a > 0 { var b int = a; a = b }\n}\n", "b",
			"error: cannot rename a to b: the local variable b declared at 3:20 would hide it"},
		{"a loop variable would hide a renamed shared variable", "var ‸x int\nthread t { for i in 0..2 { x = i } }\n", "i",
			"error: cannot rename x to i: the loop variable i declared at 2:16 would hide it"},
		{"a thread index would hide a renamed constant", "const ‸N = 2\nthread w[k in 0..N] { assert k < N }\n", "k",
			"error: cannot rename N to k: the thread index k declared at 2:10 would hide it"},
		{"the name in text the parser skipped", "var ‸x int\nthread t { x = = x }\n", "y",
			"error: cannot rename x: the x at 2:18 is in text that could not be parsed"},
		{"the name in a bad statement", "var ‸x int\nthread t {\n    else { x = 1 }\n}\n", "y",
			"error: cannot rename x: the x at 3:12 is in text that could not be parsed"},
		{"a local in a body left open", "thread t {\n    var ‸a int = 1\n    a = a +\n", "b",
			"thread t {\n    var b int = 1\n    b = b +\n"},
		{"an undefined use of the name before its declaration stays", "thread t {\n    y = 1\n    var ‸y int\n    y = 2\n}\n", "z",
			"thread t {\n    y = 1\n    var z int\n    z = 2\n}\n"},
		{"a syntax error elsewhere does not stop it", "var ‸x int\nthread t { x = = 1 }\n", "y",
			"var y int\nthread t { y = = 1 }\n"},
		{"syntax error in another body does not stop a local", "thread t { var ‸a int = 1; a = a }\nthread u { x = = 1 }\n", "b",
			"thread t { var b int = 1; b = b }\nthread u { x = = 1 }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModel(t, tt.marked)
			cursor := m.pos(t, "")
			var got string
			edits, err := Rename(m.src, m.prog, cursor, tt.newName)
			if err != nil {
				got = "error: " + err.Error()
			} else {
				for i, e := range edits {
					checkRange(t, m.src, e.Range)
					if i > 0 && e.Range.Start.Offset < edits[i-1].Range.End.Offset {
						t.Fatalf("edits overlap or are out of order: %v", edits)
					}
				}
				got = apply(m.src.Text, edits)
			}
			if strings.HasPrefix(tt.want, "error: ") {
				if !strings.HasPrefix(got, tt.want) {
					t.Errorf("got %q\nwant %q", got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			// A rename keeps the program's meaning: the same checker
			// diagnostics, save for their names.
			after := parseModel(t, got)
			if len(after.prog.Diagnostics) != len(m.prog.Diagnostics) {
				t.Errorf("diagnostics before %v, after %v", m.prog.Diagnostics, after.prog.Diagnostics)
			}
		})
	}
}

func TestPrepareRename(t *testing.T) {
	m := parseModel(t, "var count int\nthread t { coun‸t = 1 }\n")
	r, name, err := PrepareRename(m.src, m.prog, m.pos(t, ""))
	if err != nil || name != "count" || m.show(r) != `2:12-2:17 "count"` {
		t.Errorf("PrepareRename = %s %q %v", m.show(r), name, err)
	}
	m = parseModel(t, "var count int\nthread t { 1‸ = 1 }\n")
	if _, _, err := PrepareRename(m.src, m.prog, m.pos(t, "")); err == nil {
		t.Errorf("PrepareRename on a literal: no error")
	}
}
