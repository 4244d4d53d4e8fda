package access

import (
	"strconv"
	"strings"

	"weft/analysis"
	"weft/engine/ir"
	"weft/grammar"
	"weft/source"
)

// vis is one visible instruction of a body (or a shared access inside an
// atomic block), with what the syntax says of it when the code could be
// matched to the syntax.
type vis struct {
	pc    int32
	kind  StepKind
	inner bool // a read or write inside an atomic block: part of the block's step

	// From the syntax (zero when not matched):
	syntax bool         // the code of its region (the body's own, or a function's) matched the syntax
	rng    source.Range // the step's own range (the expression read or written…)
	expr   grammar.Expr // the place read, written or locked; the mutex of a wait or wake
	cond   grammar.Expr // the condition variable of a wait, wake, signal or broadcast
	stmt   grammar.Node // the statement the lowering took the instruction from
	srng   source.Range // that statement's range as the lowering gives it (a header for loops and ifs)
}

// visibles lists the visible instructions of code in code order, with
// the reads and writes inside each atomic block right after it, and the
// calls outside atomic blocks (not visible themselves: they stand for
// the steps of the function).
func visibles(code []ir.Instr) []vis {
	var out []vis
	for pc := 0; pc < len(code); pc++ {
		if k, ok := v2Kind(code[pc].Op); ok {
			out = append(out, vis{pc: int32(pc), kind: k})
			continue
		}
		switch code[pc].Op {
		case ir.OpLoad:
			out = append(out, vis{pc: int32(pc), kind: Read})
		case ir.OpStore:
			out = append(out, vis{pc: int32(pc), kind: Write})
		case ir.OpLock:
			out = append(out, vis{pc: int32(pc), kind: Lock})
		case ir.OpUnlock:
			out = append(out, vis{pc: int32(pc), kind: Unlock})
		case ir.OpSpawn:
			out = append(out, vis{pc: int32(pc), kind: Spawn})
		case ir.OpJoin:
			out = append(out, vis{pc: int32(pc), kind: Join})
		case ir.OpAtomic:
			out = append(out, vis{pc: int32(pc), kind: Atomic})
			end := atomicEnd(code, pc)
			for k := pc + 1; k < end; k++ {
				switch code[k].Op {
				case ir.OpLoad:
					out = append(out, vis{pc: int32(k), kind: Read, inner: true})
				case ir.OpStore:
					out = append(out, vis{pc: int32(k), kind: Write, inner: true})
				}
			}
			pc = end
		}
	}
	return out
}

// v2Kind is the step kind of an operation of language version 2.
func v2Kind(op ir.Op) (StepKind, bool) {
	switch op {
	case ir.OpChoose:
		return Choose, true
	case ir.OpTrylock:
		return Trylock, true
	case ir.OpWait:
		return Wait, true
	case ir.OpWake:
		return Wake, true
	case ir.OpSignal:
		return Signal, true
	case ir.OpBroadcast:
		return Broadcast, true
	case ir.OpCall:
		return Call, true
	}
	return 0, false
}

// atomicEnd returns the pc of the OpAtomicEnd that closes the atomic
// block opening at pc: the one that continues at the next instruction
// (a break or continue inside the block leaves it for a target further
// away). len(code) if there is none.
func atomicEnd(code []ir.Instr, pc int) int {
	for k := pc + 1; k < len(code); k++ {
		if code[k].Op == ir.OpAtomicEnd && int(code[k].A) == k+1 {
			return k
		}
	}
	return len(code)
}

// walker lists the visible steps of a body from its syntax, in the order
// lowering evaluates them (analysis/lower: stmt, expr, lvalue, offset).
type walker struct {
	p        *analysis.Program
	out      []vis
	stmt     grammar.Node
	srng     source.Range
	inAtomic bool
}

func (w *walker) emit(kind StepKind, rng source.Range, expr grammar.Expr) {
	w.out = append(w.out, vis{kind: kind, inner: w.inAtomic && kind != Atomic, rng: rng, expr: expr, stmt: w.stmt, srng: w.srng})
}

func (w *walker) emitCond(kind StepKind, rng source.Range, mutex, cond grammar.Expr) {
	w.emit(kind, rng, mutex)
	w.out[len(w.out)-1].cond = cond
}

func (w *walker) stmts(list []grammar.Stmt) {
	for _, s := range list {
		w.statement(s)
	}
}

