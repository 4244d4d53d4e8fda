package indep

import (
	"context"

	"weft/analysis/access"
	"weft/engine/ir"
)

// writeSets computes W for every site of prog: for a thread standing at
// a visible instruction (or an atomic block's OpAtomic), the shared
// variables it, and any thread it spawns from there on (transitively),
// may write, as whole variables. It works over the lowered code: from a
// pc, everything the control flow reaches (jumps, fall-through, calls
// into a function's code and returns to after every call of it, atomic
// blocks' exits), collecting what each visible step writes (access's
// summary: the words of a write, of an atomic block, the mutex of a
// lock, an unlock, a trylock, a wait, a wake-up, the condition variable
// of a wait, a wake-up, a signal, a broadcast), and, at a spawn, W of the
// spawned proc's first instruction: a fixed point over the code of
// every body and the spawn graph.
//
// An instruction of an atomic block's interior writes nothing of its own
// here: every path into the interior goes through its OpAtomic, whose
// step writes all of it (ir.AtomicFootprint.Writes). A store the summary
// does not attribute to a step (the code of a function called only inside
// atomic blocks) writes what every atomic block of its body may write,
// which covers it.
func writeSets(ctx context.Context, prog *ir.Program, sum *access.Summary) (map[ir.Site][]ir.LocRange, error) {
	nv := len(prog.Vars)
	words := (nv + 1 + 63) / 64 // bit nv: any word
	anyBit := nv
	varOf := func(loc int32) int {
		if loc < 0 || int(loc) >= len(prog.Locations) {
			return anyBit
		}
		return prog.Locations[loc].Var
	}
	type bodyW struct {
		local [][]uint64 // per pc: what the instruction itself writes
		w     [][]uint64 // per pc: W
		spawn []int      // per pc: the body a spawn starts, -1
		succ  [][]int32
	}
	set := func(bits []uint64, i int) { bits[i/64] |= 1 << (i % 64) }
	addRange := func(bits []uint64, lo, hi int32) {
		if lo >= hi {
			return
		}
		for v := varOf(lo); ; {
			set(bits, v)
			if v == anyBit || v+1 >= nv || int32(prog.Vars[v+1].Offset) >= hi {
				break
			}
			v++
		}
	}
	addLocs := func(bits []uint64, locs ...access.Loc) {
		for _, l := range locs {
			if l.Var == nil {
				set(bits, anyBit)
				continue
			}
			addRange(bits, l.Lo, l.Hi)
		}
	}
	bs := make([]*bodyW, len(prog.Bodies))
	for bi, b := range prog.Bodies {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := len(b.Code)
		bw := &bodyW{local: make([][]uint64, n), w: make([][]uint64, n), spawn: make([]int, n), succ: make([][]int32, n)}
		bs[bi] = bw
		// The words every atomic block of the body may write, for stores
		// the summary does not attribute.
		atomicW := make([]uint64, words)
		for _, a := range b.Atomics {
			for _, r := range a.Writes {
				addRange(atomicW, r.Lo, r.Hi)
			}
		}
		// Interior of atomic blocks in the body's own code and functions.
		interior := make([]bool, n)
		for pc, in := range b.Code {
			if in.Op != ir.OpAtomic {
				continue
			}
			for q := pc + 1; q < n && b.Code[q].Op != ir.OpAtomicEnd; q++ {
				interior[q] = true
			}
		}
		// Return points of each function: after every call of it.
		rets := make([][]int32, len(b.Funcs))
		for pc, in := range b.Code {
			if in.Op == ir.OpCall && in.C >= 0 && int(in.C) < len(b.Funcs) {
				rets[in.C] = append(rets[in.C], int32(pc+1))
			}
		}
		funcOf := func(pc int) int {
			for i, f := range b.Funcs {
				if int32(pc) >= f.Entry && int32(pc) < f.End {
					return i
				}
			}
			return -1
		}
		for pc, in := range b.Code {
			bw.local[pc] = make([]uint64, words)
			bw.w[pc] = make([]uint64, words)
			bw.spawn[pc] = -1
			next := int32(pc + 1)
			switch in.Op {
			case ir.OpJmp:
				bw.succ[pc] = []int32{in.A}
			case ir.OpJz, ir.OpJnz, ir.OpJge, ir.OpJlt:
				bw.succ[pc] = []int32{in.A, next}
			case ir.OpAtomicEnd:
				bw.succ[pc] = []int32{in.A}
			case ir.OpEnd:
			case ir.OpRet:
				if f := funcOf(pc); f >= 0 {
					bw.succ[pc] = rets[f]
				}
			case ir.OpCall:
				if in.C >= 0 && int(in.C) < len(b.Funcs) {
					bw.succ[pc] = []int32{b.Funcs[in.C].Entry, next}
				} else {
					bw.succ[pc] = []int32{next}
				}
			case ir.OpSpawn:
				if in.C >= 0 && int(in.C) < len(prog.Procs) {
					bw.spawn[pc] = prog.Procs[in.C]
				}
				bw.succ[pc] = []int32{next}
			default:
				bw.succ[pc] = []int32{next}
			}
			// What the instruction writes.
			if in.Op == ir.OpAtomic {
				if a := b.Atomics[int32(pc)]; a != nil {
					for _, r := range a.Writes {
						addRange(bw.local[pc], r.Lo, r.Hi)
					}
				} else {
					set(bw.local[pc], anyBit)
				}
				continue
			}
			if !writesShared(in.Op) || interior[pc] {
				continue
			}
			_, sp := sum.StepAt(bi, pc)
			if sp == nil {
				for i := range atomicW {
					bw.local[pc][i] |= atomicW[i]
				}
				continue
			}
			switch sp.Kind {
			case access.Write:
				addLocs(bw.local[pc], sp.Writes...)
			case access.Lock, access.Unlock, access.Trylock:
				addLocs(bw.local[pc], sp.Mutex)
			case access.Wait, access.Wake:
				addLocs(bw.local[pc], sp.Mutex, sp.Cond)
			case access.Signal, access.Broadcast:
				addLocs(bw.local[pc], sp.Cond)
			default:
				set(bw.local[pc], anyBit)
			}
		}
	}
	// The fixed point: W(pc) = local(pc) ∪ W(successors) ∪ W(spawned
	// body's entry).
	for changed := true; changed; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		changed = false
		for _, bw := range bs {
			for pc := len(bw.w) - 1; pc >= 0; pc-- {
				cur := bw.w[pc]
				or := func(src []uint64) {
					for i := range cur {
						if cur[i]|src[i] != cur[i] {
							cur[i] |= src[i]
							changed = true
						}
					}
				}
				or(bw.local[pc])
				for _, s := range bw.succ[pc] {
					if s >= 0 && int(s) < len(bw.w) {
						or(bw.w[s])
					}
				}
				if sb := bw.spawn[pc]; sb >= 0 && len(bs[sb].w) > 0 {
					or(bs[sb].w[0])
				}
			}
		}
	}
	out := make(map[ir.Site][]ir.LocRange)
	for bi, b := range prog.Bodies {
		for pc, in := range b.Code {
			if !in.Op.IsVisible() {
				continue
			}
			if st, _ := sum.StepAt(bi, pc); st == nil {
				continue // inside an atomic block: not a site
			}
			bits := bs[bi].w[pc]
			if bits[anyBit/64]&(1<<(anyBit%64)) != 0 {
				continue // may write anything: left out
			}
			var rs []ir.LocRange
			for v := 0; v < nv; v++ {
				if bits[v/64]&(1<<(v%64)) == 0 {
					continue
				}
				lo, hi := int32(prog.Vars[v].Offset), int32(prog.Vars[v].Offset+prog.Vars[v].Size)
				if n := len(rs); n > 0 && rs[n-1].Hi == lo {
					rs[n-1].Hi = hi
				} else {
					rs = append(rs, ir.LocRange{Lo: lo, Hi: hi})
				}
			}
			out[ir.Site{Body: int32(bi), PC: int32(pc)}] = rs
		}
	}
	return out, nil
}

// writesShared reports whether an instruction may write shared memory
// (mutexes and condition variables included).
func writesShared(op ir.Op) bool {
	switch op {
	case ir.OpStore, ir.OpLock, ir.OpUnlock, ir.OpTrylock, ir.OpWait, ir.OpWake, ir.OpSignal, ir.OpBroadcast:
		return true
	}
	return false
}
