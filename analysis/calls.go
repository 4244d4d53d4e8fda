package analysis

import (
	"fmt"

	"weft/grammar"
)

// Functions (language version 2): calls, their arguments and results,
// returns, and the rules that depend on what a called function does
// (through every function it may call in turn, recursion included):
//
//   - inside an atomic block, a function may be called only if nothing it
//     may run is forbidden there (lock, unlock, trylock, spawn, join,
//     atomic, choose, wait, signal, broadcast, await);
//   - in the condition of a while loop, a function may be called only if
//     it never chooses (a choose there would choose again at every test);
//   - in an await condition, a function may be called only if its only
//     visible steps are reads of shared memory (an await waits for its
//     condition, which must not change anything).
//
// Each function's body records the first step of each of these classes
// that it makes itself (funcFacts); checkCalls propagates them from
// callees to callers over the call graph, once, and then checks every
// call made in one of the three places.

// stepClass is a class of visible steps that some places forbid.
type stepClass uint8

const (
	notInAtomic stepClass = iota // forbidden inside an atomic block
	choosing                     // a choose
	notARead                     // any visible step but a read of shared memory
	numStepClasses
)

// reason is where a function makes a step of some class: the node and
// what it is ("lock", "a write to x").
type reason struct {
	at   grammar.Node
	what string
}

// funcFacts is what checkCalls needs to know of one function's body.
type funcFacts struct {
	first   [numStepClasses]reason // the first step of each class the body makes itself (at nil: none)
	callees []*Object              // the functions it calls, each once
	called  map[*Object]bool
}

// callSite is a call made in a place that restricts what the callee may
// do.
type callSite struct {
	call      *grammar.CallExpr
	callee    *Object
	atomic    bool // inside an atomic block
	whileCond bool // in a while loop's condition
	awaitCond bool // in an await's condition
}

// noteStep records that the body being checked makes a step of the given
// classes at n.
func (c *checker) noteStep(n grammar.Node, what string, classes ...stepClass) {
	if c.facts == nil {
		return
	}
	for _, k := range classes {
		if c.facts.first[k].at == nil {
			c.facts.first[k] = reason{at: n, what: what}
		}
	}
}

// noteCall records a call of fn made at e.
func (c *checker) noteCall(e *grammar.CallExpr, fn *Object) {
	if c.facts != nil && !c.facts.called[fn] {
		if c.facts.called == nil {
			c.facts.called = make(map[*Object]bool)
		}
		c.facts.called[fn] = true
		c.facts.callees = append(c.facts.callees, fn)
	}
	if c.atomics > 0 || c.whileCond > 0 || c.awaitCond > 0 {
		c.calls = append(c.calls, callSite{call: e, callee: fn,
			atomic: c.atomics > 0, whileCond: c.whileCond > 0, awaitCond: c.awaitCond > 0})
	}
}

// transitive is what a function may do through its calls: for each class,
// nil if it never makes such a step, else the step (reached) and the
// first function called on the way to it (via, nil if the function makes
// it itself).
type transitive struct {
	reached [numStepClasses]*reason
	via     [numStepClasses]*Object
}

