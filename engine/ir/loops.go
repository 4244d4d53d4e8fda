package ir

// Spin detection compares, between two arrivals of a thread at a loop
// head, the slots that could make the next iteration differ from the last
// one (Loop.Slots). AnalyzeLoops computes them: the slots that are
//
//   - live at the head: some path from the head reads the slot before
//     writing it (a slot the rest of the code overwrites first cannot
//     matter), and
//   - relevant: flow-insensitively within the code region of the loop
//     (the body's own code, or one function's [Entry, End)), the slot is
//     read by a conditional branch, an assertion or assume, a shared
//     access (a store's value, any access's address), an index check, a
//     divisor (a division by zero stops the execution), the operand of a
//     lock, unlock, trylock, spawn, join, call, return, choose, wait,
//     signal or broadcast, or by an instruction that writes a relevant
//     slot; and
//   - written somewhere in the region (a constant or a parameter never
//     changes, so comparing it is useless).
//
// A slot outside these sets cannot change what the thread does next: not
// its path, not what it accesses or writes, not whether it fails. So two
// arrivals at the head that agree on Loop.Slots, with nothing but reads of
// shared memory in between that read the same values, are followed by the
// same behaviour, forever, until another thread writes what was read.
//
// Two imprecisions are accepted: an arithmetic overflow of a slot that is
// not relevant (an iteration counter nobody reads, which would overflow
// after 2^63 iterations) is not taken into account; and local arrays are
// taken whole (an element read or written by a computed index stands for
// every element of the array holding it, the array being found in Locals,
// or else taken to extend to the end of the frame).

// AnalyzeLoops fills in Slots of every loop of b (see above). A spawn's
// argument count is not known from the body alone: every slot from its
// first argument to the end of the frame counts as read by it, which can
// only make more slots compared. Program.AnalyzeLoops knows the counts.
func AnalyzeLoops(b *Body) { analyzeLoops(b, nil) }

// AnalyzeLoops fills in Loop.Slots in every body of p (see the package
// function AnalyzeLoops), with the exact argument counts of spawns.
func (p *Program) AnalyzeLoops() {
	params := func(proc int32) int {
		if proc < 0 || int(proc) >= len(p.Procs) {
			return -1
		}
		if bi := p.Procs[proc]; bi >= 0 && bi < len(p.Bodies) {
			return p.Bodies[bi].NumParams
		}
		return -1
	}
	for _, b := range p.Bodies {
		analyzeLoops(b, params)
	}
}

// region is one stretch of code with its own frame: a body's own code or
// a function's.
type region struct {
	lo, hi int32
	frame  int
	locals []LocalVar
}

func regionsOf(b *Body) []region {
	own := int32(len(b.Code))
	if len(b.Funcs) > 0 {
		own = b.Funcs[0].Entry
	}
	rs := []region{{0, own, len(b.Frame), b.Locals}}
	for _, f := range b.Funcs {
		rs = append(rs, region{f.Entry, f.End, len(f.Frame), f.Locals})
	}
	return rs
}

func analyzeLoops(b *Body, spawnParams func(proc int32) int) {
	for i := range b.Loops {
		b.Loops[i].Slots = nil
	}
	if len(b.Loops) == 0 {
		return
	}
	seen := make([]bool, len(b.Loops))
	for _, r := range regionsOf(b) {
		if r.lo < 0 || r.hi > int32(len(b.Code)) || r.lo >= r.hi {
			continue
		}
		heads := false
		for pc := r.lo; pc < r.hi; pc++ {
			if b.Code[pc].Op == OpLoopHead {
				heads = true
				break
			}
		}
		if !heads {
			continue
		}
		a := newLoopAnalysis(b, r, spawnParams)
		live := a.liveness()
		for pc := r.lo; pc < r.hi; pc++ {
			in := b.Code[pc]
			if in.Op != OpLoopHead || in.A < 0 || int(in.A) >= len(b.Loops) {
				continue
			}
			l := &b.Loops[in.A]
			set := live[pc-r.lo]
			var slots []int32
			if seen[in.A] { // a loop with several heads: compare the union
				slots = l.Slots
			}
			for v := range a.vars {
				if set[v>>6]&(1<<(uint(v)&63)) == 0 {
					continue
				}
				for s := a.vars[v].lo; s < a.vars[v].hi; s++ {
					slots = appendSlot(slots, s)
				}
			}
			seen[in.A] = true
			l.Slots = slots
		}
	}
}

