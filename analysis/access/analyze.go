package access

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"weft/analysis"
	"weft/engine/ir"
	"weft/grammar"
	"weft/source"
)

// Summary holds the static access facts of one program. It is read-only
// once Analyze returns, so queries may run concurrently.
type Summary struct {
	checked *analysis.Program
	prog    *ir.Program
	ctx     context.Context
	// budget is the instructions left for evaluating thread arrays'
	// instances one by one.
	budget int64

	bodies   []*body // by index in prog.Bodies
	ofObject map[*analysis.Object]*body
	stmts    []*Statement // every statement, by start (outer first)
	varIndex map[*analysis.Object]int
	varAt    map[int64]int // a shared variable's offset → its index in checked.Shared
	byVar    [][]*rec      // the accesses of each shared variable
	anyVar   []*rec        // accesses whose variable is not known
	joins    []*rec        // every join step
}

// body is the analysis of one thread or proc body, with the code of the
// functions it calls.
type body struct {
	index int
	code  *ir.Body
	owner *analysis.Object
	insts []*analysis.ThreadInstance // a declared thread's instances; nil for a proc
	runs  Multiplicity
	// rows is the number of evaluation rows: one per instance when a
	// thread array's instances were evaluated one by one, else 1.
	rows int

	// regions are the body's own code (first) and each function's, in
	// code order; funcs are the functions by index in code.Funcs.
	regions     []region
	funcs       []*analysis.Object
	endPC       int32 // the body's OpEnd
	poolUnknown bool  // tid locals may hold handles from outside (tid parameters)
	isTarget    []bool

	vis     []vis
	visAt   []int32      // by pc: position in vis, -1
	matched bool         // every region's vis carries the syntax
	varOf   [][2]int     // by position in vis: the shared variable of each address the syntax names, -1
	gen     []evalResult // the pass over every instance at once, by position in vis
	// When instances were evaluated one by one: the words of each
	// address by row (address j of vis k at rowAddr[k]+j), and each
	// join's handles by position and row. Released once the steps are
	// built.
	rowSpans [][]span
	rowAddr  []int32
	rowJoins map[int][]val

	stmts  []*Statement // in code order
	stepAt []stepRef    // by pc
	end    *Statement
	// held holds, by pc, the locks (canonical lock pcs) held before the
	// instruction; reached says which pcs any path from the start reaches.
	held    [][]int32
	reached []bool
	inLoop  []bool
	// reach lists, by function index, the functions a call of it may
	// run: itself, those it calls, and so on.
	reach [][]int32
	// callsMany says, by function index, that the function may run more
	// than once in a thread (a call in a loop, several calls, recursion);
	// atomicOnly that it runs only inside atomic blocks (every call of it
	// that runs is in one, or in such a function).
	callsMany  []bool
	atomicOnly []bool
	lockLoc    map[int32]*Loc
}

// region is a stretch of a body's code that runs in one frame: the
// body's own code, or a function's.
type region struct {
	lo, hi int32
	fn     int              // index in code.Funcs; -1 for the body's own code
	obj    *analysis.Object // the thread, proc or function whose syntax it is
	frame  frameInfo
}

// frameInfo is what the evaluation knows of a region's frame.
type frameInfo struct {
	localEnd   int32 // slots below are named locals, params and loop variables
	indexSlot  int32 // the thread index's slot, -1 unless a thread array's own code
	tidCovered []bool
	tidOnly    []bool
	tidArray   []bool // by slot: a tid array whose every slot is tid-only starts here
}

// regionAt returns the region that holds pc.
func (b *body) regionAt(pc int32) *region {
	i := sort.Search(len(b.regions), func(i int) bool { return b.regions[i].hi > pc })
	if i == len(b.regions) {
		i--
	}
	return &b.regions[i]
}

// many reports whether the instruction at pc may run more than once in
// a thread running b: it is in a loop, or in a function that may run
// more than once.
func (b *body) many(pc int32) bool {
	if b.inLoop[pc] {
		return true
	}
	r := b.regionAt(pc)
	return r.fn >= 0 && (r.fn >= len(b.callsMany) || b.callsMany[r.fn])
}

type stepRef struct {
	st *Statement
	i  int32
}

// rec is one access of a step to a Loc: a read or a write of a shared
// word, or a use of a mutex or condition variable (lock, unlock, trylock,
// wait, wake, signal and broadcast write what they use). A call's step
// has the accesses of every step it stands for.
type rec struct {
	st       *Statement
	step     int
	loc      *Loc
	kind     StepKind // the step's kind; Read or Write for the accesses of atomic blocks
	wr       bool
	sync     bool // a mutex or condition variable operation
	inAtomic bool
	v        int   // index of the shared variable in checked.Shared, -1 if unknown
	pc       int32 // the instruction whose held locks apply
	// For the accesses of a call: the call's pc and the function whose
	// step it is (gate -1, via nil otherwise).
	gate int32
	via  *analysis.Object
}

