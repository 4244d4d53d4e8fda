package synth

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"weft/internal/testmodels"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/icond"
	"weft/analysis/indep"
	"weft/analysis/lower"
	"weft/engine/ir"
	"weft/grammar"
	"weft/internal/z3"
)

// shownStats counts what TestShownConditions tried.
type shownStats struct {
	programs, pairs int
	conds           int // conditions checked (shown or used)
	texts           int // their texts checked, from side 0 and (for two statements) from side 1
	states          int // states in which the conditions of a pair were evaluated
	held            int // (condition, view, state) triples in which a condition held
	skipped         int // states left out for a condition that assumes no overflow: some order overflows
	engine          int // table entries checked against their conditions
	other, shared   int // texts with other.NAME, with shared.NAME
	bad             int // counterexamples
}

// TestShownConditions evaluates every condition that the analysis with
// SMT synthesis returns for a pair of atomic blocks — those the engine
// uses and those only shown ("assuming no overflow", those that read
// shared memory, the syntactic rules') — against both orders of the
// blocks, run by the concrete interpreter of this package, on random
// states: the CAS model, and random pairs of blocks whose
// threads have locals of the same names (and sometimes a local that
// hides a shared variable). Each condition is evaluated three ways, all
// of which must be sufficient: its expression; its text as the hover and
// `weft ics` show it, read from each statement's side (its own locals
// plain, the other's as `other.NAME`, a hidden shared variable as
// `shared.NAME`), so that a printed name that reads as another variable
// is caught; and, for the engine's conditions, the table entry of both
// orders of the two sites (ir.Constraint.Holds over the frames' slots),
// so that a local given the other side's slot is caught.
//
// Arithmetic: the expression and the table entry are evaluated as the
// engine does (int64, wrapping), the text in unbounded integers as
// people read it, and a condition must be sufficient both ways. A
// condition that assumes no overflow is not checked in a state where
// either order overflows (counted as skipped); every other condition
// must imply that neither order overflows.
//
// The model comes first. WEFT_SYNTH_RANDOM=N runs N random
// programs after it instead of 6 (each has up to three pairs of blocks:
// p with p, p with q, q with q; each program costs about a second, most
// of it in z3).
func TestShownConditions(t *testing.T) {
	s := solver(t)
	n := 6
	if v, err := strconv.Atoi(os.Getenv("WEFT_SYNTH_RANDOM")); err == nil && v >= 0 {
		n = v
	}
	const states = 400
	var st shownStats
	checkShown(t, s, testmodels.SameNamedCAS, rand.New(rand.NewSource(1)), states, &st)
	rng := rand.New(rand.NewSource(11))
	for iter := 0; iter < n && !t.Failed(); iter++ {
		checkShown(t, s, randomCASPair(rng), rng, states, &st)
	}
	t.Logf("%d programs, %d pairs of atomic blocks: %d conditions (%d texts, %d with other.NAME, %d with shared.NAME) on %d states, held %d times, %d states skipped (overflow, conditions assuming none), %d table entries; %d counterexamples",
		st.programs, st.pairs, st.conds, st.texts, st.other, st.shared, st.states, st.held, st.skipped, st.engine, st.bad)
	if st.held == 0 {
		t.Error("no condition held in any state: the test checks nothing")
	}
}

// randomCASPair writes two thread arrays with locals of the same names
// (l, m, ok, the index i), each with one atomic block of random
// statements, compare-and-swaps among them.
func randomCASPair(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("var c int\nvar x int\nvar y int\nvar a [2]int\nvar f bool\n")
	for _, th := range []string{"p", "q"} {
		g := &casGen{rng: rng, shadow: rng.Intn(4) == 0}
		fmt.Fprintf(&b, "thread %s[i in 0..2] {\n    var l int = %d\n    var m int = %d\n    var ok bool\n", th, rng.Intn(3), rng.Intn(3))
		if g.shadow {
			b.WriteString("    var y int = 1\n")
		}
		fmt.Fprintf(&b, "    atomic {\n%s    }\n", g.stmts(2, 1+rng.Intn(3)))
		b.WriteString("    assert l + m >= 0 || ok")
		if g.shadow {
			b.WriteString(" || y > 0")
		}
		b.WriteString("\n}\n")
	}
	return b.String()
}

