package lower

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"weft/analysis"
	"weft/engine/ir"
	"weft/grammar"
	"weft/source"
)

// Lower turns a checked program without errors into the engine's
// executable form. Each thread declaration and each proc becomes one
// ir.Body; a thread array's instances share their body and receive
// their index as an argument.
//
// Frame layout of a body: the analysis's slots [0, FrameSize) (a proc's
// parameters first), then the thread index (thread arrays only), then
// temporaries, then constants.
//
// Functions: after its own code (which ends with OpEnd), a body holds the
// code of every function it calls, directly or through other functions,
// once each, in the order they are first called (ir.Body.Funcs; a call's
// C is the callee's index there, the same from every call site in the
// body). Each function's code runs in its own frame, laid out as a body's
// (parameters first, then locals, temporaries, constants), and ends with
// OpRet (a function without result returns a zero constant). A call
// inside an atomic block makes the block unstable, and its footprint
// includes everything the functions it may reach read and write.
//
// Loops: every while loop outside an atomic block starts with an
// OpLoopHead (its index in ir.Body.Loops, whose Slots
// ir.Program.AnalyzeLoops fills in once the program is complete); `await E` is lowered as the loop `while !E {}`: a head
// (ir.Loop.Await), the evaluation of E, and a jump back to the head while
// it is false.
//
// Version 2 steps: `choose LO..HI` is OpChoose over the constant slots of
// LO and HI, `trylock(m)` OpTrylock, `wait(cv, m)` OpWait then OpWake (A
// the mutex's address, B the condition variable's), `signal(cv)` and
// `broadcast(cv)` OpSignal and OpBroadcast; `*=`, `/=`, `%=` read, compute
// and write back as `+=` does.
func Lower(p *analysis.Program) (prog *ir.Program, err error) {
	if p.HasErrors() {
		return nil, fmt.Errorf("lower: the program has errors")
	}
	defer func() {
		// Lowering walks a tree the checker accepted; a panic here is a bug
		// in the lowering, reported as an error rather than a crash.
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("lower: internal error: %v", r)
		}
	}()
	l := &lowerer{p: p, out: &ir.Program{}, tids: make(map[*analysis.Object]int64)}
	l.layoutShared()
	// Thread handles of declared threads: instance order, from 1.
	for i, inst := range p.Threads {
		if _, ok := l.tids[inst.Object]; !ok {
			l.tids[inst.Object] = int64(i) + 1
		}
	}
	procIndex := make(map[*analysis.Object]int32)
	for i, pr := range p.Procs {
		procIndex[pr] = int32(i)
	}
	l.procIndex = procIndex
	bodyOf := make(map[*analysis.Object]int)
	for _, t := range p.ThreadObjects {
		if len(t.Instances) == 0 {
			continue
		}
		bodyOf[t] = len(l.out.Bodies)
		l.out.Bodies = append(l.out.Bodies, l.body(t))
	}
	for _, pr := range p.Procs {
		l.out.Procs = append(l.out.Procs, len(l.out.Bodies))
		l.out.Bodies = append(l.out.Bodies, l.body(pr))
	}
	for _, inst := range p.Threads {
		spec := ir.ThreadSpec{Name: inst.Name, Body: bodyOf[inst.Object]}
		if inst.Object.IsArray {
			spec.Args = []int64{inst.Index}
		}
		l.out.Threads = append(l.out.Threads, spec)
	}
	if err := l.out.Validate(); err != nil {
		return nil, fmt.Errorf("lower: %w", err)
	}
	l.out.AnalyzeLoops() // after Validate: it walks the code by its jumps
	return l.out, nil
}

type lowerer struct {
	p         *analysis.Program
	out       *ir.Program
	tids      map[*analysis.Object]int64 // first tid of each declared thread (array)
	procIndex map[*analysis.Object]int32
	locals    map[*analysis.Object][]*analysis.Object              // each body's named locals (built once)
	declEnds  map[*analysis.Object]map[*grammar.VarDecl]source.Pos // per owner, where each of its vars' blocks end

	// Per body.
	b           *ir.Body
	funcIndex   map[*analysis.Object]int32 // the body's functions, by index in b.Funcs
	funcs       []*analysis.Object         // in index order
	funcAccess  []funcAccess               // in index order
	atomicCalls map[int32][]int32          // the functions called (directly) in each atomic block, by its OpAtomic's pc

	// Per unit: the body's own code, or one function's.
	owner     *analysis.Object
	fn        int32 // the function being lowered (index in b.Funcs), -1 for the body's own code
	indexSlot int32 // slot of the thread index, or -1
	tempBase  int32
	temp      int32 // next free temporary (relative to tempBase)
	maxTemp   int32
	consts    map[int64]int32 // constant value -> constant number
	constVals []int64
	rng       source.Range // range given to emitted instructions
	loops     []loopCtx
	inAtomic  bool
	atomic    *ir.AtomicFootprint // the block being lowered
	atomicPC  int                 // its OpAtomic
	endJumps  []int               // pcs of jumps to the end (return)
}

// funcAccess is what one function's own code may access in shared
// memory, and the functions it calls.
type funcAccess struct {
	reads, writes []ir.LocRange
	callees       []int32
}

type loopCtx struct {
	breaks, continues []int // pcs to patch
	atomic            bool  // loop started inside an atomic block
}

