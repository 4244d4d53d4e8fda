package grammar

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"weft/source"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/format")

// The golden cases: testdata/format/NAME.input is formatted and compared
// with testdata/format/NAME.golden (go test -run TestFormatGolden -update
// rewrites the golden files).
func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "format", "*.input"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := mustFormat(t, in, src)
			golden := strings.TrimSuffix(in, ".input") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Format(%s) differs from %s:\n--- got\n%s\n--- want\n%s", in, golden, got, want)
			}
		})
	}
}

// Every golden input and every example: the output reparses without
// errors to the same tree with the same comments, follows the layout
// rules, and formatting it again changes nothing. A golden file is its own
// formatting.
func TestFormatIdempotent(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		filepath.Join("testdata", "format", "*.input"),
		filepath.Join("testdata", "format", "*.golden"),
		filepath.Join("..", "examples", "*.weft"),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			out := mustFormat(t, name, src)
			checkFormatted(t, name, src, out)
			if strings.HasSuffix(name, ".golden") && !bytes.Equal(out, src) {
				t.Errorf("%s is not formatted:\n%s", name, out)
			}
		})
	}
}

func mustFormat(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	file, diags := ParseFile(name, src)
	if source.HasErrors(diags) {
		t.Fatalf("%s does not parse: %v", name, diags)
	}
	out, err := Format(file, src)
	if err != nil {
		t.Fatalf("Format(%s): %v", name, err)
	}
	return out
}

// checkFormatted checks what must hold of the formatting out of src, a
// file that parses without errors.
func checkFormatted(t *testing.T, name string, src, out []byte) {
	t.Helper()
	file, _ := ParseFile(name, src)
	file2, diags := ParseFile(name, out)
	if source.HasErrors(diags) {
		t.Fatalf("the formatting of %s does not parse: %v\n%s", name, diags, out)
	}
	if a, b := dumpTree(file), dumpTree(file2); a != b {
		t.Fatalf("the formatting of %s parses to another tree:\n%s\n--- was\n%s\n--- output\n%s", name, b, a, out)
	}
	if a, b := commentTexts(file), commentTexts(file2); !reflect.DeepEqual(a, b) {
		t.Fatalf("the formatting of %s changes the comments:\n%q\n--- to\n%q", name, a, b)
	}
	if msg := layoutProblem(out, file2.Comments); msg != "" {
		t.Fatalf("the formatting of %s: %s\n%s", name, msg, out)
	}
	again, err := Format(file2, out)
	if err != nil {
		t.Fatalf("Format(Format(%s)): %v", name, err)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("formatting %s twice changes it:\n--- once\n%s\n--- twice\n%s", name, out, again)
	}
}

// layoutProblem checks the layout rules that hold of any output, whose
// comments are given: the blank lines inside a block comment are its
// text, which is kept.
func layoutProblem(out []byte, comments []*Comment) string {
	if len(out) == 0 {
		return ""
	}
	code := bytes.Clone(out)
	for _, c := range comments {
		for i := c.Start.Offset; i < c.Stop.Offset; i++ {
			code[i] = 'c'
		}
	}
	if out[len(out)-1] != '\n' {
		return "no newline at the end"
	}
	if bytes.HasSuffix(out, []byte("\n\n")) {
		return "blank lines at the end"
	}
	if out[0] == '\n' {
		return "blank line at the start"
	}
	if bytes.Contains(code, []byte("\n\n\n")) {
		return "two blank lines in a row"
	}
	for i, line := range strings.Split(string(out), "\n") {
		if strings.TrimRight(line, " \t\r") != line {
			return fmt.Sprintf("line %d: trailing white space", i+1)
		}
	}
	return ""
}

// commentTexts lists the comments of a file, trailing white space removed
// (the printer strips it).
func commentTexts(f *File) []string {
	var texts []string
	for _, c := range f.Comments {
		lines := strings.Split(c.Text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t\r")
		}
		texts = append(texts, strings.Join(lines, "\n"))
	}
	return texts
}

var posType = reflect.TypeFor[source.Pos]()

