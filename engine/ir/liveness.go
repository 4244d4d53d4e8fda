package ir

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Liveness of frame slots
//
// A frame slot is live at a pc when some path of the code from there
// reads it before overwriting it; a dead slot cannot change what the
// thread does next, whatever it holds. The analysis is per region (a
// body's own code, or one function's [Entry, End), each with its own
// frame) and is the usual backward fixpoint over the jumps of the code,
// with these choices:
//
//   - Only slots whose value can change are tracked: those some
//     instruction of the region writes (a load, a computation, a spawn's
//     or a call's result, an element stored through an index), and the
//     parameters (which differ between the threads or calls that run the
//     code). A slot no instruction writes holds the value of the initial
//     frame (a constant) for the frame's whole life, so it is never
//     listed, even where it is read.
//   - A declared local array (Body.Locals or Func.Locals with Dims) is one
//     unit: it is live when any of its elements may be read before the
//     array is written whole, which never happens (a store through an
//     index writes one unknown element), so once live before a read it
//     stays live back to the start of its region. Overlapping arrays (of
//     different scopes sharing slots) are one unit. An element read
//     through an index (OpLdx) reads the whole array; where no declared
//     array holds the base slot, the array is taken to extend to the end
//     of the frame.
//   - A scalar write (a WriteSlot operand) kills its slot, unless the slot
//     is an element of an array unit.
//   - A spawn reads its argument slots (Program.Liveness knows how many;
//     AnalyzeLiveness, from the body alone, takes every slot from the
//     first to the end of the frame); a call reads its argument slots and
//     writes its result slot when the callee returns; the callee's code
//     is another region.
//
// In(pc) is what is live when the thread stands at pc, before the
// instruction runs. Suspended(pc), at an OpCall, is what is live in the
// caller's frame while the callee runs: what is live after the call,
// less the result slot the return overwrites.
//
// Spin detection (AnalyzeLoops) compares the live slots of a loop head
// that can change what the thread does; the state fingerprint of package
// interp hashes the live slots of every frame.

// SlotRange is the frame slots [Lo, Hi).
type SlotRange struct{ Lo, Hi int32 }

// SlotSet is a set of frame slots: ranges in increasing order, disjoint
// and not adjacent. The nil set is empty.
type SlotSet []SlotRange

// Has reports whether slot s is in the set.
func (s SlotSet) Has(slot int32) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].Hi <= slot {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(s) && s[lo].Lo <= slot
}

// Len is the number of slots in the set.
func (s SlotSet) Len() int {
	n := 0
	for _, r := range s {
		n += int(r.Hi - r.Lo)
	}
	return n
}

// Slots lists the slots of the set in increasing order.
func (s SlotSet) Slots() []int32 {
	var out []int32
	for _, r := range s {
		for x := r.Lo; x < r.Hi; x++ {
			out = append(out, x)
		}
	}
	return out
}

// Liveness is the liveness of the frame slots of one body (see "Liveness
// of frame slots"): the live slots at each pc, in the frame of the code
// that pc belongs to. Pcs with the same live set share one SlotSet.
type Liveness struct {
	sets []SlotSet
	in   []int32 // per pc: its In set, an index in sets
	susp []int32 // per pc: its Suspended set for an OpCall, -1 for other instructions
}

// In is the set of live slots when a thread stands at pc, before the
// instruction runs.
func (l *Liveness) In(pc int32) SlotSet { return l.sets[l.in[pc]] }

// Suspended is, for the OpCall at pc, the set of live slots of the
// caller's frame while the callee runs (what is live after the call less
// its result slot); nil for other instructions.
func (l *Liveness) Suspended(pc int32) SlotSet {
	if i := l.susp[pc]; i >= 0 {
		return l.sets[i]
	}
	return nil
}

// InID and SuspendedID are the indexes in Sets of In(pc) and
// Suspended(pc) (-1 for an instruction that is no call): equal indexes,
// equal sets.
func (l *Liveness) InID(pc int32) int        { return int(l.in[pc]) }
func (l *Liveness) SuspendedID(pc int32) int { return int(l.susp[pc]) }

