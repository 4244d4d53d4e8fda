package analysis

import (
	"fmt"
	"sort"
	"strconv"

	"weft/grammar"
	"weft/source"
)

// Check resolves, type-checks and lays out a parsed file. It never fails:
// whatever the tree, it returns a Program whose Diagnostics say what is
// wrong (the parser's diagnostics are not repeated there). A file with
// parse errors is checked as far as it goes.
func Check(file *grammar.File) (prog *Program) {
	size := 0
	if file != nil {
		size = file.EOF.Offset
	}
	p := &Program{
		File:        file,
		Uses:        make(map[*grammar.Ident]*Object, size/16),
		Types:       make(map[grammar.Expr]Type, size/8),
		ConstValues: make(map[grammar.Expr]Value, size/32),
		top:         make(map[string]*Object),
	}
	c := &checker{p: p, names: make(map[string]binding)}
	defer func() {
		if r := recover(); r != nil {
			c.diags = append(c.diags, source.Diagnostic{
				Range:    source.Range{Start: source.Pos{}, End: source.Pos{}},
				Severity: source.Error,
				Code:     CodeInternalError,
				Message:  fmt.Sprintf("internal error in the checker: %v", r),
			})
			c.finish()
			prog = p
		}
	}()
	if file != nil {
		c.collect(file.Decls)
		c.constants()
		c.headers(file.Decls)
		c.bodies(file.Decls)
		c.checkCalls()
	}
	c.finish()
	return p
}

// binding is what a name means in the current scope.
type binding struct {
	obj   *Object
	scope int32 // the scope that declared it (0: top level)
}

// undoEntry restores a name's previous binding when a scope closes.
type undoEntry struct {
	name string
	prev binding // prev.obj == nil: the name was unbound
}

// scopeMark is what closeScope needs to restore.
type scopeMark struct {
	undo  int
	scope int32
	slot  int
}

type checker struct {
	p     *Program
	diags []source.Diagnostic

	// Scopes: one map of the visible bindings, and an undo log.
	names   map[string]binding
	undo    []undoEntry
	scope   int32
	nscopes int32

	// The body being checked.
	inBody   bool
	owner    *Object
	nextSlot int
	maxSlot  int
	loops    int // enclosing while/for loops
	atomics  int // enclosing atomic blocks
	locals   []*Object
	// constCtx > 0 while evaluating an expression that must be constant.
	constCtx int
	// whileCond and awaitCond are > 0 inside the condition of a while
	// loop and of an await.
	whileCond, awaitCond int
	// facts of the function whose body is being checked (nil in a thread
	// or proc body), and of every function.
	facts     *funcFacts
	funcFacts map[*Object]*funcFacts
	// calls are the calls whose callee's steps must be checked once every
	// body has been (see checkCalls).
	calls []callSite
	// curConst is the constant whose value is being evaluated.
	curConst *Object

	instances int // declared thread instances so far
}

// ---------------------------------------------------------------------------
// Diagnostics

func (c *checker) report(n grammar.Node, sev source.Severity, code, msg string) {
	c.diags = append(c.diags, source.Diagnostic{
		Range:    grammar.Range(n),
		Severity: sev,
		Code:     code,
		Message:  msg,
	})
}

func (c *checker) errorf(n grammar.Node, code, format string, args ...any) {
	c.report(n, source.Error, code, fmt.Sprintf(format, args...))
}

func (c *checker) warnf(n grammar.Node, code, format string, args ...any) {
	c.report(n, source.Warning, code, fmt.Sprintf(format, args...))
}

// runtimeSeverity is the severity of a fault that constant folding finds
// (overflow, division by zero, index out of range): an error where the
// value is needed at check time, a warning inside a body, where it is a
// runtime error that the exploration reports with a trace if the code is
// reached.
func (c *checker) runtimeSeverity() source.Severity {
	if c.inBody && c.constCtx == 0 {
		return source.Warning
	}
	return source.Error
}

