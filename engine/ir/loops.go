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
	params := p.spawnParams()
	for _, b := range p.Bodies {
		analyzeLoops(b, params)
	}
}

// region is one stretch of code with its own frame: a body's own code or
// a function's.
type region struct {
	lo, hi  int32
	frame   int
	locals  []LocalVar
	paramLo int32 // the parameters are slots [paramLo, paramLo+params)
	params  int
}

func regionsOf(b *Body) []region {
	own := int32(len(b.Code))
	if len(b.Funcs) > 0 {
		own = b.Funcs[0].Entry
	}
	rs := []region{{0, own, len(b.Frame), b.Locals, int32(b.ArgSlot), b.NumParams}}
	for _, f := range b.Funcs {
		rs = append(rs, region{f.Entry, f.End, len(f.Frame), f.Locals, 0, f.NumParams})
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
		rl := newRegionLiveness(b, r, spawnParams)
		live := rl.solve()
		for pc := r.lo; pc < r.hi; pc++ {
			in := b.Code[pc]
			if in.Op != OpLoopHead || in.A < 0 || int(in.A) >= len(b.Loops) {
				continue
			}
			l := &b.Loops[in.A]
			set := rl.slotSet(live.in[pc-r.lo])
			var slots []int32
			if seen[in.A] { // a loop with several heads: compare the union
				slots = l.Slots
			}
			for v := range a.vars {
				// A candidate is a tracked scalar or a whole array unit
				// (see "Liveness of frame slots"): live when its first
				// slot is.
				if !set.Has(a.vars[v].lo) {
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
	// vars are the candidates: relevant and written in the region.
	vars []loopVar
}

// operands calls read and write for the slot ranges in reads and
// writes (see operandRanges).
func (a *loopAnalysis) operands(in Instr, read func(lo, hi int32), write func(lo, hi int32, whole bool)) {
	operandRanges(a.b, a.r, a.spawnParams, in, read, write)
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
	taken := make(map[int32]bool)
	for s := int32(0); s < int32(r.frame); s++ {
		if !has(relevant, s) || !has(written, s) || taken[s] {
			continue
		}
		v := loopVar{s, s + 1}
		if a.isArray(s) {
			arr := arrayOf(r, s)
			v = loopVar{arr.Lo, arr.Hi}
		}
		a.vars = append(a.vars, v)
		for x := v.lo; x < v.hi; x++ {
			taken[x] = true
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