// Sets lists the distinct live sets of the body. It belongs to the
// Liveness: read it, never write it.
func (l *Liveness) Sets() []SlotSet { return l.sets }

// AnalyzeLiveness computes the liveness of b's frame slots, taking a
// spawn to read every slot from its first argument to the end of the
// frame (the body alone does not say how many arguments the spawned proc
// takes; Program.Liveness knows). The body must be valid (Validate).
func AnalyzeLiveness(b *Body) *Liveness { return analyzeLiveness(b, nil) }

// Liveness computes the liveness of every body of p (indexed as
// p.Bodies), with the exact argument counts of spawns. p must be valid
// (Validate).
func (p *Program) Liveness() []*Liveness {
	params := p.spawnParams()
	out := make([]*Liveness, len(p.Bodies))
	for i, b := range p.Bodies {
		out[i] = analyzeLiveness(b, params)
	}
	return out
}

// spawnParams returns the number of parameters of a proc, -1 if unknown.
func (p *Program) spawnParams() func(proc int32) int {
	return func(proc int32) int {
		if proc < 0 || int(proc) >= len(p.Procs) {
			return -1
		}
		if bi := p.Procs[proc]; bi >= 0 && bi < len(p.Bodies) {
			return p.Bodies[bi].NumParams
		}
		return -1
	}
}

func analyzeLiveness(b *Body, spawnParams func(proc int32) int) *Liveness {
	l := &Liveness{in: make([]int32, len(b.Code)), susp: make([]int32, len(b.Code))}
	ids := map[string]int32{}
	for _, r := range regionsOf(b) {
		if r.lo < 0 || r.hi > int32(len(b.Code)) || r.lo >= r.hi {
			continue
		}
		rl := newRegionLiveness(b, r, spawnParams)
		live := rl.solve()
		for i := range live.in {
			pc := r.lo + int32(i)
			l.in[pc] = l.intern(ids, rl, live.in[i])
			l.susp[pc] = -1
			if b.Code[pc].Op == OpCall {
				l.susp[pc] = l.intern(ids, rl, live.suspended(i))
			}
		}
	}
	return l
}

// intern returns the index in l.sets of the slots of the units in bits
// (a bit set over rl's units), adding it if it is new.
func (l *Liveness) intern(ids map[string]int32, rl *regionLiveness, bits []uint64) int32 {
	set := rl.slotSet(bits)
	key := make([]byte, 0, 8*len(set))
	for _, r := range set {
		key = binary.LittleEndian.AppendUint32(key, uint32(r.Lo))
		key = binary.LittleEndian.AppendUint32(key, uint32(r.Hi))
	}
	if id, ok := ids[string(key)]; ok {
		return id
	}
	id := int32(len(l.sets))
	ids[string(key)] = id
	l.sets = append(l.sets, set)
	return id
}

// regionLiveness is the analysis of one region: its units (the tracked
// scalar slots and array units, in slot order) and what each instruction
// uses and kills of them.
type regionLiveness struct {
	b           *Body
	r           region
	spawnParams func(proc int32) int
	units       []SlotRange
}