// Operand encoding during lowering: slots >= 0 are frame slots below the
// temporaries; temporaries are tempFlag|n; constants are constFlag|n.
// Everything is patched to real slots once the body is done.
const (
	tempFlag  = 1 << 29
	constFlag = 1 << 30
)

func (l *lowerer) layoutShared() {
	out := l.out
	out.Init = make([]int64, l.p.SharedSize)
	out.Locations = make([]ir.Location, l.p.SharedSize)
	for vi, v := range l.p.Shared {
		if v.Offset < 0 {
			continue
		}
		copy(out.Init[v.Offset:], v.Init)
		dims := dimsOf(v.Type)
		sv := ir.SharedVar{Name: v.Name, Offset: v.Offset, Size: int(analysis.SizeOf(v.Type)), Dims: dims}
		if v.Ident != nil {
			sv.Range = grammar.Range(v.Ident)
		}
		out.Vars = append(out.Vars, sv)
		scalar := analysis.ScalarOf(v.Type)
		for k := 0; k < sv.Size; k++ {
			var name string
			if len(dims) <= maxNamedDims {
				name = v.Name + indexSuffix(dims, k)
			} else {
				name = v.Name + "@" + strconv.Itoa(k)
			}
			out.Locations[v.Offset+k] = ir.Location{
				Name: name, Var: vi, Atomic: v.Atomic,
				Mutex: scalar == analysis.Mutex, Bool: scalar == analysis.Bool, Tid: scalar == analysis.Tid,
			}
		}
	}
}

// maxNamedDims is the most dimensions a shared array may have for its
// words to be named by their indexes ("g[1][0]"). An array with more
// names them NAME@K, K the word's offset in the array: with up to
// grammar.MaxNesting dimensions, indexes would make names of kilobytes
// for up to analysis.MaxWords words (a 6 KB file took 92 s and 6.5 GB).
const maxNamedDims = 16

func dimsOf(t analysis.Type) []int {
	var dims []int
	for {
		a, ok := t.(*analysis.Array)
		if !ok {
			return dims
		}
		dims = append(dims, int(a.Len))
		t = a.Elem
	}
}

// indexSuffix renders the flat offset k of an array with dims as "[i][j]".
func indexSuffix(dims []int, k int) string {
	if len(dims) == 0 {
		return ""
	}
	idx := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		idx[i] = k % dims[i]
		k /= dims[i]
	}
	var sb strings.Builder
	for _, i := range idx {
		sb.WriteByte('[')
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte(']')
	}
	return sb.String()
}

// body lowers the body of a thread (array) or proc, then the functions
// it calls.
func (l *lowerer) body(owner *analysis.Object) *ir.Body {
	l.b = &ir.Body{Name: owner.Name}
	l.funcIndex = make(map[*analysis.Object]int32)
	l.funcs, l.funcAccess, l.atomicCalls = l.funcs[:0], l.funcAccess[:0], nil
	if owner.Kind == analysis.Thread && owner.IsArray {
		l.b.NumParams = 1
		l.b.ArgSlot = owner.FrameSize
	}
	if owner.Kind == analysis.Proc {
		l.b.NumParams = len(owner.Params)
	}
	l.b.Frame = l.unit(owner, -1)
	l.b.Locals = l.localsOf(owner)
	// The functions it calls, and those they call: the list grows as
	// their code is lowered.
	for i := 0; i < len(l.funcs); i++ {
		fn := l.funcs[i]
		entry := l.pc()
		frame := l.unit(fn, int32(i))
		l.b.Funcs = append(l.b.Funcs, ir.Func{Name: fn.Name, Entry: entry, End: l.pc(), Frame: frame,
			NumParams: len(fn.Params), Locals: l.localsOf(fn)})
	}
	l.completeAtomics()
	return l.b
}

// unit lowers the code of owner, a thread, proc (fn -1) or function
// (fn its index in the body's Funcs), at the end of the body's code, and
// returns its initial frame.
func (l *lowerer) unit(owner *analysis.Object, fn int32) []int64 {
	start := len(l.b.Code)
	l.owner, l.fn = owner, fn
	l.indexSlot = -1
	l.temp, l.maxTemp = 0, 0
	l.consts = make(map[int64]int32)
	l.constVals = l.constVals[:0]
	l.loops = l.loops[:0]
	l.endJumps = l.endJumps[:0]
	l.inAtomic = false
	frame := int32(owner.FrameSize)
	if owner.Kind == analysis.Thread && owner.IsArray {
		l.indexSlot = frame
		frame++
	}
	l.tempBase = frame
	if owner.Body != nil {
		l.rng = grammar.Range(owner.Body)
		l.stmts(owner.Body.Stmts)
	}
	end := len(l.b.Code)
	if owner.Body != nil {
		r := grammar.Range(owner.Body)
		l.rng = source.Range{Start: r.End, End: r.End}
		if p := owner.Body.Rbrace; p.IsValid() {
			l.rng = source.Range{Start: p, End: source.Pos{Offset: p.Offset + 1, Line: p.Line, Col: p.Col + 1}}
		}
	}
	if fn < 0 {
		l.emit(ir.OpEnd, 0, 0, 0)
	} else {
		// The end of a function without result (one with a result
		// returns on every path: the checker makes sure).
		l.emit(ir.OpRet, l.constant(0), 0, 0)
	}
	for _, pc := range l.endJumps {
		l.b.Code[pc].A = int32(end)
	}
	// Patch operands and build the initial frame.
	constBase := l.tempBase + l.maxTemp
	initial := make([]int64, int(constBase)+len(l.constVals))
	copy(initial[constBase:], l.constVals)
	fix := func(s int32) int32 {
		switch {
		case s&constFlag != 0:
			return constBase + s&^constFlag
		case s&tempFlag != 0:
			return l.tempBase + s&^tempFlag
		}
		return s
	}
	for i := start; i < len(l.b.Code); i++ {
		in := &l.b.Code[i]
		for k := 0; k < 3; k++ {
			if v, kind := in.Operand(k); kind.IsSlot() {
				*v = fix(*v)
			}
		}
	}
	return initial
}