// casGen writes statements of the encoded subset; y is the thread's own
// local when shadow is set.
type casGen struct {
	rng    *rand.Rand
	shadow bool
}

func (g *casGen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *casGen) int(d int) string {
	if d <= 0 || g.rng.Intn(3) == 0 {
		return g.pick("c", "x", "y", "a[0]", "a[1]", "l", "m", "i", "0", "1", "2")
	}
	switch g.rng.Intn(3) {
	case 0:
		return g.int(d-1) + " + " + g.int(d-1)
	case 1:
		return g.int(d-1) + " - " + g.int(d-1)
	}
	return "2 * (" + g.int(d-1) + ")"
}

func (g *casGen) cond(d int) string {
	switch g.rng.Intn(6) {
	case 0:
		return g.pick("f", "!f", "ok", "!ok")
	case 1:
		if d > 0 {
			return "(" + g.cond(d-1) + ") && (" + g.cond(d-1) + ")"
		}
	case 2:
		return g.int(1) + " < " + g.int(1)
	}
	return g.int(1) + " == " + g.int(1)
}

func (g *casGen) stmts(d, n int) string {
	var b strings.Builder
	lval := func() string { return g.pick("c", "c", "x", "y", "a[1]", "l", "m") }
	for i := 0; i < n; i++ {
		switch k := g.rng.Intn(8); {
		case k <= 1:
			// compare-and-swap
			fmt.Fprintf(&b, "if c == %s { c = %s; ok = true }\n", g.pick("l", "m", "0", "1"), g.pick("l", "m", "m + 1", "2"))
		case k == 2 && d > 0:
			fmt.Fprintf(&b, "if %s { %s } else { %s }\n", g.cond(1), g.stmts(d-1, 1+g.rng.Intn(2)), g.stmts(d-1, g.rng.Intn(2)))
		case k == 3:
			fmt.Fprintf(&b, "%s = %s\n", g.pick("f", "ok"), g.cond(1))
		case k == 4:
			fmt.Fprintf(&b, "%s++\n", lval())
		case k == 5:
			fmt.Fprintf(&b, "%s += %s\n", lval(), g.int(1))
		default:
			fmt.Fprintf(&b, "%s = %s\n", lval(), g.int(2))
		}
	}
	return b.String()
}

// checkShown analyses src with SMT synthesis and checks every condition
// of every pair of atomic blocks on random states.
func checkShown(t *testing.T, s *z3.Solver, src string, rng *rand.Rand, states int, st *shownStats) {
	t.Helper()
	ctx := context.Background()
	ld := lower.Load("random.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatalf("does not load: %v\n%s", ld.Diagnostics, src)
	}
	sum, err := access.Analyze(ctx, ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	var stats Stats
	r, err := indep.Analyze(ctx, ld.Program, ld.Exec, sum, indep.Options{Synthesize: Synthesizer(s, ld.Program, Options{}, &stats)})
	if err != nil {
		t.Fatal(err)
	}
	st.programs++
	w := newWorld(ld.Program)
	before := st.bad
	for _, p := range r.Pairs {
		qa, ok1 := p.A.Node.(*grammar.AtomicStmt)
		ra, ok2 := p.B.Node.(*grammar.AtomicStmt)
		if !ok1 || !ok2 {
			continue
		}
		st.pairs++
		w.checkPair(t, r, p, qa, ra, rng, states, st)
		if st.bad > before {
			t.Fatalf("program:\n%s", src)
		}
	}
}

// world is what the checks need of a program: its variables, each
// local under the env name of each side, and which names each body
// declares.
type world struct {
	prog   *analysis.Program
	locals map[*analysis.Object][]*analysis.Object // body (thread, proc, func) → its locals, parameters, loop variables, index
	bools  map[*analysis.Object]bool
}

func newWorld(prog *analysis.Program) *world {
	w := &world{prog: prog, locals: map[*analysis.Object][]*analysis.Object{}, bools: map[*analysis.Object]bool{}}
	seen := map[*analysis.Object]bool{}
	for _, obj := range prog.Uses {
		if seen[obj] {
			continue
		}
		seen[obj] = true
		switch obj.Kind {
		case analysis.LocalVar, analysis.Param, analysis.LoopVar, analysis.ThreadIndex:
			if obj.Owner != nil {
				w.locals[obj.Owner] = append(w.locals[obj.Owner], obj)
			}
		}
		if obj.Type == analysis.Bool {
			w.bools[obj] = true
		}
	}
	// In declaration order, so that a seed gives the same states.
	for _, ls := range w.locals {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Ident.Pos().Offset < ls[j].Ident.Pos().Offset })
	}
	return w
}