func appendSlot(s []int32, v int32) []int32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// loopVar is a variable of the analysis: a scalar slot, or a whole local
// array [lo, hi).
type loopVar struct{ lo, hi int32 }

type loopAnalysis struct {
	b           *Body
	r           region
	spawnParams func(proc int32) int
	// vars are the candidates: relevant and written in the region; varOf
	// maps a slot to its candidate, or -1.
	vars  []loopVar
	varOf map[int32]int32
}

// arrayOf is the extent of the local array holding slot s.
func (a *loopAnalysis) arrayOf(s int32) loopVar {
	for _, lv := range a.r.locals {
		if len(lv.Dims) > 0 && int(s) >= lv.Slot && int(s) < lv.Slot+lv.Size {
			return loopVar{int32(lv.Slot), int32(lv.Slot + lv.Size)}
		}
	}
	return loopVar{s, int32(a.r.frame)}
}

// operands calls read for each slot range instruction in reads and write
// for each it writes (ranges: a scalar is [s, s+1)); whole says a write
// overwrites its range (a kill, for liveness) rather than one unknown
// element of it.
func (a *loopAnalysis) operands(in Instr, read func(lo, hi int32), write func(lo, hi int32, whole bool)) {
	info := in.Op.Info()
	for k, kind := range info.Operands() {
		v := [3]int32{in.A, in.B, in.C}[k]
		switch kind {
		case ReadSlot:
			read(v, v+1)
		case WriteSlot:
			write(v, v+1, true)
		case BaseSlot:
			arr := a.arrayOf(v)
			if in.Op == OpStx {
				write(arr.lo, arr.hi, false)
			} else {
				read(arr.lo, arr.hi)
			}
		case ArgSlots:
			n := -1
			if a.spawnParams != nil {
				n = a.spawnParams(in.C)
			}
			if n < 0 {
				read(v, int32(a.r.frame))
			} else if n > 0 {
				read(v, v+int32(n))
			}
		case CallArgSlots:
			if in.C >= 0 && int(in.C) < len(a.b.Funcs) {
				if n := a.b.Funcs[in.C].NumParams; n > 0 {
					read(v, v+int32(n))
				}
			} else {
				read(v, int32(a.r.frame))
			}
		}
	}
}

// seeds says whether the slots an instruction reads are relevant by
// themselves (the list in the comment above), and which: all its read
// operands, or only the divisor.
func seeds(in Instr) (all bool, divisor bool) {
	switch in.Op {
	case OpJz, OpJnz, OpJge, OpJlt, OpAssert, OpAssume, OpCheck, OpRet, OpCall:
		return true, false
	case OpDiv, OpMod:
		return false, true
	}
	return in.Op.IsVisible(), false
}

