package synth

import (
	"fmt"
	"math"

	"weft/analysis"
	"weft/analysis/icond"
	"weft/grammar"
)

// maxPaths bounds the paths of one block and of one composition.
const maxPaths = 256

// unsupported is the reason a block cannot be encoded exactly.
type unsupported struct{ reason string }

func (u *unsupported) Error() string { return "unsupported: " + u.reason }

func refuse(format string, args ...any) error {
	return &unsupported{reason: fmt.Sprintf(format, args...)}
}

// key names one variable of the state: a shared variable (side -1) or a
// local of one side, and an array element (idx >= 0) or a scalar (-1).
type key struct {
	obj  *analysis.Object
	side int
	idx  int64
}

// path is one transition C -> A of a block (or a composition): its guard
// as a list of literals and its parallel assignment (the store: final
// value of every variable written, in terms of the initial values).
type path struct {
	guard []*icond.Expr
	store map[key]*icond.Expr
	// arith holds every arithmetic result computed on the path (for the
	// int64 range obligations).
	arith []*icond.Expr
}

func (p *path) clone() *path {
	q := &path{
		guard: append([]*icond.Expr(nil), p.guard...),
		store: make(map[key]*icond.Expr, len(p.store)),
		arith: append([]*icond.Expr(nil), p.arith...),
	}
	for k, v := range p.store {
		q.store[k] = v
	}
	return q
}

// executor runs one block symbolically for one side.
type executor struct {
	prog   *analysis.Program
	side   int
	vars   map[key]*varInfo // every variable met, with its type
	scoped map[key]bool     // locals declared inside a block: dead after it
}

// varInfo is what the encoding needs about a variable.
type varInfo struct {
	k      key
	isBool bool
	init   *icond.Expr // the Var expression of its initial value
}

func (x *executor) variable(obj *analysis.Object, side int, idx int64, isBool bool) *varInfo {
	if obj.Kind == analysis.SharedVar {
		side = -1
	}
	k := key{obj, side, idx}
	if v, ok := x.vars[k]; ok {
		return v
	}
	e := &icond.Expr{Op: icond.Var, Obj: obj}
	if side >= 0 {
		e.Side = side
	}
	if idx >= 0 {
		e.Index = icond.Int(idx)
	}
	v := &varInfo{k: k, isBool: isBool, init: e}
	x.vars[k] = v
	return v
}

// run executes the statements from every path in ps and returns the paths
// after them.
func (x *executor) block(ps []*path, b *grammar.Block) ([]*path, error) {
	for _, s := range b.Stmts {
		var err error
		ps, err = x.stmt(ps, s)
		if err != nil {
			return nil, err
		}
		if len(ps) > maxPaths {
			return nil, refuse("more than %d paths", maxPaths)
		}
	}
	return ps, nil
}

