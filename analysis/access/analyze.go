package access

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"weft/analysis"
	"weft/engine/ir"
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

// body is the analysis of one thread or proc body.
type body struct {
	index int
	code  *ir.Body
	owner *analysis.Object
	insts []*analysis.ThreadInstance // a declared thread's instances; nil for a proc
	runs  Multiplicity
	// rows is the number of evaluation rows: one per instance when a
	// thread array's instances were evaluated one by one, else 1.
	rows int

	localEnd    int32 // slots below are named locals, params and loop variables
	indexSlot   int32 // the thread index's slot, -1 unless a thread array
	tidCovered  []bool
	tidOnly     []bool
	tidArray    []bool // by slot: a tid array whose every slot is tid-only starts here
	poolUnknown bool   // tid locals may hold handles from outside (tid parameters)
	isTarget    []bool

	vis     []vis
	visAt   []int32      // by pc: position in vis, -1
	matched bool         // vis carries the syntax
	varOf   []int        // by position in vis: the shared variable the syntax accesses, -1
	gen     []evalResult // the pass over every instance at once, by position in vis
	// When instances were evaluated one by one: the words of each access
	// by row and position in vis, and each join's handles by position
	// and row. Released once the steps are built.
	rowSpans [][]span
	rowJoins map[int][]val

	stmts  []*Statement // in code order
	stepAt []stepRef    // by pc
	end    *Statement
	// held holds, by pc, the locks (canonical lock pcs) held before the
	// instruction; reached says which pcs any path from the start reaches.
	held    [][]int32
	reached []bool
	inLoop  []bool
	lockLoc map[int32]*Loc
}

type stepRef struct {
	st *Statement
	i  int32
}

// rec is one access of a step to a Loc (a lock or an unlock accesses its
// mutex).
type rec struct {
	st       *Statement
	step     int
	loc      *Loc
	kind     StepKind // Read, Write, Lock or Unlock
	inAtomic bool
	v        int   // index of the shared variable in checked.Shared, -1 if unknown
	pc       int32 // the instruction whose held locks apply
}

func (r *rec) write() bool { return r.kind != Read }

