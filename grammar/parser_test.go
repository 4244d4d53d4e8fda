package grammar

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"weft/source"
)

// The -update flag rewrites the tree and errors sections of
// testdata/parse/*.txtar. Other tests of the package may define a flag of
// the same name (it then serves both); it is defined here only if not.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestGolden parses each testdata/parse/*.txtar case: the src.weft file
// must give the tree in "tree" and the diagnostics in "errors" (run with
// -update to rewrite both). /* ERROR "substring" */ comments in the source
// must each be matched by a diagnostic starting on their line whose message
// contains the substring, and, if a file has such markers, every
// diagnostic must be matched by one.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, name := range files {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			src := txtarSection(ar, "src.weft")
			if src == nil {
				t.Fatal("no src.weft txtarSection")
			}
			f, diags := ParseFile("src.weft", src)
			checkParseTree(t, src, f, diags)
			checkErrorMarkers(t, f, diags)
			tree, errs := dumpParseTree(f), dumpDiagnostics(diags)
			if updating() {
				setTxtarSection(ar, "tree", tree)
				setTxtarSection(ar, "errors", errs)
				if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(txtarSection(ar, "tree")); want != tree {
				t.Errorf("tree differs:\n--- got\n%s--- want\n%s", tree, want)
			}
			if want := string(txtarSection(ar, "errors")); want != errs {
				t.Errorf("errors differ:\n--- got\n%s--- want\n%s", errs, want)
			}
		})
	}
}

