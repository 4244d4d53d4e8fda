package lower_test

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/engine"
	"weft/grammar"
	"weft/source"
)

// withMaxStack runs f with the goroutine stack limited to max bytes (for
// every goroutine: tests that use it must not run in parallel). Going
// past the limit is a fatal error that fails the test binary: how a test
// shows that no pass recurses deeper than the nesting limit allows.
func withMaxStack(max int, f func()) {
	old := debug.SetMaxStack(max)
	defer debug.SetMaxStack(old)
	f()
}

// frontEndStack is the stack every front-end pass fits in, whatever the
// input: at grammar.MaxNesting they need about 2 MB.
const frontEndStack = 16 << 20

// rep returns s k times, each with every %d replaced by its index.
func rep(s string, k int) string {
	if !strings.Contains(s, "%d") {
		return strings.Repeat(s, k)
	}
	var b strings.Builder
	for i := range k {
		b.WriteString(strings.ReplaceAll(s, "%d", strconv.Itoa(i)))
	}
	return b.String()
}

// brief renders the first few of diags, for a failure message.
func brief(diags []source.Diagnostic) string {
	if len(diags) > 3 {
		return fmt.Sprintf("%v and %d more", diags[:3], len(diags)-3)
	}
	return fmt.Sprint(diags)
}

// deepPrograms are valid programs that nest, in every way there is,
// k levels deep (as grammar.MaxNesting counts them: a thread body is one
// level, each operator of a chain one more).
var deepPrograms = []struct {
	name  string
	build func(k int) string
}{
	{"constant sum", func(k int) string {
		return "const X = 1" + rep(" + 1", k) + "\nvar x int = X\n"
	}},
	{"constant product of sums", func(k int) string {
		return "const X = 1" + rep(" * (1 + 0)", k-2) + "\nvar x int = X\n"
	}},
	{"constant minus", func(k int) string { return "const X = " + rep("- ", k) + "1\nvar x int = X\n" }},
	{"constant not", func(k int) string { return "const X = " + rep("!", k) + "true\nvar x bool = X\n" }},
	{"or chain", func(k int) string {
		return "var b bool\nthread t {\n    b = b" + rep(" || b", k-1) + "\n}\n"
	}},
	{"and chain", func(k int) string {
		return "var b bool\nthread t {\n    b = b" + rep(" && !b", k-2) + "\n}\n"
	}},
	{"sum", func(k int) string { return "var x int\nthread t {\n    x = x" + rep(" + x", k-1) + "\n}\n" }},
	{"right-nested sum", func(k int) string {
		return "var x int\nthread t {\n    x = " + rep("x + (", (k-1)/2) + "x" + rep(")", (k-1)/2) + "\n}\n"
	}},
	{"index chain", func(k int) string {
		return "var a " + rep("[1]", k-1) + "int\nthread t {\n    var i int = 0\n    a" + rep("[i]", k-1) + " = 1\n}\n"
	}},
	{"nested indexes", func(k int) string {
		return "var a [1]int\nthread t {\n    a[0] = " + rep("a[", k-1) + "0" + rep("]", k-1) + "\n}\n"
	}},
	{"initialiser lists", func(k int) string {
		return "var a " + rep("[1]", k) + "int = " + rep("{", k) + "7" + rep("}", k) + "\n" +
			"thread t {\n    var l " + rep("[1]", k-1) + "int = " + rep("{", k-1) + "7" + rep("}", k-1) + "\n    var v int = l" + rep("[0]", k-1) + "\n    assert v == 7\n}\n"
	}},
	{"spawn argument", func(k int) string {
		return "proc p(n int) {\n}\nthread t {\n    spawn p(0" + rep(" + 1", k-1) + ")\n}\n"
	}},
	{"ifs", func(k int) string {
		return "var x int\nthread t {\n" + rep("if x == %d {\n", k-1) + "x = 1\n" + rep("}\n", k-1) + "}\n"
	}},
	{"else blocks", func(k int) string {
		return "var x int\nthread t {\n" + rep("if x == 0 {\n} else {\n", k-1) + "x = 1\n" + rep("}\n", k-1) + "}\n"
	}},
	{"whiles", func(k int) string {
		return "var x int\nthread t {\n" + rep("while x < 1 {\n", k-1) + "x = 1\n" + rep("}\n", k-1) + "}\n"
	}},
	{"fors", func(k int) string {
		return "var x int\nthread t {\n" + rep("for i%d in 0..1 {\n", k-1) + "x = 1\n" + rep("}\n", k-1) + "}\n"
	}},
	{"atomic in ifs", func(k int) string {
		return "var x int\nthread t {\n" + rep("if x == 0 {\n", k-2) + "atomic {\nx = 1\n}\n" + rep("}\n", k-2) + "}\n"
	}},
	{"calls", func(k int) string {
		return "var x int\nfunc f(n int) int {\n    return n\n}\nthread t {\n    x = " + rep("f(", k-1) + "0" + rep(")", k-1) + "\n}\n"
	}},
	{"choose bound", func(k int) string {
		return "var x int\nthread t {\n    x = choose 0..1" + rep(" + 0", k-2) + "\n}\n"
	}},
	{"whiles in a function", func(k int) string {
		return "var x int\nfunc f() {\n" + rep("while x < 1 {\n", k-1) + "x = 1\n" + rep("}\n", k-1) + "}\nthread t {\n    f()\n}\n"
	}},
}

