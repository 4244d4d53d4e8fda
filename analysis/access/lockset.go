package access

import (
	"fmt"
	"slices"

	"weft/engine/ir"
)

// locksets runs the static lockset pass over body b: a forward
// must-analysis over its code of the locks held before each instruction
// (b.held), which also finds the instructions some path reaches
// (b.reached). A lock is named by the first lock instruction of the body
// with the same mutex (so that `if c { lock(m) } else { lock(m) }` holds m
// after the if). Lock adds its lock; unlock removes every held lock whose
// mutex it may denote in some instance; where paths meet, the held sets
// intersect. It returns false if ctx ended.
func (s *Summary) locksets(b *body) bool {
	code := b.code.Code
	n := len(code)
	canon := make(map[string]int32)
	lockID := make(map[int32]int32)
	unlockLoc := make(map[int32]*Loc)
	for _, st := range b.stmts {
		for i := range st.Steps {
			step := &st.Steps[i]
			switch step.Kind {
			case Lock:
				key := locKey(&step.Mutex)
				id, ok := canon[key]
				if !ok {
					id = int32(step.PC)
					canon[key] = id
					b.lockLoc[id] = &step.Mutex
				}
				lockID[int32(step.PC)] = id
			case Unlock:
				unlockLoc[int32(step.PC)] = &step.Mutex
			}
		}
	}
	in := make([][]int32, n)
	reached := make([]bool, n)
	queued := make([]bool, n)
	work := []int32{0}
	reached[0], queued[0] = true, true
	flow := func(to int32, out []int32) {
		if to < 0 || int(to) >= n {
			return
		}
		if !reached[to] {
			reached[to], in[to] = true, out
		} else {
			kept, changed := intersect(in[to], out)
			if !changed {
				return
			}
			in[to] = kept
		}
		if !queued[to] {
			queued[to] = true
			work = append(work, to)
		}
	}
	for steps := 0; len(work) > 0; steps++ {
		if steps&4095 == 4095 && !s.alive() {
			return false
		}
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		queued[pc] = false
		out := in[pc]
		ins := &code[pc]
		switch ins.Op {
		case ir.OpLock:
			if id, ok := lockID[pc]; ok {
				if i, found := slices.BinarySearch(out, id); !found {
					out = slices.Insert(slices.Clone(out), i, id)
				}
			}
		case ir.OpUnlock:
			if u := unlockLoc[pc]; u != nil && len(out) > 0 {
				var kept []int32
				for _, id := range out {
					if !mayAlias(b, b.lockLoc[id], u) {
						kept = append(kept, id)
					}
				}
				out = kept
			}
		}
		switch ins.Op {
		case ir.OpJmp, ir.OpAtomicEnd:
			flow(ins.A, out)
		case ir.OpJz, ir.OpJnz, ir.OpJge, ir.OpJlt:
			flow(ins.A, out)
			flow(pc+1, out)
		case ir.OpEnd:
		default:
			flow(pc+1, out)
		}
	}
	b.held, b.reached = in, reached
	return true
}

// intersect returns the elements of a that are in b (both sorted), and
// whether that drops any.
func intersect(a, b []int32) ([]int32, bool) {
	var out []int32
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
		}
	}
	if len(out) == len(a) {
		return a, false
	}
	return out, true
}

// mayAlias reports whether two mutex Locs of body b may denote the same
// word in some instance.
func mayAlias(b *body, l, u *Loc) bool {
	if l == nil || u == nil {
		return true
	}
	if l.inst == nil && u.inst == nil {
		return l.hull().overlaps(u.hull())
	}
	for r := range b.rows {
		if l.rowSpan(r).overlaps(u.rowSpan(r)) {
			return true
		}
	}
	return false
}

// locKey identifies the words of a Loc in every row.
func locKey(l *Loc) string {
	if l.inst == nil {
		return fmt.Sprint(l.Lo, l.Hi)
	}
	return fmt.Sprint(l.inst)
}

// heldWords returns the mutex words held in row r of body b before pc:
// the held locks whose mutex is one known word in that row.
func heldWords(b *body, pc int32, r int, out []int32) []int32 {
	out = out[:0]
	for _, id := range b.held[pc] {
		if sp := b.lockLoc[id].rowSpan(r); sp.hi-sp.lo == 1 {
			out = append(out, sp.lo)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
