package icond

import (
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
		{Bin(Ne, loc(v, 0), loc(w, 1)), "v != w"},
		{Bin(Or, Bin(Ne, loc(i, 0), loc(w, 1)), Bin(Eq, Bin(Gt, el(a, loc(i, 0)), Int(5)), Bin(Gt, sh(x), Int(5)))),
			"i != w || (a[i] > 5) == (x > 5)"},
		{Bin(Le, sh(x), Int(-2)), "x <= -2"},
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