func txtarSection(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func setTxtarSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

var errorMarkerRE = regexp.MustCompile(`^/\* ERROR "([^"]*)" \*/$`)

func checkErrorMarkers(t *testing.T, f *File, diags []source.Diagnostic) {
	t.Helper()
	type marker struct {
		line int
		sub  string
	}
	var markers []marker
	for _, c := range f.Comments {
		if m := errorMarkerRE.FindStringSubmatch(c.Text); m != nil {
			markers = append(markers, marker{c.Start.Line, m[1]})
		}
	}
	if len(markers) == 0 {
		return
	}
	used := make([]bool, len(diags))
	for _, m := range markers {
		found := false
		for i, d := range diags {
			if !used[i] && d.Range.Start.Line == m.line && strings.Contains(d.Message, m.sub) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("line %d: no error containing %q", m.line+1, m.sub)
		}
	}
	for i, d := range diags {
		if !used[i] {
			t.Errorf("unexpected error %s: %s (%s)", d.Range.Start, d.Message, d.Code)
		}
	}
}

func dumpDiagnostics(diags []source.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%s %s %s: %s\n", d.Range, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// dumpParseTree prints the tree one node a line, indented by depth, with the
// node's kind, its distinguishing attributes and its range (1-based
// line:col), then the comments.
func dumpParseTree(f *File) string {
	var b strings.Builder
	depth := 0
	Inspect(f, func(n Node) bool {
		if n == nil {
			depth--
			return false
		}
		fmt.Fprintf(&b, "%s%s %s\n", strings.Repeat("  ", depth), parseNodeLabel(n), Range(n))
		depth++
		return true
	})
	for _, c := range f.Comments {
		fmt.Fprintf(&b, "Comment %q %s\n", c.Text, Range(c))
	}
	return b.String()
}

func parseNodeLabel(n Node) string {
	name := strings.TrimPrefix(reflect.TypeOf(n).String(), "*grammar.")
	switch n := n.(type) {
	case *VarDecl:
		if n.IsAtomic() {
			return name + " atomic@" + n.Atomic.String()
		}
	case *ProcDecl:
		return name + " rparen@" + n.Rparen.String()
	case *FuncDecl:
		return name + " rparen@" + n.Rparen.String()
	case *SignalStmt:
		if n.Broadcast {
			return name + " broadcast"
		}
		return name + " signal"
	case *NamedType:
		return name + " " + n.Kind.String()
	case *Block:
		return name + " rbrace@" + n.Rbrace.String()
	case *AssignStmt:
		return name + " " + n.Op.String()
	case *IncDecStmt:
		return name + " " + n.Op.String()
	case *LockStmt:
		if n.Unlock {
			return name + " unlock"
		}
		return name + " lock"
	case *BranchStmt:
		return name + " " + n.Tok.String()
	case *Ident:
		return fmt.Sprintf("%s %q", name, n.Name)
	case *IntLit:
		return name + " " + n.Raw
	case *BoolLit:
		return fmt.Sprintf("%s %v", name, n.Value)
	case *StringLit:
		return fmt.Sprintf("%s %s value=%q", name, n.Raw, n.Value)
	case *UnaryExpr:
		return name + " " + n.Op.String()
	case *BinaryExpr:
		return name + " " + n.Op.String()
	}
	return name
}

// checkParseTree verifies the invariants of a parse, whatever the input:
// required children are present, every node has Pos <= End inside the
// file, every position field (except VarDecl.Atomic, which may be NoPos)
// is valid and agrees with source.File's line index, children lie inside
// their parents, and every diagnostic is an error with a code and a valid
// range.
func checkParseTree(t testing.TB, src []byte, f *File, diags []source.Diagnostic) {
	t.Helper()
	sf := source.NewFile("", src)
	bad := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nsource: %q", fmt.Sprintf(format, args...), truncateSrc(string(src)))
	}
	if f == nil {
		bad("nil file")
	}
	if !posConsistent(sf, f.EOF) || f.EOF.Offset != len(src) {
		bad("File.EOF %+v, want end of file %d", f.EOF, len(src))
	}
	// The walk keeps each open node's range and nesting level (see
	// MaxNesting) on a stack. The range of every if of an else-if chain
	// ends where the chain ends: computed once per chain, so that the
	// check stays linear on long chains.
	type open struct {
		n        Node
		pos, end int
		level    int
	}
	var stack []open
	chainEnd := map[*IfStmt]source.Pos{}
	Inspect(f, func(n Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		checkRequiredChildren(bad, n)
		pos := n.Pos()
		var end source.Pos
		if is, ok := n.(*IfStmt); ok {
			if e, ok := chainEnd[is]; ok {
				end = e
			} else {
				end = is.End()
				for s := is; s != nil; s, _ = s.Else.(*IfStmt) {
					chainEnd[s] = end
				}
			}
		} else {
			end = n.End()
		}
		if !posConsistent(sf, pos) || !posConsistent(sf, end) || end.Offset < pos.Offset {
			bad("%T: bad range %+v-%+v (want %+v-%+v)", n, pos, end, sf.Pos(pos.Offset), sf.Pos(end.Offset))
		}
		v := reflect.ValueOf(n).Elem()
		for i := 0; i < v.NumField(); i++ {
			if p, ok := v.Field(i).Interface().(source.Pos); ok {
				if _, isVar := n.(*VarDecl); isVar && v.Type().Field(i).Name == "Atomic" && !p.IsValid() {
					continue
				}
				if !posConsistent(sf, p) {
					bad("%T.%s: bad position %+v (want %+v)", n, v.Type().Field(i).Name, p, sf.Pos(p.Offset))
				}
			}
		}
		level := 0
		if len(stack) > 0 {
			parent := stack[len(stack)-1]
			if _, isFile := parent.n.(*File); !isFile && (pos.Offset < parent.pos || end.Offset > parent.end) &&
				!midRune(src, parent.end, end.Offset) {
				bad("%T %s lies outside its parent %T %d-%d", n, Range(n), parent.n, parent.pos, parent.end)
			}
			level = parent.level
		}
		if nestingLevel(n) {
			level++
		}
		if level > MaxNesting {
			bad("%T at %s is nested %d levels deep, more than MaxNesting", n, pos, level)
		}
		stack = append(stack, open{n: n, pos: pos.Offset, end: end.Offset, level: level})
		return true
	})
	prev := -1
	for _, c := range f.Comments {
		if !posConsistent(sf, c.Start) || !posConsistent(sf, c.Stop) || c.Start.Offset < prev || c.Stop.Offset < c.Start.Offset {
			bad("bad comment %+v", c)
		}
		prev = c.Stop.Offset
	}
	for _, d := range diags {
		r := d.Range
		if !posConsistent(sf, r.Start) || !posConsistent(sf, r.End) || r.End.Offset < r.Start.Offset ||
			d.Severity != source.Error || d.Code == "" || d.Message == "" {
			bad("bad diagnostic %+v", d)
		}
	}
}

// nestingLevel reports whether n is one level of nesting as MaxNesting
// counts them (an if is not: its blocks are, and an else-if stays at the
// level of its chain). The empty block that stands for one cut off as
// too deep (both braces at one position) is not.
func nestingLevel(n Node) bool {
	switch n := n.(type) {
	case *Block:
		return n.Lbrace != n.Rbrace || len(n.Stmts) > 0
	case *ParenExpr, *UnaryExpr, *BinaryExpr, *IndexExpr, *ArrayType, *InitList,
		*CallExpr, *TrylockExpr, *ChooseExpr:
		return true
	}
	return false
}

// midRune reports whether offset at falls inside the UTF-8 character
// that ends at end: a parent whose closing token is missing ends one byte
// into the last character of the token before (see ParseFile), which, if
// that character is not ASCII, lies inside it.
func midRune(src []byte, at, end int) bool {
	return at < end && end-at < utf8.UTFMax && at < len(src) && !utf8.RuneStart(src[at])
}

func truncateSrc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// checkRequiredChildren fails if a required child of n is nil.
func checkRequiredChildren(bad func(string, ...any), n Node) {
	missing := func(what string, isNil bool) {
		if isNil {
			bad("%T: nil %s", n, what)
		}
	}
	switch n := n.(type) {
	case *ConstDecl:
		missing("Name", n.Name == nil)
		missing("Value", n.Value == nil)
	case *VarDecl:
		missing("Name", n.Name == nil)
		missing("Type", n.Type == nil)
	case *ThreadDecl:
		missing("Name", n.Name == nil)
		missing("Body", n.Body == nil)
		if n.Index != nil || n.Lo != nil || n.Hi != nil {
			missing("Index", n.Index == nil)
			missing("Lo", n.Lo == nil)
			missing("Hi", n.Hi == nil)
		}
	case *ProcDecl:
		missing("Name", n.Name == nil)
		missing("Body", n.Body == nil)
	case *FuncDecl:
		missing("Name", n.Name == nil)
		missing("Body", n.Body == nil)
	case *Param:
		missing("Name", n.Name == nil)
		missing("Type", n.Type == nil)
	case *ArrayType:
		missing("Len", n.Len == nil)
		missing("Elem", n.Elem == nil)
	case *DeclStmt:
		missing("Decl", n.Decl == nil)
	case *AssignStmt:
		missing("LHS", n.LHS == nil)
		missing("RHS", n.RHS == nil)
	case *IncDecStmt:
		missing("X", n.X == nil)
	case *LockStmt:
		missing("Mutex", n.Mutex == nil)
	case *SpawnStmt:
		missing("Call", n.Call == nil)
	case *JoinStmt:
		missing("Thread", n.Thread == nil)
	case *WaitStmt:
		missing("Cond", n.Cond == nil)
		missing("Mutex", n.Mutex == nil)
	case *SignalStmt:
		missing("Cond", n.Cond == nil)
	case *AwaitStmt:
		missing("Cond", n.Cond == nil)
	case *AssertStmt:
		missing("Cond", n.Cond == nil)
	case *AssumeStmt:
		missing("Cond", n.Cond == nil)
	case *IfStmt:
		missing("Cond", n.Cond == nil)
		missing("Then", n.Then == nil)
	case *WhileStmt:
		missing("Cond", n.Cond == nil)
		missing("Body", n.Body == nil)
	case *ForStmt:
		missing("Var", n.Var == nil)
		missing("Lo", n.Lo == nil)
		missing("Hi", n.Hi == nil)
		missing("Body", n.Body == nil)
	case *AtomicStmt:
		missing("Body", n.Body == nil)
	case *ExprStmt:
		missing("X", n.X == nil)
	case *IndexExpr:
		missing("X", n.X == nil)
		missing("Index", n.Index == nil)
	case *ParenExpr:
		missing("X", n.X == nil)
	case *UnaryExpr:
		missing("X", n.X == nil)
	case *BinaryExpr:
		missing("X", n.X == nil)
		missing("Y", n.Y == nil)
	case *SpawnExpr:
		missing("Proc", n.Proc == nil)
	case *CallExpr:
		missing("Func", n.Func == nil)
	case *TrylockExpr:
		missing("Mutex", n.Mutex == nil)
	case *ChooseExpr:
		missing("Lo", n.Lo == nil)
		missing("Hi", n.Hi == nil)
	}
}

// TestTenErrors: ten independent mistakes, each in its own statement or
// declaration, give exactly ten errors, each on its line, and the good
// code between them still parses.
func TestTenErrors(t *testing.T) {
	src := `const N = 3
const M = * 2
var a [N]int = {1, 2, 3}
var b integer
var c int
thread t1 {
    a[0] = 1
    lock(m
    c = c + 1
    x = = 2
    c++
    assert c > 0, 42
    c--
    while (c < 3) c++
    c = 0
    var choose int
    c += 1
    foo(1 c)
    if c > 0 { c = 1 }
    for i = 0..N { c = i }
    unlock(m)
    x = 1 + #
    return
}
proc p(n int, ) {
    c = n
}
thread t2 {
    spawn p(1
    c = 2
}
`
	want := []struct {
		line int
		msg  string
	}{
		{2, "expected expression, found '*'"},
		{4, "unknown type 'integer'"},
		{8, "expected ')', found newline"},
		{10, "expected expression, found '='"},
		{12, "expected a string message after ','"},
		{14, "expected '{', found 'c'"},
		{16, "`choose` is a keyword and cannot be used as a name"},
		{18, "expected ')', found 'c'"},
		{20, "expected 'in'"},
		{22, "invalid character '#'"},
		{29, "expected ')', found newline"},
	}
	f, diags := ParseFile("ten.weft", []byte(src))
	checkParseTree(t, []byte(src), f, diags)
	if len(diags) != len(want) {
		t.Errorf("got %d errors, want %d:\n%s", len(diags), len(want), dumpDiagnostics(diags))
	}
	for i := 0; i < len(want) && i < len(diags); i++ {
		d := diags[i]
		if d.Range.Start.Line+1 != want[i].line || !strings.Contains(d.Message, want[i].msg) {
			t.Errorf("error %d: got %s %q, want line %d containing %q", i, d.Range.Start, d.Message, want[i].line, want[i].msg)
		}
	}
	// The good statements survive: t1 has all 17 statement lines (the
	// broken ones as partial or Bad statements), t2 both.
	if len(f.Decls) != 8 {
		t.Fatalf("got %d declarations, want 8", len(f.Decls))
	}
	t1 := f.Decls[5].(*ThreadDecl)
	if n := len(t1.Body.Stmts); n != 17 {
		t.Errorf("thread t1 has %d statements, want 17:\n%s", n, dumpParseTree(f))
	}
	if _, ok := t1.Body.Stmts[len(t1.Body.Stmts)-1].(*ReturnStmt); !ok {
		t.Errorf("last statement of t1 is %T, want *ReturnStmt", t1.Body.Stmts[len(t1.Body.Stmts)-1])
	}
	if p := f.Decls[6].(*ProcDecl); len(p.Params) != 1 || len(p.Body.Stmts) != 1 {
		t.Errorf("proc p: %d params, %d statements", len(p.Params), len(p.Body.Stmts))
	}
	if t2 := f.Decls[7].(*ThreadDecl); len(t2.Body.Stmts) != 2 {
		t.Errorf("thread t2 has %d statements, want 2", len(t2.Body.Stmts))
	}
}

// nestShape is a way of nesting: build(k) is a file whose syntax tree
// is k levels deep (as MaxNesting counts them) through that shape, and
// toks lists the tokens at which the parser may report that a tree is too
// deep (those that open level MaxNesting+1).
type nestShape struct {
	name  string
	build func(k int) string
	toks  string
}

// rep returns s k times, each with %d replaced by its index.
func rep(s string, k int) string {
	if !strings.Contains(s, "%d") {
		return strings.Repeat(s, k)
	}
	var b strings.Builder
	for i := range k {
		fmt.Fprintf(&b, s, i)
	}
	return b.String()
}

// nestShapes lists every way of nesting: expressions (with chains of
// operators and of indexes, which nest as deep as they are long), types,
// initialiser lists and statements. A thread or proc body is one level.
var nestShapes = []nestShape{
	{"sum", func(k int) string { return "const X = 1" + rep(" + 1", k) + "\n" }, "+"},
	{"sum of products", func(k int) string { return "const X = 1" + rep(" + 2 * 3", k-1) + "\n" }, "+"},
	{"and chain", func(k int) string { return "const X = true" + rep(" && true", k) + "\n" }, "&&"},
	{"or chain in a body", func(k int) string {
		return "var b bool\nthread t {\n    b = b" + rep(" || b", k-1) + "\n}\n"
	}, "||"},
	{"comparisons", func(k int) string { return "const X = 1" + rep(" < 1", k) + "\n" }, "<"},
	{"right-nested sum", func(k int) string {
		inner := "1"
		if k%2 == 1 {
			inner = "-1"
		}
		return "const X = " + rep("1 + (", k/2) + inner + strings.Repeat(")", k/2) + "\n"
	}, "+ ( -"},
	{"parens", func(k int) string {
		return "const X = " + strings.Repeat("(", k) + "1" + strings.Repeat(")", k) + "\n"
	}, "("},
	{"minus", func(k int) string { return "const X = " + strings.Repeat("- ", k) + "1\n" }, "-"},
	{"not", func(k int) string { return "const X = " + strings.Repeat("!", k) + "true\n" }, "!"},
	{"index chain", func(k int) string {
		return "var a [1]int\nthread t {\n    a" + strings.Repeat("[0]", k-1) + " = 1\n}\n"
	}, "["},
	{"nested indexes", func(k int) string {
		return "var a [1]int\nthread t {\n    a[0] = " + strings.Repeat("a[", k-1) + "0" + strings.Repeat("]", k-1) + "\n}\n"
	}, "["},
	{"array type", func(k int) string { return "var a " + strings.Repeat("[1]", k) + "int\n" }, "["},
	{"initialiser lists", func(k int) string {
		return "var a [1]int = " + strings.Repeat("{", k) + "0" + strings.Repeat("}", k) + "\n"
	}, "{"},
	{"spawn argument", func(k int) string {
		return "proc p(n int) {\n}\nthread t {\n    spawn p(0" + rep(" + 1", k-1) + ")\n}\n"
	}, "+"},
	{"calls", func(k int) string {
		return "thread t {\n    x = " + strings.Repeat("f(", k-1) + "0" + strings.Repeat(")", k-1) + "\n}\n"
	}, "("},
	{"call arguments", func(k int) string {
		return "thread t {\n    f(1, 0" + rep(" + 1", k-2) + ")\n}\n"
	}, "+"},
	{"chooses", func(k int) string {
		return "thread t {\n    x = " + strings.Repeat("choose 0..", k-1) + "1\n}\n"
	}, "choose"},
	{"choose bound", func(k int) string {
		return "thread t {\n    x = choose 0..1" + rep(" + 1", k-2) + "\n}\n"
	}, "+"},
	{"trylocks", func(k int) string {
		return "thread t {\n    b = " + strings.Repeat("trylock(", k-1) + "m" + strings.Repeat(")", k-1) + "\n}\n"
	}, "trylock"},
	{"ifs", func(k int) string {
		return "var x int\nthread t {\n" + rep("if x == %d {\n", k-1) + "x = 1\n" + strings.Repeat("}\n", k-1) + "}\n"
	}, "{ =="},
	{"whiles", func(k int) string {
		return "var x int\nthread t {\n" + strings.Repeat("while x < 1 {\n", k-1) + "x = 1\n" + strings.Repeat("}\n", k-1) + "}\n"
	}, "{ <"},
	{"fors", func(k int) string {
		return "var x int\nthread t {\n" + rep("for i%d in 0..1 {\n", k-1) + "x = 1\n" + strings.Repeat("}\n", k-1) + "}\n"
	}, "{"},
	{"atomic in ifs", func(k int) string {
		return "var x int\nthread t {\n" + strings.Repeat("if true {\n", k-2) + "atomic {\nx = 1\n}\n" + strings.Repeat("}\n", k-2) + "}\n"
	}, "{"},
	{"else blocks", func(k int) string {
		return "var x int\nthread t {\n" + strings.Repeat("if true {\n} else {\n", k-1) + "x = 1\n" + strings.Repeat("}\n", k-1) + "}\n"
	}, "{"},
	{"sum in nested ifs", func(k int) string {
		return "var x int\nthread t {\n" + strings.Repeat("if true {\n", k/2) + "x = x" + rep(" + 1", k-k/2-1) + "\n" + strings.Repeat("}\n", k/2) + "}\n"
	}, "+ {"},
}

// TestDeepNesting: every shape of nesting is accepted up to MaxNesting
// levels and, one level deeper and far deeper (100,000 levels), gives
// one nesting-too-deep error at a token that goes too deep, quickly, and
// a tree no deeper than the limit (checkParseTree checks it), not a stack
// overflow.
func TestDeepNesting(t *testing.T) {
	huge := 100_000
	if testing.Short() {
		huge = 10_000
	}
	for _, sh := range nestShapes {
		t.Run(sh.name, func(t *testing.T) {
			src := []byte(sh.build(MaxNesting))
			f, diags := ParseFile("deep.weft", src)
			if len(diags) != 0 {
				t.Fatalf("at the limit: %.300v", diags)
			}
			checkParseTree(t, src, f, diags)
			for _, k := range []int{MaxNesting + 1, huge} {
				src := []byte(sh.build(k))
				f, diags := ParseFile("deep.weft", src)
				if len(diags) != 1 || diags[0].Code != CodeNestingTooDeep {
					t.Fatalf("%d levels: got %.300v, want one nesting-too-deep error", k, diags)
				}
				if k == huge {
					// Most of these are one long line, on which checking
					// every position (its UTF-16 column) is quadratic.
					checkDepth(t, f)
				} else {
					checkParseTree(t, src, f, diags)
				}
				r := diags[0].Range
				if got := string(src[r.Start.Offset:r.End.Offset]); !slices.Contains(strings.Fields(sh.toks), got) {
					t.Errorf("%d levels: error on %q at %s, want on one of %q", k, got, r.Start, sh.toks)
				}
			}
		})
	}
	// Shapes that are errors at every level: the nesting error comes last
	// (it replaces the error on its line: it says why the rest of the file
	// is not read).
	for _, tc := range []struct{ name, src string }{
		{"spawn in spawn arguments", "thread t {\n    x = spawn p(" + strings.Repeat("spawn p(\n", huge) + "\n}\n"},
		{"bare blocks", "thread t {\n" + strings.Repeat("{\n", huge) + "\n}\n"},
		{"atomics", "thread t {\n" + strings.Repeat("atomic {\n", huge) + "\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			f, diags := ParseFile("deep.weft", src)
			if len(diags) == 0 || diags[len(diags)-1].Code != CodeNestingTooDeep {
				t.Fatalf("got %d errors, the last %.300v; want a nesting-too-deep error last", len(diags), diags[max(0, len(diags)-1):])
			}
			checkDepth(t, f)
		})
	}
}

