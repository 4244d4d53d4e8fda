package icond

import (
	"math"
	"testing"

	"weft/analysis"
)

func TestStringAndSimplify(t *testing.T) {
	x := &analysis.Object{Kind: analysis.SharedVar, Name: "x"}
	a := &analysis.Object{Kind: analysis.SharedVar, Name: "a"}
	i := &analysis.Object{Kind: analysis.ThreadIndex, Name: "i"}
	v := &analysis.Object{Kind: analysis.LocalVar, Name: "v"}
	w := &analysis.Object{Kind: analysis.LocalVar, Name: "w"}
	sh := func(o *analysis.Object) *Expr { return &Expr{Op: Var, Obj: o} }
	loc := func(o *analysis.Object, side int) *Expr { return &Expr{Op: Var, Obj: o, Side: side} }
	el := func(o *analysis.Object, idx *Expr) *Expr { return &Expr{Op: Var, Obj: o, Index: idx} }
	tests := []struct {
		e    *Expr
		want string
	}{
		{Bin(Ne, loc(i, 0), loc(i, 1)), "i != other.i"},
		// Without a scope every local of side 1 is qualified.
		{Bin(Ne, loc(v, 0), loc(w, 1)), "v != other.w"},
		{Bin(Or, Bin(Ne, loc(i, 0), loc(w, 1)), Bin(Eq, Bin(Gt, el(a, loc(i, 0)), Int(5)), Bin(Gt, sh(x), Int(5)))),
			"i != other.w || (a[i] > 5) == (x > 5)"},
		{Bin(Le, sh(x), Int(-2)), "x <= -2"},
		// math.MinInt64 has no literal in Weft.
		{Bin(Ge, sh(x), Int(math.MinInt64)), "x >= -9223372036854775807 - 1"},
		{Bin(Sub, sh(x), Int(math.MinInt64)), "x - (-9223372036854775807 - 1)"},
		{Bin(Mul, Int(math.MinInt64), sh(x)), "(-9223372036854775807 - 1) * x"},
		{&Expr{Op: Neg, Args: []*Expr{Int(-2)}}, "-(-2)"},
		{Bin(Mul, Bin(Add, sh(x), Int(1)), Bin(Sub, sh(x), Bin(Sub, loc(v, 0), Int(1)))), "(x + 1) * (x - (v - 1))"},
		{Bin(And, Bin(Or, True(), sh(x)), Bin(Lt, sh(x), Int(3))), "(true || x) && x < 3"},
		{NotOf(Bin(Eq, sh(x), Int(1))), "!(x == 1)"},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("String = %q, want %q", got, tc.want)
		}
	}
	simp := []struct {
		e    *Expr
		want string
	}{
		{AndOf(True(), Bin(Ne, Int(1), Int(2)), Bin(Eq, sh(x), sh(x))), "true"},
		{AndOf(Bin(Lt, sh(x), Int(3)), True(), Bin(Lt, sh(x), Int(3))), "x < 3"},
		{OrOf(Bin(Ne, Int(1), Int(1)), Bin(Lt, sh(x), Int(3))), "x < 3"},
		{OrOf(Bin(Lt, sh(x), Int(3)), Bin(Eq, Int(2), Int(2))), "true"},
		{NotOf(NotOf(Bin(Lt, sh(x), Int(3)))), "x < 3"},
		{NotOf(Bin(Lt, sh(x), Int(3))), "x >= 3"},
		{Bin(Eq, Bin(Gt, sh(x), Int(5)), Bin(Gt, Int(5), Int(5))), "x <= 5"},
		{Bin(Add, Bin(Mul, Int(2), Int(3)), Bin(Mul, Int(1), sh(x))), "6 + x"},
		{Bin(Ne, loc(i, 0), loc(i, 1)), "i != other.i"},
		{Bin(Ne, loc(i, 0), loc(i, 0)), "false"},
	}
	for _, tc := range simp {
		if got := Simplify(tc.e).String(); got != tc.want {
			t.Errorf("Simplify(%s) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestText: a local of side 1 is qualified whenever a plain name would
// read, at side 0's statement, as something else — a local of side 0's
// body, a top-level object, another variable of the condition — even if
// that other thing does not occur in the condition; a shared variable
// that a local of side 0 hides is `shared.NAME`.
func TestText(t *testing.T) {
	c := &analysis.Object{Kind: analysis.SharedVar, Name: "c"}
	y := &analysis.Object{Kind: analysis.SharedVar, Name: "y"}
	n := &analysis.Object{Kind: analysis.Const, Name: "N"}
	// Two threads' compare-and-swap locals: same names, different objects.
	exp0 := &analysis.Object{Kind: analysis.LocalVar, Name: "expected"}
	des0 := &analysis.Object{Kind: analysis.LocalVar, Name: "desired"}
	exp1 := &analysis.Object{Kind: analysis.LocalVar, Name: "expected"}
	des1 := &analysis.Object{Kind: analysis.LocalVar, Name: "desired"}
	ok1 := &analysis.Object{Kind: analysis.LocalVar, Name: "ok"}
	k := &analysis.Object{Kind: analysis.Param, Name: "k"}
	nn := &analysis.Object{Kind: analysis.LocalVar, Name: "N"}
	y0 := &analysis.Object{Kind: analysis.LocalVar, Name: "y"}
	sh := func(o *analysis.Object) *Expr { return &Expr{Op: Var, Obj: o} }
	loc := func(o *analysis.Object, side int) *Expr { return &Expr{Op: Var, Obj: o, Side: side} }
	set := func(names ...string) func(string) bool {
		return func(s string) bool {
			for _, n := range names {
				if n == s {
					return true
				}
			}
			return false
		}
	}
	cas := Scope{Local: set("expected", "desired", "ok"), Top: set("c", "a", "b")}
	tests := []struct {
		name string
		e    *Expr
		sc   Scope
		want string
	}{
		{"issue: side 1's locals only", AndOf(Bin(Ne, sh(c), loc(exp1, 1)), Bin(Ne, loc(exp1, 1), loc(des1, 1))), cas,
			"c != other.expected && other.expected != other.desired"},
		{"issue: mixed sides", AndOf(Bin(Ne, sh(c), loc(exp0, 0)), Bin(Ne, loc(exp0, 0), loc(des1, 1))), cas,
			"c != expected && expected != other.desired"},
		{"a bool of side 1", AndOf(Bin(Eq, loc(des0, 0), loc(des1, 1)), loc(ok1, 1)), cas,
			"desired == other.desired && other.ok"},
		{"no clash anywhere", Bin(Ne, loc(exp0, 0), loc(k, 1)), cas, "expected != k"},
		{"a name of side 1 clashing with a constant", Bin(Lt, loc(nn, 1), Int(3)), Scope{Top: set("N")}, "other.N < 3"},
		{"a constant object itself", Bin(Lt, sh(n), Int(3)), Scope{Top: set("N")}, "N < 3"},
		{"a shared variable hidden by a local of side 0", Bin(Eq, sh(y), Int(1)), Scope{Local: set("y"), Top: set("y")}, "shared.y == 1"},
		{"both in the condition", Bin(Eq, sh(y), loc(y0, 0)), Scope{Top: set("y")}, "shared.y == y"},
		{"hidden on side 1 only", Bin(Eq, sh(y), loc(y0, 1)), Scope{Top: set("y")}, "y == other.y"},
		{"nil scope functions", Bin(Ne, loc(exp0, 0), loc(exp1, 1)), Scope{}, "expected != other.expected"},
	}
	for _, tc := range tests {
		if got := tc.e.Text(tc.sc); got != tc.want {
			t.Errorf("%s: Text = %q, want %q", tc.name, got, tc.want)
		}
	}
}
