package analysis_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

func mustCheck(t *testing.T, src string) *analysis.Program {
	t.Helper()
	file, perrs := grammar.ParseFile("test.weft", []byte(src))
	if len(perrs) > 0 {
		t.Fatalf("parse errors: %v", perrs)
	}
	prog := analysis.Check(file)
	if prog.HasErrors() {
		t.Fatalf("check errors:\n%s", formatDiags(prog.Diagnostics))
	}
	return prog
}

func TestThreadInstances(t *testing.T) {
	tests := []struct {
		src   string
		names []string
		index []int64
	}{
		{"thread a {}\n", []string{"a"}, []int64{0}},
		{"const N = 3\nthread w[i in 0..N] { assert i >= 0 }\nthread m {}\n",
			[]string{"w[0]", "w[1]", "w[2]", "m"}, []int64{0, 1, 2, 0}},
		{"thread m {}\nthread w[i in -2..1] { assert i < 1 }\n",
			[]string{"m", "w[-2]", "w[-1]", "w[0]"}, []int64{0, -2, -1, 0}},
		{"const LO = 5\nthread w[k in LO..LO+2] { assert k >= LO }\nthread v[k in 2*LO..2*LO+1] { assert k == 10 }\n",
			[]string{"w[5]", "w[6]", "v[10]"}, []int64{5, 6, 10}},
		{"proc p() {}\nthread only { spawn p() }\n", []string{"only"}, []int64{0}},
	}
	for _, tt := range tests {
		prog := mustCheck(t, tt.src)
		var names []string
		var index []int64
		for _, inst := range prog.Threads {
			names = append(names, inst.Name)
			index = append(index, inst.Index)
			if inst.Object == nil || inst.Object.Kind != analysis.Thread || inst.Decl == nil {
				t.Errorf("%q: instance %s has no thread object", tt.src, inst.Name)
			}
		}
		if fmt.Sprint(names) != fmt.Sprint(tt.names) || fmt.Sprint(index) != fmt.Sprint(tt.index) {
			t.Errorf("%q: instances %v %v, want %v %v", tt.src, names, index, tt.names, tt.index)
		}
	}

	// Empty thread arrays, and the limit on instances.
	file, _ := grammar.ParseFile("x.weft", []byte("thread w[i in 3..1] {}\nthread big[i in 0..20000] {}\nthread a {}\n"))
	prog := analysis.Check(file)
	if len(prog.Threads) != 1 || prog.Threads[0].Name != "a" {
		t.Errorf("instances %v, want only a", prog.Threads)
	}
	codes := diagCodes(prog.Diagnostics)
	if codes != "no-instances too-many-threads" {
		t.Errorf("codes %q", codes)
	}
	file, _ = grammar.ParseFile("x.weft", []byte("thread w[i in 0..10000] {}\nthread a {}\n"))
	if codes := diagCodes(analysis.Check(file).Diagnostics); codes != "too-many-threads" {
		t.Errorf("codes %q", codes)
	}
}

func diagCodes(ds []source.Diagnostic) string {
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	return strings.Join(codes, " ")
}

func TestSharedLayout(t *testing.T) {
	src := `const N = 3
var a int
var grid [2][N]int = {{1, 2, 3}, {4, 5, 6}}
var m mutex
var ms [N]mutex
var flag atomic bool = true
var t tid
var ts [2][2]tid
var last int = -0x10
`
	prog := mustCheck(t, src)
	want := []struct {
		name   string
		offset int
		typ    string
		atomic bool
		init   string
	}{
		{"a", 0, "int", false, "[]"},
		{"grid", 1, "[2][3]int", false, "[1 2 3 4 5 6]"},
		{"m", 7, "mutex", false, "[]"},
		{"ms", 8, "[3]mutex", false, "[]"},
		{"flag", 11, "bool", true, "[1]"},
		{"t", 12, "tid", false, "[]"},
		{"ts", 13, "[2][2]tid", false, "[]"},
		{"last", 17, "int", false, "[-16]"},
	}
	if len(prog.Shared) != len(want) {
		t.Fatalf("%d shared variables, want %d", len(prog.Shared), len(want))
	}
	for i, w := range want {
		o := prog.Shared[i]
		if o.Name != w.name || o.Offset != w.offset || o.Type.String() != w.typ || o.Atomic != w.atomic ||
			fmt.Sprint(o.Init) != w.init || o.Kind != analysis.SharedVar {
			t.Errorf("shared %d: %s at %d type %s atomic %v init %v; want %+v",
				i, o.Name, o.Offset, o.Type, o.Atomic, o.Init, w)
		}
	}
	if prog.SharedSize != 18 {
		t.Errorf("SharedSize %d, want 18", prog.SharedSize)
	}
	if n := analysis.SizeOf(prog.Shared[6].Type); n != 4 {
		t.Errorf("SizeOf([2][2]tid) = %d", n)
	}
	if len(prog.Consts) != 1 || prog.Consts[0].Value.Int() != 3 || prog.Lookup("N") != prog.Consts[0] {
		t.Errorf("consts %v", prog.Consts)
	}
}