func (c *checker) finish() {
	sort.SliceStable(c.diags, func(i, j int) bool {
		return c.diags[i].Range.Start.Offset < c.diags[j].Range.Start.Offset
	})
	c.p.Diagnostics = c.diags
}

// ---------------------------------------------------------------------------
// Scopes

func (c *checker) openScope() scopeMark {
	m := scopeMark{undo: len(c.undo), scope: c.scope, slot: c.nextSlot}
	c.nscopes++
	c.scope = c.nscopes
	return m
}

func (c *checker) closeScope(m scopeMark) {
	for i := len(c.undo) - 1; i >= m.undo; i-- {
		u := c.undo[i]
		if u.prev.obj == nil {
			delete(c.names, u.name)
		} else {
			c.names[u.name] = u.prev
		}
	}
	c.undo = c.undo[:m.undo]
	c.scope = m.scope
	c.nextSlot = m.slot
}

// declare binds id to obj in the current scope and records the use. It
// reports whether the name is now bound to obj. Empty identifiers (syntax
// errors) are skipped.
func (c *checker) declare(id *grammar.Ident, obj *Object) bool {
	if id == nil || id.Name == "" {
		return false
	}
	c.p.Uses[id] = obj
	prev, ok := c.names[id.Name]
	if ok {
		if prev.scope == c.scope {
			c.errorf(id, CodeRedeclared, "%s redeclared in this %s (previous declaration at %s)",
				id.Name, c.scopeWord(), declPos(prev.obj))
			return false
		}
		c.warnf(id, CodeShadowedName, "%s %s shadows the %s declared at %s",
			obj.Kind, id.Name, prev.obj.Kind, declPos(prev.obj))
	}
	if c.scope != 0 {
		c.undo = append(c.undo, undoEntry{name: id.Name, prev: prev})
	}
	c.names[id.Name] = binding{obj: obj, scope: c.scope}
	return true
}

func (c *checker) scopeWord() string {
	if c.scope == 0 {
		return "file"
	}
	return "block"
}

func declPos(o *Object) string {
	if o == nil || o.Ident == nil {
		return "-"
	}
	return o.Ident.Pos().String()
}

// resolve looks id up and records the use; it reports undefined names.
func (c *checker) resolve(id *grammar.Ident) *Object {
	if id == nil || id.Name == "" {
		return nil
	}
	b, ok := c.names[id.Name]
	if !ok {
		if grammar.Lookup(id.Name) == grammar.IDENT { // the parser reported reserved words
			c.errorf(id, CodeUndefinedName, "undefined: %s", id.Name)
		}
		return nil
	}
	c.p.Uses[id] = b.obj
	return b.obj
}

// ---------------------------------------------------------------------------
// Top level

// collect declares every top-level name, so that bodies can use names
// declared after them.
func (c *checker) collect(decls []grammar.Decl) {
	p := c.p
	for _, d := range decls {
		switch d := d.(type) {
		case *grammar.ConstDecl:
			obj := &Object{Kind: Const, Name: identName(d.Name), Ident: d.Name, Decl: d, Offset: -1, Slot: -1}
			p.Consts = append(p.Consts, obj)
			c.declareTop(d.Name, obj)
		case *grammar.VarDecl:
			obj := &Object{Kind: SharedVar, Name: identName(d.Name), Ident: d.Name, Decl: d,
				Atomic: d.IsAtomic(), Offset: -1, Slot: -1}
			p.Shared = append(p.Shared, obj)
			c.declareTop(d.Name, obj)
		case *grammar.ThreadDecl:
			obj := &Object{Kind: Thread, Name: identName(d.Name), Ident: d.Name, Decl: d,
				Body: d.Body, Offset: -1, Slot: -1}
			if d.Index != nil {
				obj.IsArray = true
				obj.Index = &Object{Kind: ThreadIndex, Name: d.Index.Name, Ident: d.Index, Decl: d,
					Type: Int, Offset: -1, Slot: -1, Owner: obj}
			}
			p.ThreadObjects = append(p.ThreadObjects, obj)
			c.declareTop(d.Name, obj)
		case *grammar.ProcDecl:
			obj := &Object{Kind: Proc, Name: identName(d.Name), Ident: d.Name, Decl: d,
				Body: d.Body, Offset: -1, Slot: -1}
			p.Procs = append(p.Procs, obj)
			c.declareTop(d.Name, obj)
		case *grammar.FuncDecl:
			obj := &Object{Kind: Func, Name: identName(d.Name), Ident: d.Name, Decl: d,
				Body: d.Body, Offset: -1, Slot: -1}
			p.Funcs = append(p.Funcs, obj)
			c.declareTop(d.Name, obj)
		}
	}
}