// checkDiagnostics fails on an internal error or on a diagnostic whose
// range is not inside src with positions that agree with its text.
func checkDiagnostics(t testing.TB, src []byte, diags []source.Diagnostic) {
	t.Helper()
	sf := source.NewFile("", src)
	ok := func(p source.Pos) bool {
		return p.IsValid() && p.Offset <= len(src) && sf.Pos(p.Offset) == p
	}
	for _, d := range diags {
		if d.Code == "internal-error" {
			t.Fatalf("internal error: %s", d)
		}
		if !ok(d.Range.Start) || !ok(d.Range.End) || d.Range.End.Offset < d.Range.Start.Offset ||
			d.Code == "" || d.Message == "" {
			t.Fatalf("bad diagnostic %+v", d)
		}
	}
}

func errorsOf(diags []source.Diagnostic) []source.Diagnostic {
	var errs []source.Diagnostic
	for _, d := range diags {
		if d.Severity == source.Error {
			errs = append(errs, d)
		}
	}
	return errs
}

// TestDeepPrograms: every way of nesting goes through every pass (parse,
// check, lower, format) at grammar.MaxNesting levels, and one level
// deeper gives one error, nesting-too-deep, and nothing else goes wrong,
// all in a bounded stack.
func TestDeepPrograms(t *testing.T) {
	withMaxStack(frontEndStack, func() {
		for _, p := range deepPrograms {
			t.Run(p.name, func(t *testing.T) {
				src := []byte(p.build(grammar.MaxNesting))
				ld := lower.Load("deep.weft", src)
				checkDiagnostics(t, src, ld.Diagnostics)
				if errs := errorsOf(ld.Diagnostics); len(errs) > 0 || ld.Exec == nil {
					t.Fatalf("at the limit: %s", brief(errs))
				}
				if _, err := grammar.Format(ld.File, src); err != nil {
					t.Fatal(err)
				}
				src = []byte(p.build(grammar.MaxNesting + 1))
				ld = lower.Load("deep.weft", src)
				checkDiagnostics(t, src, ld.Diagnostics)
				if errs := errorsOf(ld.Diagnostics); len(errs) != 1 || errs[0].Code != grammar.CodeNestingTooDeep {
					t.Fatalf("one level deeper: got %.300v, want one nesting-too-deep error", errs)
				}
			})
		}
	})
}

// TestMillionLevels: the two inputs of issue 14, a constant that sums a
// million ones and a million indexes, crashed the checker with a stack
// overflow at 1.2 GB; they are now one located error, found at once.
func TestMillionLevels(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	for _, tc := range []struct{ name, src, at string }{
		{"sum", "const A = 1" + strings.Repeat("+1", n-1) + "\n", "+"},
		{"indexes", "var a [1]int\nthread t {\n    var x int = a" + strings.Repeat("[0]", n) + "\n    assert x == 0\n}\n", "["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withMaxStack(frontEndStack, func() {
				src := []byte(tc.src)
				ld := lower.Load("deep.weft", src)
				errs := errorsOf(ld.Diagnostics)
				if len(errs) != 1 || errs[0].Code != grammar.CodeNestingTooDeep {
					t.Fatalf("got %.300v, want one nesting-too-deep error", errs)
				}
				// Checking every position of a line of megabytes is slow
				// (its UTF-16 column): check the error's.
				checkDiagnostics(t, src, errs)
				if r := errs[0].Range; string(src[r.Start.Offset:r.End.Offset]) != tc.at {
					t.Errorf("error at %s on %q, want on %q", r, src[r.Start.Offset:r.End.Offset], tc.at)
				}
			})
		})
	}
}

