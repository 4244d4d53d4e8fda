package analysis

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"weft/grammar"
	"weft/source"
)

// badConst marks a Value whose constant evaluation failed and was
// reported (overflow, division by zero, a type error): the expression is
// not constant, and saying so again would only repeat the first error.
const badConst Basic = -1

var badValue = Value{kind: badConst}

func (c *checker) record(e grammar.Expr, t Type, v Value) {
	if t != nil {
		c.p.Types[e] = t
	}
	if v.kind == Int || v.kind == Bool {
		c.p.ConstValues[e] = v
	}
}

// valueExpr checks an expression whose value is used: like expr, but a
// mutex or a condition variable is not a value.
func (c *checker) valueExpr(e grammar.Expr) (Type, Value) {
	t, v := c.expr(e)
	switch t {
	case Mutex:
		c.errorf(e, CodeNotAValue, "mutex %s is not a value; it can only be locked and unlocked", ExprString(e))
		return nil, badValue
	case Cond:
		c.errorf(e, CodeNotAValue, "condition variable %s is not a value; use it with wait, signal and broadcast", ExprString(e))
		return nil, badValue
	}
	return t, v
}

// MaxChoose is the largest number of values a choose may take
// (HI-LO): each is explored, one by one.
const MaxChoose = 1 << 16

// expr checks e and returns its type (nil if e is invalid; the problem has
// been reported) and its value if e is constant.
func (c *checker) expr(e grammar.Expr) (Type, Value) {
	switch e := e.(type) {
	case *grammar.Ident:
		return c.ident(e)
	case *grammar.IntLit:
		n, ok := parseInt(e.Raw)
		if !ok {
			// The lexer has reported it (invalid-int), at the same
			// place: saying it again would be the same error twice.
			return Int, badValue
		}
		v := IntValue(n)
		c.record(e, Int, v)
		return Int, v
	case *grammar.BoolLit:
		v := BoolValue(e.Value)
		c.record(e, Bool, v)
		return Bool, v
	case *grammar.ParenExpr:
		t, v := c.expr(e.X)
		c.record(e, t, v)
		return t, v
	case *grammar.UnaryExpr:
		return c.unary(e)
	case *grammar.BinaryExpr:
		return c.binary(e)
	case *grammar.IndexExpr:
		return c.indexExpr(e, false), Value{}
	case *grammar.StringLit:
		c.errorf(e, CodeTypeMismatch, "a string can only be the message of an assert")
		return nil, badValue
	case *grammar.InitList:
		c.errorf(e, CodeInitMismatch, "an initialiser list {…} can only be the initial value of an array variable")
		for _, el := range e.Elems {
			c.expr(el)
		}
		return nil, badValue
	case *grammar.SpawnExpr:
		c.errorf(e, CodeSpawnMisplaced, "spawn can only be a statement, the right-hand side of =, or the initial value of a tid variable")
		c.spawnCall(e)
		return nil, badValue
	case *grammar.CallExpr:
		return c.call(e, true)
	case *grammar.TrylockExpr:
		return c.trylock(e)
	case *grammar.ChooseExpr:
		return c.choose(e)
	}
	return nil, badValue // nil, *grammar.BadExpr
}

// trylock checks `trylock(M)`, a bool.
func (c *checker) trylock(e *grammar.TrylockExpr) (Type, Value) {
	c.forbidInAtomic(e, "trylock")
	if c.awaitCond > 0 {
		c.errorf(e, CodeAwaitForbidden, "an await condition may only read shared memory: trylock is not allowed in it")
	}
	c.noteStep(e, "trylock", notInAtomic, notARead)
	c.mutexOperand(e.Mutex, "trylock")
	if c.constCtx > 0 {
		c.errorf(e, CodeNotConstant, "trylock is not a constant expression")
		return nil, badValue
	}
	c.record(e, Bool, Value{})
	return Bool, Value{}
}

