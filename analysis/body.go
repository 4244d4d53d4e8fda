package analysis

import (
	"weft/grammar"
	"weft/source"
)

// bodies checks the body of every thread, proc and function.
func (c *checker) bodies(decls []grammar.Decl) {
	p := c.p
	nthreads, nprocs, nfuncs := 0, 0, 0
	c.funcFacts = make(map[*Object]*funcFacts, len(p.Funcs))
	for _, d := range decls {
		switch d := d.(type) {
		case *grammar.ThreadDecl:
			obj := p.ThreadObjects[nthreads]
			nthreads++
			c.body(obj, d.Body, func() {
				if obj.Index != nil {
					c.declare(d.Index, obj.Index)
				}
			})
		case *grammar.ProcDecl:
			obj := p.Procs[nprocs]
			nprocs++
			c.body(obj, d.Body, func() {
				for _, par := range obj.Params {
					c.declare(par.Ident, par)
				}
				c.nextSlot = len(obj.Params)
				c.maxSlot = c.nextSlot
			})
		case *grammar.FuncDecl:
			obj := p.Funcs[nfuncs]
			nfuncs++
			c.facts = &funcFacts{}
			c.funcFacts[obj] = c.facts
			c.body(obj, d.Body, func() {
				for _, par := range obj.Params {
					c.declare(par.Ident, par)
				}
				c.nextSlot = len(obj.Params)
				c.maxSlot = c.nextSlot
			})
			c.missingReturn(obj, d.Body)
			c.facts = nil
		}
	}
}

// body checks the body of a thread, proc or function; declareHeader
// declares the thread index or the parameters in the body's outermost
// scope.
func (c *checker) body(owner *Object, b *grammar.Block, declareHeader func()) {
	c.inBody = true
	c.owner = owner
	c.nextSlot, c.maxSlot = 0, 0
	c.loops, c.atomics, c.whileCond, c.awaitCond = 0, 0, 0, 0
	c.locals = c.locals[:0]
	m := c.openScope()
	declareHeader()
	if b != nil {
		c.stmts(b.Stmts)
	}
	c.closeScope(m)
	owner.FrameSize = c.maxSlot
	for _, l := range c.locals {
		if !l.used && l.Ident != nil && l.Name != "" {
			c.warnf(l.Ident, CodeUnusedVariable, "%s is declared but never read", l.Name)
		}
	}
	c.inBody = false
	c.owner = nil
}

// alloc gives obj words consecutive slots of the current frame.
func (c *checker) alloc(obj *Object, words int64, at grammar.Node) {
	if words < 1 {
		words = 1
	}
	if int64(c.nextSlot)+words > MaxWords {
		c.errorf(at, CodeArrayTooLarge, "the local variables of %s need more than %d words", c.owner.Name, MaxWords)
		return
	}
	obj.Slot = c.nextSlot
	c.nextSlot += int(words)
	if c.nextSlot > c.maxSlot {
		c.maxSlot = c.nextSlot
	}
}

func (c *checker) block(b *grammar.Block) {
	if b == nil {
		return
	}
	m := c.openScope()
	c.stmts(b.Stmts)
	c.closeScope(m)
}

func (c *checker) stmts(list []grammar.Stmt) {
	dead, reported := false, false
	for _, s := range list {
		if s == nil {
			continue
		}
		if _, bad := s.(*grammar.BadStmt); bad {
			continue
		}
		if dead && !reported {
			c.warnf(s, CodeUnreachableCode, "unreachable code")
			reported = true
		}
		c.stmt(s)
		switch s.(type) {
		case *grammar.ReturnStmt, *grammar.BranchStmt:
			dead = true
		}
	}
}

