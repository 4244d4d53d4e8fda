package icond

import (
	"math"
	"strconv"
	"strings"

	"weft/analysis"
)

// String writes e in Weft syntax, with the fewest parentheses Weft's
// precedence needs (comparisons of comparisons are parenthesised), for a
// reader who does not know what side 0's statement can name: every
// local of side 1 prints as `other.NAME`. Text is the form for a reader
// at side 0's statement.
func (e *Expr) String() string {
	return e.print(printer{all: true})
}

// Scope is what a reader of a condition resolves its names in: side 0's
// statement. Local reports whether side 0's body (its thread, proc or
// function) declares a local variable, parameter, loop variable or
// thread index of that name; Top whether the program has a top-level
// object of that name (shared variable, constant, thread, proc,
// function). A nil function answers false.
type Scope struct {
	Local func(name string) bool
	Top   func(name string) bool
}

// Text writes e in Weft syntax as String does, for a reader at side 0's
// statement, who reads a plain name as that statement would:
//
//   - a local (or thread index) of side 0 prints as its name;
//   - a local of side 1 prints as `other.NAME`, unless its name names
//     nothing side 0 can name (no local of side 0's body, no top-level
//     object) and no other variable of e: then as its name. So the
//     condition of two instances of `thread t[i in 0..2]` writing a[i]
//     reads `i != other.i`, two threads' locals both named `expected`
//     read `expected` and `other.expected` even where only one of them
//     occurs, and a thread's `v` against a proc's `k` reads `v != k`;
//   - a shared variable prints as its name, unless side 0's body has a
//     local of that name (which would hide it) or a local of side 0 of
//     that name occurs in e: then as `shared.NAME`.
//
// `other.` and `shared.` are not Weft syntax (a condition is not a
// statement of the program); they read as "the other thread's" and "the
// shared variable".
func (e *Expr) Text(sc Scope) string {
	return e.print(printer{scope: sc})
}

func (e *Expr) print(p printer) string {
	if e == nil {
		return "?"
	}
	p.names = names(e)
	p.expr(e, 0)
	return p.b.String()
}

type printer struct {
	b     strings.Builder
	all   bool  // qualify every local of side 1 (no scope known)
	scope Scope // side 0's names
	names map[string]map[varKey]bool
}

// names returns, for each name, the variables of e that have it.
func names(e *Expr) map[string]map[varKey]bool {
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
	return owners
}

// prefix is the qualifier of a variable of e.
func (p *printer) prefix(e *Expr) string {
	name := e.Obj.Name
	if e.Obj.Kind == analysis.SharedVar {
		if p.scope.Local != nil && p.scope.Local(name) {
			return "shared."
		}
		for k := range p.names[name] {
			if k.side == 0 {
				return "shared."
			}
		}
		return ""
	}
	if e.Side != 1 {
		return ""
	}
	if p.all || len(p.names[name]) > 1 ||
		p.scope.Local != nil && p.scope.Local(name) ||
		p.scope.Top != nil && p.scope.Top(name) {
		return "other."
	}
	return ""
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
		case e.Value == math.MinInt64:
			// Its literal is out of range in Weft: write it as a
			// difference, parenthesised wherever a difference would be.
			if parent > prec(Sub) {
				p.b.WriteString("(-9223372036854775807 - 1)")
			} else {
				p.b.WriteString("-9223372036854775807 - 1")
			}
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
		p.b.WriteString(p.prefix(e))
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