// choose checks `choose LO..HI`: an int; LO and HI constant, with
// 1 <= HI-LO <= MaxChoose; not inside atomic, in a while condition or in
// an await condition.
func (c *checker) choose(e *grammar.ChooseExpr) (Type, Value) {
	switch {
	case c.constCtx > 0:
		c.errorf(e, CodeNotConstant, "choose is not a constant expression; it chooses a value when a thread runs it")
	case c.atomics > 0:
		c.forbidInAtomic(e, "choose")
	case c.awaitCond > 0:
		c.errorf(e, CodeAwaitForbidden, "an await condition may only read shared memory: choose is not allowed in it (choose before the await)")
	case c.whileCond > 0:
		c.errorf(e, CodeChooseMisplaced, "choose is not allowed in the condition of a while loop: it would choose again at every test (choose before the loop, or in its body)")
	}
	c.noteStep(e, "choose", notInAtomic, choosing, notARead)
	lo, okLo := c.constInt(e.Lo, "the lower bound of choose")
	var hi int64
	okHi := false
	if b, ok := e.Hi.(*grammar.BinaryExpr); ok && b.Op.Precedence() <= grammar.LEQ.Precedence() {
		// choose 0..2 == 1 is choose 0..(2 == 1): everything after ..
		// is the upper bound. Say so rather than only that it is a bool.
		c.constCtx++
		t, _ := c.valueExpr(e.Hi)
		c.constCtx--
		if t != nil && t != Int {
			c.errorf(e.Hi, CodeTypeMismatch, "the upper bound of choose must be an int, not %s: everything after .. is the bound; "+
				"write (choose LO..HI) %s … to compare the value chosen", t, b.Op)
		}
	} else {
		hi, okHi = c.constInt(e.Hi, "the upper bound of choose")
	}
	if okLo && okHi {
		n := hi - lo
		switch {
		case hi <= lo:
			c.errorf(e, CodeChooseRange, "choose %d..%d has no value: the range is half-open, LO..HI takes LO … HI-1", lo, hi)
		case n <= 0 || n > MaxChoose: // n <= 0: overflow
			c.errorf(e, CodeChooseRange, "choose %d..%d has too many values: at most %d are explored one by one "+
				"(large domains are for the symbolic mode of a later version of Weft)", lo, hi, MaxChoose)
		}
	}
	if c.constCtx > 0 {
		return nil, badValue
	}
	c.record(e, Int, Value{})
	return Int, Value{}
}

func (c *checker) ident(id *grammar.Ident) (Type, Value) {
	obj := c.resolve(id)
	if obj == nil {
		return nil, badValue
	}
	if obj.Kind == LocalVar {
		obj.used = true
	}
	switch obj.Kind {
	case Const:
		if obj.state != 2 {
			if obj == c.curConst {
				c.errorf(id, CodeForwardReference, "constant %s refers to itself", obj.Name)
			} else {
				c.errorf(id, CodeForwardReference, "constant %s is declared later (at %s); a constant can only use earlier constants",
					obj.Name, declPos(obj))
			}
			return nil, badValue
		}
		if obj.Type == nil {
			return nil, badValue
		}
		c.record(id, obj.Type, obj.Value)
		return obj.Type, obj.Value
	case Proc:
		c.errorf(id, CodeNotAValue, "proc %s is not a value; start it with spawn %s(…)", obj.Name, obj.Name)
		return nil, badValue
	case Func:
		c.errorf(id, CodeNotAValue, "function %s is not a value; call it: %s(…)", obj.Name, obj.Name)
		return nil, badValue
	case SharedVar, Thread, LocalVar, Param, LoopVar, ThreadIndex:
		// Never constant. Where a constant is required, say so here: the
		// types of shared variables and threads may not be known yet.
		if c.constCtx > 0 {
			if obj.Kind == ThreadIndex && obj.Owner != nil {
				c.errorf(id, CodeNotConstant, "thread index %s differs between the instances of %s; a constant is required here",
					obj.Name, obj.Owner.Name)
			} else {
				c.errorf(id, CodeNotConstant, "%s is a %s, not a constant", obj.Name, obj.Kind)
			}
			return nil, badValue
		}
	}
	if obj.Type == nil {
		return nil, badValue
	}
	c.record(id, obj.Type, Value{})
	return obj.Type, Value{}
}

func (c *checker) unary(e *grammar.UnaryExpr) (Type, Value) {
	t, v := c.valueExpr(e.X)
	var want Basic
	switch e.Op {
	case grammar.SUB:
		want = Int
	case grammar.NOT:
		want = Bool
	default:
		return nil, badValue
	}
	if t == nil {
		return want, badValue
	}
	if t != want {
		c.errorf(e, CodeTypeMismatch, "operator %s needs a%s %s operand, not %s", e.Op, article(want), want, t)
		return want, badValue
	}
	switch v.kind {
	case 0:
		c.record(e, want, Value{})
		return want, Value{}
	case badConst:
		c.record(e, want, Value{})
		return want, badValue
	}
	var r Value
	if e.Op == grammar.NOT {
		r = BoolValue(v.n == 0)
	} else if v.n == math.MinInt64 {
		c.overflow(e)
		r = badValue
	} else {
		r = IntValue(-v.n)
	}
	c.record(e, want, r)
	return want, r
}

