package indep

import (
	"sort"
	"strings"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/icond"
	"weft/grammar"
)

// acc is one access of a statement to a shared variable, as the syntax
// says it.
type acc struct {
	obj *analysis.Object
	// place is the word (a Var, with its index for an array element); nil
	// when it cannot be said (an element of a multi-dimensional array, an
	// index with a call).
	place *icond.Expr
	// idx is the index of an array element; idxOK says the index rule
	// may use it (its value is the one the access uses).
	idx   *icond.Expr
	idxOK bool
	write bool
	// value is what a write stores (nil: not known, or not expressible).
	value *icond.Expr
	// cond is, for a read in the condition of an if, a while, an await,
	// an assert or an assume, that whole condition.
	cond *icond.Expr
}

// model is what the rules know of a statement, on one side of a pair.
type model struct {
	st   *access.Statement
	accs []acc
	// reads and writes are the variables its steps may read and write
	// (access's summary: mutexes and condition variables count as
	// writes); opaque are those whose accesses the syntax does not tell
	// exactly (through a call, a lock, an access the walk did not find);
	// opaqueAll says it may access any word.
	reads, writes map[*analysis.Object]bool
	opaque        map[*analysis.Object]bool
	opaqueAll     bool
	// atomic says the statement is an atomic block; simple that it is one
	// assignment (or ++/--) with no call: the model is the exact effect
	// of the block.
	atomic, simple bool
}

// newModel builds the model of st with its locals on side side.
func newModel(p *analysis.Program, st *access.Statement, side int) *model {
	m := &model{st: st, reads: map[*analysis.Object]bool{}, writes: map[*analysis.Object]bool{}, opaque: map[*analysis.Object]bool{}}
	mark := func(set map[*analysis.Object]bool, locs []access.Loc, opaque bool) {
		for _, l := range locs {
			if l.Var == nil {
				m.opaqueAll = true
				continue
			}
			set[l.Var] = true
			if opaque {
				m.opaque[l.Var] = true
			}
		}
	}
	for i := range st.Steps {
		sp := &st.Steps[i]
		switch sp.Kind {
		case access.Read:
			mark(m.reads, sp.Reads, false)
		case access.Write:
			mark(m.writes, sp.Writes, false)
		case access.Atomic:
			mark(m.reads, sp.Reads, false)
			mark(m.writes, sp.Writes, false)
		case access.Call:
			mark(m.reads, sp.Reads, true)
			mark(m.writes, sp.Writes, true)
			mark(m.writes, sp.Sync, true)
		case access.Lock, access.Unlock, access.Trylock:
			mark(m.writes, []access.Loc{sp.Mutex}, false)
		case access.Wait, access.Wake:
			mark(m.writes, []access.Loc{sp.Mutex, sp.Cond}, false)
		case access.Signal, access.Broadcast:
			mark(m.writes, []access.Loc{sp.Cond}, false)
		}
	}
	w := walker{c: conv{p: p, side: side}, m: m}
	switch n := st.Node.(type) {
	case nil:
		m.opaqueAll = len(st.Steps) > 0
	case *grammar.AtomicStmt:
		m.atomic = true
		if n.Body != nil && len(n.Body.Stmts) == 1 && w.simple(n.Body.Stmts[0]) {
			m.simple = true
			w.stmt(n.Body.Stmts[0], false)
		} else if n.Body != nil {
			w.block = assignedLocals(p, n.Body)
			for _, s := range n.Body.Stmts {
				w.stmt(s, true)
			}
		}
	case grammar.Stmt:
		w.stmt(n, false)
	default:
		m.opaqueAll = len(st.Steps) > 0
	}
	// What the steps access and the syntax does not explain is opaque.
	rd, wr := map[*analysis.Object]bool{}, map[*analysis.Object]bool{}
	for _, a := range m.accs {
		if a.place == nil {
			m.opaque[a.obj] = true
		}
		if a.write {
			wr[a.obj] = true
		} else {
			rd[a.obj] = true
		}
	}
	for v := range m.reads {
		if !rd[v] && !wr[v] {
			m.opaque[v] = true
		}
	}
	for v := range m.writes {
		if !wr[v] {
			m.opaque[v] = true
		}
	}
	return m
}