func (r *rec) write() bool { return r.wr }

// live reports whether the access can run: its body runs and some path
// reaches it (and, for a call's, the call).
func (r *rec) live() bool {
	b := r.st.b
	return b.runs != Never && b.reached[r.pc] && (r.gate < 0 || b.reached[r.gate])
}

// defaultBudget is how many instructions Analyze may evaluate to follow
// the instances of thread arrays one by one (about 10 ms); past it, the
// remaining arrays' instances are evaluated together, over the range of
// their indexes.
const defaultBudget = 1 << 19

// Analyze computes the Summary of a program without errors and its
// lowered form (lower.Lower of the same program). It fails if checked has
// errors, if prog is not checked's lowering, or if ctx ends first.
func Analyze(ctx context.Context, checked *analysis.Program, prog *ir.Program) (*Summary, error) {
	return analyze(ctx, checked, prog, defaultBudget)
}

// analyze is Analyze with a budget for evaluating instances one by one.
func analyze(ctx context.Context, checked *analysis.Program, prog *ir.Program, budget int64) (sum *Summary, err error) {
	if checked == nil || prog == nil {
		return nil, errors.New("access: no program")
	}
	if checked.HasErrors() {
		return nil, errors.New("access: the program has errors")
	}
	defer func() {
		// A panic here is a bug in this package; the language server must
		// not go down with it.
		if r := recover(); r != nil {
			sum, err = nil, fmt.Errorf("access: internal error: %v", r)
		}
	}()
	if err := prog.Validate(); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	if err := unsupported(prog); err != nil {
		return nil, err
	}
	s := &Summary{checked: checked, prog: prog, ctx: ctx, budget: budget}
	if err := s.bind(); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	locals := localsByOwner(checked)
	for _, b := range s.bodies {
		if !s.alive() {
			return nil, fmt.Errorf("access: %w", ctx.Err())
		}
		if err := s.setup(b, locals[b.owner]); err != nil {
			return nil, fmt.Errorf("access: body %s: %w", b.owner.Name, err)
		}
		if !s.evaluate(b) {
			return nil, fmt.Errorf("access: %w", ctx.Err())
		}
		s.build(b)
		if !s.locksets(b) {
			return nil, fmt.Errorf("access: %w", ctx.Err())
		}
	}
	s.countRuns()
	s.index()
	return s, nil
}

// ErrUnsupported is what Analyze fails with (wrapped, with the operation
// and where it is) for a program whose lowered code holds an operation
// this package does not know (one added to engine/ir after it): rather
// than give facts that would miss such steps (and so not be sound), it
// gives none. Every step of language version 2 is analyzed: function
// calls, choose, trylock, condition variables, while loops and await.
var ErrUnsupported = errors.New("access: the program uses steps this analysis does not follow")

// unsupported returns ErrUnsupported, saying what and where, if some
// body of prog uses an operation this package does not follow.
func unsupported(prog *ir.Program) error {
	for _, b := range prog.Bodies {
		for pc, in := range b.Code {
			switch in.Op {
			case ir.OpNop, ir.OpMov, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpMod, ir.OpNeg, ir.OpNot,
				ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpAddI, ir.OpMulI, ir.OpJmp, ir.OpJz, ir.OpJnz,
				ir.OpJge, ir.OpJlt, ir.OpCheck, ir.OpLdx, ir.OpStx, ir.OpAssert, ir.OpAssume, ir.OpEnd,
				ir.OpLoopHead, ir.OpCall, ir.OpRet,
				ir.OpLoad, ir.OpStore, ir.OpLock, ir.OpUnlock, ir.OpSpawn, ir.OpJoin, ir.OpAtomic,
				ir.OpChoose, ir.OpTrylock, ir.OpWait, ir.OpWake, ir.OpSignal, ir.OpBroadcast, ir.OpAtomicEnd:
				continue
			}
			return fmt.Errorf("%w: %s uses operation %v at %s", ErrUnsupported, b.Name, in.Op, b.Ranges[pc].Start)
		}
	}
	return nil
}

// alive reports whether the context still allows work.
func (s *Summary) alive() bool { return s.ctx.Err() == nil }