// funcOf returns the index of fn in the body's Funcs, adding it (to be
// lowered after the code being lowered) the first time.
func (l *lowerer) funcOf(fn *analysis.Object) int32 {
	if i, ok := l.funcIndex[fn]; ok {
		return i
	}
	i := int32(len(l.funcs))
	l.funcIndex[fn] = i
	l.funcs = append(l.funcs, fn)
	l.funcAccess = append(l.funcAccess, funcAccess{})
	return i
}

// completeAtomics adds to the footprint of each atomic block that calls
// functions what those functions, and the functions they call, may read
// and write.
func (l *lowerer) completeAtomics() {
	for pc, direct := range l.atomicCalls {
		fp := l.b.Atomics[pc]
		if fp == nil {
			continue
		}
		seen := make([]bool, len(l.funcs))
		queue := append([]int32(nil), direct...)
		for len(queue) > 0 {
			f := queue[0]
			queue = queue[1:]
			if seen[f] {
				continue
			}
			seen[f] = true
			fa := &l.funcAccess[f]
			fp.Reads = append(fp.Reads, fa.reads...)
			fp.Writes = append(fp.Writes, fa.writes...)
			queue = append(queue, fa.callees...)
		}
		fp.Reads, fp.Writes = mergeRanges(fp.Reads), mergeRanges(fp.Writes)
	}
}