// checkDepth fails if f is nested deeper than MaxNesting (the part of
// checkParseTree that stays fast on long lines).
func checkDepth(t *testing.T, f *File) {
	t.Helper()
	var levels []int
	Inspect(f, func(n Node) bool {
		if n == nil {
			levels = levels[:len(levels)-1]
			return false
		}
		level := 0
		if len(levels) > 0 {
			level = levels[len(levels)-1]
		}
		if nestingLevel(n) {
			level++
		}
		if level > MaxNesting {
			t.Fatalf("%T at %s is nested %d levels deep, more than MaxNesting", n, n.Pos(), level)
		}
		levels = append(levels, level)
		return true
	})
}

// longElseIf is a thread whose body is one if with an else-if chain of n
// links and a final else.
func longElseIf(n int) []byte {
	var b bytes.Buffer
	b.WriteString("var x int\nthread t {\n    if x == 0 {\n        x = 1\n    }")
	for i := range n {
		fmt.Fprintf(&b, " else if x == %d {\n        x = %d\n    }", i+1, i)
	}
	b.WriteString(" else {\n        x = 2\n    }\n}\n")
	return b.Bytes()
}

// withMaxStack runs f with the goroutine stack limited to max bytes (for
// every goroutine: tests that use it must not run in parallel). Going
// past the limit is a fatal error that fails the test binary: how a test
// shows that a walk does not recurse along something unbounded.
func withMaxStack(max int, f func()) {
	old := debug.SetMaxStack(max)
	defer debug.SetMaxStack(old)
	f()
}