// assignedLocals lists the locals an atomic block's statements assign.
func assignedLocals(p *analysis.Program, b *grammar.Block) map[*analysis.Object]bool {
	out := map[*analysis.Object]bool{}
	grammar.Inspect(b, func(n grammar.Node) bool {
		var lhs grammar.Expr
		switch n := n.(type) {
		case *grammar.AssignStmt:
			lhs = n.LHS
		case *grammar.IncDecStmt:
			lhs = n.X
		case *grammar.DeclStmt:
			if n.Decl != nil && n.Decl.Name != nil {
				if obj := p.Uses[n.Decl.Name]; obj != nil {
					out[obj] = true
				}
			}
		case *grammar.ForStmt:
			if obj := p.Uses[n.Var]; obj != nil {
				out[obj] = true
			}
		}
		for lhs != nil {
			switch x := lhs.(type) {
			case *grammar.Ident:
				if obj := p.Uses[x]; obj != nil && obj.Kind != analysis.SharedVar {
					out[obj] = true
				}
				lhs = nil
			case *grammar.IndexExpr:
				lhs = x.X
			case *grammar.ParenExpr:
				lhs = x.X
			default:
				lhs = nil
			}
		}
		return true
	})
	return out
}

type walker struct {
	c conv
	m *model
	// block holds, inside an atomic block of several statements, the
	// locals it assigns (an index that reads one is not the index at the
	// start of the block); nil elsewhere.
	block map[*analysis.Object]bool
}

// simple reports whether s is an assignment or ++/-- with no call,
// spawn, choose or trylock.
func (w *walker) simple(s grammar.Stmt) bool {
	switch s := s.(type) {
	case *grammar.AssignStmt:
		_, o1 := readsShared(w.c.p, s.LHS)
		_, o2 := readsShared(w.c.p, s.RHS)
		return !o1 && !o2
	case *grammar.IncDecStmt:
		_, o := readsShared(w.c.p, s.X)
		return !o
	}
	return false
}

// stmt records the accesses of s (its header only for an if, a while or
// a for, unless nested is set: then the whole statement, as inside an
// atomic block, values unknown).
func (w *walker) stmt(s grammar.Stmt, nested bool) {
	switch s := s.(type) {
	case nil:
	case *grammar.AssignStmt:
		w.assign(s.LHS, s.Op, s.RHS, nested)
	case *grammar.IncDecStmt:
		op := grammar.ADD_ASSIGN
		if s.Op == grammar.DEC {
			op = grammar.SUB_ASSIGN
		}
		w.assign(s.X, op, &grammar.IntLit{ValuePos: s.OpPos, Raw: "1", EndPos: s.OpPos}, nested)
	case *grammar.DeclStmt:
		if s.Decl != nil {
			w.reads(s.Decl.Init, nil)
		}
	case *grammar.IfStmt:
		w.condReads(s.Cond, nested)
		if nested {
			w.stmt(s.Then, true)
			w.stmt(s.Else, true)
		}
	case *grammar.WhileStmt:
		w.condReads(s.Cond, nested)
		if nested {
			w.stmt(s.Body, true)
		}
	case *grammar.AwaitStmt:
		w.condReads(s.Cond, nested)
	case *grammar.AssertStmt:
		w.condReads(s.Cond, nested)
	case *grammar.AssumeStmt:
		w.condReads(s.Cond, nested)
	case *grammar.ForStmt:
		w.reads(s.Lo, nil)
		w.reads(s.Hi, nil)
		if nested {
			w.stmt(s.Body, true)
		}
	case *grammar.Block:
		for _, x := range s.Stmts {
			w.stmt(x, true)
		}
	case *grammar.AtomicStmt:
		if s.Body != nil {
			w.stmt(s.Body, true)
		}
	case *grammar.ReturnStmt:
		w.reads(s.Result, nil)
	case *grammar.ExprStmt:
		w.reads(s.X, nil)
	case *grammar.LockStmt:
		w.sync(s.Mutex)
	case *grammar.JoinStmt:
		w.reads(s.Thread, nil)
	case *grammar.SpawnStmt:
		if s.Call != nil {
			w.reads(s.Call, nil)
		}
	case *grammar.WaitStmt:
		w.sync(s.Cond)
		w.sync(s.Mutex)
	case *grammar.SignalStmt:
		w.sync(s.Cond)
	}
}