// mergeRanges sorts location ranges and merges those that overlap or
// touch.
func mergeRanges(rs []ir.LocRange) []ir.LocRange {
	if len(rs) < 2 {
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	out := rs[:1]
	for _, r := range rs[1:] {
		if last := &out[len(out)-1]; r.Lo <= last.Hi {
			last.Hi = max(last.Hi, r.Hi)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// localsOf names the frame slots of a body's variables, for display, in
// the order of their declarations.
func (l *lowerer) localsOf(owner *analysis.Object) []ir.LocalVar {
	if l.locals == nil {
		// One pass over every use for all the bodies, not one per body.
		l.locals = make(map[*analysis.Object][]*analysis.Object)
		for id, obj := range l.p.Uses {
			if obj.Owner != nil && obj.Slot >= 0 && id == obj.Ident {
				l.locals[obj.Owner] = append(l.locals[obj.Owner], obj)
			}
		}
	}
	var out []ir.LocalVar
	for _, obj := range l.locals[owner] {
		scalar := analysis.ScalarOf(obj.Type)
		lv := ir.LocalVar{Name: obj.Name, Slot: obj.Slot, Size: int(analysis.SizeOf(obj.Type)), Dims: dimsOf(obj.Type),
			Bool: scalar == analysis.Bool, Tid: scalar == analysis.Tid}
		if obj.Kind == analysis.LoopVar {
			lv.Size = 1
		}
		lv.Scope, lv.Decl = l.scopeOf(owner, obj)
		out = append(out, lv)
	}
	sortLocals(out)
	return out
}

// scopeOf is where a local of owner may be used, and for a `var` its
// declaration (see ir.LocalVar). A `var` is in scope from its declaration
// to the end of its block: taking the declaration's own range as its
// scope hid every `var` of a body from the replay's state.
func (l *lowerer) scopeOf(owner, obj *analysis.Object) (scope, decl source.Range) {
	switch d := obj.Decl.(type) {
	case nil:
		return source.Range{}, source.Range{}
	case *grammar.VarDecl:
		decl = grammar.Range(d)
		end, ok := l.blockEnds(owner)[d]
		if !ok {
			return decl, decl
		}
		return source.Range{Start: decl.Start, End: end}, decl
	case *grammar.Param:
		if owner.Decl != nil {
			return source.Range{Start: d.Pos(), End: owner.Decl.End()}, source.Range{}
		}
	}
	return grammar.Range(obj.Decl), source.Range{}
}

// blockEnds maps each `var` declared in owner's body to the end of the
// block that holds it (one walk of the body per owner).
func (l *lowerer) blockEnds(owner *analysis.Object) map[*grammar.VarDecl]source.Pos {
	if ends, ok := l.declEnds[owner]; ok {
		return ends
	}
	ends := map[*grammar.VarDecl]source.Pos{}
	if l.declEnds == nil {
		l.declEnds = map[*analysis.Object]map[*grammar.VarDecl]source.Pos{}
	}
	l.declEnds[owner] = ends
	if owner.Decl == nil {
		return ends
	}
	var blocks []*grammar.Block // the blocks enclosing the node visited
	var stack []grammar.Node
	grammar.Inspect(owner.Decl, func(n grammar.Node) bool {
		if n == nil {
			if top := stack[len(stack)-1]; top != nil {
				if _, ok := top.(*grammar.Block); ok {
					blocks = blocks[:len(blocks)-1]
				}
			}
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *grammar.Block:
			blocks = append(blocks, n)
		case *grammar.VarDecl:
			if len(blocks) > 0 {
				ends[n] = blocks[len(blocks)-1].End()
			}
		}
		return true
	})
	return ends
}

// sortLocals orders locals by where they are declared (then by slot: the
// map they come from has no order).
func sortLocals(ls []ir.LocalVar) {
	sort.Slice(ls, func(i, j int) bool {
		if a, b := ls[i].Scope.Start.Offset, ls[j].Scope.Start.Offset; a != b {
			return a < b
		}
		return ls[i].Slot < ls[j].Slot
	})
}

func (l *lowerer) emit(op ir.Op, a, b, c int32) int {
	if l.inAtomic {
		switch op {
		case ir.OpJmp, ir.OpJz, ir.OpJnz, ir.OpJge, ir.OpJlt, ir.OpAtomicEnd:
			l.atomic.Stable = false // what it accesses may depend on what it reads
		}
	}
	l.b.Code = append(l.b.Code, ir.Instr{Op: op, A: a, B: b, C: c})
	l.b.Ranges = append(l.b.Ranges, l.rng)
	return len(l.b.Code) - 1
}

func (l *lowerer) pc() int32 { return int32(len(l.b.Code)) }

func (l *lowerer) newTemp() int32 {
	t := l.temp
	l.temp++
	if l.temp > l.maxTemp {
		l.maxTemp = l.temp
	}
	return tempFlag | t
}

func (l *lowerer) constant(v int64) int32 {
	if k, ok := l.consts[v]; ok {
		return constFlag | k
	}
	k := int32(len(l.constVals))
	l.consts[v] = k
	l.constVals = append(l.constVals, v)
	return constFlag | k
}

// ---------------------------------------------------------------------------
// Statements

func (l *lowerer) stmts(list []grammar.Stmt) {
	for _, s := range list {
		l.stmt(s)
	}
}

func (l *lowerer) stmt(s grammar.Stmt) {
	l.temp = 0
	if is, ok := s.(*grammar.IfStmt); ok {
		// Not grammar.Range(s): its End walks the whole else-if chain,
		// and would at every link of it.
		l.ifStmt(is)
		return
	}
	l.rng = grammar.Range(s)
	switch s := s.(type) {
	case *grammar.Block:
		l.stmts(s.Stmts)
	case *grammar.DeclStmt:
		l.localDecl(s.Decl)
	case *grammar.AssignStmt:
		l.assign(s)
	case *grammar.IncDecStmt:
		target := l.lvalue(s.X)
		old := l.load(target)
		res := l.newTemp()
		op := ir.OpAdd
		if s.Op == grammar.DEC {
			op = ir.OpSub
		}
		l.emit(op, res, old, l.constant(1))
		l.store(target, res)
	case *grammar.LockStmt:
		mutex := l.lvalue(s.Mutex)
		op := ir.OpLock
		if s.Unlock {
			op = ir.OpUnlock
		}
		l.emit(op, 0, mutex.addr, 0)
	case *grammar.SpawnStmt:
		l.spawn(s.Call, l.newTemp())
	case *grammar.JoinStmt:
		t := l.expr(s.Thread)
		l.emit(ir.OpJoin, 0, t, 0)
	case *grammar.ReturnStmt:
		switch {
		case l.fn < 0:
			// The thread ends: jump to its OpEnd.
			l.endJumps = append(l.endJumps, l.emit(ir.OpJmp, 0, 0, 0))
		case s.Result != nil:
			l.emit(ir.OpRet, l.expr(s.Result), 0, 0)
		default:
			l.emit(ir.OpRet, l.constant(0), 0, 0)
		}
	case *grammar.WaitStmt:
		cv := l.lvalue(s.Cond)
		m := l.lvalue(s.Mutex)
		l.emit(ir.OpWait, m.addr, cv.addr, 0)
		l.emit(ir.OpWake, m.addr, cv.addr, 0)
	case *grammar.SignalStmt:
		cv := l.lvalue(s.Cond)
		op := ir.OpSignal
		if s.Broadcast {
			op = ir.OpBroadcast
		}
		l.emit(op, 0, cv.addr, 0)
	case *grammar.AwaitStmt:
		// while !E {}: the head, E, and back to the head while E is
		// false. The checker keeps awaits out of atomic blocks.
		top := l.loopHead(true)
		c := l.expr(s.Cond)
		l.emit(ir.OpJz, top, c, 0)
	case *grammar.ExprStmt:
		// A call whose result, if any, is dropped (the checker allows no
		// other expression here).
		l.call(s.X.(*grammar.CallExpr), l.newTemp())
	case *grammar.AssertStmt:
		c := l.expr(s.Cond)
		msg := int32(-1)
		if s.Message != nil {
			msg = int32(len(l.b.Messages))
			l.b.Messages = append(l.b.Messages, s.Message.Value)
		} else {
			msg = int32(len(l.b.Messages))
			l.b.Messages = append(l.b.Messages, "assertion "+analysis.ExprString(s.Cond)+" failed")
		}
		l.emit(ir.OpAssert, 0, c, msg)
	case *grammar.AssumeStmt:
		c := l.expr(s.Cond)
		l.emit(ir.OpAssume, 0, c, 0)
	case *grammar.WhileStmt:
		header := source.Range{Start: s.While, End: s.Cond.End()}
		l.rng = header
		top := l.pc()
		if !l.inAtomic {
			top = l.loopHead(false)
		}
		c := l.expr(s.Cond)
		jz := l.emit(ir.OpJz, 0, c, 0)
		l.loops = append(l.loops, loopCtx{atomic: l.inAtomic})
		l.stmts(s.Body.Stmts)
		l.rng = header
		l.emit(ir.OpJmp, top, 0, 0)
		exit := l.pc()
		l.b.Code[jz].A = exit
		l.closeLoop(exit, top)
	case *grammar.ForStmt:
		header := source.Range{Start: s.For, End: s.Hi.End()}
		l.rng = header
		v := l.p.Uses[s.Var]
		slot, bound := int32(v.Slot), int32(v.Slot+1)
		lo := l.expr(s.Lo)
		l.emit(ir.OpMov, slot, lo, 0)
		hi := l.expr(s.Hi)
		l.emit(ir.OpMov, bound, hi, 0)
		// Rotated loop: a guard on entry, the test at the bottom.
		jge := l.emit(ir.OpJge, 0, slot, bound)
		top := l.pc()
		l.loops = append(l.loops, loopCtx{atomic: l.inAtomic})
		l.stmts(s.Body.Stmts)
		l.rng = header
		cont := l.pc()
		l.emit(ir.OpAddI, slot, slot, 1)
		l.emit(ir.OpJlt, top, slot, bound)
		exit := l.pc()
		l.b.Code[jge].A = exit
		l.closeLoop(exit, cont)
	case *grammar.BranchStmt:
		lp := &l.loops[len(l.loops)-1]
		op := ir.OpJmp
		if l.inAtomic && !lp.atomic {
			op = ir.OpAtomicEnd // leaves the atomic block too
		}
		pc := l.emit(op, 0, 0, 0)
		if s.Tok == grammar.BREAK {
			lp.breaks = append(lp.breaks, pc)
		} else {
			lp.continues = append(lp.continues, pc)
		}
	case *grammar.AtomicStmt:
		l.atomicPC = l.emit(ir.OpAtomic, 0, 0, 0)
		l.atomic = &ir.AtomicFootprint{Stable: true}
		l.inAtomic = true
		l.stmts(s.Body.Stmts)
		l.inAtomic = false
		l.rng = grammar.Range(s)
		pc := l.emit(ir.OpAtomicEnd, 0, 0, 0)
		l.b.Code[pc].A = l.pc()
		if l.atomic.Stable && addressesDependOnReads(l.b.Code[l.atomicPC+1:pc]) {
			l.atomic.Stable = false
		}
		if l.b.Atomics == nil {
			l.b.Atomics = make(map[int32]*ir.AtomicFootprint)
		}
		l.b.Atomics[int32(l.atomicPC)] = l.atomic
	default:
		panic(fmt.Sprintf("cannot lower %T", s))
	}
}

// loopHead emits the OpLoopHead of a new while loop (or await) and
// returns its pc.
func (l *lowerer) loopHead(await bool) int32 {
	pc := l.pc()
	l.emit(ir.OpLoopHead, int32(len(l.b.Loops)), 0, 0)
	l.b.Loops = append(l.b.Loops, ir.Loop{Await: await})
	return pc
}

// ifStmt lowers an if statement and its else-if chain, in a loop (the
// chain has no length limit): each condition jumps past its block when
// false, and each block but the last jumps to the end of the chain.
func (l *lowerer) ifStmt(s *grammar.IfStmt) {
	var exits []int // the jumps to the end of the chain
	for {
		l.temp = 0
		l.rng = source.Range{Start: s.If, End: s.Cond.End()}
		c := l.expr(s.Cond)
		jz := l.emit(ir.OpJz, 0, c, 0)
		l.stmts(s.Then.Stmts)
		if s.Else == nil {
			l.b.Code[jz].A = l.pc()
			break
		}
		l.rng = grammar.Range(s.Then)
		exits = append(exits, l.emit(ir.OpJmp, 0, 0, 0))
		l.b.Code[jz].A = l.pc()
		next, ok := s.Else.(*grammar.IfStmt)
		if !ok {
			l.stmt(s.Else)
			break
		}
		s = next
	}
	end := l.pc()
	for _, pc := range exits {
		l.b.Code[pc].A = end
	}
}

func (l *lowerer) closeLoop(exit, cont int32) {
	lp := l.loops[len(l.loops)-1]
	for _, pc := range lp.breaks {
		l.b.Code[pc].A = exit
	}
	for _, pc := range lp.continues {
		l.b.Code[pc].A = cont
	}
	l.loops = l.loops[:len(l.loops)-1]
}

func (l *lowerer) localDecl(d *grammar.VarDecl) {
	obj := l.p.Uses[d.Name]
	slot := int32(obj.Slot)
	size := int32(analysis.SizeOf(obj.Type))
	switch init := d.Init.(type) {
	case nil:
		l.zero(slot, size)
	case *grammar.SpawnExpr:
		l.spawn(init, slot)
	case *grammar.InitList:
		k := slot
		l.initList(init, &k)
	default:
		v := l.expr(init)
		l.emit(ir.OpMov, slot, v, 0)
	}
}

// zeroUnroll is how many words one pass of the loop that zeroes a large
// local array clears.
const zeroUnroll = 16

// zero sets size slots from slot to 0: one instruction per word for a
// small variable, a loop for a large one, so that the code stays small
// (a declaration of a million-word local array was a million
// instructions, and twenty of them in a 1 KB file took 4 GB to lower).
// The loop clears zeroUnroll words a pass, then the rest one by one.
func (l *lowerer) zero(slot, size int32) {
	z := l.constant(0)
	k := int32(0)
	if size >= 2*zeroUnroll {
		full := size / zeroUnroll * zeroUnroll
		i := l.newTemp()
		l.emit(ir.OpMov, i, z, 0)
		top := l.pc()
		// Always true (i < full, a multiple of zeroUnroll): the check
		// that the program form wants before indexed frame accesses.
		l.emit(ir.OpCheck, 0, i, full-zeroUnroll+1)
		for u := range int32(zeroUnroll) {
			l.emit(ir.OpStx, z, i, slot+u)
		}
		l.emit(ir.OpAddI, i, i, zeroUnroll)
		l.emit(ir.OpJlt, top, i, l.constant(int64(full)))
		k = full
	}
	for ; k < size; k++ {
		l.emit(ir.OpMov, slot+k, z, 0)
	}
}

func (l *lowerer) initList(list *grammar.InitList, k *int32) {
	for _, e := range list.Elems {
		if sub, ok := e.(*grammar.InitList); ok {
			l.initList(sub, k)
			continue
		}
		l.temp = 0
		v := l.expr(e)
		l.emit(ir.OpMov, *k, v, 0)
		*k++
	}
}

func (l *lowerer) assign(s *grammar.AssignStmt) {
	target := l.lvalue(s.LHS)
	if sp, ok := s.RHS.(*grammar.SpawnExpr); ok {
		t := l.newTemp()
		l.spawn(sp, t)
		l.store(target, t)
		return
	}
	switch s.Op {
	case grammar.ASSIGN:
		v := l.expr(s.RHS)
		l.store(target, v)
	default:
		old := l.load(target)
		v := l.expr(s.RHS)
		res := l.newTemp()
		var op ir.Op
		switch s.Op {
		case grammar.ADD_ASSIGN:
			op = ir.OpAdd
		case grammar.SUB_ASSIGN:
			op = ir.OpSub
		case grammar.MUL_ASSIGN:
			op = ir.OpMul
		case grammar.QUO_ASSIGN:
			op = ir.OpDiv
		case grammar.REM_ASSIGN:
			op = ir.OpMod
		default:
			panic(fmt.Sprintf("assignment operator %s", s.Op))
		}
		l.emit(op, res, old, v)
		l.store(target, res)
	}
}

// call emits a call of a function with the arguments' values in
// consecutive slots; the result lands in dst.
func (l *lowerer) call(e *grammar.CallExpr, dst int32) {
	fn := l.p.Uses[e.Func]
	vals := make([]int32, len(e.Args))
	for i, a := range e.Args {
		vals[i] = l.expr(a)
	}
	first := int32(-1)
	for i := range vals {
		t := l.newTemp()
		if i == 0 {
			first = t
		}
		l.emit(ir.OpMov, t, vals[i], 0)
	}
	if first < 0 {
		first = l.newTemp()
	}
	idx := l.funcOf(fn)
	l.emit(ir.OpCall, dst, first, idx)
	if l.inAtomic {
		// What the block accesses depends on the callee's code.
		l.atomic.Stable = false
		if l.atomicCalls == nil {
			l.atomicCalls = make(map[int32][]int32)
		}
		l.atomicCalls[int32(l.atomicPC)] = append(l.atomicCalls[int32(l.atomicPC)], idx)
	}
	if l.fn >= 0 {
		fa := &l.funcAccess[l.fn]
		fa.callees = append(fa.callees, idx)
	}
}

func (l *lowerer) spawn(sp *grammar.SpawnExpr, dst int32) {
	proc := l.p.Uses[sp.Proc]
	// Evaluate the arguments, then copy them to consecutive temporaries.
	vals := make([]int32, len(sp.Args))
	for i, a := range sp.Args {
		vals[i] = l.expr(a)
	}
	first := int32(-1)
	for i := range vals {
		t := l.newTemp()
		if i == 0 {
			first = t
		}
		l.emit(ir.OpMov, t, vals[i], 0)
	}
	if first < 0 {
		first = l.newTemp()
	}
	l.emit(ir.OpSpawn, dst, first, l.procIndex[proc])
}

// ---------------------------------------------------------------------------
// Places: variables and array elements

// place is where an lvalue or a mutex lives.
type place struct {
	shared bool
	// Shared: the locations the place may denote, [lo, hi).
	lo, hi int32
	// Shared: addr is a slot holding the address (or a constant slot).
	// Local: base is the first slot of the variable, off a slot holding
	// the element offset (or -1 for a scalar).
	addr int32
	base int32
	off  int32
}

func (l *lowerer) lvalue(e grammar.Expr) place {
	e = unparen(e)
	var root *analysis.Object
	var indices []grammar.Expr
	for {
		switch x := e.(type) {
		case *grammar.Ident:
			root = l.p.Uses[x]
		case *grammar.IndexExpr:
			indices = append(indices, x.Index)
			e = unparen(x.X)
			continue
		case *grammar.ParenExpr:
			e = x.X
			continue
		default:
			panic(fmt.Sprintf("not an lvalue: %T", e))
		}
		break
	}
	// indices were collected innermost last: reverse to outermost first.
	for i, j := 0, len(indices)-1; i < j; i, j = i+1, j-1 {
		indices[i], indices[j] = indices[j], indices[i]
	}
	off := l.offset(root.Type, indices)
	if root.Kind == analysis.SharedVar {
		if off < 0 {
			at := int32(root.Offset)
			return place{shared: true, addr: l.constant(int64(at)), lo: at, hi: at + 1}
		}
		if off&constFlag != 0 {
			c := l.constVals[off&^constFlag]
			at := int32(int64(root.Offset) + c)
			if c < 0 || c >= analysis.SizeOf(root.Type) {
				// Out of range: the index check fails before any access,
				// so the place denotes no location (an atomic block's
				// may-footprint must not name one outside memory).
				return place{shared: true, addr: l.constant(int64(at)), lo: int32(root.Offset), hi: int32(root.Offset)}
			}
			return place{shared: true, addr: l.constant(int64(at)), lo: at, hi: at + 1}
		}
		a := l.newTemp()
		l.emit(ir.OpAddI, a, off, int32(root.Offset))
		return place{shared: true, addr: a, lo: int32(root.Offset), hi: int32(int64(root.Offset) + analysis.SizeOf(root.Type))}
	}
	return place{base: int32(root.Slot), off: off}
}

// offset emits the flat element offset of indices into an array of type t
// and returns the slot holding it (a constant slot when every index is
// constant), or -1 when there are no indices.
func (l *lowerer) offset(t analysis.Type, indices []grammar.Expr) int32 {
	if len(indices) == 0 {
		return -1
	}
	var acc int32 = -1
	var accConst int64
	allConst := true
	for _, ix := range indices {
		at := t.(*analysis.Array)
		stride := analysis.SizeOf(at.Elem)
		if v, ok := l.p.ConstValues[ix]; ok && v.IsInt() {
			if v.Int() < 0 || v.Int() >= at.Len {
				// The checker reports constant indices out of range; keep a
				// runtime check anyway.
				c := l.constant(v.Int())
				l.emit(ir.OpCheck, 0, c, int32(at.Len))
			}
			accConst += v.Int() * stride
		} else {
			i := l.expr(ix)
			l.emit(ir.OpCheck, 0, i, int32(at.Len))
			scaled := i
			if stride != 1 {
				scaled = l.newTemp()
				l.emit(ir.OpMulI, scaled, i, int32(stride))
			}
			if acc < 0 {
				acc = scaled
			} else {
				sum := l.newTemp()
				l.emit(ir.OpAdd, sum, acc, scaled)
				acc = sum
			}
			allConst = false
		}
		t = at.Elem
	}
	if allConst {
		return l.constant(accConst)
	}
	if accConst != 0 {
		sum := l.newTemp()
		l.emit(ir.OpAddI, sum, acc, int32(accConst))
		acc = sum
	}
	return acc
}

// load reads a place into a slot (a visible step for shared places).
func (l *lowerer) load(pl place) int32 {
	if pl.shared {
		if l.inAtomic {
			l.atomic.Reads = append(l.atomic.Reads, ir.LocRange{Lo: pl.lo, Hi: pl.hi})
		}
		if l.fn >= 0 {
			fa := &l.funcAccess[l.fn]
			fa.reads = append(fa.reads, ir.LocRange{Lo: pl.lo, Hi: pl.hi})
		}
		t := l.newTemp()
		l.emit(ir.OpLoad, t, pl.addr, 0)
		return t
	}
	if pl.off < 0 {
		return pl.base
	}
	if pl.off&constFlag != 0 {
		return pl.base + int32(l.constVals[pl.off&^constFlag])
	}
	t := l.newTemp()
	l.emit(ir.OpLdx, t, pl.off, pl.base)
	return t
}

// store writes slot v to a place.
func (l *lowerer) store(pl place, v int32) {
	switch {
	case pl.shared:
		if l.inAtomic {
			l.atomic.Writes = append(l.atomic.Writes, ir.LocRange{Lo: pl.lo, Hi: pl.hi})
		}
		if l.fn >= 0 {
			fa := &l.funcAccess[l.fn]
			fa.writes = append(fa.writes, ir.LocRange{Lo: pl.lo, Hi: pl.hi})
		}
		l.emit(ir.OpStore, v, pl.addr, 0)
	case pl.off < 0:
		l.emit(ir.OpMov, pl.base, v, 0)
	case pl.off&constFlag != 0:
		l.emit(ir.OpMov, pl.base+int32(l.constVals[pl.off&^constFlag]), v, 0)
	default:
		l.emit(ir.OpStx, v, pl.off, pl.base)
	}
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

// ---------------------------------------------------------------------------
// Expressions

// expr emits the evaluation of e and returns the slot holding its value.
func (l *lowerer) expr(e grammar.Expr) int32 {
	if v, ok := l.p.ConstValues[e]; ok && v.IsValid() {
		return l.constant(v.Word())
	}
	switch x := e.(type) {
	case *grammar.ParenExpr:
		return l.expr(x.X)
	case *grammar.Ident:
		obj := l.p.Uses[x]
		switch obj.Kind {
		case analysis.Const:
			return l.constant(obj.Value.Word())
		case analysis.ThreadIndex:
			return l.indexSlot
		case analysis.Thread:
			return l.constant(l.tids[obj])
		case analysis.SharedVar:
			at := int32(obj.Offset)
			return l.load(place{shared: true, addr: l.constant(int64(at)), lo: at, hi: at + 1})
		default:
			return int32(obj.Slot)
		}
	case *grammar.IndexExpr:
		root := l.p.RootOf(x)
		if root != nil && root.Kind == analysis.Thread {
			// worker[i]: the tid of instance i.
			i := l.expr(x.Index)
			rel := l.newTemp()
			l.emit(ir.OpAddI, rel, i, int32(-root.Lo))
			l.emit(ir.OpCheck, 0, rel, int32(root.Hi-root.Lo))
			t := l.newTemp()
			l.emit(ir.OpAddI, t, rel, int32(l.tids[root]))
			return t
		}
		return l.load(l.lvalue(x))
	case *grammar.UnaryExpr:
		v := l.expr(x.X)
		t := l.newTemp()
		if x.Op == grammar.SUB {
			l.emit(ir.OpNeg, t, v, 0)
		} else {
			l.emit(ir.OpNot, t, v, 0)
		}
		return t
	case *grammar.BinaryExpr:
		if x.Op == grammar.LAND || x.Op == grammar.LOR {
			t := l.newTemp()
			a := l.expr(x.X)
			l.emit(ir.OpMov, t, a, 0)
			op := ir.OpJz
			if x.Op == grammar.LOR {
				op = ir.OpJnz
			}
			j := l.emit(op, 0, t, 0)
			b := l.expr(x.Y)
			l.emit(ir.OpMov, t, b, 0)
			l.b.Code[j].A = l.pc()
			return t
		}
		a := l.expr(x.X)
		b := l.expr(x.Y)
		t := l.newTemp()
		switch x.Op {
		case grammar.ADD:
			l.emit(ir.OpAdd, t, a, b)
		case grammar.SUB:
			l.emit(ir.OpSub, t, a, b)
		case grammar.MUL:
			l.emit(ir.OpMul, t, a, b)
		case grammar.QUO:
			l.emit(ir.OpDiv, t, a, b)
		case grammar.REM:
			l.emit(ir.OpMod, t, a, b)
		case grammar.EQL:
			l.emit(ir.OpEq, t, a, b)
		case grammar.NEQ:
			l.emit(ir.OpNe, t, a, b)
		case grammar.LSS:
			l.emit(ir.OpLt, t, a, b)
		case grammar.LEQ:
			l.emit(ir.OpLe, t, a, b)
		case grammar.GTR:
			l.emit(ir.OpLt, t, b, a)
		case grammar.GEQ:
			l.emit(ir.OpLe, t, b, a)
		default:
			panic(fmt.Sprintf("operator %s", x.Op))
		}
		return t
	case *grammar.CallExpr:
		t := l.newTemp()
		l.call(x, t)
		return t
	case *grammar.TrylockExpr:
		m := l.lvalue(x.Mutex)
		t := l.newTemp()
		l.emit(ir.OpTrylock, t, m.addr, 0)
		return t
	case *grammar.ChooseExpr:
		lo, hi := l.expr(x.Lo), l.expr(x.Hi)
		t := l.newTemp()
		l.emit(ir.OpChoose, t, lo, hi)
		return t
	case *grammar.IntLit, *grammar.BoolLit:
		panic("literal without a constant value")
	}
	panic(fmt.Sprintf("cannot lower expression %T", e))
}

// addressesDependOnReads reports whether, in straight-line code, some
// shared access uses an address computed from a value read from shared
// memory earlier in the same code (a taint analysis over frame slots;
// local array elements count as tainted once a tainted value is stored in
// any of them).
func addressesDependOnReads(code []ir.Instr) bool {
	tainted := map[int32]bool{}
	arrays := false
	for _, in := range code {
		switch in.Op {
		case ir.OpLoad:
			if tainted[in.B] {
				return true
			}
			tainted[in.A] = true
		case ir.OpStore:
			if tainted[in.B] {
				return true
			}
		case ir.OpLdx:
			tainted[in.A] = tainted[in.B] || arrays
		case ir.OpStx:
			arrays = arrays || tainted[in.A] || tainted[in.B]
		default:
			// Local computation: what it writes is tainted if what it
			// reads is.
			var dst *int32
			t := false
			for k := 0; k < 3; k++ {
				switch v, kind := in.Operand(k); kind {
				case ir.WriteSlot:
					dst = v
				case ir.ReadSlot:
					t = t || tainted[*v]
				}
			}
			if dst != nil {
				tainted[*dst] = t
			}
		}
	}
	return false
}