// TestLongElseIfChain: an else-if chain is not nesting (any length
// parses), and every walk of it (End, Inspect, Format) is a loop, linear
// in its length. Run in a 1 MB stack: End, Inspect and Format recursed
// along the chain and needed 3 to 16 MB for 100,000 links.
func TestLongElseIfChain(t *testing.T) {
	withMaxStack(1<<20, func() { testLongElseIfChain(t) })
}

func testLongElseIfChain(t *testing.T) {
	// checkParseTree (slow: it reflects on every node) on a shorter one.
	short := longElseIf(5000)
	f, diags := ParseFile("long.weft", short)
	checkParseTree(t, short, f, diags)

	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	src := longElseIf(n)
	f, diags = ParseFile("long.weft", src)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	is := f.Decls[1].(*ThreadDecl).Body.Stmts[0].(*IfStmt)
	if got, want := is.End().Offset, bytes.LastIndex(src, []byte("    }"))+5; got != want {
		t.Errorf("End = %d, want %d", got, want)
	}
	links := 0
	Inspect(f, func(n Node) bool {
		if _, ok := n.(*IfStmt); ok {
			links++
		}
		return true
	})
	if links != n+1 {
		t.Errorf("Inspect saw %d ifs, want %d", links, n+1)
	}
	out, err := Format(f, src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, src) {
		t.Errorf("Format changed a formatted chain")
	}
}