func (w *walker) condReads(cond grammar.Expr, nested bool) {
	var c *icond.Expr
	if !nested {
		c = w.c.expr(cond)
	}
	w.reads(cond, c)
}

// assign records `lhs op rhs`.
func (w *walker) assign(lhs grammar.Expr, op grammar.Kind, rhs grammar.Expr, nested bool) {
	w.reads(rhs, nil)
	root, elem := w.placeOf(lhs)
	if root == nil {
		// A local: only its indexes read shared memory.
		w.indexReads(lhs)
		return
	}
	w.indexReads(lhs)
	a := w.access(root, elem, lhs)
	a.write = true
	if !nested {
		if op == grammar.ASSIGN {
			if _, isSpawn := rhs.(*grammar.SpawnExpr); !isSpawn {
				a.value = w.c.expr(rhs)
			}
		} else if bop, ok := compoundOps[op]; ok && a.place != nil {
			if r := w.c.expr(rhs); r != nil {
				a.value = icond.Bin(bop, a.place, r)
			}
		}
	}
	if op != grammar.ASSIGN {
		rd := a
		rd.write, rd.value = false, nil
		w.m.accs = append(w.m.accs, rd)
	}
	w.m.accs = append(w.m.accs, a)
}

// placeOf returns the shared variable an assigned place belongs to (nil
// for a local), and whether it is an element.
func (w *walker) placeOf(e grammar.Expr) (*analysis.Object, bool) {
	elem := false
	for {
		switch x := e.(type) {
		case *grammar.ParenExpr:
			e = x.X
		case *grammar.IndexExpr:
			e, elem = x.X, true
		case *grammar.Ident:
			if obj := w.c.p.Uses[x]; obj != nil && obj.Kind == analysis.SharedVar {
				return obj, elem
			}
			return nil, false
		default:
			return nil, false
		}
	}
}

// access makes the acc of a shared place e (of variable root).
func (w *walker) access(root *analysis.Object, elem bool, e grammar.Expr) acc {
	a := acc{obj: root, place: w.c.place(e)}
	if a.place != nil && elem {
		a.idx = a.place.Index
		a.idxOK = w.indexOK(e)
	}
	return a
}

// indexOK says whether the index of element e has, when the rules use
// it, the value the access uses: always in a statement of its own; in an
// atomic block of several statements, when it reads no shared variable
// and no local the block assigns.
func (w *walker) indexOK(e grammar.Expr) bool {
	if w.block == nil {
		return true
	}
	ix, ok := unparen(e).(*grammar.IndexExpr)
	if !ok {
		return false
	}
	okay := true
	grammar.Inspect(ix.Index, func(n grammar.Node) bool {
		if id, ok := n.(*grammar.Ident); ok {
			if obj := w.c.p.Uses[id]; obj != nil && (obj.Kind == analysis.SharedVar || w.block[obj]) {
				okay = false
			}
		}
		return okay
	})
	return okay
}

// sync records a lock, an unlock, a trylock, a wait, a signal or a
// broadcast of the mutex or condition variable e: a write of an unknown
// value (only the index rule applies to it).
func (w *walker) sync(e grammar.Expr) {
	w.indexReads(e)
	if root, elem := w.placeOf(e); root != nil {
		a := w.access(root, elem, e)
		a.write = true
		w.m.accs = append(w.m.accs, a)
	}
}

// indexReads records the shared reads in the indexes of a place.
func (w *walker) indexReads(e grammar.Expr) {
	for {
		switch x := e.(type) {
		case *grammar.ParenExpr:
			e = x.X
		case *grammar.IndexExpr:
			w.reads(x.Index, nil)
			e = x.X
		default:
			return
		}
	}
}

