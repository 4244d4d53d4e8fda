// Package synth synthesises independence constraints (ICs) of two atomic
// blocks with an SMT solver, after Sec. 4.1 of the CDPOR paper (Albert,
// Gómez-Zamalloa, Isabel, Rubio: "Constrained Dynamic Partial Order
// Reduction", Def. 5 and Ex. 6).
//
// Method. Each block is run symbolically into a deterministic transition
// system: a list of paths C -> A, C a conjunction of literals over the
// initial values (the conditions of the `if`s taken) and A the parallel
// assignment of every variable the path writes. The two orders are
// composed (T_{q·r}: q's paths followed by r's, r reading what q wrote;
// T_{r·q} likewise) and
//
//	F = OR_{i,j} ( C_i AND C'_j AND A_i|V = A'_j|V )
//
// where V is every variable either block writes in either order: the
// shared variables (and constant-indexed elements) and the locals of both
// sides that outlive the block (locals declared inside a block are dead
// after it and left out). Locals are part of the state: side 0's and
// side 1's copies of one local are different variables, and a local of a
// side may be assigned a value read from shared memory, so its final
// value must agree too. (The paper's Def. 5 compares shared memory only.)
//
// Because the transition systems are deterministic and total (the paths
// of a block partition the states), F holds in a state exactly when both
// orders reach the same values of V, and so the same state. The
// conditions are then read off F: every satisfiable disjunct is taken as
// a cube of its literals, literals are dropped while the cube still
// implies F (cube AND NOT F unsat), and cubes implied by another are
// dropped. Each condition is sufficient (it implies F) by construction,
// whatever the solver answers: a literal is dropped, or a cube discarded,
// only on an unsat answer. When every disjunct was examined the
// disjunction is equivalent to F (Result.Exact).
//
// What is encoded: int and bool scalars, shared or local (parameters,
// thread indexes and loop variables of an enclosing loop are read-only
// locals of their side), elements of one-dimensional arrays at constant
// indexes (each its own variable), assignments (=, +=, -=, *=), ++, --,
// local declarations, if/else, +, -, unary -, multiplication by a
// constant, comparisons, &&, ||, !. Everything else is refused
// (Result.Unsupported): division and modulo, non-constant array indexes,
// multi-dimensional arrays, calls, loops, assert, assume, choose,
// tid/mutex/cond values. So the only runtime error an encoded block can
// meet is integer overflow.
//
// Integer semantics. Weft's int is int64 and overflow is a runtime error
// (the thread stops); the encoding is over unbounded integers (LIA). By
// default (Options.Int64 false) the conditions are sufficient in every
// state in which no addition, subtraction, negation or product of
// either order overflows: Result.AssumesNoOverflow is set when some such
// operation exists. With Options.Int64 the initial values range over
// int64 and F also requires every intermediate result of both orders to
// stay in range, so the conditions are sufficient in every state (and
// carry the bounds, e.g. `x <= 9223372036854775806`).
//
// Booleans are SMT Bools; ints are SMT Ints. A Solver is used inside a
// push/pop pair and left as it was found; if the solver had to be killed
// it is Reset (its earlier assertions are gone).
package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"weft/analysis"
	"weft/analysis/icond"
	"weft/grammar"
	"weft/internal/z3"
)

// maxDisjuncts bounds the disjuncts of F (pairs of paths of the two
// orders): each costs solver queries.
const maxDisjuncts = 1024

// Options tune a synthesis.
type Options struct {
	// Timeout is the time box of one solver query (0: 2 s). A query that
	// z3 gives up on is answered conservatively (the literal is kept, the
	// cube is kept).
	Timeout time.Duration
	// Int64 adds the int64 range of every initial value and of every
	// intermediate result of both orders to F (see the package doc).
	Int64 bool
	// AssumeNoOverflow (Synthesizer, Analyze) gives the engine the
	// conditions that hold where no arithmetic overflows: CDPOR then
	// explores one order of atomic blocks that commute but for an
	// overflow, and may miss an overflow that only the other order
	// reaches. The user asks for it (weft check --assume-no-overflow).
	AssumeNoOverflow bool

	// sharedOnly compares shared memory only, as Def. 5 does literally:
	// NOT sufficient for Weft (locals are part of the state); for tests
	// that reproduce the paper.
	sharedOnly bool
}