func TestInspect(t *testing.T) {
	src := []byte("thread t[i in 0..2] {\n  if x[i] > 0 { assert -x[i] < 1, \"m\" } else { y = spawn p(1) }\n}\n")
	f, diags := ParseFile("t.weft", src)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	var kinds []string
	Inspect(f, func(n Node) bool {
		if n != nil {
			kinds = append(kinds, strings.TrimPrefix(reflect.TypeOf(n).String(), "*grammar."))
		}
		return true
	})
	want := "File ThreadDecl Ident Ident IntLit IntLit Block IfStmt BinaryExpr IndexExpr Ident Ident IntLit Block AssertStmt " +
		"BinaryExpr UnaryExpr IndexExpr Ident Ident IntLit StringLit Block AssignStmt Ident SpawnExpr Ident IntLit"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Returning false skips the children; source order means positions
	// never go backwards among siblings.
	count := 0
	Inspect(f, func(n Node) bool {
		if n != nil {
			count++
		}
		_, isBlock := n.(*Block)
		return !isBlock
	})
	if count != 7 {
		t.Errorf("pruned walk visited %d nodes, want 7", count)
	}
	// Nil and typed-nil nodes are ignored.
	Inspect(nil, func(Node) bool { t.Error("called for nil"); return true })
	Inspect((*Ident)(nil), func(Node) bool { t.Error("called for typed nil"); return true })
	Inspect(&AssertStmt{Cond: &Ident{}}, func(n Node) bool {
		if _, ok := n.(*StringLit); ok {
			t.Error("visited nil Message")
		}
		return true
	})
}