// reads records every shared read of e; cond is the branch condition e
// is (nil: not one).
func (w *walker) reads(e grammar.Expr, cond *icond.Expr) {
	switch x := e.(type) {
	case nil:
	case *grammar.Ident:
		if obj := w.c.p.Uses[x]; obj != nil && obj.Kind == analysis.SharedVar {
			a := w.access(obj, false, x)
			a.cond = cond
			w.m.accs = append(w.m.accs, a)
		}
	case *grammar.IndexExpr:
		if root, elem := w.placeOf(x); root != nil {
			a := w.access(root, elem, x)
			a.cond = cond
			w.m.accs = append(w.m.accs, a)
			w.indexReads(x)
			return
		}
		w.indexReads(x)
	case *grammar.ParenExpr:
		w.reads(x.X, cond)
	case *grammar.UnaryExpr:
		w.reads(x.X, cond)
	case *grammar.BinaryExpr:
		w.reads(x.X, cond)
		w.reads(x.Y, cond)
	case *grammar.CallExpr:
		for _, a := range x.Args {
			w.reads(a, nil)
		}
	case *grammar.SpawnExpr:
		for _, a := range x.Args {
			w.reads(a, nil)
		}
	case *grammar.TrylockExpr:
		w.sync(x.Mutex)
	case *grammar.ChooseExpr:
		w.reads(x.Lo, nil)
		w.reads(x.Hi, nil)
	case *grammar.InitList:
		for _, el := range x.Elems {
			w.reads(el, nil)
		}
	}
}

// The rule names (icond.Condition.Origin); a condition that several
// rules make joins their names with "+", in this order.
const (
	RuleDisjoint    = "disjoint"
	RuleIndex       = "index"
	RuleReadWrite   = "read-write"
	RuleWriteWrite  = "write-write"
	RuleBranchWrite = "branch-write"
)

var ruleOrder = []string{RuleDisjoint, RuleIndex, RuleReadWrite, RuleWriteWrite, RuleBranchWrite}

// pairCond is the condition under which m0's statement (side 0) and
// m1's (side 1) commute, by the peephole rules, or nil when none is
// known (they are dependent). stepLevel asks for a condition on the two
// engine steps rather than on the statements as transitions: the
// branch-write rule is then not used (a read step keeps the value it
// read in its frame, so only a read of an unchanged word commutes).
//
// Why the conjunction is sufficient: a statement (a transition) writes
// at most one shared word. For each conflicting pair of accesses, the
// condition says the words differ (index), or the write stores the
// value the word already holds (read-write), or both writes store the
// same value (write-write), or the branch takes the same way either
// side of the write (branch-write). Each read of a word the other writes
// is thus either of another word or of an unchanged one, so every
// expression evaluates alike in both orders, and both orders store the
// same values in the same words.
func pairCond(m0, m1 *model, stepLevel bool) (*icond.Expr, string) {
	if m0.opaqueAll || m1.opaqueAll {
		return nil, ""
	}
	var vars []*analysis.Object
	seen := map[*analysis.Object]bool{}
	add := func(v *analysis.Object) {
		if !seen[v] {
			seen[v] = true
			vars = append(vars, v)
		}
	}
	for v := range m0.writes {
		if m1.reads[v] || m1.writes[v] {
			add(v)
		}
	}
	for v := range m0.reads {
		if m1.writes[v] {
			add(v)
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Offset < vars[j].Offset })
	var conj []*icond.Expr
	used, all := map[string]bool{}, map[string]bool{}
	for _, v := range vars {
		if m0.opaque[v] || m1.opaque[v] {
			return nil, ""
		}
		for _, u := range m0.accs {
			if u.obj != v {
				continue
			}
			for _, x := range m1.accs {
				if x.obj != v || !u.write && !x.write {
					continue
				}
				c, rules := conflictCond(u, x, stepLevel)
				if c.IsFalse() {
					return nil, ""
				}
				for _, r := range rules {
					all[r] = true
				}
				if !c.IsTrue() {
					conj = append(conj, c)
					for _, r := range rules {
						used[r] = true
					}
				}
			}
		}
	}
	e := propagate(icond.Simplify(icond.AndOf(conj...)))
	if e.IsFalse() {
		return nil, ""
	}
	if e.IsTrue() {
		used = all
	}
	if len(used) == 0 {
		used[RuleDisjoint] = true
	}
	var names []string
	for _, r := range ruleOrder {
		if used[r] {
			names = append(names, r)
		}
	}
	return e, strings.Join(names, "+")
}