func TestFrameLayout(t *testing.T) {
	src := `var x int
proc p(a int, b bool) {
    var c [2][3]int
    var d int
    if b {
        var e int
        var f [4]int
        x = e + f[0]
    } else {
        var g bool
        assert g
    }
    for i in 0..a {
        var h int
        x = h + i
    }
    var k int
    x = c[1][2] + d + k
}
thread t {
    var y int
    y = 1
    x = y
}
`
	prog := mustCheck(t, src)
	slots := map[string]int{}
	objs := map[string]*analysis.Object{}
	for id, o := range prog.Uses {
		if id.Pos() == o.Ident.Pos() && o.Slot >= 0 {
			slots[o.Name] = o.Slot
			objs[o.Name] = o
		}
	}
	// Params first, then locals in order; disjoint scopes share slots.
	want := map[string]int{"a": 0, "b": 1, "c": 2, "d": 8, "e": 9, "f": 10, "g": 9, "i": 9, "h": 11, "k": 9, "y": 0}
	if fmt.Sprint(slots) != fmt.Sprint(want) {
		t.Errorf("slots %v\nwant  %v", slots, want)
	}
	p := prog.Lookup("p")
	if p.FrameSize != 14 || len(p.Params) != 2 || p.Params[1].Type != analysis.Bool {
		t.Errorf("proc p: frame %d params %v", p.FrameSize, p.Params)
	}
	if th := prog.Lookup("t"); th.FrameSize != 1 || th.Kind != analysis.Thread {
		t.Errorf("thread t: frame %d", th.FrameSize)
	}
	if objs["i"].Kind != analysis.LoopVar || objs["h"].Owner != p || objs["c"].Type.String() != "[2][3]int" {
		t.Errorf("objects %+v %+v", objs["i"], objs["h"])
	}
}

func TestTablesAndObjectAt(t *testing.T) {
	src := `const N = 2 + 3
var x [N]int
thread w[i in 0..N] {
    x[i] = N * 2
    join w[1]
}
`
	prog := mustCheck(t, src)
	file := prog.File
	th := file.Decls[2].(*grammar.ThreadDecl)
	assign := th.Body.Stmts[0].(*grammar.AssignStmt)
	rhs := assign.RHS.(*grammar.BinaryExpr)
	if v, ok := prog.ConstValues[rhs]; !ok || v.Int() != 10 || !v.IsInt() {
		t.Errorf("N * 2 = %v", v)
	}
	if typ := prog.Types[assign.LHS]; typ != analysis.Int {
		t.Errorf("type of x[i] = %v", typ)
	}
	lhs := assign.LHS.(*grammar.IndexExpr)
	if _, ok := prog.ConstValues[lhs.Index]; ok {
		t.Errorf("thread index is constant in ConstValues")
	}
	if o := prog.Uses[lhs.Index.(*grammar.Ident)]; o == nil || o.Kind != analysis.ThreadIndex || o.Owner != prog.Lookup("w") {
		t.Errorf("i resolves to %v", o)
	}
	join := th.Body.Stmts[1].(*grammar.JoinStmt)
	if typ := prog.Types[join.Thread]; typ != analysis.Tid {
		t.Errorf("type of w[1] = %v", typ)
	}
	if typ := prog.Types[join.Thread.(*grammar.IndexExpr).X]; typ.String() != "[5]tid" {
		t.Errorf("type of w = %v", typ)
	}
	// ObjectAt: on "x" of line 4 (0-based 3), column 4, and just after it.
	sf := source.NewFile("t.weft", []byte(src))
	for _, col := range []int{4, 5} {
		o := prog.ObjectAt(sf.Pos(sf.Offset(3, col)))
		if o == nil || o.Name != "x" || o.Kind != analysis.SharedVar {
			t.Errorf("ObjectAt(4:%d) = %v", col+1, o)
		}
	}
	if o := prog.ObjectAt(sf.Pos(sf.Offset(0, 7))); o == nil || o.Kind != analysis.Const || o.Value.Int() != 5 {
		t.Errorf("ObjectAt(const N) = %v", o)
	}
	if o := prog.ObjectAt(sf.Pos(sf.Offset(3, 10))); o != nil {
		t.Errorf("ObjectAt(space) = %v", o)
	}
}