// longElseIf is a thread that runs, for each i in 0..n+2, an if with an
// else-if chain of n links (and a final else when withElse) and asserts
// that the branch for i ran.
func longElseIf(n int, withElse bool) string {
	var b strings.Builder
	b.WriteString("thread t {\n    for i in 0..")
	fmt.Fprintf(&b, "%d {\n        var r int = -1\n        if i == 0 {\n            r = 0\n        }", n+2)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, " else if i == %d {\n            r = %d\n        }", k, k)
	}
	want := -1
	if withElse {
		want = 999
		b.WriteString(" else {\n            r = 999\n        }")
	}
	fmt.Fprintf(&b, "\n        assert i <= %d && r == i || i > %d && r == %d\n    }\n}\n", n, n, want)
	return b.String()
}

// TestElseIfChains: lowering an else-if chain picks the right branch,
// with and without a final else (it is lowered in a loop, not by
// recursion), and a chain of 50,000 links loads in a 4 MB stack (100,000
// took 26 s and 560 MB when lowering computed the chain's end at every
// link, recursing along it).
func TestElseIfChains(t *testing.T) {
	for _, n := range []int{0, 1, 2, 17} {
		for _, withElse := range []bool{false, true} {
			src := longElseIf(n, withElse)
			ld := lower.Load("chain.weft", []byte(src))
			if errs := errorsOf(ld.Diagnostics); len(errs) > 0 || ld.Exec == nil {
				t.Fatalf("%v\n%s", errs, src)
			}
			res, err := engine.Explore(context.Background(), ld.Exec, engine.Options{Algorithm: engine.DFS})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 || !res.Complete {
				t.Errorf("chain of %d, else %v: %v (complete %v)\n%s", n, withElse, res.Bugs[0].Message, res.Complete, src)
			}
		}
	}
	n := 50_000
	if testing.Short() {
		n = 10_000
	}
	// Lowering recursed along the chain: 50,000 links needed over 4 MB.
	withMaxStack(4<<20, func() {
		src := []byte(longElseIf(n, true))
		ld := lower.Load("chain.weft", src)
		if errs := errorsOf(ld.Diagnostics); len(errs) > 0 || ld.Exec == nil {
			t.Fatalf("%s", brief(errs))
		}
	})
}

// TestManyLocalsAndThreads: the names of the locals were gathered by a
// pass over every use of every name for each body (10,000 threads took
// 3 s) and sorted by insertion (100,000 locals took 11 s).
func TestManyLocalsAndThreads(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	var b strings.Builder
	b.WriteString("var x int\nthread t {\n")
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "    var v%d int = x\n    x = v%d\n", i, i)
	}
	b.WriteString("}\n")
	for i := range 10_000 - 1 {
		fmt.Fprintf(&b, "thread u%d {\n    var y int = x\n    x = y\n}\n", i)
	}
	ld := lower.Load("many.weft", []byte(b.String()))
	if errs := errorsOf(ld.Diagnostics); len(errs) > 0 || ld.Exec == nil {
		t.Fatalf("%s", brief(errs))
	}
	locals := ld.Exec.Bodies[0].Locals
	if len(locals) != n {
		t.Fatalf("%d locals, want %d", len(locals), n)
	}
	for i, l := range locals {
		if want := fmt.Sprintf("v%d", n-1-i); l.Name != want || l.Slot != i {
			t.Fatalf("local %d is %s in slot %d, want %s in slot %d", i, l.Name, l.Slot, want, i)
		}
	}
	for _, body := range ld.Exec.Bodies[1:] {
		if len(body.Locals) != 1 || body.Locals[0].Name != "y" {
			t.Fatalf("%s has locals %v, want y", body.Name, body.Locals)
		}
	}
}

// longInputs are files with a long something: each front-end pass should
// be linear in it (BenchmarkLoadLong measures it).
var longInputs = []struct {
	name  string
	build func(n int) string
}{
	{"else-if chain", func(n int) string { return longElseIf(n, true) }},
	{"locals", func(n int) string {
		return "var x int\nthread t {\n" + rep("    var v%d int = x\n", n) + "}\n"
	}},
	{"threads", func(n int) string {
		return "var x int\n" + rep("thread t%d {\n    var y int = x\n    x = y\n}\n", n/10)
	}},
	{"statements", func(n int) string { return "var x int\nthread t {\n" + rep("    x = x + 1\n", n) + "}\n" }},
	{"declarations", func(n int) string { return rep("const C%d = 1\nvar v%d int\n", n) }},
	{"sums", func(n int) string {
		return "var x int\nthread t {\n" + rep("    x = x"+rep(" + 1", 900)+"\n", n/1000) + "}\n"
	}},
	{"nested blocks", func(n int) string {
		return "var x int\nthread t {\n" + rep(rep("if x == 0 {\n", 500)+"x = 1\n"+rep("}\n", 500), n/1000) + "}\n"
	}},
}