func article(b Basic) string {
	if b == Int {
		return "n"
	}
	return ""
}

func (c *checker) binary(e *grammar.BinaryExpr) (Type, Value) {
	xt, xv := c.valueExpr(e.X)
	yt, yv := c.valueExpr(e.Y)
	var res Basic
	switch e.Op {
	case grammar.ADD, grammar.SUB, grammar.MUL, grammar.QUO, grammar.REM:
		res = Int
	case grammar.LSS, grammar.LEQ, grammar.GTR, grammar.GEQ, grammar.EQL, grammar.NEQ, grammar.LAND, grammar.LOR:
		res = Bool
	default:
		return nil, badValue
	}
	if xt == nil || yt == nil {
		return res, badValue
	}
	switch e.Op {
	case grammar.EQL, grammar.NEQ:
		if !Identical(xt, yt) {
			c.errorf(e, CodeTypeMismatch, "mismatched types %s and %s for %s", xt, yt, e.Op)
			return res, badValue
		}
		if xt != Int && xt != Bool && xt != Tid {
			c.errorf(e, CodeTypeMismatch, "cannot compare values of type %s with %s", xt, e.Op)
			return res, badValue
		}
	case grammar.LAND, grammar.LOR:
		if xt != Bool || yt != Bool {
			c.errorf(e, CodeTypeMismatch, "operator %s needs bool operands, not %s and %s", e.Op, xt, yt)
			return res, badValue
		}
	default:
		if xt != Int || yt != Int {
			c.errorf(e, CodeTypeMismatch, "operator %s needs int operands, not %s and %s", e.Op, xt, yt)
			return res, badValue
		}
	}
	if xv.kind == 0 || yv.kind == 0 {
		c.record(e, res, Value{})
		return res, Value{}
	}
	if xv.kind == badConst || yv.kind == badConst {
		c.record(e, res, Value{})
		return res, badValue
	}
	v := c.fold(e, xv.n, yv.n)
	c.record(e, res, v)
	return res, v
}

// fold computes a binary operation on constant operands, reporting
// overflow and division or modulo by zero.
func (c *checker) fold(e *grammar.BinaryExpr, x, y int64) Value {
	switch e.Op {
	case grammar.ADD:
		s := x + y
		if (y > 0 && s < x) || (y < 0 && s > x) {
			return c.overflow(e)
		}
		return IntValue(s)
	case grammar.SUB:
		d := x - y
		if (y > 0 && d > x) || (y < 0 && d < x) {
			return c.overflow(e)
		}
		return IntValue(d)
	case grammar.MUL:
		if x == 0 || y == 0 {
			return IntValue(0)
		}
		p := x * y
		if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return c.overflow(e)
		}
		return IntValue(p)
	case grammar.QUO, grammar.REM:
		if y == 0 {
			// The words of the runtime error (engine/interp) and of the
			// language reference.
			msg := "division by zero"
			if e.Op == grammar.REM {
				msg = "modulo by zero"
			}
			c.report(e, c.runtimeSeverity(), CodeDivisionByZero, c.faultMessage(msg))
			return badValue
		}
		if y == -1 {
			if e.Op == grammar.REM {
				return IntValue(0)
			}
			if x == math.MinInt64 {
				return c.overflow(e)
			}
		}
		if e.Op == grammar.QUO {
			return IntValue(x / y)
		}
		return IntValue(x % y)
	case grammar.LSS:
		return BoolValue(x < y)
	case grammar.LEQ:
		return BoolValue(x <= y)
	case grammar.GTR:
		return BoolValue(x > y)
	case grammar.GEQ:
		return BoolValue(x >= y)
	case grammar.EQL:
		return BoolValue(x == y)
	case grammar.NEQ:
		return BoolValue(x != y)
	case grammar.LAND:
		return BoolValue(x != 0 && y != 0)
	case grammar.LOR:
		return BoolValue(x != 0 || y != 0)
	}
	return badValue
}

func (c *checker) overflow(e grammar.Expr) Value {
	c.report(e, c.runtimeSeverity(), CodeConstantOverflow, c.faultMessage("constant overflow: the result does not fit in int64"))
	return badValue
}

// faultMessage adds, inside a body, that the fault happens at run time.
func (c *checker) faultMessage(msg string) string {
	if c.runtimeSeverity() == source.Warning {
		return msg + " (a runtime error when executed)"
	}
	return msg
}