// dumpTree prints a syntax tree without positions and comments, so that
// two parses of differently laid out text can be compared.
func dumpTree(f *File) string {
	var b strings.Builder
	for _, d := range f.Decls {
		dumpValue(&b, reflect.ValueOf(d), 0)
	}
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	indent := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Struct:
		b.WriteString(v.Type().Name() + " {\n")
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type == posType {
				if strings.Contains(f.Name, "Atomic") {
					fmt.Fprintf(b, "%s  %s: %v\n", indent, f.Name, v.Field(i).Interface().(source.Pos).IsValid())
				}
				continue
			}
			fmt.Fprintf(b, "%s  %s: ", indent, f.Name)
			dumpValue(b, v.Field(i), depth+1)
		}
		b.WriteString(indent + "}\n")
	case reflect.Slice:
		fmt.Fprintf(b, "[%d]\n", v.Len())
		for i := range v.Len() {
			b.WriteString(indent + "  - ")
			dumpValue(b, v.Index(i), depth+1)
		}
	default:
		if k, ok := v.Interface().(Kind); ok {
			fmt.Fprintf(b, "%s\n", k)
			return
		}
		fmt.Fprintf(b, "%#v\n", v.Interface())
	}
}

// Text with syntax errors is never formatted.
func TestFormatRejectsSyntaxErrors(t *testing.T) {
	for _, src := range []string{
		"var x int\nthread t {\n    x = \n}\n",
		"thread t {\n    lock(m\n}\n",
		"thread t {\n    x = 1\n",
		"var cond int\n",
		"var x int\nthread t { x = 1 } @\n",
		"var x int = 08\n",
		"thread t { assert x, \"unterminated }\n",
		"/* unterminated comment\n",
		"const = 3\n",
		"thread t { if x { } else }\n",
		"proc p(a int b int) {}\n",
	} {
		file, diags := ParseFile("bad.weft", []byte(src))
		if !source.HasErrors(diags) {
			t.Errorf("%q: the parser found no error", src)
			continue
		}
		if out, err := Format(file, []byte(src)); err == nil {
			t.Errorf("Format(%q) succeeded:\n%s", src, out)
		}
	}
}

// A tree whose source does not account for the text is refused.
func TestFormatRejectsMismatchedSource(t *testing.T) {
	src := []byte("var x int\nthread t {\n    x = 1\n}\n")
	file, diags := ParseFile("a.weft", src)
	if source.HasErrors(diags) {
		t.Fatal(diags)
	}
	other := []byte("var y int\nthread t {\n    x = 1\n}\n")
	if _, err := Format(file, other); err == nil {
		t.Error("Format with another source succeeded")
	}
}

