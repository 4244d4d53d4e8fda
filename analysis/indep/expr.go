package indep

import (
	"strconv"

	"weft/analysis"
	"weft/analysis/icond"
	"weft/grammar"
)

// conv translates a Weft expression of one side into an icond.Expr, or
// returns nil when it holds something conditions cannot say: a call, a
// spawn, a choose, a trylock, a division or a remainder, a local array,
// an element of a multi-dimensional shared array, a thread handle.
type conv struct {
	p    *analysis.Program
	side int
}

func (c conv) expr(e grammar.Expr) *icond.Expr {
	if e == nil {
		return nil
	}
	if v, ok := c.p.ConstValues[e]; ok && v.IsValid() {
		if v.IsBool() {
			if v.Bool() {
				return icond.True()
			}
			return icond.False()
		}
		return icond.Int(v.Int())
	}
	switch x := e.(type) {
	case *grammar.IntLit:
		v, err := strconv.ParseInt(x.Raw, 0, 64)
		if err != nil {
			return nil
		}
		return icond.Int(v)
	case *grammar.ParenExpr:
		return c.expr(x.X)
	case *grammar.Ident:
		obj := c.p.Uses[x]
		if obj == nil || obj.Type == nil || analysis.IsArray(obj.Type) {
			return nil
		}
		switch obj.Kind {
		case analysis.SharedVar:
			if !scalarValue(obj.Type) {
				return nil
			}
			return &icond.Expr{Op: icond.Var, Obj: obj}
		case analysis.LocalVar, analysis.Param, analysis.LoopVar, analysis.ThreadIndex:
			if !scalarValue(obj.Type) {
				return nil
			}
			return &icond.Expr{Op: icond.Var, Obj: obj, Side: c.side}
		}
		return nil
	case *grammar.IndexExpr:
		id, ok := unparen(x.X).(*grammar.Ident)
		if !ok {
			return nil
		}
		obj := c.p.Uses[id]
		if obj == nil || obj.Kind != analysis.SharedVar {
			return nil
		}
		arr, ok := obj.Type.(*analysis.Array)
		if !ok || analysis.IsArray(arr.Elem) || !scalarValue(arr.Elem) {
			return nil
		}
		idx := c.expr(x.Index)
		if idx == nil {
			return nil
		}
		return &icond.Expr{Op: icond.Var, Obj: obj, Index: idx}
	case *grammar.UnaryExpr:
		a := c.expr(x.X)
		if a == nil {
			return nil
		}
		switch x.Op {
		case grammar.SUB:
			return &icond.Expr{Op: icond.Neg, Args: []*icond.Expr{a}}
		case grammar.NOT:
			return icond.NotOf(a)
		}
		return nil
	case *grammar.BinaryExpr:
		op, ok := binOps[x.Op]
		if !ok {
			return nil
		}
		a, b := c.expr(x.X), c.expr(x.Y)
		if a == nil || b == nil {
			return nil
		}
		return icond.Bin(op, a, b)
	}
	return nil
}

var binOps = map[grammar.Kind]icond.Op{
	grammar.ADD: icond.Add, grammar.SUB: icond.Sub, grammar.MUL: icond.Mul,
	grammar.EQL: icond.Eq, grammar.NEQ: icond.Ne, grammar.LSS: icond.Lt,
	grammar.LEQ: icond.Le, grammar.GTR: icond.Gt, grammar.GEQ: icond.Ge,
	grammar.LAND: icond.And, grammar.LOR: icond.Or,
}

// compoundOps maps a compound assignment to the operator it applies.
var compoundOps = map[grammar.Kind]icond.Op{
	grammar.ADD_ASSIGN: icond.Add, grammar.SUB_ASSIGN: icond.Sub, grammar.MUL_ASSIGN: icond.Mul,
}

// place translates a shared place (a scalar variable or an element of a
// one-dimensional array, of any element type: a mutex too) into a Var,
// or returns nil.
func (c conv) place(e grammar.Expr) *icond.Expr {
	switch x := unparen(e).(type) {
	case *grammar.Ident:
		obj := c.p.Uses[x]
		if obj == nil || obj.Kind != analysis.SharedVar || obj.Type == nil || analysis.IsArray(obj.Type) {
			return nil
		}
		return &icond.Expr{Op: icond.Var, Obj: obj}
	case *grammar.IndexExpr:
		id, ok := unparen(x.X).(*grammar.Ident)
		if !ok {
			return nil
		}
		obj := c.p.Uses[id]
		if obj == nil || obj.Kind != analysis.SharedVar {
			return nil
		}
		arr, ok := obj.Type.(*analysis.Array)
		if !ok || analysis.IsArray(arr.Elem) {
			return nil
		}
		idx := c.expr(x.Index)
		if idx == nil {
			return nil
		}
		return &icond.Expr{Op: icond.Var, Obj: obj, Index: idx}
	}
	return nil
}

// scalarValue says that a value of type t can be a word of a condition:
// an int or a bool (not a mutex, a condition variable or a tid).
func scalarValue(t analysis.Type) bool {
	switch analysis.ScalarOf(t) {
	case analysis.Int, analysis.Bool:
		return !analysis.IsArray(t)
	}
	return false
}

func unparen(e grammar.Expr) grammar.Expr {
	for {
		p, ok := e.(*grammar.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// readsShared reports whether e reads a shared variable, and whether
// it holds anything other than operators, constants and locals (calls,
// chooses, trylocks, spawns: then opaque is true).
func readsShared(p *analysis.Program, e grammar.Expr) (shared, opaque bool) {
	if e == nil {
		return false, false
	}
	grammar.Inspect(e, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Ident:
			if obj := p.Uses[n]; obj != nil && obj.Kind == analysis.SharedVar {
				shared = true
			}
		case *grammar.CallExpr, *grammar.SpawnExpr, *grammar.TrylockExpr, *grammar.ChooseExpr:
			opaque = true
		}
		return true
	})
	return shared, opaque
}

// substitute returns e with every occurrence of the shared place at
// (equal to it) replaced by by.
func substitute(e, at, by *icond.Expr) *icond.Expr {
	if e == nil {
		return nil
	}
	if icond.Equal(e, at) {
		return by
	}
	c := *e
	if e.Index != nil {
		c.Index = substitute(e.Index, at, by)
	}
	if len(e.Args) > 0 {
		c.Args = make([]*icond.Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = substitute(a, at, by)
		}
	}
	return &c
}

// places lists the distinct shared places of obj that e reads.
func places(e *icond.Expr, obj *analysis.Object) []*icond.Expr {
	var out []*icond.Expr
	var walk func(e *icond.Expr)
	walk = func(e *icond.Expr) {
		if e == nil {
			return
		}
		if e.Op == icond.Var && e.Obj == obj {
			for _, o := range out {
				if icond.Equal(o, e) {
					return
				}
			}
			out = append(out, e)
		}
		walk(e.Index)
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}
