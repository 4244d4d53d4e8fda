package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/analysis"
	"weft/analysis/icond"
	"weft/grammar"
	"weft/internal/z3"
	"weft/internal/z3/z3test"
	"weft/source"
)

func solver(t testing.TB) *z3.Solver {
	t.Helper()
	s, err := z3.Start(context.Background(), z3.Config{})
	if errors.Is(err, z3.ErrNotFound) {
		z3test.Missing(t, "z3 not installed: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// load checks src and returns its atomic blocks in source order.
func load(t testing.TB, src string) (*analysis.Program, []*grammar.AtomicStmt) {
	t.Helper()
	file, diags := grammar.ParseFile("t.weft", []byte(src))
	prog := analysis.Check(file)
	diags = append(diags, prog.Diagnostics...)
	if source.HasErrors(diags) {
		t.Fatalf("diagnostics: %v\n%s", diags, src)
	}
	var blocks []*grammar.AtomicStmt
	grammar.Inspect(file, func(n grammar.Node) bool {
		if a, ok := n.(*grammar.AtomicStmt); ok {
			blocks = append(blocks, a)
		}
		return true
	})
	return prog, blocks
}

// show prints a condition in Weft-like syntax (locals of side 1 primed)
// for messages.
func show(e *icond.Expr) string {
	switch e.Op {
	case icond.Const:
		if e.Bool {
			return strconv.FormatBool(e.Value != 0)
		}
		return strconv.FormatInt(e.Value, 10)
	case icond.Var:
		s := e.Obj.Name
		if e.Index != nil {
			s += "[" + show(e.Index) + "]"
		}
		if e.Obj.Kind != analysis.SharedVar && e.Side == 1 {
			s += "'"
		}
		return s
	case icond.Neg:
		return "-" + show(e.Args[0])
	case icond.Not:
		return "!" + show(e.Args[0])
	}
	op := map[icond.Op]string{icond.Add: "+", icond.Sub: "-", icond.Mul: "*", icond.Eq: "==", icond.Ne: "!=",
		icond.Lt: "<", icond.Le: "<=", icond.Gt: ">", icond.Ge: ">=", icond.And: "&&", icond.Or: "||"}[e.Op]
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = show(a)
		if a.Op == icond.Or || a.Op == icond.And && e.Op != icond.And {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, " "+op+" ")
}

// env is a state: variable name (x, a[2], s#0 for side 0's local s) to
// value (bools 0/1).
type env map[string]int64

func varName(e *icond.Expr) string {
	s := e.Obj.Name
	if e.Index != nil {
		s += "[" + strconv.FormatInt(e.Index.Value, 10) + "]"
	}
	if e.Obj.Kind != analysis.SharedVar {
		s += "#" + strconv.Itoa(e.Side)
	}
	return s
}

func eval(e *icond.Expr, st env) int64 {
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	a := func(i int) int64 { return eval(e.Args[i], st) }
	switch e.Op {
	case icond.Const:
		return e.Value
	case icond.Var:
		return st[varName(e)]
	case icond.Add:
		return a(0) + a(1)
	case icond.Sub:
		return a(0) - a(1)
	case icond.Mul:
		return a(0) * a(1)
	case icond.Neg:
		return -a(0)
	case icond.Eq:
		return b(a(0) == a(1))
	case icond.Ne:
		return b(a(0) != a(1))
	case icond.Lt:
		return b(a(0) < a(1))
	case icond.Le:
		return b(a(0) <= a(1))
	case icond.Gt:
		return b(a(0) > a(1))
	case icond.Ge:
		return b(a(0) >= a(1))
	case icond.And:
		return b(a(0) != 0 && a(1) != 0)
	case icond.Or:
		return b(a(0) != 0 || a(1) != 0)
	case icond.Not:
		return b(a(0) == 0)
	}
	panic("op")
}

// run is an independent concrete interpreter of the subset, for checking
// the synthesis against the blocks' meaning. It returns false when the
// block overflows.
func run(prog *analysis.Program, blk *grammar.Block, side int, st env) bool {
	name := func(e grammar.Expr) string {
		for {
			p, ok := e.(*grammar.ParenExpr)
			if !ok {
				break
			}
			e = p.X
		}
		switch x := e.(type) {
		case *grammar.Ident:
			o := prog.Uses[x]
			if o.Kind == analysis.SharedVar {
				return o.Name
			}
			return o.Name + "#" + strconv.Itoa(side)
		case *grammar.IndexExpr:
			o := prog.RootOf(x)
			s := o.Name + "[" + strconv.FormatInt(prog.ConstValues[x.Index].Int(), 10) + "]"
			if o.Kind != analysis.SharedVar {
				s += "#" + strconv.Itoa(side)
			}
			return s
		}
		panic("name")
	}
	ok := true
	var ev func(e grammar.Expr) int64
	ev = func(e grammar.Expr) int64 {
		if v, c := prog.ConstValues[e]; c && v.IsValid() {
			return v.Word()
		}
		switch x := e.(type) {
		case *grammar.ParenExpr:
			return ev(x.X)
		case *grammar.Ident, *grammar.IndexExpr:
			return st[name(x)]
		case *grammar.UnaryExpr:
			v := ev(x.X)
			if x.Op == grammar.NOT {
				return 1 - v
			}
			if v == math.MinInt64 {
				ok = false
			}
			return -v
		case *grammar.BinaryExpr:
			a, b := ev(x.X), ev(x.Y)
			bo := func(v bool) int64 {
				if v {
					return 1
				}
				return 0
			}
			switch x.Op {
			case grammar.ADD:
				r, k := addOK(a, b)
				ok = ok && k
				return r
			case grammar.SUB:
				r, k := subOK(a, b)
				ok = ok && k
				return r
			case grammar.MUL:
				r, k := mulOK(a, b)
				ok = ok && k
				return r
			case grammar.LAND:
				return bo(a != 0 && b != 0)
			case grammar.LOR:
				return bo(a != 0 || b != 0)
			case grammar.EQL:
				return bo(a == b)
			case grammar.NEQ:
				return bo(a != b)
			case grammar.LSS:
				return bo(a < b)
			case grammar.LEQ:
				return bo(a <= b)
			case grammar.GTR:
				return bo(a > b)
			case grammar.GEQ:
				return bo(a >= b)
			}
		}
		panic(fmt.Sprintf("expr %T", e))
	}
	var stmts func(ss []grammar.Stmt)
	stmts = func(ss []grammar.Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *grammar.Block:
				stmts(s.Stmts)
			case *grammar.DeclStmt:
				v := int64(0)
				if s.Decl.Init != nil {
					v = ev(s.Decl.Init)
				}
				st[name(s.Decl.Name)] = v
			case *grammar.AssignStmt:
				v := ev(s.RHS)
				if s.Op != grammar.ASSIGN {
					old := st[name(s.LHS)]
					var k bool
					switch s.Op.BinaryOp() {
					case grammar.ADD:
						v, k = addOK(old, v)
					case grammar.SUB:
						v, k = subOK(old, v)
					case grammar.MUL:
						v, k = mulOK(old, v)
					}
					ok = ok && k
				}
				st[name(s.LHS)] = v
			case *grammar.IncDecStmt:
				d := int64(1)
				if s.Op == grammar.DEC {
					d = -1
				}
				v, k := addOK(st[name(s.X)], d)
				ok = ok && k
				st[name(s.X)] = v
			case *grammar.IfStmt:
				if ev(s.Cond) != 0 {
					stmts(s.Then.Stmts)
				} else if s.Else != nil {
					stmts([]grammar.Stmt{s.Else})
				}
			default:
				panic(fmt.Sprintf("stmt %T", s))
			}
		}
	}
	stmts(blk.Stmts)
	return ok
}

// grid enumerates states over the variables named, each in vals.
func grid(names []string, vals []int64, f func(env)) {
	st := env{}
	var rec func(i int)
	rec = func(i int) {
		if i == len(names) {
			c := env{}
			for k, v := range st {
				c[k] = v
			}
			f(c)
			return
		}
		for _, v := range vals {
			st[names[i]] = v
			rec(i + 1)
		}
	}
	rec(0)
}

// commutes runs q·r and r·q from st and compares the variables in keep.
func commutes(prog *analysis.Program, q, r *grammar.AtomicStmt, st env, keep []string) bool {
	a, b := env{}, env{}
	for k, v := range st {
		a[k], b[k] = v, v
	}
	ok1 := run(prog, q.Body, 0, a) && run(prog, r.Body, 1, a)
	ok2 := run(prog, r.Body, 1, b) && run(prog, q.Body, 0, b)
	if !ok1 || !ok2 {
		return false
	}
	for _, k := range keep {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

type pairCase struct {
	name string
	src  string
	q, r int      // indexes of the blocks
	vars []string // the state's variables (env names)
	keep []string // what must agree after both orders
	vals []int64
	want []func(env) bool // each condition, up to equivalence on the grid, in any order
	// exact: the disjunction equals commutation on the grid.
	exact bool
	opts  Options
}

var ex6 = `
var x int
var z int
thread q { atomic { if z >= 0 { z = x } } }
thread r { atomic { x = x + 1; z = z + 1 } }
`

func TestPairs(t *testing.T) {
	s := solver(t)
	small := []int64{-4, -3, -2, -1, 0, 1, 2, 3, 4}
	cases := []pairCase{{
		name: "ex6",
		src:  ex6,
		q:    0, r: 1,
		vars: []string{"x", "z"}, keep: []string{"x", "z"}, vals: small,
		want: []func(env) bool{
			func(e env) bool { return e["z"] >= 0 },
			func(e env) bool { return e["z"] <= -2 },
			func(e env) bool { return e["x"] == e["z"] },
		},
		exact: true,
	}, {
		name: "pi",
		src: `
var pi int
proc term(s int) { atomic { pi = pi + s } }
thread main { spawn term(1); spawn term(2) }
`,
		q: 0, r: 0,
		vars: []string{"pi", "s#0", "s#1"}, keep: []string{"pi"}, vals: small,
		want:  []func(env) bool{func(env) bool { return true }},
		exact: true,
	}, {
		name: "two-writes",
		src: `
var x int
thread p { var a int = 1; atomic { x = a } }
thread q { var b int = 2; atomic { x = b } }
`,
		q: 0, r: 1,
		vars: []string{"x", "a#0", "b#1"}, keep: []string{"x"}, vals: small,
		want:  []func(env) bool{func(e env) bool { return e["a#0"] == e["b#1"] }},
		exact: true,
	}, {
		name: "local-reads-shared",
		src: `
var x int
thread p { var t int; atomic { t = x } ; assert t >= 0 }
thread q { atomic { x = x + 2 } }
`,
		q: 0, r: 1,
		vars: []string{"x", "t#0"}, keep: []string{"x", "t#0"}, vals: small,
		want:  nil, // t differs in the two orders: never independent
		exact: true,
	}, {
		name: "bools-and-elements",
		src: `
var a [3]int
var f bool
thread p { atomic { if f { a[1] = a[1] + 1 } else { a[2] = 0 } } }
thread q { atomic { a[2] = a[2] * 2; f = a[0] > 0 } }
`,
		q: 0, r: 1,
		vars: []string{"a[0]", "a[1]", "a[2]", "f"}, keep: []string{"a[0]", "a[1]", "a[2]", "f"}, vals: []int64{-2, -1, 0, 1, 2},
		exact: true,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog, blocks := load(t, c.src)
			q, r := blocks[c.q], blocks[c.r]
			res, err := Pair(context.Background(), s, prog, q, r, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, e := range res.Conds {
				shown = append(shown, show(e))
			}
			t.Logf("I = {%s}  (exact %v, %d queries, %v)", strings.Join(shown, "}, {"), res.Exact, res.Queries, res.Time)
			if res.Unsupported != "" || res.TimedOut {
				t.Fatalf("unsupported %q, timed out %v", res.Unsupported, res.TimedOut)
			}
			if !res.Exact {
				t.Errorf("not exact")
			}
			bools := map[string]bool{"f": true}
			checkGrid(t, prog, q, r, c, res, bools)
			if c.want != nil || c.name == "local-reads-shared" {
				if len(res.Conds) != len(c.want) {
					t.Fatalf("%d conditions, want %d", len(res.Conds), len(c.want))
				}
				used := make([]bool, len(c.want))
				for _, e := range res.Conds {
					found := false
					for i, w := range c.want {
						if used[i] {
							continue
						}
						same := true
						grid(c.vars, c.vals, func(st env) {
							if (eval(e, st) != 0) != w(st) {
								same = false
							}
						})
						if same {
							used[i], found = true, true
							break
						}
					}
					if !found {
						t.Errorf("condition %s matches no expected one", show(e))
					}
				}
			}
		})
	}
}

// checkGrid: every condition is sufficient on the grid, and when exact
// their disjunction is necessary too.
func checkGrid(t *testing.T, prog *analysis.Program, q, r *grammar.AtomicStmt, c pairCase, res Result, bools map[string]bool) {
	t.Helper()
	bad := 0
	grid(c.vars, c.vals, func(st env) {
		for k := range st {
			if bools[k] && (st[k] < 0 || st[k] > 1) {
				return
			}
		}
		com := commutes(prog, q, r, st, c.keep)
		any := false
		for _, e := range res.Conds {
			if eval(e, st) != 0 {
				any = true
				if !com && bad < 5 {
					bad++
					t.Errorf("%s holds in %v but the blocks do not commute", show(e), st)
				}
			}
		}
		if c.exact && com && !any && bad < 5 {
			bad++
			t.Errorf("blocks commute in %v but no condition holds", st)
		}
	})
}

// The port of Sec. 4.2's res: spawn is not allowed in an atomic block, so
// the block records the spawn in locals of its thread and spawns after.
const resSrc = `
var nr int
var r int
proc res(v int) {
    var sp bool
    var arg int
    atomic {
        if nr > 0 {
            nr = 0
            r = v
        } else {
            sp = true
            arg = r + v
            r = 0
            nr = 1
        }
    }
    if sp {
        spawn res(arg)
    }
}
thread main { spawn res(1); spawn res(2) }
`

func TestResPort(t *testing.T) {
	s := solver(t)
	prog, blocks := load(t, resSrc)
	// With the locals in the state (what the engine needs): in either
	// branch the two orders leave the spawn to different threads (sp of
	// side 0 set in one order, of side 1 in the other), so the blocks
	// never commute.
	res, err := Pair(context.Background(), s, prog, blocks[0], blocks[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact || res.Unsupported != "" {
		t.Errorf("with locals: exact %v, %q", res.Exact, res.Unsupported)
	}
	// The synthesis does not know that sp is false when the block starts:
	// its conditions need sp already set on both sides (then setting it
	// again changes nothing). None holds where the block really starts.
	for _, e := range res.Conds {
		t.Logf("with locals: %s", show(e))
		grid([]string{"nr", "r", "v#0", "v#1", "arg#0", "arg#1"}, []int64{-1, 0, 1}, func(st env) {
			st["sp#0"], st["sp#1"] = 0, 0
			if eval(e, st) != 0 {
				t.Errorf("%s holds with sp false on both sides: %v", show(e), st)
			}
		})
	}
	c := pairCase{vars: []string{"nr", "r", "v#0", "v#1", "sp#0", "sp#1", "arg#0", "arg#1"},
		keep: []string{"nr", "r", "sp#0", "sp#1", "arg#0", "arg#1"}, vals: []int64{-1, 0, 1}, exact: true}
	checkGrid(t, prog, blocks[0], blocks[0], c, res, map[string]bool{"sp#0": true, "sp#1": true})

	// Shared memory only, as Def. 5 compares: the paper's {nr > 0, v == v1}.
	res, err = Pair(context.Background(), s, prog, blocks[0], blocks[0], Options{sharedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, e := range res.Conds {
		shown = append(shown, show(e))
	}
	sort.Strings(shown)
	t.Logf("shared only: {%s} (%d queries, %v)", strings.Join(shown, "}, {"), res.Queries, res.Time)
	if got, want := strings.Join(shown, "; "), "nr >= 1; v == v'"; got != want {
		t.Errorf("shared only: got %q, want %q", got, want)
	}
}

func TestUnsupported(t *testing.T) {
	s := solver(t)
	for _, c := range []struct{ name, block, want string }{
		{"division", "x = x / 2", "division"},
		{"modulo", "x %= 3", "division"},
		{"assert", "assert x > 0", "assert"},
		{"assume", "assume x > 0", "assume"},
		{"loop", "while x > 0 { x-- }", "loop"},
		{"for", "for i in 0..2 { x++ }", "loop"},
		{"index", "a[x] = 1", "not a constant"},
		{"nonlinear", "x = x * x", "non-linear"},
		{"call", "x = f(x)", "call"},
		{"2d", "g[0][1] = 1", "multi-dimensional"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "var x int\nvar a [3]int\nvar g [2][2]int\nfunc f(n int) int { return n + 1 }\nthread p { atomic { " + c.block + " } }\nthread q { atomic { x = 1 } }\n"
			prog, blocks := load(t, src)
			res, err := Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Unsupported, c.want) || len(res.Conds) != 0 || res.Queries != 0 {
				t.Errorf("got unsupported %q with %d conditions, want %q", res.Unsupported, len(res.Conds), c.want)
			}
		})
	}
}

func TestInt64(t *testing.T) {
	s := solver(t)
	prog, blocks := load(t, ex6)
	res, err := Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AssumesNoOverflow {
		t.Error("ex6 without Int64: AssumesNoOverflow unset")
	}
	res, err = Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{Int64: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.AssumesNoOverflow || len(res.Conds) == 0 {
		t.Fatalf("Int64: %+v", res)
	}
	// Sufficient near the bounds, where the overflow of x + 1 happens.
	c := pairCase{vars: []string{"x", "z"}, keep: []string{"x", "z"},
		vals: []int64{math.MinInt64, math.MinInt64 + 1, -2, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}}
	checkGrid(t, prog, blocks[0], blocks[1], c, res, nil)
	for _, e := range res.Conds {
		t.Logf("Int64: %s", show(e))
	}
}

func TestTimeoutIsConservative(t *testing.T) {
	s := solver(t)
	prog, blocks := load(t, ex6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Pair(ctx, s, prog, blocks[0], blocks[1], Options{})
	if err == nil || res.Exact {
		t.Errorf("cancelled: err %v, exact %v", err, res.Exact)
	}
	// The solver is usable afterwards.
	res, err = Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{Timeout: time.Second})
	if err != nil || len(res.Conds) != 3 {
		t.Fatalf("after cancel: %d conditions, %v", len(res.Conds), err)
	}
}

func TestSolverKilledMidway(t *testing.T) {
	// A "z3" that answers the markers but never a check-sat: the Go-side
	// deadline kills it; Pair reports a timeout, does not claim
	// exactness, returns only sufficient conditions, and resets the solver.
	dir := t.TempDir()
	path := dir + "/fake-z3"
	body := "#!/bin/sh\nwhile read line; do case \"$line\" in *check-sat*) sleep 60;; *echo*) echo \"$line\" | sed -n 's/(echo \"\\(.*\\)\")/\\1/p';; esac; done\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := z3.Start(context.Background(), z3.Config{Path: path, Grace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prog, blocks := load(t, ex6)
	res, err := Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Exact {
		t.Errorf("got %+v, want timed out, not exact", res)
	}
	// What it kept (a disjunct of F, unminimised) is still sufficient.
	c := pairCase{vars: []string{"x", "z"}, keep: []string{"x", "z"}, vals: []int64{-3, -2, -1, 0, 1, 2}}
	checkGrid(t, prog, blocks[0], blocks[1], c, res, nil)
	if s.Generation() != 2 {
		t.Errorf("generation %d: the solver was not reset", s.Generation())
	}
}
