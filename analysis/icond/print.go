package icond

import (
	"strconv"
	"strings"

	"weft/analysis"
)

// String writes e in Weft syntax, with the fewest parentheses Weft's
// precedence needs (comparisons of comparisons are parenthesised).
//
// Locals of the two sides: a local (or thread index) of side 0 prints
// as its name; a local of side 1 prints as its name too, unless that name
// also names something else in e (a local of side 0, a shared variable,
// a different local of side 1): then it prints as `other.NAME`. So the
// condition of two instances of `thread t[i in 0..2]` writing a[i] reads
// `i != other.i`, and that of a thread's `v` against a proc's `k` reads
// `v != k`. `other.` is not Weft syntax (a condition is not a statement
// of the program); it reads as "the other thread's".
func (e *Expr) String() string {
	if e == nil {
		return "?"
	}
	p := printer{clash: clashes(e)}
	p.expr(e, 0)
	return p.b.String()
}

type printer struct {
	b     strings.Builder
	clash map[string]bool
}

// clashes returns the names that side 1's locals must qualify.
func clashes(e *Expr) map[string]bool {
	owners := map[string]map[varKey]bool{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		if e.Op == Var && e.Obj != nil {
			k := varKey{e.Obj, e.Side}
			if e.Obj.Kind == analysis.SharedVar {
				k.side = -1
			}
			m := owners[e.Obj.Name]
			if m == nil {
				m = map[varKey]bool{}
				owners[e.Obj.Name] = m
			}
			m[k] = true
		}
		walk(e.Index)
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	out := map[string]bool{}
	for name, m := range owners {
		if len(m) > 1 {
			out[name] = true
		}
	}
	return out
}

type varKey struct {
	obj  *analysis.Object
	side int
}

var opText = map[Op]string{
	Add: "+", Sub: "-", Mul: "*", Eq: "==", Ne: "!=", Lt: "<", Le: "<=",
	Gt: ">", Ge: ">=", And: "&&", Or: "||",
}

// prec is an operator's binary precedence as Weft's (grammar.Kind's
// Precedence); 7 for operands and unary operators.
func prec(op Op) int {
	switch op {
	case Or:
		return 1
	case And:
		return 2
	case Eq, Ne:
		return 3
	case Lt, Le, Gt, Ge:
		return 4
	case Add, Sub:
		return 5
	case Mul:
		return 6
	}
	return 7
}

func isComparison(op Op) bool { return op >= Eq && op <= Ge }

func (p *printer) expr(e *Expr, parent int) {
	if e == nil {
		p.b.WriteString("?")
		return
	}
	switch e.Op {
	case Const:
		switch {
		case e.Bool && e.Value != 0:
			p.b.WriteString("true")
		case e.Bool:
			p.b.WriteString("false")
		case e.Value < 0 && parent >= 7:
			p.b.WriteString("(" + strconv.FormatInt(e.Value, 10) + ")")
		default:
			p.b.WriteString(strconv.FormatInt(e.Value, 10))
		}
		return
	case Var:
		if e.Obj == nil {
			p.b.WriteString("?")
			return
		}
		if e.Obj.Kind != analysis.SharedVar && e.Side == 1 && p.clash[e.Obj.Name] {
			p.b.WriteString("other.")
		}
		p.b.WriteString(e.Obj.Name)
		if e.Index != nil {
			p.b.WriteString("[")
			p.expr(e.Index, 0)
			p.b.WriteString("]")
		}
		return
	case Neg, Not:
		if e.Op == Neg {
			p.b.WriteString("-")
		} else {
			p.b.WriteString("!")
		}
		var x *Expr
		if len(e.Args) > 0 {
			x = e.Args[0]
		}
		p.expr(x, 7)
		return
	}
	op, ok := opText[e.Op]
	if !ok || len(e.Args) != 2 {
		p.b.WriteString("?")
		return
	}
	pr := prec(e.Op)
	paren := pr < parent
	if paren {
		p.b.WriteString("(")
	}
	left := pr
	right := pr + 1
	if isComparison(e.Op) {
		// a == b == c and a < b == c are not clear: parenthesise
		// comparisons inside comparisons.
		left, right = prec(Add), prec(Add)
	}
	if e.Op == And || e.Op == Or {
		right = pr // associative
	}
	p.expr(e.Args[0], left)
	p.b.WriteString(" " + op + " ")
	p.expr(e.Args[1], right)
	if paren {
		p.b.WriteString(")")
	}
}