// bind pairs the lowered bodies with the thread declarations and procs
// they come from, as lower.Lower lays them out: the declared threads with
// instances, then the procs, each in declaration order.
func (s *Summary) bind() error {
	c, p := s.checked, s.prog
	var owners []*analysis.Object
	for _, t := range c.ThreadObjects {
		if len(t.Instances) > 0 {
			owners = append(owners, t)
		}
	}
	first := len(owners)
	owners = append(owners, c.Procs...)
	if len(owners) != len(p.Bodies) || len(p.Procs) != len(c.Procs) || len(p.Threads) != len(c.Threads) ||
		len(p.Locations) != c.SharedSize {
		return errors.New("the lowered program does not match the checked one")
	}
	s.ofObject = make(map[*analysis.Object]*body, len(owners))
	for i, o := range owners {
		code := p.Bodies[i]
		if code.Name != o.Name || i >= first && p.Procs[i-first] != i || len(code.Code) == 0 {
			return fmt.Errorf("lowered body %d (%s) does not match %s", i, code.Name, o.Name)
		}
		b := &body{index: i, code: code, owner: o, rows: 1}
		if o.Kind == analysis.Thread {
			b.insts = o.Instances
		}
		s.bodies = append(s.bodies, b)
		s.ofObject[o] = b
	}
	s.varIndex = make(map[*analysis.Object]int, len(c.Shared))
	s.varAt = make(map[int64]int, len(c.Shared))
	for i, v := range c.Shared {
		s.varIndex[v] = i
		if v.Offset >= 0 {
			s.varAt[int64(v.Offset)] = i
		}
	}
	return nil
}

// localsByOwner lists the locals, parameters and loop variables of each
// body.
func localsByOwner(c *analysis.Program) map[*analysis.Object][]*analysis.Object {
	m := make(map[*analysis.Object][]*analysis.Object)
	for id, obj := range c.Uses {
		if obj != nil && id == obj.Ident && obj.Owner != nil && obj.Slot >= 0 {
			m[obj.Owner] = append(m[obj.Owner], obj)
		}
	}
	return m
}

// tidFrame works out which local slots of a frame of localEnd slots hold
// thread handles, from the variables declared there. Variables of
// disjoint scopes may share slots: a slot is tid-only if no variable of
// another type uses it. It reports whether a tid parameter is among
// them (a handle from outside).
func tidFrame(f *frameInfo, locals []*analysis.Object) (tidParam bool) {
	f.tidCovered = make([]bool, f.localEnd)
	f.tidOnly = make([]bool, f.localEnd)
	f.tidArray = make([]bool, f.localEnd)
	other := make([]bool, f.localEnd)
	for _, obj := range locals {
		size := analysis.SizeOf(obj.Type)
		if obj.Kind == analysis.LoopVar {
			size = 2 // the variable and the loop's bound
		}
		tid := analysis.ScalarOf(obj.Type) == analysis.Tid
		if tid && obj.Kind == analysis.Param {
			tidParam = true
		}
		for k := int64(obj.Slot); k < int64(obj.Slot)+size && k < int64(f.localEnd); k++ {
			if tid {
				f.tidCovered[k] = true
			} else {
				other[k] = true
			}
		}
	}
	for k := range f.tidOnly {
		f.tidOnly[k] = f.tidCovered[k] && !other[k]
	}
	for _, obj := range locals {
		if analysis.ScalarOf(obj.Type) != analysis.Tid || obj.Slot >= int(f.localEnd) {
			continue
		}
		all := true
		for k := int64(obj.Slot); k < int64(obj.Slot)+analysis.SizeOf(obj.Type); k++ {
			all = all && k < int64(f.localEnd) && f.tidOnly[k]
		}
		f.tidArray[obj.Slot] = all
	}
	return tidParam
}