// checkCalls propagates the functions' facts over the call graph and
// checks the calls made inside atomic blocks and while and await
// conditions. It is linear in the size of the call graph: for each class,
// a breadth-first walk from the functions that make such a step, along
// the edges from callee to caller.
func (c *checker) checkCalls() {
	if len(c.calls) == 0 {
		return
	}
	callers := make(map[*Object][]*Object)
	for _, fn := range c.p.Funcs {
		if f := c.funcFacts[fn]; f != nil {
			for _, g := range f.callees {
				callers[g] = append(callers[g], fn)
			}
		}
	}
	trans := make(map[*Object]*transitive, len(c.p.Funcs))
	for _, fn := range c.p.Funcs {
		trans[fn] = &transitive{}
	}
	for k := range numStepClasses {
		var queue []*Object
		for _, fn := range c.p.Funcs {
			if f := c.funcFacts[fn]; f != nil && f.first[k].at != nil {
				trans[fn].reached[k] = &f.first[k]
				queue = append(queue, fn)
			}
		}
		for len(queue) > 0 {
			g := queue[0]
			queue = queue[1:]
			for _, f := range callers[g] {
				if t := trans[f]; t.reached[k] == nil {
					t.reached[k] = trans[g].reached[k]
					t.via[k] = g
					queue = append(queue, f)
				}
			}
		}
	}
	for _, cs := range c.calls {
		t := trans[cs.callee]
		if t == nil {
			continue
		}
		name := cs.callee.Name
		switch {
		case cs.atomic && t.reached[notInAtomic] != nil:
			c.errorf(cs.call, CodeAtomicForbidden, "cannot call %s inside atomic: %s, which is not allowed there",
				name, t.explain(cs.callee, notInAtomic))
		case cs.awaitCond && t.reached[notARead] != nil:
			c.errorf(cs.call, CodeAwaitForbidden, "an await condition may only read shared memory, but %s",
				t.explain(cs.callee, notARead))
		case cs.whileCond && t.reached[choosing] != nil:
			c.errorf(cs.call, CodeChooseMisplaced, "a while condition cannot choose (it would choose again at every test), but %s",
				t.explain(cs.callee, choosing))
		}
	}
}

// explain says how fn reaches its step of class k: "f contains lock (at
// 3:5)" or "f calls g, which leads to lock (at 3:5)".
func (t *transitive) explain(fn *Object, k stepClass) string {
	r := t.reached[k]
	where := "-"
	if r.at != nil {
		where = r.at.Pos().String()
	}
	if via := t.via[k]; via != nil {
		return fmt.Sprintf("%s calls %s, which leads to %s (at %s)", fn.Name, via.Name, r.what, where)
	}
	return fmt.Sprintf("%s contains %s (at %s)", fn.Name, r.what, where)
}

// call checks a call of a function: the callee, its arguments and, if the
// call's value is used (value), that the function has a result.
func (c *checker) call(e *grammar.CallExpr, value bool) (Type, Value) {
	var fn *Object
	if id := e.Func; id != nil && id.Name != "" {
		if obj := c.resolve(id); obj != nil {
			switch obj.Kind {
			case Func:
				fn = obj
			case Proc:
				c.errorf(id, CodeNotAFunc, "%s is a proc, not a function; start it as a thread with spawn %s(…)", obj.Name, obj.Name)
			default:
				c.errorf(id, CodeNotAFunc, "%s is a %s, not a function", obj.Name, obj.Kind)
			}
		}
	}
	for i, a := range e.Args {
		at, _ := c.valueExpr(a)
		if fn == nil || i >= len(fn.Params) || at == nil {
			continue
		}
		if pt := fn.Params[i].Type; pt != nil && !Identical(pt, at) {
			c.errorf(a, CodeTypeMismatch, "argument %d of %s must be %s, not %s", i+1, fn.Name, pt, at)
		}
	}
	if fn == nil {
		return nil, badValue
	}
	if len(e.Args) != len(fn.Params) {
		c.errorf(e, CodeCallArity, "%s takes %d %s, got %d", fn.Name, len(fn.Params),
			plural(len(fn.Params), "argument", "arguments"), len(e.Args))
	}
	if c.constCtx > 0 {
		c.errorf(e, CodeNotConstant, "a call of %s is not a constant expression", fn.Name)
		return nil, badValue
	}
	c.noteCall(e, fn)
	if value && !fn.HasResult() {
		c.errorf(e, CodeNoResult, "%s has no result; it can only be called as a statement", fn.Name)
		return nil, badValue
	}
	if fn.Result == nil {
		return nil, badValue
	}
	c.record(e, fn.Result, Value{})
	return fn.Result, Value{}
}

