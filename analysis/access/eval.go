package access

import (
	"math"
	"math/bits"
	"slices"

	"weft/engine/ir"
)

// val is what the evaluation knows of a frame slot's value: an int64 in
// [lo, hi), or a thread handle of a thread spawned from one of procs
// (either, when both are given). known false: anything.
type val struct {
	known  bool
	lo, hi int64
	procs  []int32 // sorted; shared between vals, never modified
}

func pointVal(c int64) val { return val{known: true, lo: c, hi: c + 1} }

// intervalVal is [lo, hi) with lo < hi, or unknown if the bounds
// overflowed.
func intervalVal(lo, hi int64, ok bool) val {
	if !ok || lo >= hi {
		return val{}
	}
	return val{known: true, lo: lo, hi: hi}
}

// isInt reports whether v is a non-empty interval of integers only.
func (v val) isInt() bool { return v.known && len(v.procs) == 0 && v.lo < v.hi }

func (v val) point() (int64, bool) {
	if v.isInt() && v.hi-v.lo == 1 {
		return v.lo, true
	}
	return 0, false
}

func (v val) equal(w val) bool {
	if v.known != w.known {
		return false
	}
	return !v.known || v.lo == w.lo && v.hi == w.hi && slices.Equal(v.procs, w.procs)
}

// union is a val that holds whatever v or w holds.
func union(v, w val) val {
	if !v.known || !w.known {
		return val{}
	}
	u := val{known: true, lo: v.lo, hi: v.hi}
	switch {
	case v.lo >= v.hi:
		u.lo, u.hi = w.lo, w.hi
	case w.lo < w.hi:
		u.lo, u.hi = min(v.lo, w.lo), max(v.hi, w.hi)
	}
	u.procs = v.procs
	for _, p := range w.procs {
		if _, found := slices.BinarySearch(u.procs, p); !found {
			u.procs = slices.Clone(u.procs)
			i, _ := slices.BinarySearch(u.procs, p)
			u.procs = slices.Insert(u.procs, i, p)
		}
	}
	return u
}

func add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0) || b == 0
}

