package indep

import (
	"math"
	"math/big"
	"testing"

	"weft/analysis"
	"weft/analysis/icond"
)

// TestCompiledArithmeticDoesNotWrap: the engine evaluates a condition in
// wrapping int64 arithmetic, so a compiled condition must not hold where
// its arithmetic overflows (`l + m == 3` where l + m wraps around to 3),
// and must hold as in unbounded integers everywhere else. Each case is
// checked against the condition evaluated over big integers, false where
// some intermediate result is out of int64's range (the guard refuses
// those states, even where the unbounded value would hold: never wrong).
func TestCompiledArithmeticDoesNotWrap(t *testing.T) {
	l := &analysis.Object{Kind: analysis.LocalVar, Name: "l", Slot: 0}
	m := &analysis.Object{Kind: analysis.LocalVar, Name: "m", Slot: 1}
	arr := &analysis.Object{Kind: analysis.SharedVar, Name: "a", Offset: 0, Type: &analysis.Array{Elem: analysis.Int, Len: 2}}
	L := &icond.Expr{Op: icond.Var, Obj: l}
	M := &icond.Expr{Op: icond.Var, Obj: m, Side: 1}
	k := icond.Int
	neg := func(x *icond.Expr) *icond.Expr { return &icond.Expr{Op: icond.Neg, Args: []*icond.Expr{x}} }
	el := func(i *icond.Expr) *icond.Expr { return &icond.Expr{Op: icond.Var, Obj: arr, Index: i} }
	const minI, maxI = math.MinInt64, math.MaxInt64
	tests := []struct {
		name string
		e    *icond.Expr
		l, m int64
	}{
		{"sum wraps to 3", icond.Bin(icond.Eq, icond.Bin(icond.Add, L, M), k(3)), minI, minI + 3},
		{"sum is 3", icond.Bin(icond.Eq, icond.Bin(icond.Add, L, M), k(3)), maxI, -maxI + 3},
		{"sum at the top", icond.Bin(icond.Le, icond.Bin(icond.Add, L, M), k(maxI)), maxI, 0},
		{"sum past the top", icond.Bin(icond.Le, icond.Bin(icond.Add, L, M), k(maxI)), maxI, 1},
		{"difference wraps", icond.Bin(icond.Gt, icond.Bin(icond.Sub, L, M), k(0)), minI, 1},
		{"difference past the top", icond.Bin(icond.Lt, icond.Bin(icond.Sub, L, M), k(0)), maxI, -1},
		{"difference in range", icond.Bin(icond.Lt, icond.Bin(icond.Sub, L, M), k(0)), minI, 0},
		{"negation of min", icond.Bin(icond.Lt, neg(L), k(0)), minI, 0},
		{"negation", icond.Bin(icond.Lt, neg(L), k(0)), minI + 1, 0},
		{"double wraps to 0", icond.Bin(icond.Eq, icond.Bin(icond.Mul, k(2), L), k(0)), minI, 0},
		{"double of the largest half", icond.Bin(icond.Ge, icond.Bin(icond.Mul, L, k(2)), k(0)), maxI / 2, 0},
		{"double past the top", icond.Bin(icond.Ge, icond.Bin(icond.Mul, L, k(2)), k(0)), maxI/2 + 1, 0},
		{"times -3 at the bottom", icond.Bin(icond.Le, icond.Bin(icond.Mul, k(-3), L), k(0)), maxI / 3, 0},
		{"times -3 past the bottom", icond.Bin(icond.Le, icond.Bin(icond.Mul, k(-3), L), k(0)), maxI/3 + 1, 0},
		{"times -3 past the top", icond.Bin(icond.Ge, icond.Bin(icond.Mul, k(-3), L), k(0)), minI/3 - 1, 0},
		{"times -1 of min", icond.Bin(icond.Lt, icond.Bin(icond.Mul, k(-1), L), k(0)), minI, 0},
		{"product wraps to 0", icond.Bin(icond.Eq, icond.Bin(icond.Mul, L, M), k(0)), 1 << 32, 1 << 32},
		{"small product", icond.Bin(icond.Eq, icond.Bin(icond.Mul, L, M), k(0)), 0, 5},
		{"nested: the inner sum wraps back", icond.Bin(icond.Eq, icond.Bin(icond.Sub, icond.Bin(icond.Add, L, M), M), L), maxI, 1},
		{"nested in range", icond.Bin(icond.Eq, icond.Bin(icond.Sub, icond.Bin(icond.Add, L, M), M), L), maxI - 1, 1},
		{"an index that wraps into range", icond.Bin(icond.Eq, el(icond.Bin(icond.Mul, k(2), L)), k(0)), minI, 0},
		{"an index in range", icond.Bin(icond.Eq, el(icond.Bin(icond.Add, L, k(1))), k(0)), 0, 0},
		{"no arithmetic", icond.Bin(icond.Eq, L, M), 4, 4},
	}
	for _, tc := range tests {
		c, _, err := compile(tc.e)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		st := liveState{mem: []int64{0, 0}, frames: [2][]int64{{tc.l, 0}, {0, tc.m}}}
		v, ok := c.Eval(st)
		got := ok && v != 0
		want := bigHolds(tc.e, tc.l, tc.m)
		if got != want {
			t.Errorf("%s: %s with l = %d, m = %d: compiled gives %v, unbounded arithmetic %v", tc.name, tc.e, tc.l, tc.m, got, want)
		}
	}
}

// bigHolds evaluates e over big integers, l and m as given and a's
// elements 0; an index out of range, or an intermediate result out of
// int64's range, makes it false.
func bigHolds(e *icond.Expr, l, m int64) bool {
	bad := false
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	b := func(c bool) *big.Int {
		if c {
			return big.NewInt(1)
		}
		return big.NewInt(0)
	}
	var ev func(e *icond.Expr) *big.Int
	ev = func(e *icond.Expr) *big.Int {
		var v *big.Int
		switch e.Op {
		case icond.Const:
			v = big.NewInt(e.Value)
		case icond.Var:
			v = big.NewInt(m)
			if e.Obj.Name == "l" {
				v = big.NewInt(l)
			}
			if e.Index != nil {
				i := ev(e.Index)
				bad = bad || !i.IsInt64() || i.Int64() < 0 || i.Int64() >= 2
				v = big.NewInt(0)
			}
		case icond.Neg:
			v = new(big.Int).Neg(ev(e.Args[0]))
		default:
			x, y := ev(e.Args[0]), ev(e.Args[1])
			switch e.Op {
			case icond.Add:
				v = new(big.Int).Add(x, y)
			case icond.Sub:
				v = new(big.Int).Sub(x, y)
			case icond.Mul:
				v = new(big.Int).Mul(x, y)
			case icond.Eq:
				v = b(x.Cmp(y) == 0)
			case icond.Lt:
				v = b(x.Cmp(y) < 0)
			case icond.Le:
				v = b(x.Cmp(y) <= 0)
			case icond.Gt:
				v = b(x.Cmp(y) > 0)
			case icond.Ge:
				v = b(x.Cmp(y) >= 0)
			default:
				panic("op")
			}
		}
		if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			bad = true
		}
		return v
	}
	v := ev(e)
	return !bad && v.Sign() != 0
}