func (c *checker) declareTop(id *grammar.Ident, obj *Object) {
	if id == nil || id.Name == "" {
		return
	}
	if _, ok := c.p.top[id.Name]; !ok {
		c.p.top[id.Name] = obj
	}
	c.declare(id, obj)
}

func identName(id *grammar.Ident) string {
	if id == nil {
		return ""
	}
	return id.Name
}

// constants evaluates the constants in order; each may use earlier ones.
func (c *checker) constants() {
	for _, obj := range c.p.Consts {
		d := obj.Decl.(*grammar.ConstDecl)
		obj.state = 1
		c.curConst = obj
		c.constCtx++
		t, v := c.valueExpr(d.Value)
		c.constCtx--
		c.curConst = nil
		obj.state = 2
		if t == nil || v.kind == badConst {
			continue
		}
		if !v.IsValid() {
			c.errorf(d.Value, CodeNotConstant, "the value of constant %s must be a constant expression", obj.Name)
			continue
		}
		obj.Value = v
		obj.Type = v.Type()
	}
}

// headers lays out the shared variables, instantiates the threads and
// checks the parameters of procs and functions and the functions'
// results.
func (c *checker) headers(decls []grammar.Decl) {
	p := c.p
	nprocs, nfuncs := 0, 0
	for _, d := range decls {
		switch d := d.(type) {
		case *grammar.ProcDecl:
			c.params(p.Procs[nprocs], d.Params)
			nprocs++
		case *grammar.FuncDecl:
			c.funcHeader(p.Funcs[nfuncs], d)
			nfuncs++
		}
	}
	nshared, nthreads := 0, 0
	for _, d := range decls {
		switch d := d.(type) {
		case *grammar.VarDecl:
			c.sharedVar(p.Shared[nshared], d)
			nshared++
		case *grammar.ThreadDecl:
			c.threadHeader(p.ThreadObjects[nthreads], d)
			nthreads++
		}
	}
}

func (c *checker) sharedVar(obj *Object, d *grammar.VarDecl) {
	t := c.typeExpr(d.Type)
	obj.Type = t
	if t != nil {
		size := SizeOf(t)
		if int64(c.p.SharedSize)+size > MaxWords {
			c.errorf(d.Name, CodeArrayTooLarge, "shared memory is too large: %s takes %d words and the limit is %d in all",
				obj.Name, size, MaxWords)
		} else {
			obj.Offset = c.p.SharedSize
			c.p.SharedSize += int(size)
		}
	}
	if d.Init == nil {
		return
	}
	if sp, ok := d.Init.(*grammar.SpawnExpr); ok {
		c.errorf(sp, CodeSpawnMisplaced, "spawn is only allowed inside a thread or a proc")
		c.spawnCall(sp)
		return
	}
	var words []int64
	if t != nil && t != Mutex && t != Cond {
		words = make([]int64, 0, min(SizeOf(t), 1024))
	}
	c.constCtx++
	ok := c.initializer(obj, t, d.Init, true, &words)
	c.constCtx--
	if ok && t != nil && int64(len(words)) == SizeOf(t) {
		obj.Init = words
	}
}