func (c *checker) stmt(s grammar.Stmt) {
	switch s := s.(type) {
	case *grammar.Block:
		c.block(s)
	case *grammar.DeclStmt:
		if s.Decl != nil {
			c.localVar(s.Decl)
		}
	case *grammar.AssignStmt:
		c.assign(s)
	case *grammar.IncDecStmt:
		t := c.assignTarget(s.X)
		if t != nil && t != Int {
			c.errorf(s, CodeTypeMismatch, "%s needs an int variable, not %s", s.Op, t)
		}
		c.noteWrite(s, s.X)
	case *grammar.LockStmt:
		word := "lock"
		if s.Unlock {
			word = "unlock"
		}
		c.forbidInAtomic(s, word)
		c.noteStep(s, word, notInAtomic, notARead)
		c.mutexOperand(s.Mutex, word)
	case *grammar.SpawnStmt:
		c.spawnCall(s.Call)
	case *grammar.JoinStmt:
		c.forbidInAtomic(s, "join")
		c.noteStep(s, "join", notInAtomic, notARead)
		t, _ := c.valueExpr(s.Thread)
		if t != nil && t != Tid {
			c.errorf(s.Thread, CodeNotATid, "join needs a thread (tid); %s has type %s", ExprString(s.Thread), t)
		}
	case *grammar.ReturnStmt:
		c.returnStmt(s)
	case *grammar.WaitStmt:
		c.forbidInAtomic(s, "wait")
		c.noteStep(s, "wait", notInAtomic, notARead)
		c.condOperand(s.Cond, "wait")
		c.mutexOperand(s.Mutex, "wait")
	case *grammar.SignalStmt:
		word := "signal"
		if s.Broadcast {
			word = "broadcast"
		}
		c.forbidInAtomic(s, word)
		c.noteStep(s, word, notInAtomic, notARead)
		c.condOperand(s.Cond, word)
	case *grammar.AwaitStmt:
		c.forbidInAtomic(span{s.Await, advance(s.Await, len("await"))}, "await")
		c.noteStep(s, "await", notInAtomic, notARead)
		c.awaitCond++
		c.cond(s.Cond, "await")
		c.awaitCond--
	case *grammar.AssertStmt:
		c.cond(s.Cond, "assert")
	case *grammar.AssumeStmt:
		c.cond(s.Cond, "assume")
	case *grammar.IfStmt:
		// An else-if chain has no length limit: follow it in a loop.
		for {
			c.cond(s.Cond, "if")
			c.block(s.Then)
			next, ok := s.Else.(*grammar.IfStmt)
			if !ok {
				break
			}
			s = next
		}
		if s.Else != nil {
			c.stmt(s.Else)
		}
	case *grammar.WhileStmt:
		c.whileCond++
		c.cond(s.Cond, "while")
		c.whileCond--
		c.loops++
		c.block(s.Body)
		c.loops--
	case *grammar.ForStmt:
		c.forStmt(s)
	case *grammar.BranchStmt:
		if c.loops == 0 {
			if s.Tok == grammar.CONTINUE {
				c.errorf(s, CodeContinueOutside, "continue is not inside a loop")
			} else {
				c.errorf(s, CodeBreakOutsideLoop, "break is not inside a loop")
			}
		}
	case *grammar.AtomicStmt:
		c.forbidInAtomic(span{s.Atomic, advance(s.Atomic, len("atomic"))}, "atomic")
		c.noteStep(s, "an atomic block", notInAtomic, notARead)
		c.atomics++
		c.block(s.Body)
		c.atomics--
	case *grammar.ExprStmt:
		switch x := s.X.(type) {
		case nil, *grammar.BadExpr:
			return
		case *grammar.SpawnExpr:
			c.spawnCall(x)
			return
		case *grammar.CallExpr:
			c.call(x, false)
			return
		}
		c.expr(s.X)
		c.errorf(s, CodeNotAStatement, "%s is not a statement (only a spawn or a function call can stand alone)", ExprString(s.X))
	}
}

// mutexOperand checks the mutex of lock, unlock, trylock or wait.
func (c *checker) mutexOperand(e grammar.Expr, word string) {
	t, _ := c.expr(e)
	if t != nil && t != Mutex {
		c.errorf(e, CodeNotAMutex, "%s needs a mutex; %s has type %s", word, ExprString(e), t)
	}
}

// condOperand checks the condition variable of wait, signal or broadcast.
func (c *checker) condOperand(e grammar.Expr, word string) {
	t, _ := c.expr(e)
	if t != nil && t != Cond {
		c.errorf(e, CodeNotACond, "%s needs a condition variable (cond); %s has type %s", word, ExprString(e), t)
	}
}