func (x *executor) stmt(ps []*path, s grammar.Stmt) ([]*path, error) {
	switch s := s.(type) {
	case *grammar.Block:
		return x.block(ps, s)
	case *grammar.DeclStmt:
		d := s.Decl
		obj := x.prog.Uses[d.Name]
		if obj == nil || obj.Type == nil {
			return nil, refuse("unresolved declaration %s", d.Name.Name)
		}
		bt, ok := obj.Type.(analysis.Basic)
		if !ok || bt != analysis.Int && bt != analysis.Bool {
			return nil, refuse("local %s of type %v", d.Name.Name, obj.Type)
		}
		v := x.variable(obj, x.side, -1, bt == analysis.Bool)
		x.scoped[v.k] = true
		for _, p := range ps {
			var val *icond.Expr
			if d.Init != nil {
				var err error
				if val, err = x.expr(p, d.Init); err != nil {
					return nil, err
				}
			} else if bt == analysis.Bool {
				val = boolConst(false)
			} else {
				val = icond.Int(0)
			}
			p.store[v.k] = val
		}
		return ps, nil
	case *grammar.AssignStmt:
		v, err := x.lvalue(s.LHS)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			rhs, err := x.expr(p, s.RHS)
			if err != nil {
				return nil, err
			}
			if s.Op != grammar.ASSIGN {
				op, err := arithOp(s.Op.BinaryOp())
				if err != nil {
					return nil, err
				}
				rhs, err = arith(p, op, x.read(p, v), rhs)
				if err != nil {
					return nil, err
				}
			}
			p.store[v.k] = rhs
		}
		return ps, nil
	case *grammar.IncDecStmt:
		v, err := x.lvalue(s.X)
		if err != nil {
			return nil, err
		}
		op := icond.Add
		if s.Op == grammar.DEC {
			op = icond.Sub
		}
		for _, p := range ps {
			val, err := arith(p, op, x.read(p, v), icond.Int(1))
			if err != nil {
				return nil, err
			}
			p.store[v.k] = val
		}
		return ps, nil
	case *grammar.IfStmt:
		var out []*path
		for _, p := range ps {
			c, err := x.expr(p, s.Cond)
			if err != nil {
				return nil, err
			}
			then, els := p, p.clone()
			if !c.IsFalse() {
				if !c.IsTrue() {
					then.guard = append(then.guard, literals(c, false)...)
				}
				tp, err := x.block([]*path{then}, s.Then)
				if err != nil {
					return nil, err
				}
				out = append(out, tp...)
			}
			if !c.IsTrue() {
				if !c.IsFalse() {
					els.guard = append(els.guard, literals(c, true)...)
				}
				ep := []*path{els}
				if s.Else != nil {
					if ep, err = x.stmt(ep, s.Else); err != nil {
						return nil, err
					}
				}
				out = append(out, ep...)
			}
			if len(out) > maxPaths {
				return nil, refuse("more than %d paths", maxPaths)
			}
		}
		return out, nil
	case *grammar.WhileStmt, *grammar.ForStmt:
		return nil, refuse("a loop")
	case *grammar.AssertStmt:
		return nil, refuse("assert (a block that may fail)")
	case *grammar.AssumeStmt:
		return nil, refuse("assume (a block that may fail)")
	case *grammar.ExprStmt:
		return nil, refuse("a call")
	}
	return nil, refuse("statement %T", s)
}

// read returns the current value of v on p.
func (x *executor) read(p *path, v *varInfo) *icond.Expr {
	if e, ok := p.store[v.k]; ok {
		return e
	}
	return v.init
}

// lvalue resolves an assigned variable or element.
func (x *executor) lvalue(e grammar.Expr) (*varInfo, error) {
	return x.ref(e)
}