func TestTypes(t *testing.T) {
	a := &analysis.Array{Len: 2, Elem: &analysis.Array{Len: 3, Elem: analysis.Int}}
	if a.String() != "[2][3]int" || analysis.SizeOf(a) != 6 || analysis.ScalarOf(a) != analysis.Int {
		t.Errorf("%s %d", a, analysis.SizeOf(a))
	}
	b := &analysis.Array{Len: 2, Elem: &analysis.Array{Len: 3, Elem: analysis.Int}}
	if !analysis.Identical(a, b) || analysis.Identical(a, a.Elem) || analysis.Identical(nil, nil) {
		t.Error("Identical")
	}
	if analysis.BoolValue(true).String() != "true" || analysis.IntValue(-3).String() != "-3" || (analysis.Value{}).IsValid() {
		t.Error("Value")
	}
}

func TestNilAndEmpty(t *testing.T) {
	prog := analysis.Check(nil)
	if len(prog.Diagnostics) != 0 {
		t.Error(prog.Diagnostics)
	}
	file, _ := grammar.ParseFile("e.weft", nil)
	if prog := analysis.Check(file); len(prog.Diagnostics) != 0 || prog.SharedSize != 0 {
		t.Error(prog.Diagnostics)
	}
	// Hand-made trees with missing pieces must not panic.
	id := func(s string) *grammar.Ident { return &grammar.Ident{Name: s} }
	file = &grammar.File{Decls: []grammar.Decl{
		&grammar.ConstDecl{Name: id("A")},
		&grammar.VarDecl{Name: id("v"), Type: &grammar.ArrayType{Len: &grammar.BadExpr{}, Elem: &grammar.NamedType{Kind: grammar.INT_TYPE}}},
		&grammar.VarDecl{Name: id("")},
		&grammar.ThreadDecl{Name: id("t"), Index: id("i"), Lo: &grammar.BadExpr{}, Hi: &grammar.BadExpr{}},
		&grammar.ProcDecl{Name: id("p"), Params: []*grammar.Param{nil, {Name: id("a")}}},
		&grammar.ThreadDecl{Name: id("u"), Body: &grammar.Block{Stmts: []grammar.Stmt{
			nil, &grammar.DeclStmt{}, &grammar.SpawnStmt{}, &grammar.ExprStmt{},
			&grammar.IfStmt{Cond: &grammar.BadExpr{}}, &grammar.ForStmt{Var: id("")},
			&grammar.AssignStmt{LHS: &grammar.BadExpr{}, Op: grammar.ASSIGN, RHS: &grammar.BadExpr{}},
		}}},
		&grammar.BadDecl{},
		nil,
	}}
	prog = analysis.Check(file)
	for _, d := range prog.Diagnostics {
		if d.Code == analysis.CodeInternalError {
			t.Error(d)
		}
	}
}

// TestBrokenSources checks every testdata source cut and damaged in many
// ways: the checker must neither panic nor report internal errors.
func TestBrokenSources(t *testing.T) {
	srcs := testSources(t)
	rng := rand.New(rand.NewSource(1))
	junk := []string{"{", "}", "(", ")", "[", "]", "\n", ";", "=", "spawn", "var", "..", "x", "0", "atomic", "if", "+", ",", "thread", "proc"}
	n := 0
	for _, src := range srcs {
		for i := 0; i < 300; i++ {
			b := []byte(src)
			switch rng.Intn(3) {
			case 0:
				b = b[:rng.Intn(len(b)+1)]
			case 1:
				at := rng.Intn(len(b) + 1)
				end := min(len(b), at+rng.Intn(20))
				b = append(b[:at:at], b[end:]...)
			case 2:
				at := rng.Intn(len(b) + 1)
				ins := junk[rng.Intn(len(junk))]
				b = append(append(b[:at:at], ins...), b[at:]...)
			}
			file, _ := grammar.ParseFile("broken.weft", b)
			prog := analysis.Check(file)
			n++
			for _, d := range prog.Diagnostics {
				if d.Code == analysis.CodeInternalError || !d.Range.IsValid() || d.Range.End.Offset < d.Range.Start.Offset {
					t.Fatalf("%s\nin:\n%s", d, b)
				}
			}
		}
	}
	t.Logf("%d damaged sources", n)
}

func testSources(t testing.TB) []string {
	paths, _ := filepath.Glob("testdata/*.txtar")
	var srcs []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range parseArchive(data).Files {
			if strings.HasSuffix(f.Name, ".weft") {
				srcs = append(srcs, string(f.Data))
			}
		}
	}
	return srcs
}