// body is the thread, proc or function whose frame holds st's locals.
func body(st *access.Statement) *analysis.Object {
	if st.Func != nil {
		return st.Func
	}
	return st.Owner
}

// envNames lists the state's variables: the shared words, and every
// local of side 0's and side 1's bodies (a name each, as varName and run
// spell them), with whether each is a bool.
func (w *world) envNames(b0, b1 *analysis.Object) (names []string, isBool map[string]bool) {
	isBool = map[string]bool{}
	for _, v := range w.prog.Shared {
		switch t := v.Type.(type) {
		case *analysis.Array:
			for i := int64(0); i < t.Len; i++ {
				n := v.Name + "[" + strconv.FormatInt(i, 10) + "]"
				names = append(names, n)
				isBool[n] = t.Elem == analysis.Bool
			}
		default:
			names = append(names, v.Name)
			isBool[v.Name] = w.bools[v]
		}
	}
	for side, b := range []*analysis.Object{b0, b1} {
		for _, l := range w.locals[b] {
			n := l.Name + "#" + strconv.Itoa(side)
			names = append(names, n)
			isBool[n] = w.bools[l]
		}
	}
	return names, isBool
}

// randomState gives every variable a value: mostly small, so that
// equalities hold often, sometimes at the edges of int64, so that
// overflows happen.
func randomState(rng *rand.Rand, names []string, isBool map[string]bool) env {
	st := env{}
	mode := rng.Intn(10)
	for _, n := range names {
		switch {
		case isBool[n]:
			st[n] = int64(rng.Intn(2))
		case mode < 5:
			st[n] = int64(rng.Intn(3) - 1)
		case mode < 9:
			st[n] = int64(rng.Intn(7) - 3)
		default:
			st[n] = []int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 1 << 62, -(1 << 62), 0, 1}[rng.Intn(8)]
		}
	}
	return st
}