func (w *walker) statement(s grammar.Stmt) {
	if is, ok := s.(*grammar.IfStmt); ok {
		w.ifStmt(is)
		return
	}
	w.stmt, w.srng = s, grammar.Range(s)
	switch s := s.(type) {
	case *grammar.Block:
		w.stmts(s.Stmts)
	case *grammar.DeclStmt:
		if s.Decl == nil {
			return
		}
		switch init := s.Decl.Init.(type) {
		case nil:
		case *grammar.SpawnExpr:
			w.spawn(init)
		case *grammar.InitList:
			w.initList(init)
		default:
			w.expr(init)
		}
	case *grammar.AssignStmt:
		shared := w.isShared(s.LHS)
		w.place(s.LHS)
		if sp, ok := s.RHS.(*grammar.SpawnExpr); ok {
			w.spawn(sp)
		} else if s.Op == grammar.ASSIGN {
			w.expr(s.RHS)
		} else {
			if shared {
				w.emit(Read, grammar.Range(s.LHS), s.LHS)
			}
			w.expr(s.RHS)
		}
		if shared {
			w.emit(Write, grammar.Range(s.LHS), s.LHS)
		}
	case *grammar.IncDecStmt:
		w.place(s.X)
		if w.isShared(s.X) {
			w.emit(Read, grammar.Range(s.X), s.X)
			w.emit(Write, grammar.Range(s.X), s.X)
		}
	case *grammar.LockStmt:
		w.place(s.Mutex)
		kind := Lock
		if s.Unlock {
			kind = Unlock
		}
		w.emit(kind, grammar.Range(s), s.Mutex)
	case *grammar.SpawnStmt:
		if s.Call != nil {
			w.spawn(s.Call)
		}
	case *grammar.JoinStmt:
		w.expr(s.Thread)
		w.emit(Join, grammar.Range(s), nil)
	case *grammar.AssertStmt:
		w.expr(s.Cond)
	case *grammar.AssumeStmt:
		w.expr(s.Cond)
	case *grammar.WhileStmt:
		w.srng = source.Range{Start: s.While, End: s.Cond.End()}
		w.expr(s.Cond)
		w.stmts(s.Body.Stmts)
	case *grammar.ForStmt:
		w.srng = source.Range{Start: s.For, End: s.Hi.End()}
		w.expr(s.Lo)
		w.expr(s.Hi)
		w.stmts(s.Body.Stmts)
	case *grammar.AtomicStmt:
		w.emit(Atomic, grammar.Range(s), nil)
		w.inAtomic = true
		w.stmts(s.Body.Stmts)
		w.inAtomic = false
	case *grammar.ReturnStmt:
		w.expr(s.Result)
	case *grammar.ExprStmt:
		w.expr(s.X)
	case *grammar.AwaitStmt:
		w.expr(s.Cond)
	case *grammar.WaitStmt:
		// lower: the condition variable's place, then the mutex's.
		w.place(s.Cond)
		w.place(s.Mutex)
		w.emitCond(Wait, grammar.Range(s), s.Mutex, s.Cond)
		w.emitCond(Wake, grammar.Range(s), s.Mutex, s.Cond)
	case *grammar.SignalStmt:
		w.place(s.Cond)
		kind := Signal
		if s.Broadcast {
			kind = Broadcast
		}
		w.emitCond(kind, grammar.Range(s), nil, s.Cond)
	}
}

// ifStmt walks an else-if chain in a loop, as lowering does.
func (w *walker) ifStmt(s *grammar.IfStmt) {
	for {
		w.stmt, w.srng = s, source.Range{Start: s.If, End: s.Cond.End()}
		w.expr(s.Cond)
		w.stmts(s.Then.Stmts)
		if s.Else == nil {
			return
		}
		next, ok := s.Else.(*grammar.IfStmt)
		if !ok {
			w.statement(s.Else)
			return
		}
		s = next
	}
}

func (w *walker) initList(list *grammar.InitList) {
	for _, e := range list.Elems {
		if sub, ok := e.(*grammar.InitList); ok {
			w.initList(sub)
			continue
		}
		w.expr(e)
	}
}

func (w *walker) spawn(sp *grammar.SpawnExpr) {
	for _, a := range sp.Args {
		w.expr(a)
	}
	w.emit(Spawn, grammar.Range(sp), nil)
}