// returnStmt checks `return` and `return E`: in a thread or proc it ends
// the thread and takes no value; in a function it takes a value exactly
// when the function has a result.
func (c *checker) returnStmt(s *grammar.ReturnStmt) {
	c.forbidInAtomic(s, "return")
	owner := c.owner
	if owner == nil || owner.Kind != Func {
		if s.Result != nil {
			c.valueExpr(s.Result)
			what := "thread"
			if owner != nil && owner.Kind == Proc {
				what = "proc"
			}
			c.errorf(s.Result, CodeReturnMismatch, "return takes no value in a %s: it ends the thread", what)
		}
		return
	}
	switch {
	case s.Result == nil && owner.HasResult():
		if owner.Result != nil {
			c.errorf(s, CodeReturnMismatch, "%s must return a value of type %s", owner.Name, owner.Result)
		}
	case s.Result != nil && !owner.HasResult():
		c.valueExpr(s.Result)
		c.errorf(s.Result, CodeReturnMismatch, "%s has no result; its return takes no value", owner.Name)
	case s.Result != nil:
		t, _ := c.valueExpr(s.Result)
		if t != nil && owner.Result != nil && !Identical(t, owner.Result) {
			c.errorf(s.Result, CodeTypeMismatch, "cannot return a value of type %s from %s, whose result is %s", t, owner.Name, owner.Result)
		}
	}
}

// missingReturn reports a function with a result whose body can end
// without a return.
func (c *checker) missingReturn(fn *Object, b *grammar.Block) {
	if fn.Result == nil || b == nil || blockTerminates(c.p, b.Stmts) {
		return // no result, or an invalid one (reported)
	}
	var at grammar.Node = fn.Ident
	if b.Rbrace.IsValid() && b.Rbrace.Offset > b.Lbrace.Offset {
		at = span{b.Rbrace, advance(b.Rbrace, 1)}
	}
	if at == nil {
		return
	}
	c.errorf(at, CodeMissingReturn, "missing return: %s can reach the end of its body, and must return a value of type %s", fn.Name, fn.Result)
}

// blockTerminates reports whether a statement list ends in a terminating
// statement (as Go defines it): a return; a block, or an if with an else,
// all of whose branches terminate; a `while true` loop without a break
// out of it. A list ending in a statement the parser could not read counts
// as terminating, so as not to add an error to the syntax error.
func blockTerminates(p *Program, list []grammar.Stmt) bool {
	for i := len(list) - 1; i >= 0; i-- {
		switch s := list[i].(type) {
		case nil:
			continue
		case *grammar.BadStmt:
			return true
		default:
			return terminates(p, s)
		}
	}
	return false
}

func terminates(p *Program, s grammar.Stmt) bool {
	switch s := s.(type) {
	case *grammar.ReturnStmt:
		return true
	case *grammar.Block:
		return s != nil && blockTerminates(p, s.Stmts)
	case *grammar.IfStmt:
		// An else-if chain has no length limit: follow it in a loop.
		for s != nil {
			if s.Then == nil || !blockTerminates(p, s.Then.Stmts) {
				return false
			}
			switch e := s.Else.(type) {
			case *grammar.IfStmt:
				s = e
			case nil:
				return false
			default:
				return terminates(p, e)
			}
		}
		return false
	case *grammar.WhileStmt:
		v, ok := p.ConstValues[s.Cond]
		return ok && v.IsBool() && v.Bool() && s.Body != nil && !breaks(s.Body.Stmts)
	case *grammar.BadStmt:
		return true
	}
	return false
}

// breaks reports whether a break in list leaves the loop whose body list
// is (a break inside a nested loop leaves that one).
func breaks(list []grammar.Stmt) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *grammar.BranchStmt:
			if s.Tok == grammar.BREAK {
				return true
			}
		case *grammar.Block:
			if s != nil && breaks(s.Stmts) {
				return true
			}
		case *grammar.AtomicStmt:
			if s.Body != nil && breaks(s.Body.Stmts) {
				return true
			}
		case *grammar.IfStmt:
			for s != nil {
				if s.Then != nil && breaks(s.Then.Stmts) {
					return true
				}
				e, ok := s.Else.(*grammar.IfStmt)
				if !ok {
					if b, ok := s.Else.(*grammar.Block); ok && b != nil && breaks(b.Stmts) {
						return true
					}
					break
				}
				s = e
			}
		}
	}
	return false
}