// indexExpr checks X[Index], read (lhs false) or written (lhs true).
func (c *checker) indexExpr(e *grammar.IndexExpr, lhs bool) Type {
	var bt Type
	if lhs {
		bt = c.lvalue(e.X)
	} else {
		bt, _ = c.expr(e.X)
	}
	it, iv := c.valueExpr(e.Index)
	if it != nil && it != Int {
		c.errorf(e.Index, CodeTypeMismatch, "an index must be an int, not %s", it)
	}
	if bt == nil {
		return nil
	}
	at, ok := bt.(*Array)
	if !ok {
		c.errorf(e, CodeNotAnArray, "cannot index %s: it has type %s, not an array", ExprString(e.X), bt)
		return nil
	}
	if iv.IsInt() {
		if th := c.threadArray(e.X); th != nil {
			if iv.n < th.Lo || iv.n >= th.Hi {
				if th.Hi <= th.Lo {
					c.errorf(e.Index, CodeIndexOutOfRange, "thread array %s has no instances", th.Name)
				} else {
					c.errorf(e.Index, CodeIndexOutOfRange, "%s[%d] does not exist: the instances are %s[%d] … %s[%d]",
						th.Name, iv.n, th.Name, th.Lo, th.Name, th.Hi-1)
				}
			}
		} else if iv.n < 0 || iv.n >= at.Len {
			c.report(e.Index, c.runtimeSeverity(), CodeIndexOutOfRange, c.faultMessage(
				"index "+strconv.FormatInt(iv.n, 10)+" is out of range for "+ExprString(e.X)+" of type "+at.String()))
		}
	}
	c.record(e, at.Elem, Value{})
	return at.Elem
}

// threadArray returns the thread array that e names, or nil.
func (c *checker) threadArray(e grammar.Expr) *Object {
	for {
		pe, ok := e.(*grammar.ParenExpr)
		if !ok {
			break
		}
		e = pe.X
	}
	if id, ok := e.(*grammar.Ident); ok {
		if o := c.p.Uses[id]; o != nil && o.Kind == Thread && o.IsArray {
			return o
		}
	}
	return nil
}

// parseInt parses a decimal or 0x-hexadecimal literal.
func parseInt(raw string) (int64, bool) {
	var u uint64
	var err error
	if len(raw) > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X') {
		u, err = strconv.ParseUint(raw[2:], 16, 64)
	} else {
		u, err = strconv.ParseUint(raw, 10, 64)
	}
	if err != nil || u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// ExprString renders an expression briefly, for messages (at most 40
// characters).
func ExprString(e grammar.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	s := b.String()
	if len(s) > 40 {
		i := 37
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}

func writeExpr(b *strings.Builder, e grammar.Expr) {
	if b.Len() > 40 {
		return
	}
	switch e := e.(type) {
	case *grammar.Ident:
		b.WriteString(e.Name)
	case *grammar.IntLit:
		b.WriteString(e.Raw)
	case *grammar.BoolLit:
		b.WriteString(strconv.FormatBool(e.Value))
	case *grammar.StringLit:
		b.WriteString(e.Raw)
	case *grammar.ParenExpr:
		b.WriteByte('(')
		writeExpr(b, e.X)
		b.WriteByte(')')
	case *grammar.UnaryExpr:
		b.WriteString(e.Op.String())
		writeExpr(b, e.X)
	case *grammar.BinaryExpr:
		writeExpr(b, e.X)
		b.WriteByte(' ')
		b.WriteString(e.Op.String())
		b.WriteByte(' ')
		writeExpr(b, e.Y)
	case *grammar.IndexExpr:
		writeExpr(b, e.X)
		b.WriteByte('[')
		writeExpr(b, e.Index)
		b.WriteByte(']')
	case *grammar.InitList:
		b.WriteString("{…}")
	case *grammar.SpawnExpr:
		b.WriteString("spawn ")
		if e.Proc != nil {
			b.WriteString(e.Proc.Name)
		}
		b.WriteString("(…)")
	case *grammar.CallExpr:
		if e.Func != nil {
			b.WriteString(e.Func.Name)
		}
		if len(e.Args) == 0 {
			b.WriteString("()")
		} else {
			b.WriteString("(…)")
		}
	case *grammar.TrylockExpr:
		b.WriteString("trylock(")
		writeExpr(b, e.Mutex)
		b.WriteByte(')')
	case *grammar.ChooseExpr:
		b.WriteString("choose ")
		writeExpr(b, e.Lo)
		b.WriteString("..")
		writeExpr(b, e.Hi)
	default:
		b.WriteString("…")
	}
}