// noteWrite records, for the checks of calls, a write to target when it
// is shared memory.
func (c *checker) noteWrite(s grammar.Node, target grammar.Expr) {
	if c.facts == nil {
		return
	}
	if root := c.p.RootOf(target); root != nil && root.Kind == SharedVar {
		c.noteStep(s, "a write to "+root.Name, notARead)
	}
}

func (c *checker) forbidInAtomic(s grammar.Node, what string) {
	if c.atomics > 0 {
		if what == "atomic" {
			c.errorf(s, CodeAtomicForbidden, "atomic blocks cannot be nested")
			return
		}
		c.errorf(s, CodeAtomicForbidden, "%s is not allowed inside atomic", what)
	}
}

// cond checks a condition, which must be bool.
func (c *checker) cond(e grammar.Expr, what string) {
	t, _ := c.valueExpr(e)
	if t != nil && t != Bool {
		c.errorf(e, CodeTypeMismatch, "the condition of %s must be bool, not %s", what, t)
	}
}

func (c *checker) forStmt(s *grammar.ForStmt) {
	for _, e := range [2]grammar.Expr{s.Lo, s.Hi} {
		t, _ := c.valueExpr(e)
		if t != nil && t != Int {
			c.errorf(e, CodeTypeMismatch, "for bounds must be int, not %s", t)
		}
	}
	m := c.openScope()
	obj := &Object{Kind: LoopVar, Name: identName(s.Var), Ident: s.Var, Decl: s, Type: Int,
		Offset: -1, Slot: -1, Owner: c.owner}
	c.alloc(obj, 2, s)
	c.declare(s.Var, obj)
	c.loops++
	if s.Body != nil {
		c.stmts(s.Body.Stmts)
	}
	c.loops--
	c.closeScope(m)
}

func (c *checker) localVar(d *grammar.VarDecl) {
	obj := &Object{Kind: LocalVar, Name: identName(d.Name), Ident: d.Name, Decl: d,
		Offset: -1, Slot: -1, Owner: c.owner}
	t := c.typeExpr(d.Type)
	if d.IsAtomic() {
		c.errorf(d, CodeInvalidLocalType, "local variable %s cannot be atomic; only shared variables can", obj.Name)
	}
	if t != nil && ScalarOf(t) == Mutex {
		c.errorf(d.Type, CodeInvalidLocalType, "local variable %s cannot hold a mutex; declare mutexes at top level", obj.Name)
		t = nil
	}
	if t != nil && ScalarOf(t) == Cond {
		c.errorf(d.Type, CodeInvalidLocalType, "local variable %s cannot hold a condition variable; declare them at top level", obj.Name)
		t = nil
	}
	obj.Type = t
	if d.Init != nil {
		if sp, ok := d.Init.(*grammar.SpawnExpr); ok {
			if t != nil && t != Tid {
				c.errorf(sp, CodeSpawnMisplaced, "spawn gives a tid, but %s has type %s", obj.Name, t)
			}
			c.spawnCall(sp)
		} else {
			c.initializer(obj, t, d.Init, false, nil)
		}
	}
	c.alloc(obj, SizeOf(t), d)
	if c.declare(d.Name, obj) {
		c.locals = append(c.locals, obj)
	}
}

func (c *checker) assign(s *grammar.AssignStmt) {
	lt := c.assignTarget(s.LHS)
	if sp, ok := s.RHS.(*grammar.SpawnExpr); ok {
		if s.Op != grammar.ASSIGN {
			c.errorf(sp, CodeSpawnMisplaced, "spawn cannot be used with %s", s.Op)
		} else if lt != nil && lt != Tid {
			c.errorf(sp, CodeSpawnMisplaced, "spawn gives a tid, but %s has type %s", ExprString(s.LHS), lt)
		}
		c.spawnCall(sp)
		return
	}
	rt, rv := c.valueExpr(s.RHS)
	c.noteWrite(s, s.LHS)
	switch s.Op {
	case grammar.ASSIGN:
		if lt != nil && rt != nil && !Identical(lt, rt) {
			c.errorf(s.RHS, CodeTypeMismatch, "cannot assign a value of type %s to %s of type %s", rt, ExprString(s.LHS), lt)
		}
	default:
		if lt != nil && lt != Int {
			c.errorf(s.LHS, CodeTypeMismatch, "%s needs an int variable, not %s", s.Op, lt)
		} else if rt != nil && rt != Int {
			c.errorf(s.RHS, CodeTypeMismatch, "%s needs an int value, not %s", s.Op, rt)
		} else if rv.IsInt() && rv.Int() == 0 && (s.Op == grammar.QUO_ASSIGN || s.Op == grammar.REM_ASSIGN) {
			msg := "division by zero"
			if s.Op == grammar.REM_ASSIGN {
				msg = "modulo by zero"
			}
			c.report(s.RHS, c.runtimeSeverity(), CodeDivisionByZero, c.faultMessage(msg))
		}
	}
}

