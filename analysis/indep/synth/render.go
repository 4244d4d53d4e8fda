package synth

import (
	"math"

	"weft/analysis/icond"
)

// render turns a cube into one readable condition: each comparison of
// linear terms is normalised (variables with positive coefficients on the
// left, the others and the constant on the right, strict bounds against a
// constant made non-strict: `z < -1` is `z <= -2`, `z + 1 == x + 1` is
// `z == x`), and the literals are joined with &&. The result is
// equivalent to the cube.
func render(cube []*icond.Expr, vars map[key]*varInfo) *icond.Expr {
	var out *icond.Expr
	for _, l := range cube {
		r := renderLit(l, vars)
		if r.IsTrue() {
			continue
		}
		if out == nil {
			out = r
		} else {
			out = icond.Bin(icond.And, out, r)
		}
	}
	if out == nil {
		return icond.True()
	}
	return out
}

// lin is a linear term: sum of coef[k]*k plus c.
type lin struct {
	coef map[key]int64
	c    int64
}

func linear(e *icond.Expr, vars map[key]*varInfo) (lin, bool) {
	switch e.Op {
	case icond.Const:
		if e.Bool {
			return lin{}, false
		}
		return lin{c: e.Value}, true
	case icond.Var:
		k := keyOf(e)
		if v, ok := vars[k]; !ok || v.isBool {
			return lin{}, false
		}
		return lin{coef: map[key]int64{k: 1}}, true
	case icond.Neg:
		a, ok := linear(e.Args[0], vars)
		if !ok {
			return lin{}, false
		}
		return scale(a, -1)
	case icond.Add, icond.Sub:
		a, ok := linear(e.Args[0], vars)
		if !ok {
			return lin{}, false
		}
		b, ok := linear(e.Args[1], vars)
		if !ok {
			return lin{}, false
		}
		if e.Op == icond.Sub {
			if b, ok = scale(b, -1); !ok {
				return lin{}, false
			}
		}
		return addLin(a, b)
	case icond.Mul:
		a, ok := linear(e.Args[0], vars)
		if !ok {
			return lin{}, false
		}
		b, ok := linear(e.Args[1], vars)
		if !ok {
			return lin{}, false
		}
		if len(a.coef) == 0 {
			return scale(b, a.c)
		}
		if len(b.coef) == 0 {
			return scale(a, b.c)
		}
	}
	return lin{}, false
}

func scale(a lin, f int64) (lin, bool) {
	r := lin{coef: map[key]int64{}}
	var ok bool
	if r.c, ok = mulOK(a.c, f); !ok {
		return lin{}, false
	}
	for k, v := range a.coef {
		if r.coef[k], ok = mulOK(v, f); !ok {
			return lin{}, false
		}
		if r.coef[k] == 0 {
			delete(r.coef, k)
		}
	}
	return r, true
}

func addLin(a, b lin) (lin, bool) {
	r := lin{coef: map[key]int64{}}
	var ok bool
	if r.c, ok = addOK(a.c, b.c); !ok {
		return lin{}, false
	}
	for k, v := range a.coef {
		r.coef[k] = v
	}
	for k, v := range b.coef {
		if r.coef[k], ok = addOK(r.coef[k], v); !ok {
			return lin{}, false
		}
		if r.coef[k] == 0 {
			delete(r.coef, k)
		}
	}
	return r, true
}

func flip(op icond.Op) icond.Op {
	switch op {
	case icond.Lt:
		return icond.Gt
	case icond.Le:
		return icond.Ge
	case icond.Gt:
		return icond.Lt
	case icond.Ge:
		return icond.Le
	}
	return op
}

func renderLit(l *icond.Expr, vars map[key]*varInfo) *icond.Expr {
	switch l.Op {
	case icond.Eq, icond.Ne, icond.Lt, icond.Le, icond.Gt, icond.Ge:
	default:
		return l
	}
	if l.Op == icond.Eq || l.Op == icond.Ne {
		// b == true is b, b == false is !b (and != the other way).
		x, c := l.Args[0], l.Args[1]
		if x.Op == icond.Const && x.Bool {
			x, c = c, x
		}
		if c.Op == icond.Const && c.Bool {
			if (c.Value != 0) == (l.Op == icond.Eq) {
				return x
			}
			return not(x)
		}
	}
	a, ok := linear(l.Args[0], vars)
	if !ok {
		return l
	}
	b, ok := linear(l.Args[1], vars)
	if !ok {
		return l
	}
	nb, ok := scale(b, -1)
	if !ok {
		return l
	}
	d, ok := addLin(a, nb) // d op 0
	if !ok || d.c == math.MinInt64 {
		return l
	}
	op := l.Op
	if len(d.coef) == 0 {
		return boolConst(cmpConst(op, d.c))
	}
	left, right := map[key]int64{}, map[key]int64{}
	for k, v := range d.coef {
		if v > 0 {
			left[k] = v
		} else {
			if v == math.MinInt64 {
				return l
			}
			right[k] = -v
		}
	}
	rc := -d.c
	if len(left) == 0 {
		// -sum op rc  <=>  sum flip(op) -rc
		left, right = right, left
		op = flip(op)
		rc = -rc
		if len(right) != 0 {
			return l
		}
	}
	if len(right) != 0 && len(left) != 0 && keyLess(sortedKeys(right)[0], sortedKeys(left)[0]) {
		// The first variable on the left: `x == z`, not `z == x`.
		if rc != 0 {
			if rc == math.MinInt64 {
				return l
			}
			// sum_l op sum_r + rc  <=>  sum_r + rc flip(op) sum_l: keep the
			// constant with the variables now on the left.
			return icond.Bin(flip(op), sum(right, rc), sum(left, 0))
		}
		left, right = right, left
		op = flip(op)
	}
	if len(right) == 0 {
		switch {
		case op == icond.Lt && rc > math.MinInt64:
			op, rc = icond.Le, rc-1
		case op == icond.Gt && rc < math.MaxInt64:
			op, rc = icond.Ge, rc+1
		}
	}
	return icond.Bin(op, sum(left, 0), sum(right, rc))
}

func cmpConst(op icond.Op, c int64) bool {
	switch op {
	case icond.Eq:
		return c == 0
	case icond.Ne:
		return c != 0
	case icond.Lt:
		return c < 0
	case icond.Le:
		return c <= 0
	case icond.Gt:
		return c > 0
	}
	return c >= 0
}

// sum builds the terms in variable order plus the constant c.
func sum(m map[key]int64, c int64) *icond.Expr {
	var out *icond.Expr
	for _, k := range sortedKeys(m) {
		t := varExpr(k)
		if m[k] != 1 {
			t = icond.Bin(icond.Mul, icond.Int(m[k]), t)
		}
		if out == nil {
			out = t
		} else {
			out = icond.Bin(icond.Add, out, t)
		}
	}
	switch {
	case out == nil:
		return icond.Int(c)
	case c > 0:
		return icond.Bin(icond.Add, out, icond.Int(c))
	case c < 0 && c > math.MinInt64:
		return icond.Bin(icond.Sub, out, icond.Int(-c))
	case c < 0:
		return icond.Bin(icond.Add, out, icond.Int(c))
	}
	return out
}

func varExpr(k key) *icond.Expr {
	e := &icond.Expr{Op: icond.Var, Obj: k.obj}
	if k.side >= 0 {
		e.Side = k.side
	}
	if k.idx >= 0 {
		e.Index = icond.Int(k.idx)
	}
	return e
}