// BenchmarkLoadLong loads each long input at 20,000 and 80,000 (of
// links, locals, statements, declarations; threads a tenth of that, sums
// and nests of 900 and 500 levels a thousandth): time per op should grow
// 4 times, not 16. Before issue 14's fixes, the else-if chain, the locals
// and the threads grew quadratically.
//
//	go test ./analysis/lower -run XXX -bench LoadLong -benchtime 3x
func BenchmarkLoadLong(b *testing.B) {
	for _, in := range longInputs {
		for _, n := range []int{20_000, 80_000} {
			src := []byte(in.build(n))
			b.Run(fmt.Sprintf("%s/%d", in.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if ld := lower.Load("long.weft", src); ld.Exec == nil {
						b.Fatal(brief(errorsOf(ld.Diagnostics)))
					}
				}
			})
		}
	}
}

// TestLocationNames: the words of a shared array are named by their
// indexes, except in arrays of so many dimensions that the names would be
// kilobytes long (a million words of a 1000-dimension array took 92 s
// and 6.5 GB): those are named by offset.
func TestLocationNames(t *testing.T) {
	src := "var g [2][3]int\nvar deep " + rep("[1]", 990) + rep("[2]", 10) + "int\n" +
		"var edge " + rep("[1]", 15) + "[2]int\nvar over " + rep("[1]", 16) + "[2]int\n"
	ld := lower.Load("names.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatal(brief(errorsOf(ld.Diagnostics)))
	}
	names := map[string]bool{}
	for _, l := range ld.Exec.Locations {
		if len(l.Name) > 64 {
			t.Fatalf("a name of %d bytes: %.80s…", len(l.Name), l.Name)
		}
		names[l.Name] = true
	}
	for _, want := range []string{"g[0][0]", "g[1][2]", "deep@0", "deep@1023", "edge" + rep("[0]", 15) + "[1]", "over@1"} {
		if !names[want] {
			t.Errorf("no location named %s", want)
		}
	}
	if len(names) != 6+1024+2+2 {
		t.Errorf("%d distinct names, want %d", len(names), 6+1024+2+2)
	}
}

// TestZeroLocalArrays: a local array declared without a value is all
// zeros each time its declaration runs, whatever its size (large ones are
// cleared by a loop: a million-word array was a million instructions),
// also inside an atomic block.
func TestZeroLocalArrays(t *testing.T) {
	for _, n := range []int{1, 15, 16, 31, 32, 33, 48, 50, 1000, 100_003} {
		src := fmt.Sprintf(`var x int
thread t {
    for r in 0..3 {
        var a [%d]int
        for i in 0..%d {
            assert a[i] == 0, "not zero"
            a[i] = i + 1
        }
    }
    atomic {
        var b [%d]int
        x = b[%d]
    }
    assert x == 0
}
`, n, n, n, n-1)
		ld := lower.Load("zero.weft", []byte(src))
		if ld.Exec == nil {
			t.Fatal(brief(errorsOf(ld.Diagnostics)))
		}
		if code := len(ld.Exec.Bodies[0].Code); code > 150 {
			t.Errorf("[%d]int: %d instructions", n, code)
		}
		res, err := engine.Explore(context.Background(), ld.Exec, engine.Options{Algorithm: engine.DFS})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) > 0 {
			t.Fatalf("[%d]int: %s", n, res.Bugs[0].Message)
		}
		if !res.Complete {
			t.Fatalf("[%d]int: incomplete (%s)", n, res.Stopped)
		}
	}
}

// TestOutOfRangeFootprint: a constant index out of range in an unstable
// atomic block is a runtime error where it runs, never an access, so the
// block's may-footprint names no location past memory (it did: qpor and
// optimal, which read it, panicked; found by FuzzExplore).
func TestOutOfRangeFootprint(t *testing.T) {
	src := `var a [1]int
proc qs(lo int) {
    atomic {
        for k in lo..0 {}
        a[10] = 0
        a[-1 + 1] = a[0 - 3]
    }
}
thread A0 { spawn qs(0) }
`
	ld := lower.Load("oob.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatalf("not lowered: %v", ld.Diagnostics)
	}
	if err := ld.Exec.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, b := range ld.Exec.Bodies {
		for pc, fp := range b.Atomics {
			for _, acc := range fp.Accesses() {
				if acc.Loc < 0 || int(acc.Loc) >= len(ld.Exec.Locations) {
					t.Errorf("body %s pc %d: footprint names location %d of %d", b.Name, pc, acc.Loc, len(ld.Exec.Locations))
				}
			}
		}
	}
}