// ref resolves a name or a constant-indexed element to its variable.
func (x *executor) ref(e grammar.Expr) (*varInfo, error) {
	for {
		p, ok := e.(*grammar.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	switch e := e.(type) {
	case *grammar.Ident:
		obj := x.prog.Uses[e]
		if obj == nil {
			return nil, refuse("unresolved name %s", e.Name)
		}
		switch obj.Kind {
		case analysis.SharedVar, analysis.LocalVar, analysis.Param, analysis.LoopVar, analysis.ThreadIndex:
		default:
			return nil, refuse("%s %s", obj.Kind, obj.Name)
		}
		t := obj.Type
		if obj.Kind == analysis.ThreadIndex || obj.Kind == analysis.LoopVar {
			t = analysis.Int
		}
		bt, ok := t.(analysis.Basic)
		if !ok || bt != analysis.Int && bt != analysis.Bool {
			return nil, refuse("%s of type %v", obj.Name, t)
		}
		return x.variable(obj, x.side, -1, bt == analysis.Bool), nil
	case *grammar.IndexExpr:
		id, ok := e.X.(*grammar.Ident)
		if !ok {
			return nil, refuse("an element of a multi-dimensional array")
		}
		obj := x.prog.Uses[id]
		if obj == nil || obj.Type == nil {
			return nil, refuse("unresolved name %s", id.Name)
		}
		if obj.Kind != analysis.SharedVar && obj.Kind != analysis.LocalVar && obj.Kind != analysis.Param {
			return nil, refuse("indexing %s %s", obj.Kind, obj.Name)
		}
		at, ok := obj.Type.(*analysis.Array)
		if !ok {
			return nil, refuse("indexing %s", obj.Name)
		}
		bt, ok := at.Elem.(analysis.Basic)
		if !ok || bt != analysis.Int && bt != analysis.Bool {
			return nil, refuse("an element of %s of type %v", obj.Name, obj.Type)
		}
		cv, ok := x.prog.ConstValues[e.Index]
		if !ok || !cv.IsInt() {
			return nil, refuse("an array index that is not a constant (%s)", analysis.ExprString(e))
		}
		i := cv.Int()
		if i < 0 || i >= at.Len {
			return nil, refuse("index %d out of range of %s", i, obj.Name)
		}
		return x.variable(obj, x.side, i, bt == analysis.Bool), nil
	}
	return nil, refuse("assignment to %s", analysis.ExprString(e))
}

// expr evaluates e on p to an expression over the initial values.
func (x *executor) expr(p *path, e grammar.Expr) (*icond.Expr, error) {
	if v, ok := x.prog.ConstValues[e]; ok && v.IsValid() {
		if v.IsBool() {
			return boolConst(v.Bool()), nil
		}
		if v.IsInt() {
			return icond.Int(v.Int()), nil
		}
	}
	switch e := e.(type) {
	case *grammar.ParenExpr:
		return x.expr(p, e.X)
	case *grammar.IntLit, *grammar.BoolLit:
		return nil, refuse("a literal the checker did not fold")
	case *grammar.Ident, *grammar.IndexExpr:
		if id, ok := e.(*grammar.Ident); ok {
			if obj := x.prog.Uses[id]; obj != nil && obj.Kind == analysis.Const {
				return nil, refuse("constant %s without a value", obj.Name)
			}
		}
		v, err := x.ref(e)
		if err != nil {
			return nil, err
		}
		return x.read(p, v), nil
	case *grammar.UnaryExpr:
		a, err := x.expr(p, e.X)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case grammar.SUB:
			if a.Op == icond.Const && !a.Bool {
				if a.Value == math.MinInt64 {
					return nil, refuse("overflow in a constant")
				}
				return icond.Int(-a.Value), nil
			}
			r := &icond.Expr{Op: icond.Neg, Args: []*icond.Expr{a}}
			p.arith = append(p.arith, r)
			return r, nil
		case grammar.NOT:
			return not(a), nil
		}
	case *grammar.BinaryExpr:
		a, err := x.expr(p, e.X)
		if err != nil {
			return nil, err
		}
		b, err := x.expr(p, e.Y)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case grammar.ADD, grammar.SUB, grammar.MUL:
			op, _ := arithOp(e.Op)
			return arith(p, op, a, b)
		case grammar.QUO, grammar.REM:
			return nil, refuse("division or modulo")
		case grammar.LAND:
			return and(a, b), nil
		case grammar.LOR:
			return or(a, b), nil
		case grammar.EQL:
			return icond.Bin(icond.Eq, a, b), nil
		case grammar.NEQ:
			return icond.Bin(icond.Ne, a, b), nil
		case grammar.LSS:
			return icond.Bin(icond.Lt, a, b), nil
		case grammar.LEQ:
			return icond.Bin(icond.Le, a, b), nil
		case grammar.GTR:
			return icond.Bin(icond.Gt, a, b), nil
		case grammar.GEQ:
			return icond.Bin(icond.Ge, a, b), nil
		}
	case *grammar.CallExpr:
		return nil, refuse("a call")
	case *grammar.ChooseExpr:
		return nil, refuse("choose")
	case *grammar.TrylockExpr:
		return nil, refuse("trylock")
	}
	return nil, refuse("expression %s", analysis.ExprString(e))
}