func (c *checker) threadHeader(obj *Object, d *grammar.ThreadDecl) {
	p := c.p
	if !obj.IsArray {
		obj.Type = Tid
		if c.instances+1 > MaxInstances {
			c.errorf(d.Name, CodeTooManyThreads, "too many threads: more than %d declared thread instances", MaxInstances)
			return
		}
		c.instances++
		inst := &ThreadInstance{Decl: d, Name: obj.Name, Object: obj}
		obj.Instances = []*ThreadInstance{inst}
		p.Threads = append(p.Threads, inst)
		return
	}
	lo, okLo := c.constInt(d.Lo, "the lower bound of a thread array")
	hi, okHi := c.constInt(d.Hi, "the upper bound of a thread array")
	if !okLo || !okHi {
		return
	}
	obj.Lo, obj.Hi = lo, hi
	if hi <= lo {
		c.warnf(d.Name, CodeNoInstances, "thread array %s has no instances: %d..%d is empty", obj.Name, lo, hi)
		obj.Type = &Array{Len: 0, Elem: Tid}
		return
	}
	n := hi - lo
	if n <= 0 || n > int64(MaxInstances-c.instances) { // n <= 0: overflow
		c.errorf(d.Name, CodeTooManyThreads, "too many threads: %s adds %d..%d to %d declared instances; the limit is %d",
			obj.Name, lo, hi, c.instances, MaxInstances)
		obj.Type = &Array{Len: 0, Elem: Tid}
		obj.Hi = lo
		return
	}
	obj.Type = &Array{Len: n, Elem: Tid}
	c.instances += int(n)
	obj.Instances = make([]*ThreadInstance, 0, n)
	buf := make([]byte, 0, len(obj.Name)+8)
	for i := lo; i < hi; i++ {
		buf = append(buf[:0], obj.Name...)
		buf = append(buf, '[')
		buf = strconv.AppendInt(buf, i, 10)
		buf = append(buf, ']')
		inst := &ThreadInstance{Decl: d, Name: string(buf), Index: i, Object: obj}
		obj.Instances = append(obj.Instances, inst)
		p.Threads = append(p.Threads, inst)
	}
}

// params checks the parameters of a proc or function: a proc's are int
// or bool (a thread starts with them), a function's int, bool or tid.
func (c *checker) params(obj *Object, params []*grammar.Param) {
	obj.Params = make([]*Object, 0, len(params))
	for _, par := range params {
		if par == nil {
			continue
		}
		po := &Object{Kind: Param, Name: identName(par.Name), Ident: par.Name, Decl: par,
			Offset: -1, Slot: len(obj.Params), Owner: obj}
		t := c.typeExpr(par.Type)
		switch {
		case t == nil || t == Int || t == Bool:
		case t == Tid && obj.Kind == Func:
		case obj.Kind == Func:
			c.errorf(par.Type, CodeInvalidParamType, "parameter %s has type %s; a function's parameters are int, bool or tid", po.Name, t)
			t = nil
		default:
			c.errorf(par.Type, CodeInvalidParamType, "parameter %s has type %s; parameters are int or bool", po.Name, t)
			t = nil
		}
		po.Type = t
		obj.Params = append(obj.Params, po)
	}
}

// funcHeader checks a function's parameters and result type.
func (c *checker) funcHeader(obj *Object, d *grammar.FuncDecl) {
	c.params(obj, d.Params)
	if d.Result == nil {
		return
	}
	t := c.typeExpr(d.Result)
	if t != nil && t != Int && t != Bool && t != Tid {
		c.errorf(d.Result, CodeInvalidResultType, "function %s returns %s; a function's result is int, bool or tid", obj.Name, t)
		t = nil
	}
	obj.Result = t
}

