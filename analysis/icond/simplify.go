package icond

// Equal reports whether a and b are the same expression (same variables
// of the same sides, same operators and constants).
func Equal(a, b *Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Op != b.Op || len(a.Args) != len(b.Args) {
		return false
	}
	switch a.Op {
	case Const:
		return a.Value == b.Value && a.Bool == b.Bool
	case Var:
		return a.Obj == b.Obj && a.Side == b.Side && Equal(a.Index, b.Index)
	}
	for i := range a.Args {
		if !Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// Not is the negation of a condition.
func NotOf(x *Expr) *Expr { return &Expr{Op: Not, Args: []*Expr{x}} }

// AndOf and OrOf are the conjunction and disjunction of xs (true and
// false when xs is empty), not simplified.
func AndOf(xs ...*Expr) *Expr { return chain(And, True(), xs) }
func OrOf(xs ...*Expr) *Expr  { return chain(Or, False(), xs) }

func chain(op Op, unit *Expr, xs []*Expr) *Expr {
	if len(xs) == 0 {
		return unit
	}
	out := xs[0]
	for _, x := range xs[1:] {
		out = Bin(op, out, x)
	}
	return out
}

// Simplify returns e with constants folded (arithmetic wraps, as the
// engine's evaluation of a condition does), `true && c` → c, `false ||
// c` → c, `c || true` → true and the like, `x == x` → true, `x != x` →
// false, `!!c` → c, and duplicate operands of a chain of && or || dropped.
// It does not modify e.
func Simplify(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	switch e.Op {
	case Const:
		return e
	case Var:
		if e.Index == nil {
			return e
		}
		c := *e
		c.Index = Simplify(e.Index)
		return &c
	case And, Or:
		var ops []*Expr
		flatten(e, e.Op, &ops)
		var keep []*Expr
		for _, x := range ops {
			x = Simplify(x)
			switch {
			case e.Op == And && x.IsTrue(), e.Op == Or && x.IsFalse():
				continue
			case e.Op == And && x.IsFalse():
				return False()
			case e.Op == Or && x.IsTrue():
				return True()
			}
			dup := false
			for _, k := range keep {
				if Equal(k, x) {
					dup = true
					break
				}
			}
			if !dup {
				keep = append(keep, x)
			}
		}
		if e.Op == And {
			return AndOf(keep...)
		}
		return OrOf(keep...)
	}
	args := make([]*Expr, len(e.Args))
	allConst := true
	for i, a := range e.Args {
		args[i] = Simplify(a)
		if args[i] == nil || args[i].Op != Const {
			allConst = false
		}
	}
	out := &Expr{Op: e.Op, Args: args}
	if len(args) == 1 && (e.Op == Neg || e.Op == Not) {
		x := args[0]
		if x == nil {
			return out
		}
		if x.Op == Const {
			if e.Op == Neg {
				return Int(-x.Value)
			}
			return boolConst(x.Value == 0)
		}
		if e.Op == Not && x.Op == Not && len(x.Args) == 1 {
			return x.Args[0]
		}
		if e.Op == Not && isComparison(x.Op) && len(x.Args) == 2 {
			return Bin(negate[x.Op], x.Args[0], x.Args[1])
		}
		return out
	}
	if len(args) != 2 || args[0] == nil || args[1] == nil {
		return out
	}
	x, y := args[0], args[1]
	if allConst {
		a, b := x.Value, y.Value
		switch e.Op {
		case Add:
			return Int(a + b)
		case Sub:
			return Int(a - b)
		case Mul:
			return Int(a * b)
		case Eq:
			return boolConst(a == b)
		case Ne:
			return boolConst(a != b)
		case Lt:
			return boolConst(a < b)
		case Le:
			return boolConst(a <= b)
		case Gt:
			return boolConst(a > b)
		case Ge:
			return boolConst(a >= b)
		}
		return out
	}
	if Equal(x, y) {
		switch e.Op {
		case Eq, Le, Ge:
			return True()
		case Ne, Lt, Gt:
			return False()
		case Sub:
			return Int(0)
		}
	}
	switch {
	case e.Op == Add && isInt(x, 0):
		return y
	case (e.Op == Add || e.Op == Sub) && isInt(y, 0):
		return x
	case e.Op == Mul && isInt(x, 1):
		return y
	case e.Op == Mul && isInt(y, 1):
		return x
	case (e.Op == Eq || e.Op == Ne) && x.Op == Const && x.Bool && !y.isConstOp():
		// true == c → c; false == c → !c (and != the other way).
		if (x.Value != 0) == (e.Op == Eq) {
			return y
		}
		return Simplify(NotOf(y))
	case (e.Op == Eq || e.Op == Ne) && y.Op == Const && y.Bool:
		return Simplify(Bin(e.Op, y, x))
	}
	return out
}

func (e *Expr) isConstOp() bool { return e.Op == Const }

func isInt(e *Expr, v int64) bool { return e.Op == Const && !e.Bool && e.Value == v }

func boolConst(b bool) *Expr {
	if b {
		return True()
	}
	return False()
}

var negate = map[Op]Op{Eq: Ne, Ne: Eq, Lt: Ge, Ge: Lt, Le: Gt, Gt: Le}

func flatten(e *Expr, op Op, out *[]*Expr) {
	if e != nil && e.Op == op && len(e.Args) == 2 {
		flatten(e.Args[0], op, out)
		flatten(e.Args[1], op, out)
		return
	}
	*out = append(*out, e)
}