// Without the source, Format prints the tree alone: comments go on lines
// of their own, where their positions put them, and no blank lines are kept.
func TestFormatWithoutSource(t *testing.T) {
	src := []byte("var x int // c\nthread t { x = 1\n\n\n x = 2 }\n")
	file, diags := ParseFile("a.weft", src)
	if source.HasErrors(diags) {
		t.Fatal(diags)
	}
	out, err := Format(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "var x int\n// c\nthread t {\n    x = 1\n    x = 2\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A tree built by hand gets the parentheses its structure needs.
func TestFormatSynthesizedTree(t *testing.T) {
	id := func(name string) *Ident { return &Ident{NamePos: source.NoPos, Name: name, EndPos: source.NoPos} }
	lit := func(raw string) *IntLit { return &IntLit{ValuePos: source.NoPos, Raw: raw, EndPos: source.NoPos} }
	sum := &BinaryExpr{X: id("a"), OpPos: source.NoPos, Op: ADD, Y: lit("1")}
	file := &File{Decls: []Decl{
		&ConstDecl{Const: source.NoPos, Name: id("K"),
			Value: &BinaryExpr{X: sum, OpPos: source.NoPos, Op: MUL, Y: &UnaryExpr{OpPos: source.NoPos, Op: SUB, X: &UnaryExpr{OpPos: source.NoPos, Op: SUB, X: lit("2")}}}},
	}}
	out, err := Format(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "const K = (a + 1) * - -2\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}

	// A choose extends to the right as far as an expression goes: as an
	// operand it is parenthesised, and the output parses to the same tree.
	choose := &ChooseExpr{Choose: source.NoPos, Lo: lit("0"), Hi: &BinaryExpr{X: id("N"), OpPos: source.NoPos, Op: ADD, Y: lit("1")}}
	body := &Block{Lbrace: source.NoPos, Rbrace: source.NoPos, Stmts: []Stmt{
		&AssignStmt{LHS: id("x"), OpPos: source.NoPos, Op: MUL_ASSIGN,
			RHS: &BinaryExpr{X: choose, OpPos: source.NoPos, Op: ADD, Y: &UnaryExpr{OpPos: source.NoPos, Op: SUB, X: choose}}},
		&ReturnStmt{Return: source.NoPos, Result: &CallExpr{Func: id("f"), Lparen: source.NoPos, Args: []Expr{choose, lit("2")}, Rparen: source.NoPos}},
	}}
	file = &File{Decls: []Decl{&FuncDecl{Func: source.NoPos, Name: id("f"), Rparen: source.NoPos,
		Params: []*Param{{Name: id("a"), Type: &NamedType{NamePos: source.NoPos, Kind: INT_TYPE}}},
		Result: &NamedType{NamePos: source.NoPos, Kind: BOOL_TYPE}, Body: body}}}
	out, err = Format(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "func f(a int) bool {\n    x *= (choose 0..N + 1) + -(choose 0..N + 1)\n    return f(choose 0..N + 1, 2)\n}\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, diags := ParseFile("", out); source.HasErrors(diags) {
		t.Errorf("the output does not parse: %v", diags)
	}
}

// TestFormatLarge: a large file formats well. How fast is measured by
// BenchmarkFormatLarge (the formatter should be linear), not asserted
// here: a time limit in a test fails on a busy machine for no bug.
func TestFormatLarge(t *testing.T) {
	src := largeFormatInput()
	file, diags := ParseFile("big.weft", src)
	if source.HasErrors(diags) {
		t.Fatal(diags[0])
	}
	out, err := Format(file, src)
	if err != nil {
		t.Fatal(err)
	}
	checkFormatted(t, "big.weft", src, out)
}

// largeFormatInput is 200 threads of 100 lines each, with comments and
// two statements to a line.
func largeFormatInput() []byte {
	var b bytes.Buffer
	b.WriteString("var c int\nvar m mutex\n")
	for i := range 200 {
		fmt.Fprintf(&b, "// thread %d\nthread t%d {\n", i, i)
		for j := range 100 {
			fmt.Fprintf(&b, "    lock(m) ; c = c + %d * (c - 1) // step %d\n    unlock(m)\n", j, j)
		}
		b.WriteString("}\n\n")
	}
	return b.Bytes()
}

func BenchmarkFormatLarge(b *testing.B) {
	src := largeFormatInput()
	file, _ := ParseFile("big.weft", src)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Format(file, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "format", "comments.input"))
	if err != nil {
		b.Fatal(err)
	}
	file, _ := ParseFile("comments.input", src)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Format(file, src); err != nil {
			b.Fatal(err)
		}
	}
}

// Random layouts of the golden inputs and the examples: the tokens are
// kept and the white space and comments between them are drawn at random
// (newlines, blank lines, block and line comments, stray semicolons). Every
// variant that still parses without errors must format well.
func TestFormatRandomLayouts(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		filepath.Join("testdata", "format", "*.input"),
		filepath.Join("..", "examples", "*.weft"),
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	seps := []string{
		"", " ", " ", " ", "\n", "\n\n\n", "\t", " /* c */ ", "/*c*/", " // line\n",
		"\n// own line\n", "\n\n/* own */\n\n", " /* two\n lines */ ", ";", " ; ", "\r\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	variants, parsed := 0, 0
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		toks, _ := Tokenize(src)
		n := 100
		if testing.Short() {
			n = 10
		}
		for range n {
			var b strings.Builder
			odds := 2 + rng.IntN(12) // one gap in odds gets a random separator
			for _, tk := range toks {
				if tk.Kind == EOF || tk.Kind == SEMICOLON && tk.Text == "\n" {
					continue
				}
				b.WriteString(tk.Text)
				if rng.IntN(odds) == 0 {
					b.WriteString(seps[rng.IntN(len(seps))])
				} else if tk.Kind == COMMENT && strings.HasPrefix(tk.Text, "//") {
					b.WriteString("\n")
				} else {
					b.WriteString(" ")
				}
			}
			variant := []byte(b.String())
			variants++
			file, diags := ParseFile("variant.weft", variant)
			out, err := Format(file, variant)
			if source.HasErrors(diags) {
				if err == nil {
					t.Fatalf("Format succeeded on a variant with errors:\n%s", variant)
				}
				continue
			}
			parsed++
			if err != nil {
				t.Fatalf("Format failed on a variant of %s that parses: %v\n%s", name, err, variant)
			}
			checkFormatted(t, name+" (variant)", variant, out)
		}
	}
	t.Logf("%d variants, %d without syntax errors", variants, parsed)
}