// assignTarget checks the left-hand side of an assignment and returns its
// type, nil if it cannot be assigned (reported).
func (c *checker) assignTarget(e grammar.Expr) Type {
	t := c.lvalue(e)
	switch t := t.(type) {
	case *Array:
		c.errorf(e, CodeNotAssignable, "cannot assign to %s as a whole: it is an array of type %s", ExprString(e), t)
		return nil
	case Basic:
		if t == Mutex {
			c.errorf(e, CodeNotAssignable, "cannot assign to mutex %s; use lock and unlock", ExprString(e))
			return nil
		}
		if t == Cond {
			c.errorf(e, CodeNotAssignable, "cannot assign to condition variable %s; use wait, signal and broadcast", ExprString(e))
			return nil
		}
	}
	return t
}

// lvalue checks a variable or array element that is written. Writing is
// not reading: the root variable is not marked as used.
func (c *checker) lvalue(e grammar.Expr) Type {
	switch e := e.(type) {
	case *grammar.Ident:
		obj := c.resolve(e)
		if obj == nil {
			return nil
		}
		switch obj.Kind {
		case SharedVar, LocalVar, Param:
			c.record(e, obj.Type, Value{})
			return obj.Type
		}
		c.errorf(e, CodeNotAssignable, "cannot assign to %s %s", obj.Kind, obj.Name)
		return nil
	case *grammar.IndexExpr:
		return c.indexExpr(e, true)
	case *grammar.ParenExpr:
		t := c.lvalue(e.X)
		c.record(e, t, Value{})
		return t
	case nil, *grammar.BadExpr:
		return nil
	}
	c.expr(e)
	c.errorf(e, CodeNotAssignable, "cannot assign to %s", ExprString(e))
	return nil
}

// spawnCall checks `spawn P(args)`: P a proc, the arguments' number and
// types.
func (c *checker) spawnCall(s *grammar.SpawnExpr) {
	if s == nil {
		return
	}
	c.forbidInAtomic(s, "spawn")
	c.noteStep(s, "spawn", notInAtomic, notARead)
	var proc *Object
	if id := s.Proc; id != nil && id.Name != "" {
		if b, ok := c.names[id.Name]; !ok {
			c.errorf(id, CodeUndefinedProc, "undefined proc %s", id.Name)
		} else {
			c.p.Uses[id] = b.obj
			if b.obj.Kind != Proc {
				c.errorf(id, CodeUndefinedProc, "%s is a %s, not a proc", id.Name, b.obj.Kind)
			} else {
				proc = b.obj
			}
		}
	}
	for i, a := range s.Args {
		at, _ := c.valueExpr(a)
		if proc == nil || i >= len(proc.Params) || at == nil {
			continue
		}
		if pt := proc.Params[i].Type; pt != nil && !Identical(pt, at) {
			c.errorf(a, CodeTypeMismatch, "argument %d of %s must be %s, not %s", i+1, proc.Name, pt, at)
		}
	}
	if proc != nil && len(s.Args) != len(proc.Params) {
		c.errorf(s, CodeSpawnArity, "%s takes %d %s, got %d", proc.Name, len(proc.Params),
			plural(len(proc.Params), "argument", "arguments"), len(s.Args))
	}
	c.record(s, Tid, Value{})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// span is a range of source text to report on, such as a keyword.
type span struct{ from, to source.Pos }

func (s span) Pos() source.Pos { return s.from }
func (s span) End() source.Pos { return s.to }

// advance moves an ASCII-only position n bytes to the right.
func advance(p source.Pos, n int) source.Pos {
	return source.Pos{Offset: p.Offset + n, Line: p.Line, Col: p.Col + n}
}