// TestParseGolden sources also checked for exact round trip of tokens in
// comments: every comment of the file is in File.Comments.
func TestComments(t *testing.T) {
	src := []byte("// a\nconst N = 1 /* b */\nthread t { // c\n /* d\n */ x = 1 }\n// e")
	f, _ := ParseFile("c.weft", src)
	var got []string
	for _, c := range f.Comments {
		got = append(got, c.Text)
	}
	if strings.Join(got, "|") != "// a|/* b */|// c|/* d\n */|// e" {
		t.Errorf("comments: %q", got)
	}
}

// genParseModel writes a valid model of about lines lines: many threads, each
// with varied statements.
func genParseModel(lines int) []byte {
	var b bytes.Buffer
	b.WriteString("// generated\nconst N = 4\nconst M = N * 2 + 1\n")
	b.WriteString("var x [N]int\nvar c int\nvar flag atomic bool\nvar mc mutex\nvar mx [N]mutex\nvar grid [2][3]int = {{1, 2, 3}, {4, 5, 6}}\n\n")
	b.WriteString("proc worker(k int, up bool) {\n    lock(mc)\n    c = c + k\n    unlock(mc)\n}\n\n")
	for th := 0; b.Len() == 0 || bytes.Count(b.Bytes(), []byte("\n")) < lines-30; th++ {
		fmt.Fprintf(&b, "thread t%d[w in 0..N] {\n", th)
		b.WriteString("    var i int = w * 2 + 1 // a local\n")
		b.WriteString("    var h tid = spawn worker(w, true)\n")
		b.WriteString("    for j in 0..M {\n        lock(mx[w])\n        x[w] = x[w] + j % 3\n        unlock(mx[w])\n        if j == 2 { break } else if j > 5 { continue }\n    }\n")
		b.WriteString("    while i > 0 && !flag {\n        i--\n        c += i\n        assume c < 100\n    }\n")
		b.WriteString("    atomic {\n        grid[1][2] = -grid[0][1] * (c - 1)\n        flag = c >= 0 || i != 3\n    }\n")
		b.WriteString("    join h\n    spawn worker(1, false)\n    assert x[w] <= 0x7F, \"bounded\"\n    /* block\n       comment */\n    return\n}\n\n")
	}
	return b.Bytes()
}