// conflictCond is the condition of one conflicting pair of accesses (u
// of side 0, x of side 1), simplified, and the rules it used.
func conflictCond(u, x acc, stepLevel bool) (*icond.Expr, []string) {
	var idx *icond.Expr
	if u.idx != nil && x.idx != nil && u.idxOK && x.idxOK {
		idx = icond.Simplify(icond.Bin(icond.Ne, u.idx, x.idx))
		if idx.IsTrue() {
			return idx, []string{RuleDisjoint}
		}
	}
	var val *icond.Expr
	rule := ""
	if u.place != nil && x.place != nil {
		switch {
		case u.write && x.write:
			if u.value != nil && x.value != nil {
				val, rule = icond.Bin(icond.Eq, u.value, x.value), RuleWriteWrite
			}
		case x.write:
			val, rule = readWrite(u, x, stepLevel)
		default:
			val, rule = readWrite(x, u, stepLevel)
		}
	}
	if val != nil {
		val = icond.Simplify(val)
		if val.IsFalse() || neverEqual(val) {
			val = nil
		}
	}
	switch {
	case idx != nil && !idx.IsFalse() && val != nil:
		return icond.Simplify(icond.Bin(icond.Or, idx, val)), []string{RuleIndex, rule}
	case idx != nil && !idx.IsFalse():
		return idx, []string{RuleIndex}
	case val != nil:
		return val, []string{rule}
	}
	return icond.False(), nil
}

// readWrite is the condition for read r of a word that write w may
// store to: the branch-write rule for a read in a branch condition that
// reads the variable at that one place, else the read-write rule.
func readWrite(r, w acc, stepLevel bool) (*icond.Expr, string) {
	if w.value == nil {
		return nil, ""
	}
	if r.cond != nil && !stepLevel && len(places(r.cond, r.obj)) == 1 {
		return icond.Bin(icond.Eq, r.cond, substitute(r.cond, r.place, w.value)), RuleBranchWrite
	}
	return icond.Bin(icond.Eq, r.place, w.value), RuleReadWrite
}

// neverEqual recognises t == t + c and t == t - c with a constant c != 0
// (a compound assignment against a read of its word), which never hold.
func neverEqual(e *icond.Expr) bool {
	if e.Op != icond.Eq || len(e.Args) != 2 {
		return false
	}
	off := func(a, b *icond.Expr) bool {
		if (b.Op != icond.Add && b.Op != icond.Sub) || len(b.Args) != 2 {
			return false
		}
		c := b.Args[1]
		return icond.Equal(a, b.Args[0]) && c.Op == icond.Const && !c.Bool && c.Value != 0
	}
	return off(e.Args[0], e.Args[1]) || off(e.Args[1], e.Args[0])
}

// propagate uses each conjunct `v == c` (a variable and a constant) of a
// conjunction to replace v by c in the other conjuncts, and simplifies:
// `x == 3 && x + 1 == 3` is false.
func propagate(e *icond.Expr) *icond.Expr {
	var conj []*icond.Expr
	var walk func(e *icond.Expr)
	walk = func(e *icond.Expr) {
		if e.Op == icond.And && len(e.Args) == 2 {
			walk(e.Args[0])
			walk(e.Args[1])
			return
		}
		conj = append(conj, e)
	}
	walk(e)
	if len(conj) < 2 {
		return e
	}
	for i, c := range conj {
		if c.Op != icond.Eq || len(c.Args) != 2 {
			continue
		}
		v, k := c.Args[0], c.Args[1]
		if v.Op == icond.Const {
			v, k = k, v
		}
		if v.Op != icond.Var || k.Op != icond.Const {
			continue
		}
		for j := range conj {
			if j != i {
				conj[j] = icond.Simplify(substitute(conj[j], v, k))
			}
		}
	}
	return icond.Simplify(icond.AndOf(conj...))
}