// constInt evaluates an expression that must be an int constant.
func (c *checker) constInt(e grammar.Expr, what string) (int64, bool) {
	c.constCtx++
	t, v := c.valueExpr(e)
	c.constCtx--
	if t == nil || v.kind == badConst {
		return 0, false
	}
	if t != Int {
		c.errorf(e, CodeTypeMismatch, "%s must be an int, not %s", what, t)
		return 0, false
	}
	if !v.IsValid() {
		c.errorf(e, CodeNotConstant, "%s must be a constant expression", what)
		return 0, false
	}
	return v.n, true
}

// typeExpr resolves a type; nil if it is invalid (already reported).
func (c *checker) typeExpr(te grammar.TypeExpr) Type {
	switch te := te.(type) {
	case *grammar.NamedType:
		switch te.Kind {
		case grammar.INT_TYPE:
			return Int
		case grammar.BOOL_TYPE:
			return Bool
		case grammar.MUTEX_TYPE:
			return Mutex
		case grammar.TID_TYPE:
			return Tid
		case grammar.COND_TYPE:
			return Cond
		}
	case *grammar.ArrayType:
		n, ok := c.constInt(te.Len, "an array length")
		elem := c.typeExpr(te.Elem)
		if !ok {
			return nil
		}
		if n <= 0 {
			c.errorf(te.Len, CodeInvalidArrayLength, "array length must be positive, not %d", n)
			return nil
		}
		if elem == nil {
			return nil
		}
		if n > MaxWords || n*SizeOf(elem) > MaxWords {
			c.errorf(te, CodeArrayTooLarge, "array too large: more than %d words", MaxWords)
			return nil
		}
		return &Array{Len: n, Elem: elem}
	}
	return nil
}

// initializer checks the initial value e of a variable of type t (nil if
// invalid); for a shared variable it must be constant and its words are
// appended to *words. It reports whether everything was fine.
func (c *checker) initializer(obj *Object, t Type, e grammar.Expr, shared bool, words *[]int64) bool {
	switch e := e.(type) {
	case nil, *grammar.BadExpr:
		return false
	case *grammar.InitList:
		at, isArr := t.(*Array)
		ok := true
		var elem Type
		if t != nil && !isArr {
			c.errorf(e, CodeInitMismatch, "%s has type %s; only an array takes an initialiser list {…}", obj.Name, t)
			ok = false
		} else if isArr {
			elem = at.Elem
			if int64(len(e.Elems)) != at.Len {
				c.errorf(e, CodeInitMismatch, "%s needs %d initial values, got %d", at, at.Len, len(e.Elems))
				ok = false
			}
		} else {
			ok = false
		}
		for _, el := range e.Elems {
			if !c.initializer(obj, elem, el, shared, words) {
				ok = false
			}
		}
		return ok
	case *grammar.SpawnExpr:
		c.errorf(e, CodeSpawnMisplaced, "spawn cannot be part of an initialiser list")
		c.spawnCall(e)
		return false
	}
	if at, ok := t.(*Array); ok {
		c.expr(e)
		c.errorf(e, CodeInitMismatch, "%s has type %s and needs an initialiser list {…}", obj.Name, at)
		return false
	}
	if t == Mutex {
		c.expr(e)
		c.errorf(e, CodeInitMismatch, "a mutex cannot be initialised; it starts unlocked")
		return false
	}
	if t == Cond {
		c.expr(e)
		c.errorf(e, CodeInitMismatch, "a condition variable cannot be initialised; it starts with no waiters")
		return false
	}
	vt, v := c.valueExpr(e)
	if vt == nil || t == nil {
		return false
	}
	if !Identical(t, vt) {
		c.errorf(e, CodeTypeMismatch, "cannot initialise %s of type %s with a value of type %s", obj.Name, t, vt)
		return false
	}
	if shared {
		if v.kind == badConst {
			return false
		}
		if !v.IsValid() {
			c.errorf(e, CodeNotConstant, "the initial value of shared variable %s must be a constant expression", obj.Name)
			return false
		}
		if words != nil && *words != nil {
			*words = append(*words, v.n)
		}
	}
	return true
}
