// Package icond is the form of an independence condition in source
// terms: an expression over the shared variables and the locals of two
// statements of different threads, under which the two commute (their
// steps, run in either order, reach the same state). The syntactic rules
// and the SMT synthesis of package analysis/indep produce them; the
// language server shows them in Weft syntax; analysis/indep compiles them
// to the program form the engine evaluates (ir.CExpr).
//
// Side 0 is the statement the condition is asked about, side 1 the other
// one; a local or parameter belongs to one side (the same local of two
// instances of one proc is two variables).
package icond

import "weft/analysis"

// Op is an operator of Expr.
type Op uint8

// The operators. Comparisons and the logical operators are boolean;
// Const with Bool set is `true` or `false`.
const (
	Const Op = iota // Value (an int), or Bool/Value != 0 for true
	Var             // Obj: a shared variable (Index set for an element), or a local of side Side
	Add
	Sub
	Mul
	Neg
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	And
	Or
	Not
)

// Expr is a condition or a term of one.
type Expr struct {
	Op    Op
	Value int64
	Bool  bool             // Const: a boolean constant
	Obj   *analysis.Object // Var
	Side  int              // Var of a local: 0 or 1
	Index *Expr            // Var of an array element: its index (nil: the whole variable, a scalar)
	Args  []*Expr
}

// True and False are the boolean constants.
func True() *Expr  { return &Expr{Op: Const, Bool: true, Value: 1} }
func False() *Expr { return &Expr{Op: Const, Bool: true} }

// Int is an integer constant.
func Int(v int64) *Expr { return &Expr{Op: Const, Value: v} }

// Bin is a binary operation.
func Bin(op Op, x, y *Expr) *Expr { return &Expr{Op: op, Args: []*Expr{x, y}} }

// IsTrue reports whether e is the constant true.
func (e *Expr) IsTrue() bool { return e != nil && e.Op == Const && e.Bool && e.Value != 0 }

// IsFalse reports whether e is the constant false.
func (e *Expr) IsFalse() bool { return e != nil && e.Op == Const && e.Bool && e.Value == 0 }

// Condition is one independence condition of a pair of statements.
type Condition struct {
	Expr *Expr
	// Origin is where it came from: "smt", or the syntactic rule
	// ("disjoint", "index", "read-write", "write-write", "branch-write").
	Origin string
	// DisplayOnly marks a condition for people only, which the engine
	// must not use (one that holds only if no arithmetic overflows).
	DisplayOnly bool
}