func (w *world) checkPair(t *testing.T, r *indep.Result, p *indep.Pair, q, rb *grammar.AtomicStmt, rng *rand.Rand, states int, st *shownStats) {
	t.Helper()
	b0, b1 := body(p.A), body(p.B)
	names, isBool := w.envNames(b0, b1)
	// The texts from each side: side 0's are the pair's; side 1's are
	// what Interference gives for B (the same conditions, in order).
	texts := [2][]string{}
	for _, c := range p.Conditions {
		texts[0] = append(texts[0], c.Text)
	}
	if p.A != p.B {
		for _, it := range r.Interference(p.B, nil) {
			if it.Other != p.A {
				continue
			}
			for i := range p.Conditions {
				texts[1] = append(texts[1], it.Conditions[i].Text)
			}
		}
		if len(texts[1]) != len(p.Conditions) {
			t.Fatalf("Interference of %s gives %d conditions for the pair, want %d", indep.Where(p.B), len(texts[1]), len(p.Conditions))
		}
	}
	parsed := [2][]grammar.Expr{}
	for side := range texts {
		for _, text := range texts[side] {
			e, err := parseCond(text)
			if err != nil {
				t.Fatalf("condition %q: %v", text, err)
			}
			parsed[side] = append(parsed[side], e)
		}
	}
	st.conds += len(p.Conditions)
	st.texts += len(texts[0]) + len(texts[1])
	for _, ts := range texts {
		for _, text := range ts {
			if strings.Contains(text, "other.") {
				st.other++
			}
			if strings.Contains(text, "shared.") {
				st.shared++
			}
		}
	}
	// The engine's entries of the pair's sites, both orders.
	type entry struct {
		c    ir.Constraint
		swap bool
		cond int
	}
	var entries []entry
	cons := r.Constraints()
	for _, sa := range r.Sites(p.A) {
		for _, sb := range r.Sites(p.B) {
			for _, dir := range []bool{false, true} {
				k := [2]ir.Site{sa, sb}
				if dir {
					k = [2]ir.Site{sb, sa}
				}
				if dir && sa == sb {
					continue
				}
				for _, c := range cons.Pairs[k] {
					i := -1
					for j, pc := range p.Conditions {
						if pc.Engine && pc.Text == c.Text && pc.Origin == c.Origin {
							i = j
						}
					}
					if i < 0 && !strings.HasPrefix(c.Origin, "engine") {
						t.Errorf("table entry %q [%s] of %s is no engine condition of the pair", c.Text, c.Origin, indep.Where(p.A))
						st.bad++
						continue
					}
					if i >= 0 {
						entries = append(entries, entry{c, dir, i})
					}
				}
			}
		}
	}
	keep := names
	report := func(format string, args ...any) {
		st.bad++
		if st.bad <= 5 {
			t.Errorf("%s with %s: "+format, append([]any{indep.Where(p.A), indep.Where(p.B)}, args...)...)
		}
	}
	for range states {
		e := randomState(rng, names, isBool)
		st.states++
		ok1, ok2, same := w.orders(q, rb, e, keep)
		overflow := !ok1 || !ok2
		// The synthesis's conditions (over int64) imply that neither
		// order overflows; the syntactic rules' only that both orders
		// fail alike (TestTableCommutes's criterion in package indep).
		goodFor := func(origin string) bool {
			if strings.HasPrefix(origin, "smt") {
				return ok1 && ok2 && same
			}
			return ok1 == ok2 && (!ok1 || same)
		}
		for i, c := range p.Conditions {
			good := goodFor(c.Origin)
			noOverflow := c.DisplayOnly || strings.Contains(c.Origin, "assuming no overflow")
			if noOverflow && overflow {
				st.skipped++
				continue
			}
			// The expression, in unbounded integers.
			want, _ := evalBig(c.Expr, e)
			if want {
				st.held++
				if !good {
					report("condition %s [%s] holds in %v but the orders differ (overflow %v/%v)", c.Text, c.Origin, e, !ok1, !ok2)
				}
			}
			// Its text, from each side, must say the same.
			for side := range parsed {
				if i >= len(parsed[side]) {
					continue
				}
				v, err := w.evalText(parsed[side][i], e, side, [2]*analysis.Object{b0, b1})
				if err != nil {
					report("text %q (side %d): %v", texts[side][i], side, err)
					continue
				}
				if got := v.Sign() != 0; got != want {
					report("the text %q [%s] read from side %d is %v in %v, its condition %s is %v", texts[side][i], c.Origin, side, got, e, show(c.Expr), want)
				}
			}
		}
		for _, en := range entries {
			st.engine++
			frames := [2][]int64{w.frame(b0, 0, e), w.frame(b1, 1, e)}
			if en.swap {
				frames[0], frames[1] = frames[1], frames[0]
			}
			h := en.c.Holds(cstate{w.memory(e), frames})
			good := goodFor(en.c.Origin)
			want, inRange := evalBig(p.Conditions[en.cond].Expr, e)
			if h && !good {
				report("table entry %q (swapped %v) holds in %v but the orders differ", en.c.Text, en.swap, e)
			}
			// Where no arithmetic of the condition overflows, the entry is
			// the condition; elsewhere it may only be false.
			if inRange && h != want || !inRange && h {
				report("table entry %q (swapped %v) gives %v where its condition gives %v (int64 range %v) in %v", en.c.Text, en.swap, h, want, inRange, e)
			}
		}
	}
}

// evalBig evaluates a condition in unbounded integers; inRange says that
// every intermediate result fits in int64.
func evalBig(x *icond.Expr, e env) (holds, inRange bool) {
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	inRange = true
	b := func(c bool) *big.Int {
		if c {
			return big.NewInt(1)
		}
		return big.NewInt(0)
	}
	var ev func(x *icond.Expr) *big.Int
	ev = func(x *icond.Expr) *big.Int {
		var v *big.Int
		switch x.Op {
		case icond.Const:
			v = big.NewInt(x.Value)
		case icond.Var:
			v = big.NewInt(e[varName(x)])
		case icond.Neg:
			v = new(big.Int).Neg(ev(x.Args[0]))
		case icond.Not:
			v = b(ev(x.Args[0]).Sign() == 0)
		case icond.And:
			v = b(ev(x.Args[0]).Sign() != 0 && ev(x.Args[1]).Sign() != 0)
		case icond.Or:
			v = b(ev(x.Args[0]).Sign() != 0 || ev(x.Args[1]).Sign() != 0)
		default:
			a, c := ev(x.Args[0]), ev(x.Args[1])
			switch x.Op {
			case icond.Add:
				v = new(big.Int).Add(a, c)
			case icond.Sub:
				v = new(big.Int).Sub(a, c)
			case icond.Mul:
				v = new(big.Int).Mul(a, c)
			case icond.Eq:
				v = b(a.Cmp(c) == 0)
			case icond.Ne:
				v = b(a.Cmp(c) != 0)
			case icond.Lt:
				v = b(a.Cmp(c) < 0)
			case icond.Le:
				v = b(a.Cmp(c) <= 0)
			case icond.Gt:
				v = b(a.Cmp(c) > 0)
			case icond.Ge:
				v = b(a.Cmp(c) >= 0)
			default:
				panic(fmt.Sprintf("op %d", x.Op))
			}
		}
		if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			inRange = false
		}
		return v
	}
	return ev(x).Sign() != 0, inRange
}