func (w *walker) expr(e grammar.Expr) {
	if e == nil {
		return
	}
	if v, ok := w.p.ConstValues[e]; ok && v.IsValid() {
		return
	}
	switch x := e.(type) {
	case *grammar.ParenExpr:
		w.expr(x.X)
	case *grammar.Ident:
		if obj := w.p.Uses[x]; obj != nil && obj.Kind == analysis.SharedVar {
			w.emit(Read, grammar.Range(x), x)
		}
	case *grammar.IndexExpr:
		root := w.p.RootOf(x)
		if root != nil && root.Kind == analysis.Thread {
			w.expr(x.Index)
			return
		}
		w.place(x)
		if root != nil && root.Kind == analysis.SharedVar {
			w.emit(Read, grammar.Range(x), x)
		}
	case *grammar.UnaryExpr:
		w.expr(x.X)
	case *grammar.BinaryExpr:
		w.expr(x.X)
		w.expr(x.Y)
	case *grammar.CallExpr:
		for _, a := range x.Args {
			w.expr(a)
		}
		if !w.inAtomic {
			// Inside an atomic block the call is part of the block's step
			// (its footprint holds what the function accesses).
			w.emit(Call, grammar.Range(x), nil)
		}
	case *grammar.TrylockExpr:
		w.place(x.Mutex)
		w.emit(Trylock, grammar.Range(x), x.Mutex)
	case *grammar.ChooseExpr:
		w.expr(x.Lo)
		w.expr(x.Hi)
		w.emit(Choose, grammar.Range(x), nil)
	}
}

// place walks the indexes of a variable or array element that are not
// constant, outermost first.
func (w *walker) place(e grammar.Expr) {
	idx := indexes(e)
	for _, ix := range idx {
		if v, ok := w.p.ConstValues[ix]; ok && v.IsInt() {
			continue
		}
		w.expr(ix)
	}
}

func (w *walker) isShared(e grammar.Expr) bool {
	root := w.p.RootOf(e)
	return root != nil && root.Kind == analysis.SharedVar
}

// indexes returns the indexes of an element, outermost first.
func indexes(e grammar.Expr) []grammar.Expr {
	var idx []grammar.Expr
	for {
		e = unparen(e)
		ix, ok := e.(*grammar.IndexExpr)
		if !ok {
			break
		}
		idx = append(idx, ix.Index)
		e = ix.X
	}
	for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
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

// match fills in the syntax of each visible instruction of a region of
// code (the body's own code, or a function's) from the walk of its
// syntax. It reports false, leaving list as it is, if the two do not line
// up (which would be a change of the lowering this package has not
// followed): the steps then take their statements' ranges from the code
// and their names from the locations.
func match(code *ir.Body, list []vis, syn []vis) bool {
	if len(list) != len(syn) {
		return false
	}
	for i := range list {
		a, s := &list[i], &syn[i]
		if a.kind != s.kind || a.inner != s.inner || code.Ranges[a.pc] != s.srng {
			return false
		}
	}
	for i := range list {
		pc, kind, inner := list[i].pc, list[i].kind, list[i].inner
		list[i] = syn[i]
		list[i].pc, list[i].kind, list[i].inner, list[i].syntax = pc, kind, inner, true
	}
	return true
}

// placeName names an element as the source does, each index shown as its
// value when constant, as written when it depends only on constants and
// the thread index, and as * otherwise: "a[2]", "x[w]", "g[*][1]".
func placeName(p *analysis.Program, e grammar.Expr) string {
	root := p.RootOf(e)
	if root == nil {
		return "?"
	}
	var b strings.Builder
	b.WriteString(root.Name)
	for _, ix := range indexes(e) {
		b.WriteByte('[')
		if v, ok := p.ConstValues[ix]; ok && v.IsInt() {
			b.WriteString(strconv.FormatInt(v.Int(), 10))
		} else if byIndex(p, ix) {
			b.WriteString(analysis.ExprString(ix))
		} else {
			b.WriteByte('*')
		}
		b.WriteByte(']')
	}
	return b.String()
}

// byIndex reports whether e depends only on constants and a thread index
// (a choose, however constant its bounds, does not).
func byIndex(p *analysis.Program, e grammar.Expr) bool {
	ok := true
	grammar.Inspect(e, func(n grammar.Node) bool {
		switch x := n.(type) {
		case *grammar.Ident:
			obj := p.Uses[x]
			if obj == nil || obj.Kind != analysis.Const && obj.Kind != analysis.ThreadIndex {
				ok = false
			}
		case *grammar.IndexExpr, *grammar.ChooseExpr, *grammar.CallExpr, *grammar.TrylockExpr:
			ok = false
		}
		return ok
	})
	return ok
}