// setup lays out what the passes need to know of a body's frames and
// code.
func (s *Summary) setup(b *body, locals []*analysis.Object) error {
	code := b.code
	n := len(code.Code)
	if len(code.Ranges) != n {
		return errors.New("ranges do not match the code")
	}
	own := int32(n)
	if len(code.Funcs) > 0 {
		own = code.Funcs[0].Entry
	}
	b.endPC = own - 1
	main := region{lo: 0, hi: own, fn: -1, obj: b.owner}
	main.frame.localEnd = int32(b.owner.FrameSize)
	if main.frame.localEnd < 0 || int(main.frame.localEnd) > len(code.Frame) {
		return errors.New("frame does not match the code")
	}
	main.frame.indexSlot = -1
	if b.owner.Kind == analysis.Thread && b.owner.IsArray {
		if code.NumParams != 1 || code.ArgSlot < int(main.frame.localEnd) || code.ArgSlot >= len(code.Frame) {
			return errors.New("no thread index slot")
		}
		main.frame.indexSlot = int32(code.ArgSlot)
	}
	// Handles in the body's own tid locals are followed; a function's
	// locals are not (they read as unknown).
	b.poolUnknown = tidFrame(&main.frame, locals)
	b.regions = append(b.regions, main)
	for i, f := range code.Funcs {
		obj := s.checked.Lookup(f.Name)
		if obj == nil || obj.Kind != analysis.Func || obj.FrameSize < 0 || obj.FrameSize > len(f.Frame) {
			return fmt.Errorf("function %s does not match the code", f.Name)
		}
		r := region{lo: f.Entry, hi: f.End, fn: i, obj: obj}
		r.frame = frameInfo{localEnd: int32(obj.FrameSize), indexSlot: -1}
		tidFrame(&r.frame, nil)
		b.regions = append(b.regions, r)
		b.funcs = append(b.funcs, obj)
	}
	b.isTarget = make([]bool, n)
	b.inLoop = make([]bool, n)
	loops := make([]int, n+1)
	for pc := range code.Code {
		in := &code.Code[pc]
		if in.Op.Info().A == ir.Target && in.A >= 0 && int(in.A) < n {
			b.isTarget[in.A] = true
			if int(in.A) <= pc { // a back edge: [A, pc] is a loop
				loops[in.A]++
				loops[pc+1]--
			}
		}
	}
	depth := 0
	for pc := range n {
		depth += loops[pc]
		b.inLoop[pc] = depth > 0
	}
	b.vis = visibles(code.Code)
	b.visAt = make([]int32, n)
	for pc := range b.visAt {
		b.visAt[pc] = -1
	}
	for k, v := range b.vis {
		b.visAt[v.pc] = int32(k)
	}
	// Each region's code against its syntax.
	b.matched = true
	k := 0
	for ri := range b.regions {
		r := &b.regions[ri]
		from := k
		for k < len(b.vis) && b.vis[k].pc < r.hi {
			k++
		}
		ok := false
		if r.obj.Body != nil {
			w := &walker{p: s.checked}
			w.stmts(r.obj.Body.Stmts)
			ok = match(code, b.vis[from:k], w.out)
		}
		b.matched = b.matched && ok
	}
	// The variable each address belongs to, from the syntax when it
	// matched: a constant index out of range (a warning, a runtime error
	// when executed) makes an address in another variable.
	b.varOf = make([][2]int, len(b.vis))
	for k := range b.vis {
		b.varOf[k] = [2]int{-1, -1}
		if !b.vis[k].syntax {
			continue
		}
		for j, e := range [2]grammar.Expr{b.vis[k].expr, b.vis[k].cond} {
			if e == nil {
				continue
			}
			if obj := s.checked.RootOf(e); obj != nil && obj.Kind == analysis.SharedVar {
				if vi, ok := s.varIndex[obj]; ok {
					b.varOf[k][j] = vi
				}
			}
		}
	}
	return nil
}

// build makes the statements and steps of a body from its visible
// instructions and what the passes found.
func (s *Summary) build(b *body) {
	code := b.code
	byRange := make(map[source.Range]*Statement)
	for k := 0; k < len(b.vis); k++ {
		v := &b.vis[k]
		if v.inner {
			continue
		}
		srng, node := code.Ranges[v.pc], v.stmt
		if v.syntax {
			srng = v.srng
		}
		st := byRange[srng]
		if st == nil {
			st = &Statement{Range: srng, Owner: b.owner, Node: node, b: b}
			if r := b.regionAt(v.pc); r.fn >= 0 {
				st.Func = r.obj
			}
			byRange[srng] = st
			b.stmts = append(b.stmts, st)
		}
		step := Step{Kind: v.kind, Range: srng, PC: int(v.pc)}
		if v.syntax {
			step.Range = v.rng
		}
		switch v.kind {
		case Read:
			step.Reads = []Loc{s.loc(b, k, 0)}
		case Write:
			step.Writes = []Loc{s.loc(b, k, 0)}
		case Lock, Unlock, Trylock:
			step.Mutex = s.loc(b, k, 0)
		case Wait, Wake:
			step.Mutex = s.loc(b, k, 0)
			step.Cond = s.loc(b, k, 1)
		case Signal, Broadcast:
			step.Cond = s.loc(b, k, 1)
		case Spawn:
			if c := code.Code[v.pc].C; c >= 0 && int(c) < len(s.checked.Procs) {
				step.Proc = s.checked.Procs[c]
			}
		case Join:
			s.joinTargets(b, k, &step)
		case Atomic:
			s.atomicAccesses(b, k, &step)
		case Call:
			if c := code.Code[v.pc].C; c >= 0 && int(c) < len(b.funcs) {
				step.Func = b.funcs[c]
			}
		}
		st.Steps = append(st.Steps, step)
	}
	b.rowSpans, b.rowAddr, b.rowJoins, b.gen = nil, nil, nil, nil
	n := len(code.Code)
	b.end = &Statement{Range: code.Ranges[b.endPC], Owner: b.owner, End: true, b: b}
	b.stmts = append(b.stmts, b.end)
	b.stepAt = make([]stepRef, n)
	b.lockLoc = make(map[int32]*Loc)
	for _, st := range b.stmts {
		for i := range st.Steps {
			b.stepAt[st.Steps[i].PC] = stepRef{st, int32(i)}
		}
	}
	s.calls(b)
}