// orders runs q then r, and r then q, from e (q on side 0), and says
// whether each ran without overflow and whether they reached the same
// values of keep.
func (w *world) orders(q, r *grammar.AtomicStmt, e env, keep []string) (ok1, ok2, same bool) {
	a, b := env{}, env{}
	for k, v := range e {
		a[k], b[k] = v, v
	}
	ok1 = run(w.prog, q.Body, 0, a) && run(w.prog, r.Body, 1, a)
	ok2 = run(w.prog, r.Body, 1, b) && run(w.prog, q.Body, 0, b)
	same = true
	for _, k := range keep {
		if a[k] != b[k] {
			same = false
		}
	}
	return ok1, ok2, same
}

// memory is shared memory in e.
func (w *world) memory(e env) []int64 {
	mem := make([]int64, w.prog.SharedSize)
	for _, v := range w.prog.Shared {
		if t, ok := v.Type.(*analysis.Array); ok {
			for i := int64(0); i < t.Len; i++ {
				mem[v.Offset+int(i)] = e[v.Name+"["+strconv.FormatInt(i, 10)+"]"]
			}
			continue
		}
		mem[v.Offset] = e[v.Name]
	}
	return mem
}

// frame is the frame of body b for the locals of side in e: each local
// in its slot, a thread array's index in the slot after the frame.
func (w *world) frame(b *analysis.Object, side int, e env) []int64 {
	fr := make([]int64, b.FrameSize+1)
	for _, l := range w.locals[b] {
		v := e[l.Name+"#"+strconv.Itoa(side)]
		if l.Kind == analysis.ThreadIndex {
			fr[b.FrameSize] = v
		} else if l.Slot >= 0 {
			fr[l.Slot] = v
		}
	}
	return fr
}

type cstate struct {
	mem    []int64
	frames [2][]int64
}

func (s cstate) Shared(loc int32) (int64, bool) {
	if loc < 0 || int(loc) >= len(s.mem) {
		return 0, false
	}
	return s.mem[loc], true
}

func (s cstate) Local(side uint8, slot int32) (int64, bool) {
	if side > 1 || slot < 0 || int(slot) >= len(s.frames[side]) {
		return 0, false
	}
	return s.frames[side][slot], true
}

// parseCond parses a condition's text: Weft syntax, with `other.NAME`
// and `shared.NAME` read as the names other__NAME and shared__NAME.
func parseCond(text string) (grammar.Expr, error) {
	src := strings.NewReplacer("other.", "other__", "shared.", "shared__").Replace(text)
	f, diags := grammar.ParseFile("cond.weft", []byte("const weft__cond = "+src+"\n"))
	if len(diags) > 0 {
		return nil, fmt.Errorf("does not parse: %v", diags)
	}
	if len(f.Decls) != 1 {
		return nil, fmt.Errorf("parsed into %d declarations", len(f.Decls))
	}
	d, ok := f.Decls[0].(*grammar.ConstDecl)
	if !ok {
		return nil, fmt.Errorf("parsed into %T", f.Decls[0])
	}
	return d.Value, nil
}

