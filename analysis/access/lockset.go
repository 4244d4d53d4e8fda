package access

import (
	"fmt"
	"slices"

	"weft/engine/ir"
)

// locksets runs the static lockset pass over body b: a forward
// must-analysis over its code of the locks held before each instruction
// (b.held), which also finds the instructions some path reaches
// (b.reached). A lock is named by the first instruction of the body that
// takes the same mutex (lock, trylock or the wake-up of a wait), so that
// `if c { lock(m) } else { lock(m) }` holds m after the if. Lock and a
// wake-up add their lock; a trylock adds it only along the branch taken
// when it returned true (when the branch tests its result right away);
// unlock and wait remove every held lock whose mutex they may denote in
// some instance; where paths meet, the held sets intersect.
//
// A function's code is entered from each call with the caller's held
// set (so what holds in the function holds at every call); after the
// call the caller holds what it held before, less what the function and
// those it calls may release (an unlock, or a wait of another mutex word:
// a wait gives back the mutex it released before the call returns). A
// lock taken inside a function is not counted after the call. It returns
// false if ctx ended.
func (s *Summary) locksets(b *body) bool {
	code := b.code.Code
	n := len(code)
	canon := make(map[string]int32)
	lockID := make(map[int32]int32)
	releaseLoc := make(map[int32]*Loc)
	for _, st := range b.stmts {
		for i := range st.Steps {
			step := &st.Steps[i]
			switch step.Kind {
			case Lock, Trylock, Wake:
				key := locKey(&step.Mutex)
				id, ok := canon[key]
				if !ok {
					id = int32(step.PC)
					canon[key] = id
					b.lockLoc[id] = &step.Mutex
				}
				lockID[int32(step.PC)] = id
			case Unlock, Wait:
				releaseLoc[int32(step.PC)] = &step.Mutex
			}
		}
	}
	// What each function, with those it reaches, may release.
	type release struct {
		loc  *Loc
		wait bool
	}
	releases := make([][]release, len(b.funcs))
	for f := range b.funcs {
		for _, g := range b.reach[f] {
			r := &b.regions[g+1]
			for pc := r.lo; pc < r.hi; pc++ {
				if l := releaseLoc[pc]; l != nil {
					releases[f] = append(releases[f], release{l, code[pc].Op == ir.OpWait})
				}
			}
		}
	}
	remove := func(out []int32, u *Loc, keepSame bool) []int32 {
		if u == nil || len(out) == 0 {
			return out
		}
		var kept []int32
		for _, id := range out {
			l := b.lockLoc[id]
			if !mayAlias(b, l, u) || keepSame && l != nil && locKey(l) == locKey(u) && oneWord(b, l) {
				kept = append(kept, id)
			}
		}
		return kept
	}
	add := func(out []int32, id int32) []int32 {
		if i, found := slices.BinarySearch(out, id); !found {
			out = slices.Insert(slices.Clone(out), i, id)
		}
		return out
	}
	tries := b.trylockBranches(lockID)
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
		case ir.OpLock, ir.OpWake:
			if id, ok := lockID[pc]; ok {
				out = add(out, id)
			}
		case ir.OpUnlock, ir.OpWait:
			out = remove(out, releaseLoc[pc], false)
		}
		switch ins.Op {
		case ir.OpJmp, ir.OpAtomicEnd:
			flow(ins.A, out)
		case ir.OpJz, ir.OpJnz, ir.OpJge, ir.OpJlt:
			jump, next := out, out
			if t, ok := tries[pc]; ok {
				if t.onJump {
					jump = add(out, t.id)
				} else {
					next = add(out, t.id)
				}
			}
			flow(ins.A, jump)
			flow(pc+1, next)
		case ir.OpCall:
			if f := ins.C; f >= 0 && int(f) < len(b.funcs) {
				flow(b.regions[f+1].lo, out)
				after := out
				for _, r := range releases[f] {
					after = remove(after, r.loc, r.wait)
				}
				flow(pc+1, after)
			}
		case ir.OpEnd, ir.OpRet:
		default:
			flow(pc+1, out)
		}
	}
	b.held, b.reached = in, reached
	return true
}

// tryBranch is a branch on the result of a trylock: along the jump
// (onJump) or the fall-through, the trylock took its mutex, lock id.
type tryBranch struct {
	id     int32
	onJump bool
}

// trylockBranches finds the branches that test the result of a trylock
// right after it: the trylock's result slot, copied (mov) or negated
// (not) by the instructions that follow it, with no jump into them, then
// tested by a jz or jnz.
func (b *body) trylockBranches(lockID map[int32]int32) map[int32]tryBranch {
	code := b.code.Code
	out := make(map[int32]tryBranch)
	for pc := range code {
		if code[pc].Op != ir.OpTrylock {
			continue
		}
		id, ok := lockID[int32(pc)]
		if !ok {
			continue
		}
		slot, taken := code[pc].A, true // slot holds 1 iff the trylock took the mutex
	chain:
		for k := pc + 1; k < len(code) && !b.isTarget[k]; k++ {
			in := code[k]
			switch {
			case in.Op == ir.OpMov && in.B == slot:
				slot = in.A
			case in.Op == ir.OpNot && in.B == slot:
				slot, taken = in.A, !taken
			case in.Op == ir.OpJz && in.B == slot:
				// Jumps when slot is 0: the trylock failed if taken.
				out[int32(k)] = tryBranch{id, !taken}
				break chain
			case in.Op == ir.OpJnz && in.B == slot:
				out[int32(k)] = tryBranch{id, taken}
				break chain
			default:
				break chain
			}
		}
	}
	return out
}

// oneWord reports whether a mutex Loc of body b is one word in every
// row.
func oneWord(b *body, l *Loc) bool {
	for r := range b.rows {
		if sp := l.rowSpan(r); sp.hi-sp.lo != 1 {
			return false
		}
	}
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