func TestParse5000(t *testing.T) {
	src := genParseModel(5000)
	f, diags := ParseFile("gen.weft", src)
	if len(diags) != 0 {
		t.Fatalf("generated model has errors: %v", diags[:min(len(diags), 5)])
	}
	checkParseTree(t, src, f, diags)
	if n := bytes.Count(src, []byte("\n")); n < 4970 || n > 5030 {
		t.Fatalf("generated %d lines", n)
	}
	// How fast (a few ms) is measured by BenchmarkParse5000, not asserted:
	// a time limit in a test fails on a busy machine for no bug.
}

// BenchmarkDeepNesting parses each shape of nesting a million levels
// deep: the parser stops at MaxNesting and skips the rest.
func BenchmarkDeepNesting(b *testing.B) {
	for _, sh := range nestShapes {
		src := []byte(sh.build(1_000_000))
		b.Run(sh.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				ParseFile("deep.weft", src)
			}
		})
	}
}

func BenchmarkParse5000(b *testing.B) {
	src := genParseModel(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ParseFile("gen.weft", src)
	}
}

func BenchmarkScan5000(b *testing.B) {
	src := genParseModel(5000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		s := NewScanner(src)
		for s.Next().Kind != EOF {
		}
	}
}

func TestUnquoteString(t *testing.T) {
	for raw, want := range map[string]string{
		`""`:            "",
		`"abc"`:         "abc",
		`"a\"b"`:        `a"b`,
		`"a\\b"`:        `a\b`,
		`"a\nb"`:        "a\nb",
		`"a\\"`:         `a\`,
		`"unterminated`: "unterminated",
		`"esc\"`:        `esc"`,
		`"bad\tx"`:      `bad\tx`,
		`"héllo 😀"`:     "héllo 😀",
	} {
		if got := unquoteString(raw); got != want {
			t.Errorf("unquoteString(%s) = %q, want %q", raw, got, want)
		}
	}
}