// evalText evaluates a parsed condition text as someone reading it at
// the statement of side `side` would, in unbounded integers: a plain
// name is a local of that side's body if the body declares one, else
// the shared variable or constant; other.NAME is the other side's local;
// shared.NAME the shared variable.
func (w *world) evalText(x grammar.Expr, e env, side int, bodies [2]*analysis.Object) (*big.Int, error) {
	lookup := func(name string) (int64, error) {
		switch {
		case strings.HasPrefix(name, "other__"):
			n := strings.TrimPrefix(name, "other__")
			for _, l := range w.locals[bodies[1-side]] {
				if l.Name == n {
					return e[n+"#"+strconv.Itoa(1-side)], nil
				}
			}
			return 0, fmt.Errorf("the other side has no local %s", n)
		case strings.HasPrefix(name, "shared__"):
			n := strings.TrimPrefix(name, "shared__")
			if o := w.prog.Lookup(n); o == nil || o.Kind != analysis.SharedVar {
				return 0, fmt.Errorf("no shared variable %s", n)
			}
			return e[n], nil
		}
		for _, l := range w.locals[bodies[side]] {
			if l.Name == name {
				return e[name+"#"+strconv.Itoa(side)], nil
			}
		}
		o := w.prog.Lookup(name)
		if o == nil {
			return 0, fmt.Errorf("%s names nothing at side %d", name, side)
		}
		switch o.Kind {
		case analysis.SharedVar:
			return e[name], nil
		case analysis.Const:
			return o.Value.Word(), nil
		}
		return 0, fmt.Errorf("%s is a %v", name, o.Kind)
	}
	one, zero := big.NewInt(1), big.NewInt(0)
	bo := func(b bool) *big.Int {
		if b {
			return one
		}
		return zero
	}
	var ev func(x grammar.Expr) (*big.Int, error)
	ev = func(x grammar.Expr) (*big.Int, error) {
		switch x := x.(type) {
		case *grammar.ParenExpr:
			return ev(x.X)
		case *grammar.IntLit:
			v, ok := new(big.Int).SetString(x.Raw, 0)
			if !ok {
				return nil, fmt.Errorf("literal %s", x.Raw)
			}
			return v, nil
		case *grammar.BoolLit:
			return bo(x.Value), nil
		case *grammar.Ident:
			v, err := lookup(x.Name)
			return big.NewInt(v), err
		case *grammar.IndexExpr:
			id, ok := x.X.(*grammar.Ident)
			if !ok {
				return nil, fmt.Errorf("index of %T", x.X)
			}
			i, err := ev(x.Index)
			if err != nil {
				return nil, err
			}
			name := strings.TrimPrefix(id.Name, "shared__")
			if o := w.prog.Lookup(name); o == nil || o.Kind != analysis.SharedVar {
				return nil, fmt.Errorf("%s is not a shared array", id.Name)
			}
			if !i.IsInt64() {
				return nil, fmt.Errorf("index %v", i)
			}
			v, ok := e[name+"["+i.String()+"]"]
			if !ok {
				return nil, fmt.Errorf("no element %s[%v]", name, i)
			}
			return big.NewInt(v), nil
		case *grammar.UnaryExpr:
			v, err := ev(x.X)
			if err != nil {
				return nil, err
			}
			if x.Op == grammar.NOT {
				return bo(v.Sign() == 0), nil
			}
			return new(big.Int).Neg(v), nil
		case *grammar.BinaryExpr:
			a, err := ev(x.X)
			if err != nil {
				return nil, err
			}
			b, err := ev(x.Y)
			if err != nil {
				return nil, err
			}
			switch x.Op {
			case grammar.ADD:
				return new(big.Int).Add(a, b), nil
			case grammar.SUB:
				return new(big.Int).Sub(a, b), nil
			case grammar.MUL:
				return new(big.Int).Mul(a, b), nil
			case grammar.LAND:
				return bo(a.Sign() != 0 && b.Sign() != 0), nil
			case grammar.LOR:
				return bo(a.Sign() != 0 || b.Sign() != 0), nil
			case grammar.EQL:
				return bo(a.Cmp(b) == 0), nil
			case grammar.NEQ:
				return bo(a.Cmp(b) != 0), nil
			case grammar.LSS:
				return bo(a.Cmp(b) < 0), nil
			case grammar.LEQ:
				return bo(a.Cmp(b) <= 0), nil
			case grammar.GTR:
				return bo(a.Cmp(b) > 0), nil
			case grammar.GEQ:
				return bo(a.Cmp(b) >= 0), nil
			}
		}
		return nil, fmt.Errorf("cannot evaluate %s", analysis.ExprString(x))
	}
	return ev(x)
}