// live reports whether the access can run: its body runs and some path
// reaches it.
func (r *rec) live() bool {
	b := r.st.b
	return b.runs != Never && b.reached[r.pc]
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

// ErrUnsupported is what Analyze fails with (wrapped, with the feature
// and where it is) for a program that uses the steps of language version
// 2 this package does not follow yet: function calls, choose, trylock and
// condition variables. Rather than give facts that would miss those steps
// (and so not be sound), it gives none. (While loops and await are
// followed: their loop heads are not steps.)
var ErrUnsupported = errors.New("access: language version 2 steps are not analyzed yet")

// unsupported returns ErrUnsupported, saying what and where, if some
// body of prog uses a step this package does not follow.
func unsupported(prog *ir.Program) error {
	for _, b := range prog.Bodies {
		for pc, in := range b.Code {
			var what string
			switch in.Op {
			case ir.OpCall, ir.OpRet:
				what = "a function call"
			case ir.OpChoose:
				what = "choose"
			case ir.OpTrylock:
				what = "trylock"
			case ir.OpWait, ir.OpWake, ir.OpSignal, ir.OpBroadcast:
				what = "a condition variable"
			default:
				continue
			}
			return fmt.Errorf("%w: %s uses %s at %s", ErrUnsupported, b.Name, what, b.Ranges[pc].Start)
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

// setup lays out what the passes need to know of a body's frame and code.
func (s *Summary) setup(b *body, locals []*analysis.Object) error {
	code := b.code
	n := len(code.Code)
	b.localEnd = int32(b.owner.FrameSize)
	if b.localEnd < 0 || int(b.localEnd) > len(code.Frame) || len(code.Ranges) != n {
		return errors.New("frame or ranges do not match the code")
	}
	b.indexSlot = -1
	if b.owner.Kind == analysis.Thread && b.owner.IsArray {
		if code.NumParams != 1 || code.ArgSlot < int(b.localEnd) || code.ArgSlot >= len(code.Frame) {
			return errors.New("no thread index slot")
		}
		b.indexSlot = int32(code.ArgSlot)
	}
	// Which local slots hold thread handles. Variables of disjoint scopes
	// may share slots: a slot is tid-only if no variable of another type
	// uses it.
	b.tidCovered = make([]bool, b.localEnd)
	b.tidOnly = make([]bool, b.localEnd)
	b.tidArray = make([]bool, b.localEnd)
	other := make([]bool, b.localEnd)
	for _, obj := range locals {
		size := analysis.SizeOf(obj.Type)
		if obj.Kind == analysis.LoopVar {
			size = 2 // the variable and the loop's bound
		}
		tid := analysis.ScalarOf(obj.Type) == analysis.Tid
		if tid && obj.Kind == analysis.Param {
			b.poolUnknown = true
		}
		for k := int64(obj.Slot); k < int64(obj.Slot)+size && k < int64(b.localEnd); k++ {
			if tid {
				b.tidCovered[k] = true
			} else {
				other[k] = true
			}
		}
	}
	for k := range b.tidOnly {
		b.tidOnly[k] = b.tidCovered[k] && !other[k]
	}
	for _, obj := range locals {
		if analysis.ScalarOf(obj.Type) != analysis.Tid || obj.Slot >= int(b.localEnd) {
			continue
		}
		all := true
		for k := int64(obj.Slot); k < int64(obj.Slot)+analysis.SizeOf(obj.Type); k++ {
			all = all && k < int64(b.localEnd) && b.tidOnly[k]
		}
		b.tidArray[obj.Slot] = all
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
	if body := b.owner.Body; body != nil {
		w := &walker{p: s.checked}
		w.stmts(body.Stmts)
		b.matched = match(code, b.vis, w.out)
	}
	// The variable each access belongs to, from the syntax when it
	// matched: a constant index out of range (a warning, a runtime error
	// when executed) makes an address in another variable.
	b.varOf = make([]int, len(b.vis))
	for k := range b.vis {
		b.varOf[k] = -1
		if !b.matched || b.vis[k].expr == nil {
			continue
		}
		if obj := s.checked.RootOf(b.vis[k].expr); obj != nil && obj.Kind == analysis.SharedVar {
			if vi, ok := s.varIndex[obj]; ok {
				b.varOf[k] = vi
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
		if b.matched {
			srng = v.srng
		}
		st := byRange[srng]
		if st == nil {
			st = &Statement{Range: srng, Owner: b.owner, Node: node, b: b}
			byRange[srng] = st
			b.stmts = append(b.stmts, st)
		}
		step := Step{Kind: v.kind, Range: srng, PC: int(v.pc)}
		if b.matched {
			step.Range = v.rng
		}
		switch v.kind {
		case Read:
			step.Reads = []Loc{s.loc(b, k)}
		case Write:
			step.Writes = []Loc{s.loc(b, k)}
		case Lock, Unlock:
			step.Mutex = s.loc(b, k)
		case Spawn:
			if c := code.Code[v.pc].C; c >= 0 && int(c) < len(s.checked.Procs) {
				step.Proc = s.checked.Procs[c]
			}
		case Join:
			s.joinTargets(b, k, &step)
		case Atomic:
			s.atomicAccesses(b, k, &step)
		}
		st.Steps = append(st.Steps, step)
	}
	b.rowSpans, b.rowJoins, b.gen = nil, nil, nil
	n := len(code.Code)
	b.end = &Statement{Range: code.Ranges[n-1], Owner: b.owner, End: true, b: b}
	b.stmts = append(b.stmts, b.end)
	b.stepAt = make([]stepRef, n)
	b.lockLoc = make(map[int32]*Loc)
	for _, st := range b.stmts {
		for i := range st.Steps {
			b.stepAt[st.Steps[i].PC] = stepRef{st, int32(i)}
		}
	}
}

// atomicAccesses fills in what an atomic block (at b.vis[k]) reads and
// writes: its accesses, or for an unstable block everything it may
// access, as the engine's dependence takes it.
func (s *Summary) atomicAccesses(b *body, k int, step *Step) {
	fp := b.code.Atomics[b.vis[k].pc]
	step.Stable = fp == nil || fp.Stable
	add := func(list []Loc, l Loc) []Loc {
		for i := range list {
			if list[i].Name == l.Name && list[i].Lo == l.Lo && list[i].Hi == l.Hi && sameSpans(list[i].inst, l.inst) {
				return list
			}
		}
		return append(list, l)
	}
	if step.Stable {
		for j := k + 1; j < len(b.vis) && b.vis[j].inner; j++ {
			if b.vis[j].kind == Read {
				step.Reads = add(step.Reads, s.loc(b, j))
			} else {
				step.Writes = add(step.Writes, s.loc(b, j))
			}
		}
		return
	}
	for _, r := range fp.Reads {
		step.Reads = add(step.Reads, s.rangeLoc(r))
	}
	for _, r := range fp.Writes {
		step.Writes = add(step.Writes, s.rangeLoc(r))
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

// loc makes the Loc of the access at b.vis[k].
func (s *Summary) loc(b *body, k int) Loc {
	g := b.gen[k]
	vs, obj := s.varSpan(g.root)
	l := Loc{Var: obj}
	hull := clip(g.v, vs)
	if b.rowSpans != nil {
		rows := make([]span, len(b.rowSpans))
		same := true
		for r := range rows {
			rows[r] = b.rowSpans[r][k]
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
	switch {
	case l.Exact && l.inst == nil:
		l.Name = s.prog.Locations[l.Lo].Name
	case b.matched && b.vis[k].expr != nil:
		l.Name = placeName(s.checked, b.vis[k].expr)
	default:
		l.Name = wholeName(obj)
	}
	return l
}

// rangeLoc makes the Loc of a range of words from an atomic block's
// footprint.
func (s *Summary) rangeLoc(r ir.LocRange) Loc {
	lo, hi := max(r.Lo, 0), min(r.Hi, int32(len(s.prog.Locations)))
	if lo >= hi {
		return Loc{Name: "?"}
	}
	vi := s.prog.Locations[lo].Var
	vs, obj := s.varSpan(vi)
	l := Loc{Var: obj, Lo: lo, Hi: hi, Exact: hi-lo == 1}
	if hi > vs.hi || lo < vs.lo {
		l.Var = nil
	}
	if l.Exact {
		l.Name = s.prog.Locations[lo].Name
	} else {
		l.Name = wholeName(l.Var)
	}
	return l
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
	vals := []val{b.gen[k].v}
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
					sites[to] = append(sites[to], site{b, b.inLoop[step.PC]})
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

// index makes the access records, indexes them by shared variable, and
// sorts the statements.
func (s *Summary) index() {
	s.byVar = make([][]*rec, len(s.checked.Shared))
	for _, b := range s.bodies {
		for _, st := range b.stmts {
			s.stmts = append(s.stmts, st)
			for i := range st.Steps {
				step := &st.Steps[i]
				add := func(l *Loc, kind StepKind) {
					r := &rec{st: st, step: i, loc: l, kind: kind, inAtomic: step.Kind == Atomic, v: -1, pc: int32(step.PC)}
					if l.Var != nil {
						r.v = s.varIndex[l.Var]
						s.byVar[r.v] = append(s.byVar[r.v], r)
					} else {
						s.anyVar = append(s.anyVar, r)
					}
					st.recs = append(st.recs, r)
				}
				switch step.Kind {
				case Lock, Unlock:
					add(&step.Mutex, step.Kind)
				case Join:
					s.joins = append(s.joins, &rec{st: st, step: i, v: -1, pc: int32(step.PC)})
				default:
					for j := range step.Reads {
						add(&step.Reads[j], Read)
					}
					for j := range step.Writes {
						add(&step.Writes[j], Write)
					}
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