// calls fills in the call steps of body b: each stands for every step of
// the functions it may reach (the callee, the functions it calls, and so
// on: each once, whatever the recursion), with their accesses summed up.
func (s *Summary) calls(b *body) {
	nf := len(b.funcs)
	code := b.code.Code
	// The functions each function calls directly, and the steps of each.
	callees := make([][]int32, nf)
	steps := make([][]stepRef, nf)
	for _, r := range b.regions[1:] {
		for pc := r.lo; pc < r.hi; pc++ {
			if in := code[pc]; in.Op == ir.OpCall && in.C >= 0 && int(in.C) < nf {
				callees[r.fn] = append(callees[r.fn], in.C)
			}
		}
	}
	for _, st := range b.stmts {
		if st.Func == nil {
			continue
		}
		for i := range st.Steps {
			if st.Steps[i].Kind == Call {
				continue // its function's steps are counted as reached
			}
			r := b.regionAt(int32(st.Steps[i].PC))
			if r.fn >= 0 {
				steps[r.fn] = append(steps[r.fn], stepRef{st, int32(i)})
			}
		}
	}
	reach := make([][]int32, nf)
	b.reach = reach
	seen := make([]bool, nf)
	for f := range nf {
		clear(seen)
		queue := []int32{int32(f)}
		seen[f] = true
		for len(queue) > 0 {
			g := queue[0]
			queue = queue[1:]
			reach[f] = append(reach[f], g)
			for _, h := range callees[g] {
				if !seen[h] {
					seen[h] = true
					queue = append(queue, h)
				}
			}
		}
	}
	for _, st := range b.stmts {
		for i := range st.Steps {
			step := &st.Steps[i]
			c := code[step.PC].C
			if step.Kind != Call || c < 0 || int(c) >= nf {
				continue
			}
			for _, g := range reach[c] {
				for _, ref := range steps[g] {
					step.inner = append(step.inner, ref)
					in := &ref.st.Steps[ref.i]
					for _, l := range in.Reads {
						step.Reads = addLoc(step.Reads, l)
					}
					for _, l := range in.Writes {
						step.Writes = addLoc(step.Writes, l)
					}
					switch in.Kind {
					case Lock, Unlock, Trylock:
						step.Sync = addLoc(step.Sync, in.Mutex)
					case Wait, Wake:
						step.Sync = addLoc(step.Sync, in.Mutex)
						step.Sync = addLoc(step.Sync, in.Cond)
					case Signal, Broadcast:
						step.Sync = addLoc(step.Sync, in.Cond)
					case Join:
						step.JoinsAny = step.JoinsAny || in.JoinsAny
						step.Joins = mergeJoins(step.Joins, in.Joins)
					case Spawn:
						if in.Proc != nil && !slices.Contains(step.Spawns, in.Proc) {
							step.Spawns = append(step.Spawns, in.Proc)
						}
					}
				}
			}
		}
	}
}

// addLoc adds l to list unless it is there (the same name and words).
func addLoc(list []Loc, l Loc) []Loc {
	for i := range list {
		if list[i].Name == l.Name && list[i].Lo == l.Lo && list[i].Hi == l.Hi && sameSpans(list[i].inst, l.inst) {
			return list
		}
	}
	return append(list, l)
}

// mergeJoins adds the thread sets of add to list, one per owner (the
// instances of a thread array united, in index order).
func mergeJoins(list, add []ThreadSet) []ThreadSet {
	for _, ts := range add {
		i := slices.IndexFunc(list, func(x ThreadSet) bool { return x.Owner == ts.Owner })
		if i < 0 {
			list = append(list, ThreadSet{Owner: ts.Owner, Instances: slices.Clone(ts.Instances)})
			continue
		}
		for _, in := range ts.Instances {
			if !slices.Contains(list[i].Instances, in) {
				list[i].Instances = append(list[i].Instances, in)
			}
		}
		slices.SortFunc(list[i].Instances, func(x, y *analysis.ThreadInstance) int { return cmp.Compare(x.Index, y.Index) })
	}
	return list
}