func newRegionLiveness(b *Body, r region, spawnParams func(proc int32) int) *regionLiveness {
	rl := &regionLiveness{b: b, r: r, spawnParams: spawnParams}
	frame := int32(r.frame)
	// The arrays, merged where they overlap.
	var arrays []SlotRange
	for _, lv := range r.locals {
		if len(lv.Dims) == 0 || lv.Size <= 0 {
			continue
		}
		lo, hi := max(int32(lv.Slot), 0), min(int32(lv.Slot+lv.Size), frame)
		if lo < hi {
			arrays = append(arrays, SlotRange{lo, hi})
		}
	}
	slices.SortFunc(arrays, func(a, b SlotRange) int { return int(a.Lo - b.Lo) })
	merged := arrays[:0]
	for _, a := range arrays {
		if n := len(merged); n > 0 && a.Lo < merged[n-1].Hi {
			merged[n-1].Hi = max(merged[n-1].Hi, a.Hi)
			continue
		}
		merged = append(merged, a)
	}
	// The tracked slots: written in the region, or parameters.
	var tracked SlotSet
	add := func(lo, hi int32) {
		lo, hi = max(lo, 0), min(hi, frame)
		if lo < hi {
			tracked = tracked.union(SlotRange{lo, hi})
		}
	}
	if r.params > 0 {
		add(r.paramLo, r.paramLo+int32(r.params))
	}
	for pc := r.lo; pc < r.hi; pc++ {
		operandRanges(b, r, spawnParams, b.Code[pc], func(int32, int32) {}, func(lo, hi int32, _ bool) { add(lo, hi) })
	}
	// The units: each array holding a tracked slot, whole, and every
	// other tracked slot.
	ai := 0
	for _, t := range tracked {
		for s := t.Lo; s < t.Hi; {
			for ai < len(merged) && merged[ai].Hi <= s {
				ai++
			}
			if ai < len(merged) && merged[ai].Lo <= s {
				a := merged[ai]
				if n := len(rl.units); n == 0 || rl.units[n-1] != a {
					rl.units = append(rl.units, a)
				}
				s = a.Hi
				continue
			}
			end := t.Hi
			if ai < len(merged) {
				end = min(end, merged[ai].Lo)
			}
			for ; s < end; s++ {
				rl.units = append(rl.units, SlotRange{s, s + 1})
			}
		}
	}
	return rl
}

// union adds r to the set s (in place when it can).
func (s SlotSet) union(r SlotRange) SlotSet {
	i := 0
	for i < len(s) && s[i].Hi < r.Lo {
		i++
	}
	j := i
	for j < len(s) && s[j].Lo <= r.Hi {
		r.Lo, r.Hi = min(r.Lo, s[j].Lo), max(r.Hi, s[j].Hi)
		j++
	}
	if i == j {
		return slices.Insert(s, i, r)
	}
	s[i] = r
	return slices.Delete(s, i+1, j)
}

// unitsIn returns the units [first, last] that overlap the slots [lo,
// hi); first > last if none does.
func (rl *regionLiveness) unitsIn(lo, hi int32) (int, int) {
	// The first unit ending after lo.
	a, b := 0, len(rl.units)
	for a < b {
		m := int(uint(a+b) >> 1)
		if rl.units[m].Hi <= lo {
			a = m + 1
		} else {
			b = m
		}
	}
	first, last := a, a-1
	for last+1 < len(rl.units) && rl.units[last+1].Lo < hi {
		last++
	}
	return first, last
}

// regionLive is the solution for one region: per instruction (relative
// to the region's start) the units live before it, and what it kills.
type regionLive struct {
	in, out, kill [][]uint64
}

func (rl *regionLiveness) solve() *regionLive {
	n := int(rl.r.hi - rl.r.lo)
	words := (len(rl.units) + 63) / 64
	res := &regionLive{in: make([][]uint64, n), out: make([][]uint64, n), kill: make([][]uint64, n)}
	use := make([][]uint64, n)
	succ := make([][2]int32, n)
	backing := make([]uint64, 4*n*words)
	for i := range n {
		res.in[i], backing = backing[:words:words], backing[words:]
		res.out[i], backing = backing[:words:words], backing[words:]
		res.kill[i], backing = backing[:words:words], backing[words:]
		use[i], backing = backing[:words:words], backing[words:]
		pc := rl.r.lo + int32(i)
		in := rl.b.Code[pc]
		operandRanges(rl.b, rl.r, rl.spawnParams, in, func(lo, hi int32) {
			f, l := rl.unitsIn(lo, hi)
			for u := f; u <= l; u++ {
				use[i][u>>6] |= 1 << (uint(u) & 63)
			}
		}, func(lo, hi int32, whole bool) {
			if !whole {
				return
			}
			// A scalar write kills its unit; a write of part of an
			// array unit kills nothing.
			f, l := rl.unitsIn(lo, hi)
			for u := f; u <= l; u++ {
				if r := rl.units[u]; r.Hi-r.Lo == 1 && r.Lo >= lo && r.Hi <= hi {
					res.kill[i][u>>6] |= 1 << (uint(u) & 63)
				}
			}
		})
		succ[i] = successors(in, pc)
		for k := range succ[i] {
			if s := succ[i][k]; s < rl.r.lo || s >= rl.r.hi {
				succ[i][k] = -1
			} else {
				succ[i][k] = s - rl.r.lo
			}
		}
	}
	if words == 0 {
		return res
	}
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			out := res.out[i]
			for _, s := range succ[i] {
				if s >= 0 {
					for w := range out {
						out[w] |= res.in[s][w]
					}
				}
			}
			for w := range out {
				v := out[w]&^res.kill[i][w] | use[i][w]
				if v != res.in[i][w] {
					res.in[i][w] = v
					changed = true
				}
			}
		}
	}
	return res
}