func sub64(a, b int64) (int64, bool) {
	s := a - b
	return s, (s < a) == (b > 0) || b == 0
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
	if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	p := int64(lo)
	if (a < 0) != (b < 0) {
		p = -p
	}
	return p, true
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func addVals(a, b val) val {
	if !a.isInt() || !b.isInt() {
		return val{}
	}
	lo, ok1 := add64(a.lo, b.lo)
	hi, ok2 := add64(a.hi-1, b.hi-1)
	hi, ok3 := add64(hi, 1)
	return intervalVal(lo, hi, ok1 && ok2 && ok3)
}

func subVals(a, b val) val {
	if !a.isInt() || !b.isInt() {
		return val{}
	}
	lo, ok1 := sub64(a.lo, b.hi-1)
	hi, ok2 := sub64(a.hi-1, b.lo)
	hi, ok3 := add64(hi, 1)
	return intervalVal(lo, hi, ok1 && ok2 && ok3)
}

func mulConst(a val, k int64) val {
	if !a.isInt() {
		return val{}
	}
	x, ok1 := mul64(a.lo, k)
	y, ok2 := mul64(a.hi-1, k)
	if x > y {
		x, y = y, x
	}
	hi, ok3 := add64(y, 1)
	return intervalVal(x, hi, ok1 && ok2 && ok3)
}

func mulVals(a, b val) val {
	if k, ok := b.point(); ok {
		return mulConst(a, k)
	}
	if k, ok := a.point(); ok {
		return mulConst(b, k)
	}
	return val{}
}

func divVals(a, b val) val {
	x, ok1 := a.point()
	y, ok2 := b.point()
	if !ok1 || !ok2 || y == 0 || x == math.MinInt64 && y == -1 {
		return val{}
	}
	return pointVal(x / y)
}

func modVals(a, b val) val {
	y, ok := b.point()
	if !ok || y == 0 || !a.isInt() {
		return val{}
	}
	if x, ok := a.point(); ok {
		if x == math.MinInt64 && y == -1 {
			return val{}
		}
		return pointVal(x % y)
	}
	if y == math.MinInt64 {
		return val{}
	}
	d := abs64(y)
	if a.lo >= 0 {
		return val{known: true, lo: 0, hi: min(d, a.hi)}
	}
	return val{known: true, lo: -(d - 1), hi: d}
}

func negVal(a val) val {
	if !a.isInt() || a.lo == math.MinInt64 {
		return val{}
	}
	return intervalVal(-(a.hi - 1), -a.lo+1, true)
}

var boolVal = val{known: true, lo: 0, hi: 2}

// ---------------------------------------------------------------------------
// The pass

// noAdd marks a slot whose last writer is not an OpAddI.
const noAdd = math.MinInt64

// evalResult is what one pass found at a visible instruction that
// addresses shared memory or joins: each address (or thread handle: 0,
// the word read or written, the mutex, the handle; 1, the condition
// variable), and the shared variable it belongs to (-1 if unknown).
type evalResult struct {
	v    [2]val
	root [2]int
}

// pass evaluates one body's code once, in code order, for one value of
// the thread index (or the range of them).
//
// Temporaries and constants are tracked in code order: lowering writes a
// temporary before every read of it within one statement, so the last
// writer in code order is the one that reaches. Named locals (slots below
// localEnd) can change along any back edge, so they are never tracked:
// they read as unknown, except just after a bounds check in the same
// basic block, and except tid locals of the body's own code, which read
// as the pool of every handle stored in any tid local of the body (a
// flow-insensitive union). Each function's code starts afresh from its
// own initial frame: its parameters and locals read as unknown (a call
// may pass anything), its constants as what they are. What a call
// returns, and anything else an instruction writes that the pass does not
// compute, is unknown.
type pass struct {
	b   *body
	s   *Summary
	f   *frameInfo // the frame of the region being evaluated
	idx val        // the thread index
	// pool holds every value stored in a tid local so far; poolIn is
	// what reads of tid locals see in this pass.
	pool, poolIn val
	cur          []val
	lastAdd      []int64
	// A bounds check refines a slot until the next write of it or the
	// end of the basic block: refinedVal[s] holds if refinedGen[s] is
	// the block's generation gen.
	refinedVal []val
	refinedGen []uint32
	gen        uint32
	out        []evalResult // by position in b.vis
}

func (p *pass) read(s int32) val {
	if p.refinedGen[s] == p.gen {
		return p.refinedVal[s]
	}
	f := p.f
	switch {
	case s == f.indexSlot:
		return p.idx
	case s < f.localEnd:
		if f.tidOnly[s] {
			return p.poolIn
		}
		return val{}
	}
	return p.cur[s]
}

func (p *pass) write(s int32, v val, addImm int64) {
	p.refinedGen[s] = 0
	f := p.f
	if s < f.localEnd || s == f.indexSlot {
		if s < f.localEnd && f.tidCovered[s] {
			p.pool = union(p.pool, v)
		}
		return
	}
	p.cur[s] = v
	p.lastAdd[s] = addImm
}

// check records that s is in [0, n) until the end of the basic block or
// the next write of s (the instruction stops the thread otherwise). The
// refinement is not stored in the slot: a constant's slot serves every
// statement of the body.
func (p *pass) check(s int32, n int64) {
	v := p.read(s)
	if v.isInt() {
		v = val{known: true, lo: max(v.lo, 0), hi: min(v.hi, n)}
		if v.lo >= v.hi {
			v = val{known: true} // the check always fails: no value gets past it
		}
	} else {
		v = val{known: true, lo: 0, hi: n}
	}
	p.refinedVal[s], p.refinedGen[s] = v, p.gen
}

// run evaluates the body's code, region by region. It returns false if
// ctx ended.
func (p *pass) run() bool {
	b := p.b
	code := b.code.Code
	size := len(b.code.Frame)
	for _, f := range b.code.Funcs {
		size = max(size, len(f.Frame))
	}
	if len(p.cur) != size {
		p.cur = make([]val, size)
		p.lastAdd = make([]int64, size)
		p.refinedVal = make([]val, size)
		p.refinedGen = make([]uint32, size)
	}
	p.gen = 0
	for ri := range b.regions {
		r := &b.regions[ri]
		frame := b.code.Frame
		if r.fn >= 0 {
			frame = b.code.Funcs[r.fn].Frame
		}
		p.f = &r.frame
		for s := range p.cur {
			p.cur[s] = val{}
			if s < len(frame) {
				p.cur[s] = pointVal(frame[s])
			}
			p.lastAdd[s] = noAdd
			p.refinedGen[s] = 0
		}
		p.gen++
		for pc := r.lo; pc < r.hi; pc++ {
			if pc&4095 == 4095 && !p.s.alive() {
				return false
			}
			p.step(pc, &code[pc])
		}
	}
	return true
}

// step evaluates the instruction at pc.
func (p *pass) step(pc int32, in *ir.Instr) {
	b := p.b
	if b.isTarget[pc] {
		p.gen++
	}
	switch in.Op {
	case ir.OpMov:
		p.write(in.A, p.read(in.B), noAdd)
	case ir.OpAdd:
		p.write(in.A, addVals(p.read(in.B), p.read(in.C)), noAdd)
	case ir.OpSub:
		p.write(in.A, subVals(p.read(in.B), p.read(in.C)), noAdd)
	case ir.OpMul:
		p.write(in.A, mulVals(p.read(in.B), p.read(in.C)), noAdd)
	case ir.OpDiv:
		p.write(in.A, divVals(p.read(in.B), p.read(in.C)), noAdd)
	case ir.OpMod:
		p.write(in.A, modVals(p.read(in.B), p.read(in.C)), noAdd)
	case ir.OpNeg:
		p.write(in.A, negVal(p.read(in.B)), noAdd)
	case ir.OpNot, ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpTrylock:
		if in.Op == ir.OpTrylock {
			p.record(pc, in.B, 0)
		}
		p.write(in.A, boolVal, noAdd)
	case ir.OpAddI:
		p.write(in.A, addVals(p.read(in.B), pointVal(int64(in.C))), int64(in.C))
	case ir.OpMulI:
		p.write(in.A, mulConst(p.read(in.B), int64(in.C)), noAdd)
	case ir.OpCheck:
		p.check(in.B, int64(in.C))
	case ir.OpLdx:
		v := val{}
		if in.C >= 0 && int(in.C) < len(p.f.tidArray) && p.f.tidArray[in.C] {
			v = p.poolIn
		}
		p.write(in.A, v, noAdd)
	case ir.OpStx:
		if in.C >= 0 && in.C < p.f.localEnd && p.f.tidCovered[in.C] {
			p.pool = union(p.pool, p.read(in.A))
		}
	case ir.OpLoad:
		p.record(pc, in.B, 0)
		p.write(in.A, val{}, noAdd)
	case ir.OpStore, ir.OpLock, ir.OpUnlock, ir.OpJoin:
		p.record(pc, in.B, 0)
	case ir.OpWait, ir.OpWake:
		p.record(pc, in.A, 0)
		p.record(pc, in.B, 1)
	case ir.OpSignal, ir.OpBroadcast:
		p.record(pc, in.B, 1)
	case ir.OpSpawn:
		p.write(in.A, val{known: true, procs: []int32{in.C}}, noAdd)
	case ir.OpChoose:
		v := val{}
		if lo, ok := p.read(in.B).point(); ok {
			if hi, ok := p.read(in.C).point(); ok {
				v = intervalVal(lo, hi, true)
			}
		}
		p.write(in.A, v, noAdd)
	default:
		// Anything else that writes a slot (a call's result) leaves it
		// unknown.
		if in.Op.Info().A == ir.WriteSlot {
			p.write(in.A, val{}, noAdd)
		}
	}
}

// record notes the value of slot s (address j, or a thread handle) at
// the visible instruction pc.
func (p *pass) record(pc int32, s int32, j int) {
	k := p.b.visAt[pc]
	if k < 0 {
		return
	}
	v := p.read(s)
	root := p.b.varOf[k][j]
	if root < 0 && s >= p.f.localEnd && s != p.f.indexSlot {
		// The address of a computed access is root.Offset plus the
		// element's offset, added last (lower.lvalue).
		if a := p.lastAdd[s]; a != noAdd {
			if vi, ok := p.s.varAt[a]; ok {
				root = vi
			}
		}
	}
	if c, ok := v.point(); root < 0 && ok && c >= 0 && c < int64(len(p.s.prog.Locations)) {
		root = p.s.prog.Locations[c].Var
	}
	p.out[k].v[j], p.out[k].root[j] = v, root
}

// addrs says which addresses a step of the kind has: j in [first,
// first+count), 0 the word read or written or the mutex, 1 the condition
// variable.
func addrs(kind StepKind) (first, count int) {
	switch kind {
	case Read, Write, Lock, Unlock, Trylock:
		return 0, 1
	case Signal, Broadcast:
		return 1, 1
	case Wait, Wake:
		return 0, 2
	}
	return 0, 0
}

// newResults makes n results that know nothing (of no variable).
func newResults(n int) []evalResult {
	out := make([]evalResult, n)
	for k := range out {
		out[k].root = [2]int{-1, -1}
	}
	return out
}

// maxPoolPasses bounds the passes that grow the pool of tid values; past
// it the pool is unknown.
const maxPoolPasses = 4

// evaluate runs the passes of body b: over the range of thread indexes
// until the pool of tid values is stable, then once per instance if the
// budget allows. It returns false if ctx ended.
func (s *Summary) evaluate(b *body) bool {
	idx := val{}
	if b.regions[0].frame.indexSlot >= 0 {
		lo, hi := b.owner.Lo, b.owner.Hi
		idx = intervalVal(lo, hi, true)
	}
	p := &pass{b: b, s: s, idx: idx, out: newResults(len(b.vis))}
	p.poolIn = val{known: true}
	if b.poolUnknown {
		p.poolIn = val{}
	}
	for i := 0; ; i++ {
		p.pool = p.poolIn
		if !p.run() {
			return false
		}
		if p.pool.equal(p.poolIn) {
			break
		}
		p.poolIn = p.pool
		if i+1 == maxPoolPasses {
			p.poolIn = val{}
		}
	}
	b.gen = p.out
	n := len(b.insts)
	if b.regions[0].frame.indexSlot < 0 || n < 2 || int64(n)*int64(len(b.code.Code)) > s.budget {
		return true
	}
	s.budget -= int64(n) * int64(len(b.code.Code))
	// Each row keeps the words of its accesses (clipped to the variable
	// the generic pass found) and the handles its joins may wait for.
	b.rowSpans = make([][]span, n)
	// Where each step's addresses are in a row (see addrs).
	b.rowAddr = make([]int32, len(b.vis))
	total := int32(0)
	for k := range b.vis {
		first, count := addrs(b.vis[k].kind)
		b.rowAddr[k] = total - int32(first)
		total += int32(count)
	}
	q := &pass{b: b, s: s, poolIn: p.poolIn, cur: p.cur, lastAdd: p.lastAdd,
		refinedVal: p.refinedVal, refinedGen: p.refinedGen, out: newResults(len(b.vis))}
	for r, inst := range b.insts {
		q.idx = pointVal(inst.Index)
		if !q.run() {
			return false
		}
		row := make([]span, total)
		for k := range b.vis {
			first, count := addrs(b.vis[k].kind)
			for j := first; j < first+count; j++ {
				vs, _ := s.varSpan(b.gen[k].root[j])
				row[b.rowAddr[k]+int32(j)] = clip(q.out[k].v[j], vs)
			}
			switch b.vis[k].kind {
			case Join:
				if b.rowJoins == nil {
					b.rowJoins = make(map[int][]val)
				}
				b.rowJoins[k] = append(b.rowJoins[k], q.out[k].v[0])
			}
		}
		b.rowSpans[r] = row
	}
	b.rows = n
	return true
}