// atomicAccesses fills in what an atomic block (at b.vis[k]) reads and
// writes: its accesses, or for an unstable block everything it may
// access, as the engine's dependence takes it.
func (s *Summary) atomicAccesses(b *body, k int, step *Step) {
	fp := b.code.Atomics[b.vis[k].pc]
	step.Stable = fp == nil || fp.Stable
	if step.Stable {
		for j := k + 1; j < len(b.vis) && b.vis[j].inner; j++ {
			if b.vis[j].kind == Read {
				step.Reads = addLoc(step.Reads, s.loc(b, j, 0))
			} else {
				step.Writes = addLoc(step.Writes, s.loc(b, j, 0))
			}
		}
		return
	}
	for _, r := range fp.Reads {
		for _, l := range s.rangeLocs(r) {
			step.Reads = addLoc(step.Reads, l)
		}
	}
	for _, r := range fp.Writes {
		for _, l := range s.rangeLocs(r) {
			step.Writes = addLoc(step.Writes, l)
		}
	}
}

func sameSpans(a, b []span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// varSpan is the words of shared variable vi ([0, all) if vi < 0).
func (s *Summary) varSpan(vi int) (span, *analysis.Object) {
	if vi >= 0 && vi < len(s.checked.Shared) {
		o := s.checked.Shared[vi]
		return span{int32(o.Offset), int32(int64(o.Offset) + analysis.SizeOf(o.Type))}, o
	}
	return span{0, int32(len(s.prog.Locations))}, nil
}

// clip is the words an address value may denote within the variable's
// words vs.
func clip(v val, vs span) span {
	switch {
	case !v.known || len(v.procs) > 0:
		return vs
	case v.lo >= v.hi:
		return span{vs.lo, vs.lo}
	}
	lo, hi := max(v.lo, int64(vs.lo)), min(v.hi, int64(vs.hi))
	if lo >= hi {
		return span{vs.lo, vs.lo}
	}
	return span{int32(lo), int32(hi)}
}

// loc makes the Loc of address j (0: the word read or written, the
// mutex; 1: the condition variable) of the step at b.vis[k].
func (s *Summary) loc(b *body, k, j int) Loc {
	g := b.gen[k]
	vs, obj := s.varSpan(g.root[j])
	l := Loc{Var: obj}
	hull := clip(g.v[j], vs)
	if b.rowSpans != nil {
		rows := make([]span, len(b.rowSpans))
		same := true
		for r := range rows {
			rows[r] = b.rowSpans[r][b.rowAddr[k]+int32(j)]
			same = same && rows[r] == rows[0]
		}
		if same {
			hull = rows[0]
		} else {
			l.inst = rows
			hull = span{}
			for _, sp := range rows {
				switch {
				case sp.empty():
				case hull.empty():
					hull = sp
				default:
					hull = span{min(hull.lo, sp.lo), max(hull.hi, sp.hi)}
				}
			}
		}
	}
	l.Lo, l.Hi = hull.lo, hull.hi
	l.PerInstance = l.inst != nil
	l.Exact = !hull.empty()
	for r := range b.rows {
		if sp := l.rowSpan(r); !sp.empty() && sp.hi-sp.lo != 1 {
			l.Exact = false
		}
	}
	expr := b.vis[k].expr
	if j == 1 {
		expr = b.vis[k].cond
	}
	switch {
	case l.Exact && l.inst == nil:
		l.Name = s.prog.Locations[l.Lo].Name
	case b.vis[k].syntax && expr != nil:
		l.Name = placeName(s.checked, expr)
	default:
		l.Name = wholeName(obj)
	}
	return l
}

// rangeLocs makes the Locs of a range of words from an atomic block's
// footprint: one per shared variable it covers (lowering merges the
// ranges of adjacent variables).
func (s *Summary) rangeLocs(r ir.LocRange) []Loc {
	lo, hi := max(r.Lo, 0), min(r.Hi, int32(len(s.prog.Locations)))
	var out []Loc
	for lo < hi {
		vs, obj := s.varSpan(s.prog.Locations[lo].Var)
		end := hi
		if obj != nil && vs.hi > lo && vs.hi < hi {
			end = vs.hi
		}
		l := Loc{Var: obj, Lo: lo, Hi: end, Exact: end-lo == 1}
		if end > vs.hi || lo < vs.lo {
			l.Var = nil
		}
		if l.Exact {
			l.Name = s.prog.Locations[lo].Name
		} else {
			l.Name = wholeName(l.Var)
		}
		out = append(out, l)
		lo = end
	}
	return out
}

// wholeName names any element of a variable: "c", "a[*]", "g[*][*]".
func wholeName(obj *analysis.Object) string {
	if obj == nil {
		return "?"
	}
	var b strings.Builder
	b.WriteString(obj.Name)
	for t := obj.Type; analysis.IsArray(t); t = t.(*analysis.Array).Elem {
		b.WriteString("[*]")
	}
	return b.String()
}

// joinTargets fills in the threads a join (at b.vis[k]) may wait for.
func (s *Summary) joinTargets(b *body, k int, step *Step) {
	vals := []val{b.gen[k].v[0]}
	if rows, ok := b.rowJoins[k]; ok {
		vals = rows
	}
	n := int64(len(s.checked.Threads))
	declared := make(map[int64]bool)
	procs := make(map[int32]bool)
	for _, v := range vals {
		if !v.known {
			step.JoinsAny = true
			continue
		}
		for _, p := range v.procs {
			procs[p] = true
		}
		if v.lo >= v.hi {
			continue
		}
		if v.hi > n+1 {
			step.JoinsAny = true // a handle beyond the declared threads: some spawned thread
		}
		for t := max(v.lo, 1); t < min(v.hi, n+1); t++ {
			declared[t-1] = true
		}
	}
	for i, inst := range s.checked.Threads {
		if !declared[int64(i)] {
			continue
		}
		if m := len(step.Joins); m > 0 && step.Joins[m-1].Owner == inst.Object {
			step.Joins[m-1].Instances = append(step.Joins[m-1].Instances, inst)
		} else {
			step.Joins = append(step.Joins, ThreadSet{Owner: inst.Object, Instances: []*analysis.ThreadInstance{inst}})
		}
	}
	for i, pr := range s.checked.Procs {
		if procs[int32(i)] {
			step.Joins = append(step.Joins, ThreadSet{Owner: pr})
		}
	}
}

// countRuns works out how many threads run each proc: the least
// solution of runs(P) = the sum, over the reachable spawns of P, of
// Once, or Many when the spawn is in a loop or in a body that runs more
// than once (saturating at Many).
func (s *Summary) countRuns() {
	type site struct {
		from *body
		loop bool
	}
	sites := make(map[*body][]site)
	for _, b := range s.bodies {
		b.countCalls()
		switch {
		case b.owner.Kind != analysis.Thread:
			b.runs = Never
		case len(b.insts) == 1:
			b.runs = Once
		default:
			b.runs = Many
		}
		for _, st := range b.stmts {
			for i := range st.Steps {
				step := &st.Steps[i]
				if step.Kind == Spawn && step.Proc != nil && b.reached[step.PC] {
					to := s.ofObject[step.Proc]
					sites[to] = append(sites[to], site{b, b.many(int32(step.PC))})
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for to, list := range sites {
			runs := Never
			for _, st := range list {
				if st.from.runs == Never {
					continue
				}
				if st.loop || st.from.runs == Many || runs != Never {
					runs = Many
				} else {
					runs = Once
				}
			}
			if runs > to.runs {
				to.runs = runs
				changed = true
			}
		}
	}
}

// countCalls works out which functions of b may run more than once in
// a thread (callsMany): the least solution of calls(f) = the sum, over
// the reachable calls of f, of Once, or Many when the call is in a loop
// or in a function that may run more than once (saturating at Many; a
// recursive function called at all is Many).
func (b *body) countCalls() {
	nf := len(b.funcs)
	b.callsMany = make([]bool, nf)
	if nf == 0 {
		return
	}
	code := b.code.Code
	count := make([]Multiplicity, nf)
	for changed := true; changed; {
		changed = false
		next := make([]Multiplicity, nf)
		for _, r := range b.regions {
			from := Once
			if r.fn >= 0 {
				from = count[r.fn]
			}
			if from == Never {
				continue
			}
			for pc := r.lo; pc < r.hi; pc++ {
				in := code[pc]
				if in.Op != ir.OpCall || in.C < 0 || int(in.C) >= nf || !b.reached[pc] {
					continue
				}
				if from == Many || b.inLoop[pc] || next[in.C] != Never {
					next[in.C] = Many
				} else {
					next[in.C] = Once
				}
			}
		}
		for f := range nf {
			if next[f] > count[f] {
				count[f], changed = next[f], true
			}
		}
	}
	for f := range nf {
		b.callsMany[f] = count[f] == Many
	}
	// Which code is inside atomic blocks, then the functions called only
	// there (a greatest fixed point: recursion inside a block stays in).
	inAtomic := make([]bool, len(code))
	for pc, in := range code {
		if in.Op == ir.OpAtomic {
			for k := pc + 1; k < atomicEnd(code, pc); k++ {
				inAtomic[k] = true
			}
		}
	}
	b.atomicOnly = make([]bool, nf)
	for f := range nf {
		b.atomicOnly[f] = true
	}
	for changed := true; changed; {
		changed = false
		for _, r := range b.regions {
			if r.fn >= 0 && !b.reached[r.lo] {
				continue // never called: its calls do not run
			}
			for pc := r.lo; pc < r.hi; pc++ {
				in := code[pc]
				if in.Op != ir.OpCall || in.C < 0 || int(in.C) >= nf || !b.reached[pc] || !b.atomicOnly[in.C] {
					continue
				}
				if !inAtomic[pc] && (r.fn < 0 || !b.atomicOnly[r.fn]) {
					b.atomicOnly[in.C], changed = false, true
				}
			}
		}
	}
}

// index makes the access records, indexes them by shared variable, and
// sorts the statements.
func (s *Summary) index() {
	s.byVar = make([][]*rec, len(s.checked.Shared))
	for _, b := range s.bodies {
		for _, st := range b.stmts {
			s.stmts = append(s.stmts, st)
			for i := range st.Steps {
				step := &st.Steps[i]
				if step.Kind == Call {
					s.callRecs(st, i)
					continue
				}
				// The steps of a function that runs only inside atomic
				// blocks are part of those blocks' steps.
				r := b.regionAt(int32(step.PC))
				inBlock := r.fn >= 0 && r.fn < len(b.atomicOnly) && b.atomicOnly[r.fn]
				forEachAccess(step, func(l *Loc, kind StepKind, write, sync, inAtomic bool) {
					s.addRec(&rec{st: st, step: i, loc: l, kind: kind, wr: write, sync: sync, inAtomic: inAtomic || inBlock,
						v: -1, pc: int32(step.PC), gate: -1})
				})
				if step.Kind == Join {
					s.joins = append(s.joins, &rec{st: st, step: i, v: -1, pc: int32(step.PC), gate: -1})
				}
			}
		}
	}
	sort.SliceStable(s.stmts, func(i, j int) bool {
		a, b := s.stmts[i].Range, s.stmts[j].Range
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset < b.Start.Offset
		}
		return a.End.Offset > b.End.Offset
	})
}

// callRecs adds the records of the call step st.Steps[i]: the accesses
// of every step it stands for, and a join record if it may join.
func (s *Summary) callRecs(st *Statement, i int) {
	step := &st.Steps[i]
	for _, ref := range step.inner {
		in := &ref.st.Steps[ref.i]
		forEachAccess(in, func(l *Loc, kind StepKind, write, sync, inAtomic bool) {
			s.addRec(&rec{st: st, step: i, loc: l, kind: kind, wr: write, sync: sync, inAtomic: inAtomic,
				v: -1, pc: int32(in.PC), gate: int32(step.PC), via: ref.st.Func})
		})
	}
	if len(step.Joins) > 0 || step.JoinsAny {
		s.joins = append(s.joins, &rec{st: st, step: i, v: -1, pc: int32(step.PC), gate: -1})
	}
}

// addRec indexes r by its shared variable and adds it to its statement.
func (s *Summary) addRec(r *rec) {
	if r.loc.Var != nil {
		r.v = s.varIndex[r.loc.Var]
		s.byVar[r.v] = append(s.byVar[r.v], r)
	} else {
		s.anyVar = append(s.anyVar, r)
	}
	r.st.recs = append(r.st.recs, r)
}

// forEachAccess calls f for each access of a step that is not a call:
// the words it reads and writes, and the mutex and condition variable it
// uses (every use of them is a write, as in ir.Footprint; a wake-up
// writes its condition variable when spurious wake-ups are explored).
func forEachAccess(step *Step, f func(l *Loc, kind StepKind, write, sync, inAtomic bool)) {
	switch step.Kind {
	case Lock, Unlock, Trylock:
		f(&step.Mutex, step.Kind, true, true, false)
	case Wait:
		f(&step.Mutex, step.Kind, true, true, false)
		f(&step.Cond, step.Kind, true, true, false)
	case Wake:
		f(&step.Cond, step.Kind, true, true, false)
		f(&step.Mutex, step.Kind, true, true, false)
	case Signal, Broadcast:
		f(&step.Cond, step.Kind, true, true, false)
	case Read, Write, Atomic:
		atomic := step.Kind == Atomic
		for j := range step.Reads {
			f(&step.Reads[j], Read, false, false, atomic)
		}
		for j := range step.Writes {
			f(&step.Writes[j], Write, true, false, atomic)
		}
	}
}