// Result is I_{q,r}.
type Result struct {
	Conds []*icond.Expr // each sufficient for q and r to commute; empty: none found
	Exact bool          // the disjunction is also necessary
	// Unsupported says why no synthesis was attempted ("" if it was).
	Unsupported string
	// AssumesNoOverflow: the conditions hold only in states where no
	// arithmetic of either order overflows int64 (Options.Int64 unset and
	// some arithmetic on variables exists).
	AssumesNoOverflow bool
	TimedOut          bool
	Queries           int
	Time              time.Duration
}

// Pair synthesises I_{q,r}; q is side 0.
func Pair(ctx context.Context, s *z3.Solver, prog *analysis.Program, q, r *grammar.AtomicStmt, opts Options) (Result, error) {
	begin := time.Now()
	res, err := pair(ctx, s, prog, q, r, opts)
	res.Time = time.Since(begin)
	return res, err
}

func pair(ctx context.Context, s *z3.Solver, prog *analysis.Program, q, r *grammar.AtomicStmt, opts Options) (res Result, err error) {
	if prog == nil || q == nil || r == nil || q.Body == nil || r.Body == nil {
		return Result{Unsupported: "no program or no block"}, nil
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	vars := map[key]*varInfo{}
	scoped := map[key]bool{}
	x0 := &executor{prog: prog, side: 0, vars: vars, scoped: scoped}
	x1 := &executor{prog: prog, side: 1, vars: vars, scoped: scoped}
	start := func() []*path { return []*path{{store: map[key]*icond.Expr{}}} }
	qr, err := compose(x0, x1, start(), q.Body, r.Body)
	if err == nil {
		var rq []*path
		rq, err = compose(x1, x0, start(), r.Body, q.Body)
		if err == nil {
			return synthesize(ctx, s, vars, scoped, qr, rq, opts)
		}
	}
	var u *unsupported
	if errors.As(err, &u) {
		return Result{Unsupported: u.reason}, nil
	}
	return Result{}, err
}

func compose(a, b *executor, ps []*path, first, second *grammar.Block) ([]*path, error) {
	ps, err := a.block(ps, first)
	if err != nil {
		return nil, err
	}
	ps, err = b.block(ps, second)
	if err != nil {
		return nil, err
	}
	if len(ps) > maxPaths {
		return nil, refuse("more than %d paths", maxPaths)
	}
	return ps, nil
}

// session is one synthesis's view of the solver.
type session struct {
	ctx   context.Context
	s     *z3.Solver
	opts  Options
	names map[key]string
	vars  map[key]*varInfo
	res   *Result
	lost  bool  // the solver was killed, or answered an error: stop asking
	err   error // the error that was not a timeout
}

func synthesize(ctx context.Context, s *z3.Solver, vars map[key]*varInfo, scoped map[key]bool, qr, rq []*path, opts Options) (Result, error) {
	res := Result{Exact: true}
	// The variables compared: every one written on some path, except
	// block-scoped locals (and locals altogether when sharedOnly).
	written := map[key]bool{}
	for _, ps := range [][]*path{qr, rq} {
		for _, p := range ps {
			for k := range p.store {
				if scoped[k] || opts.sharedOnly && k.side >= 0 {
					continue
				}
				written[k] = true
			}
			if len(p.arith) > 0 && !opts.Int64 {
				res.AssumesNoOverflow = true
			}
		}
	}
	cmp := sortedKeys(written)
	ss := &session{ctx: ctx, s: s, opts: opts, names: map[key]string{}, vars: vars, res: &res}
	for i, k := range sortedKeys(vars) {
		ss.names[k] = "v" + strconv.Itoa(i)
	}

	if len(qr)*len(rq) > maxDisjuncts {
		return Result{Unsupported: fmt.Sprintf("%d×%d paths in the two orders (more than %d pairs)", len(qr), len(rq), maxDisjuncts)}, nil
	}
	// The disjuncts of F, each a list of literals.
	var disj [][]*icond.Expr
	for _, p := range qr {
		for _, p2 := range rq {
			var lits []*icond.Expr
			lits = append(lits, p.guard...)
			lits = append(lits, p2.guard...)
			for _, k := range cmp {
				a, b := valueOf(vars[k], p), valueOf(vars[k], p2)
				if equalExpr(a, b) {
					continue
				}
				lits = append(lits, icond.Bin(icond.Eq, a, b))
			}
			if opts.Int64 {
				for _, t := range append(append([]*icond.Expr(nil), p.arith...), p2.arith...) {
					lits = append(lits, inRange(t)...)
				}
			}
			disj = append(disj, dedup(lits))
		}
	}

	if err := s.Push(); err != nil {
		return res, err
	}
	for _, k := range sortedKeys(vars) {
		sort := "Int"
		if vars[k].isBool {
			sort = "Bool"
		}
		if err := s.Declare(ss.names[k], sort); err != nil {
			return res, err
		}
		if opts.Int64 && !vars[k].isBool {
			for _, l := range inRange(vars[k].init) {
				if err := s.Assert(ss.smt(l)); err != nil {
					return res, err
				}
			}
		}
	}
	var fs []string
	for _, d := range disj {
		fs = append(fs, ss.conj(d))
	}
	f := "false"
	if len(fs) == 1 {
		f = fs[0]
	} else if len(fs) > 1 {
		f = "(or " + strings.Join(fs, " ") + ")"
	}
	if err := s.Exec("(define-fun weft_F () Bool " + f + ")"); err != nil {
		return res, err
	}
	defer func() {
		if ss.lost {
			_ = s.Reset(context.Background())
			return
		}
		_ = s.Pop()
	}()

	var cubes [][]*icond.Expr
	for _, d := range disj {
		if ss.lost {
			res.Exact = false
			break
		}
		// Already covered by a cube found before?
		covered := false
		for _, c := range cubes {
			if ss.unsat(ss.conj(d), "(not "+ss.conj(c)+")") {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		// Satisfiable at all? (An unknown answer keeps it: the cube is
		// still a disjunct of F, so sufficient.)
		if ss.unsat(ss.conj(d)) {
			continue
		}
		cube := append([]*icond.Expr(nil), d...)
		for i := 0; i < len(cube); {
			trial := append(append([]*icond.Expr(nil), cube[:i]...), cube[i+1:]...)
			if ss.unsat(ss.conj(trial), "(not weft_F)") {
				cube = trial
				continue
			}
			i++
		}
		cubes = append(cubes, cube)
	}
	// Drop cubes implied by another (the later one first).
	keep := make([]bool, len(cubes))
	for i := range keep {
		keep[i] = true
	}
	for i := len(cubes) - 1; i >= 0 && !ss.lost; i-- {
		for j := range cubes {
			if i == j || !keep[j] {
				continue
			}
			if ss.unsat(ss.conj(cubes[i]), "(not "+ss.conj(cubes[j])+")") {
				keep[i] = false
				break
			}
		}
	}
	for i, c := range cubes {
		if keep[i] {
			res.Conds = append(res.Conds, render(c, vars))
		}
	}
	if ss.lost {
		res.Exact = false
	}
	if ss.err != nil {
		return res, fmt.Errorf("synth: %w", ss.err)
	}
	return res, ctx.Err()
}

// unsat asserts the terms in a push/pop frame and reports whether the
// solver proved them unsatisfiable. Anything else (sat, unknown, an
// error) is false; an error that killed the solver stops the session.
func (ss *session) unsat(terms ...string) bool {
	if ss.lost || ss.ctx.Err() != nil {
		ss.lost = ss.lost || ss.ctx.Err() != nil
		return false
	}
	_ = ss.s.Push()
	for _, t := range terms {
		_ = ss.s.Assert(t)
	}
	ss.res.Queries++
	st, err := ss.s.Check(ss.ctx, ss.opts.Timeout)
	if err != nil {
		if errors.Is(err, z3.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			ss.res.TimedOut = true
		} else {
			ss.err = err
		}
		ss.lost = true
		return false
	}
	_ = ss.s.Pop()
	if st == z3.Unknown {
		ss.res.TimedOut = true
	}
	return st == z3.Unsat
}

func valueOf(v *varInfo, p *path) *icond.Expr {
	if e, ok := p.store[v.k]; ok {
		return e
	}
	return v.init
}

// inRange is the int64 range of t as two literals.
func inRange(t *icond.Expr) []*icond.Expr {
	return []*icond.Expr{
		icond.Bin(icond.Ge, t, icond.Int(math.MinInt64)),
		icond.Bin(icond.Le, t, icond.Int(math.MaxInt64)),
	}
}

func (ss *session) conj(lits []*icond.Expr) string {
	switch len(lits) {
	case 0:
		return "true"
	case 1:
		return ss.smt(lits[0])
	}
	parts := make([]string, len(lits))
	for i, l := range lits {
		parts[i] = ss.smt(l)
	}
	return "(and " + strings.Join(parts, " ") + ")"
}

// smt prints e in SMT-LIB.
func (ss *session) smt(e *icond.Expr) string {
	var b strings.Builder
	ss.write(&b, e)
	return b.String()
}

func (ss *session) write(b *strings.Builder, e *icond.Expr) {
	switch e.Op {
	case icond.Const:
		switch {
		case e.Bool && e.Value != 0:
			b.WriteString("true")
		case e.Bool:
			b.WriteString("false")
		case e.Value < 0:
			b.WriteString("(- " + strconv.FormatUint(uint64(-(e.Value+1))+1, 10) + ")")
		default:
			b.WriteString(strconv.FormatInt(e.Value, 10))
		}
		return
	case icond.Var:
		b.WriteString(ss.names[keyOf(e)])
		return
	}
	op := map[icond.Op]string{
		icond.Add: "+", icond.Sub: "-", icond.Mul: "*", icond.Neg: "-",
		icond.Eq: "=", icond.Lt: "<", icond.Le: "<=", icond.Gt: ">", icond.Ge: ">=",
		icond.And: "and", icond.Or: "or", icond.Not: "not",
	}[e.Op]
	if e.Op == icond.Ne {
		b.WriteString("(not (= ")
		ss.write(b, e.Args[0])
		b.WriteString(" ")
		ss.write(b, e.Args[1])
		b.WriteString("))")
		return
	}
	b.WriteString("(" + op)
	for _, a := range e.Args {
		b.WriteString(" ")
		ss.write(b, a)
	}
	b.WriteString(")")
}

// keyOf is the variable a Var expression built by the executor names.
func keyOf(e *icond.Expr) key {
	k := key{obj: e.Obj, side: e.Side, idx: -1}
	if e.Obj != nil && e.Obj.Kind == analysis.SharedVar {
		k.side = -1
	}
	if e.Index != nil {
		k.idx = e.Index.Value
	}
	return k
}

// sortedKeys orders variables: shared first, then side 0's, then side
// 1's, each by name and index.
func sortedKeys[V any](m map[key]V) []key {
	ks := make([]key, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return keyLess(ks[i], ks[j]) })
	return ks
}

func keyLess(a, b key) bool {
	if a.side != b.side {
		return a.side < b.side
	}
	if a.obj.Name != b.obj.Name {
		return a.obj.Name < b.obj.Name
	}
	if a.idx != b.idx {
		return a.idx < b.idx
	}
	return a.obj.Ident != nil && b.obj.Ident != nil && a.obj.Ident.Pos().Offset < b.obj.Ident.Pos().Offset
}

// equalExpr reports structural equality.
func equalExpr(a, b *icond.Expr) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Op != b.Op || len(a.Args) != len(b.Args) {
		return false
	}
	switch a.Op {
	case icond.Const:
		return a.Bool == b.Bool && a.Value == b.Value
	case icond.Var:
		return keyOf(a) == keyOf(b)
	}
	for i := range a.Args {
		if !equalExpr(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

func dedup(lits []*icond.Expr) []*icond.Expr {
	var out []*icond.Expr
next:
	for _, l := range lits {
		if l.IsTrue() {
			continue
		}
		for _, o := range out {
			if equalExpr(o, l) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// String is a debugging form of a variable (not the hover's printer).
func (k key) String() string {
	s := k.obj.Name
	if k.idx >= 0 {
		s += fmt.Sprintf("[%d]", k.idx)
	}
	if k.side >= 0 {
		s += fmt.Sprintf("#%d", k.side)
	}
	return s
}