// suspended is, for the call at index i, the units live after it less
// those it kills (its result slot).
func (res *regionLive) suspended(i int) []uint64 {
	out := make([]uint64, len(res.out[i]))
	for w := range out {
		out[w] = res.out[i][w] &^ res.kill[i][w]
	}
	return out
}

// successors lists the pcs control may go to after in at pc (-1: none).
func successors(in Instr, pc int32) [2]int32 {
	switch in.Op {
	case OpJmp, OpAtomicEnd:
		return [2]int32{in.A, -1}
	case OpJz, OpJnz, OpJge, OpJlt:
		return [2]int32{in.A, pc + 1}
	case OpEnd, OpRet:
		return [2]int32{-1, -1}
	}
	return [2]int32{pc + 1, -1}
}

// slotSet is the set of slots of the units in live.
func (rl *regionLiveness) slotSet(live []uint64) SlotSet {
	var set SlotSet
	for w, word := range live {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			r := rl.units[w*64+b]
			if n := len(set); n > 0 && set[n-1].Hi == r.Lo {
				set[n-1].Hi = r.Hi
			} else {
				set = append(set, r)
			}
		}
	}
	return set
}

// operandRanges calls read for each range of slots instruction in (of
// region r of b) reads and write for each it writes (ranges: a scalar is
// [s, s+1)); whole says a write overwrites its range (a kill, for
// liveness) rather than one unknown element of it.
func operandRanges(b *Body, r region, spawnParams func(proc int32) int, in Instr, read func(lo, hi int32), write func(lo, hi int32, whole bool)) {
	info := in.Op.Info()
	for k, kind := range info.Operands() {
		v := [3]int32{in.A, in.B, in.C}[k]
		switch kind {
		case ReadSlot:
			read(v, v+1)
		case WriteSlot:
			write(v, v+1, true)
		case BaseSlot:
			arr := arrayOf(r, v)
			if in.Op == OpStx {
				write(arr.Lo, arr.Hi, false)
			} else {
				read(arr.Lo, arr.Hi)
			}
		case ArgSlots:
			n := -1
			if spawnParams != nil {
				n = spawnParams(in.C)
			}
			if n < 0 {
				read(v, int32(r.frame))
			} else if n > 0 {
				read(v, v+int32(n))
			}
		case CallArgSlots:
			if in.C >= 0 && int(in.C) < len(b.Funcs) {
				if n := b.Funcs[in.C].NumParams; n > 0 {
					read(v, v+int32(n))
				}
			} else {
				read(v, int32(r.frame))
			}
		}
	}
}

// arrayOf is the extent of the local array holding slot s: the first
// declared array of the region that holds it, or else [s, end of frame).
func arrayOf(r region, s int32) SlotRange {
	for _, lv := range r.locals {
		if len(lv.Dims) > 0 && int(s) >= lv.Slot && int(s) < lv.Slot+lv.Size {
			return SlotRange{int32(lv.Slot), int32(lv.Slot + lv.Size)}
		}
	}
	return SlotRange{s, int32(r.frame)}
}