func arithOp(k grammar.Kind) (icond.Op, error) {
	switch k {
	case grammar.ADD:
		return icond.Add, nil
	case grammar.SUB:
		return icond.Sub, nil
	case grammar.MUL:
		return icond.Mul, nil
	}
	return 0, refuse("division or modulo")
}

// arith builds a op b, refusing non-linear products, and records the
// result for the range obligations.
func arith(p *path, op icond.Op, a, b *icond.Expr) (*icond.Expr, error) {
	if op == icond.Mul && !isIntConst(a) && !isIntConst(b) {
		return nil, refuse("non-linear multiplication")
	}
	if isIntConst(a) && isIntConst(b) {
		var r int64
		var ok bool
		switch op {
		case icond.Add:
			r, ok = addOK(a.Value, b.Value)
		case icond.Sub:
			r, ok = subOK(a.Value, b.Value)
		case icond.Mul:
			r, ok = mulOK(a.Value, b.Value)
		}
		if !ok {
			return nil, refuse("overflow in a constant computation")
		}
		return icond.Int(r), nil
	}
	r := icond.Bin(op, a, b)
	p.arith = append(p.arith, r)
	return r, nil
}

func isIntConst(e *icond.Expr) bool { return e.Op == icond.Const && !e.Bool }

func boolConst(b bool) *icond.Expr {
	if b {
		return icond.True()
	}
	return icond.False()
}

func not(a *icond.Expr) *icond.Expr {
	switch {
	case a.IsTrue():
		return icond.False()
	case a.IsFalse():
		return icond.True()
	case a.Op == icond.Not:
		return a.Args[0]
	}
	return &icond.Expr{Op: icond.Not, Args: []*icond.Expr{a}}
}

func and(a, b *icond.Expr) *icond.Expr {
	switch {
	case a.IsFalse() || b.IsTrue():
		return a
	case a.IsTrue() || b.IsFalse():
		return b
	}
	return icond.Bin(icond.And, a, b)
}

func or(a, b *icond.Expr) *icond.Expr {
	switch {
	case a.IsTrue() || b.IsFalse():
		return a
	case a.IsFalse() || b.IsTrue():
		return b
	}
	return icond.Bin(icond.Or, a, b)
}

// literals splits a guard (or its negation) into the literals of a
// conjunction: conjunctions are flattened, negations pushed into
// comparisons and disjunctions (De Morgan); a disjunction stays one
// literal.
func literals(c *icond.Expr, negate bool) []*icond.Expr {
	switch c.Op {
	case icond.Not:
		return literals(c.Args[0], !negate)
	case icond.And:
		if !negate {
			return append(literals(c.Args[0], false), literals(c.Args[1], false)...)
		}
	case icond.Or:
		if negate {
			return append(literals(c.Args[0], true), literals(c.Args[1], true)...)
		}
	case icond.Lt, icond.Le, icond.Gt, icond.Ge, icond.Eq, icond.Ne:
		if negate {
			return []*icond.Expr{icond.Bin(negCmp(c.Op), c.Args[0], c.Args[1])}
		}
	}
	if negate {
		return []*icond.Expr{not(c)}
	}
	return []*icond.Expr{c}
}

func negCmp(op icond.Op) icond.Op {
	switch op {
	case icond.Lt:
		return icond.Ge
	case icond.Le:
		return icond.Gt
	case icond.Gt:
		return icond.Le
	case icond.Ge:
		return icond.Lt
	case icond.Eq:
		return icond.Ne
	}
	return icond.Eq
}

func addOK(a, b int64) (int64, bool) {
	r := a + b
	return r, (r > a) == (b > 0)
}

func subOK(a, b int64) (int64, bool) {
	r := a - b
	return r, (r < a) == (b > 0)
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}