func newLoopAnalysis(b *Body, r region, spawnParams func(proc int32) int) *loopAnalysis {
	a := &loopAnalysis{b: b, r: r, spawnParams: spawnParams}
	clip := func(lo, hi int32) (int32, int32) {
		return max(lo, 0), min(hi, int32(r.frame))
	}
	// Relevance, flow-insensitively, to a fixpoint.
	relevant := make([]uint64, (r.frame+63)/64)
	written := make([]uint64, (r.frame+63)/64)
	has := func(set []uint64, s int32) bool { return set[s>>6]&(1<<(uint(s)&63)) != 0 }
	add := func(set []uint64, lo, hi int32) bool {
		lo, hi = clip(lo, hi)
		changed := false
		for s := lo; s < hi; s++ {
			if !has(set, s) {
				set[s>>6] |= 1 << (uint(s) & 63)
				changed = true
			}
		}
		return changed
	}
	anyIn := func(set []uint64, lo, hi int32) bool {
		lo, hi = clip(lo, hi)
		for s := lo; s < hi; s++ {
			if has(set, s) {
				return true
			}
		}
		return false
	}
	code := b.Code[r.lo:r.hi]
	for _, in := range code {
		all, div := seeds(in)
		a.operands(in, func(lo, hi int32) {
			if all {
				add(relevant, lo, hi)
			}
		}, func(lo, hi int32, _ bool) { add(written, lo, hi) })
		if div {
			add(relevant, in.C, in.C+1)
		}
		if in.Op == OpLoad || in.Op == OpStore {
			add(relevant, in.B, in.B+1) // the address (a store's value is a read operand too)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, in := range code {
			writesRelevant := false
			a.operands(in, func(int32, int32) {}, func(lo, hi int32, _ bool) {
				writesRelevant = writesRelevant || anyIn(relevant, lo, hi)
			})
			if !writesRelevant {
				continue
			}
			a.operands(in, func(lo, hi int32) {
				if add(relevant, lo, hi) {
					changed = true
				}
			}, func(int32, int32, bool) {})
		}
	}
	// The candidates: relevant and written, arrays whole.
	a.varOf = make(map[int32]int32)
	for s := int32(0); s < int32(r.frame); s++ {
		if !has(relevant, s) || !has(written, s) {
			continue
		}
		if _, ok := a.varOf[s]; ok {
			continue
		}
		v := loopVar{s, s + 1}
		if a.isArray(s) {
			v = a.arrayOf(s)
		}
		id := int32(len(a.vars))
		a.vars = append(a.vars, v)
		for x := v.lo; x < v.hi; x++ {
			a.varOf[x] = id
		}
	}
	return a
}

// isArray reports whether slot s is an element of a declared local array.
func (a *loopAnalysis) isArray(s int32) bool {
	for _, lv := range a.r.locals {
		if len(lv.Dims) > 0 && int(s) >= lv.Slot && int(s) < lv.Slot+lv.Size {
			return true
		}
	}
	return false
}

// liveness computes, for each pc of the region, the set of candidates
// live there (bitsets over a.vars), by the usual backward fixpoint.
func (a *loopAnalysis) liveness() [][]uint64 {
	n := int(a.r.hi - a.r.lo)
	words := (len(a.vars) + 63) / 64
	live := make([][]uint64, n)
	use := make([][]uint64, n)
	kill := make([][]uint64, n)
	succ := make([][2]int32, n)
	mark := func(set []uint64, lo, hi int32) {
		for s := lo; s < hi; s++ {
			if v, ok := a.varOf[s]; ok {
				set[v>>6] |= 1 << (uint(v) & 63)
			}
		}
	}
	for i := range n {
		pc := a.r.lo + int32(i)
		in := a.b.Code[pc]
		live[i] = make([]uint64, words)
		use[i] = make([]uint64, words)
		kill[i] = make([]uint64, words)
		a.operands(in, func(lo, hi int32) { mark(use[i], lo, hi) }, func(lo, hi int32, whole bool) {
			if !whole {
				return
			}
			// A scalar write kills its candidate; a write of part of an
			// array kills nothing.
			for s := lo; s < hi; s++ {
				if v, ok := a.varOf[s]; ok && a.vars[v].hi-a.vars[v].lo == 1 {
					kill[i][v>>6] |= 1 << (uint(v) & 63)
				}
			}
		})
		succ[i] = [2]int32{-1, -1}
		next := pc + 1
		switch in.Op {
		case OpJmp, OpAtomicEnd:
			succ[i][0] = in.A
		case OpJz, OpJnz, OpJge, OpJlt:
			succ[i] = [2]int32{in.A, next}
		case OpEnd, OpRet:
		default:
			succ[i][0] = next
		}
		for k := range succ[i] {
			if s := succ[i][k]; s < a.r.lo || s >= a.r.hi {
				succ[i][k] = -1
			} else {
				succ[i][k] = s - a.r.lo
			}
		}
	}
	if words == 0 {
		return live
	}
	tmp := make([]uint64, words)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			clear(tmp)
			for _, s := range succ[i] {
				if s >= 0 {
					for w := range tmp {
						tmp[w] |= live[s][w]
					}
				}
			}
			for w := range tmp {
				v := tmp[w]&^kill[i][w] | use[i][w]
				if v != live[i][w] {
					live[i][w] = v
					changed = true
				}
			}
		}
	}
	return live
}
