package clocks

import (
	"slices"

	"weft/engine/interp"
	"weft/engine/ir"
)

// Conditional dependence
//
// CDPOR (Albert et al., "Constrained Dynamic Partial Order Reduction")
// takes two conflicting events as independent when they commute in the
// state in which they are adjacent, and records it in happens-before: the
// later event's dependence clock leaves the earlier one out. Then a later
// event that conflicts with the earlier one races with it directly, and
// that race is reversed (the paper's "recorded in the happens-before
// relation"); without it, the skipped pair would hide the race.
//
// With Cond set, the dependence clock of a read, write or atomic step d
// is built from its candidates: every earlier event with an access that
// conflicts with one of d's, found by walking the location's chain back.
// They are taken newest first, after the edges of program order and
// spawn: a candidate that already happens before d is passed over; one
// that Cond says commutes with d (Eligible, then Independent, given d's
// clock so far, which at that point holds every later event that happens
// before d: E'.û of the paper) is left out; any other is joined, and is
// one of d's direct dependences (its races are among them, condRaces).
//
// The walk back stops at a write that covers every earlier conflicting
// access of its location (its record is full: its own walk left nothing
// out) and that cannot be left out. A walk that passed over an eligible
// candidate goes on, since that candidate may not cover what is behind
// it. Without Cond nothing of this runs.

// CondOracle decides, for CDPOR, whether two conflicting events commute.
type CondOracle interface {
	// Eligible reports whether events k and d (being pushed) are of kinds
	// and sites that may commute although they conflict: when false they
	// are dependent, and Independent is not asked.
	Eligible(k, d int32) bool
	// Independent reports whether k and d commute in the state after the
	// events before k and the later events that happen before d (those
	// whose Before(e, dep) holds): both about to run, adjacent.
	Independent(k, d int32, dep Clock) bool
}

type condCand struct {
	ev  int32
	may bool // through an access an atomic step only may make: never left out
}

// condDeps joins into dep the dependences of d's accesses (and may) as
// "Conditional dependence" says, and reports whether none was left out.
func (c *Clocks) condDeps(d int32, kind ir.EventKind, ev *interp.Event, may []ir.Access, dep *Clock) bool {
	cands := c.cands[:0]
	walk := func(loc int32, write, aMay bool) {
		h := c.depHead[loc]
		if !write && h >= 0 && c.accs[h].kind != accWrite {
			h = c.accs[h].dep.prevW
		}
		for h >= 0 {
			c.hops++
			r := &c.accs[h]
			if r.kind == accWrite || write {
				m := r.may || aMay
				cands = append(cands, condCand{r.ev, m})
				if r.kind == accWrite && r.full && (m || !c.Cond.Eligible(r.ev, d)) {
					return
				}
			}
			if write {
				h = r.dep.prev
			} else {
				h = r.dep.prevW
			}
		}
	}
	switch kind {
	case ir.EvRead:
		walk(ev.Loc, false, false)
	case ir.EvWrite:
		walk(ev.Loc, true, false)
	case ir.EvAtomic:
		for _, a := range ev.Acc {
			walk(a.Loc, a.Write, false)
		}
		for _, a := range may {
			walk(a.Loc, a.Write, true)
		}
	}
	// Newest first; one entry per event (may wins).
	slices.SortFunc(cands, func(a, b condCand) int {
		if a.ev != b.ev {
			return int(b.ev - a.ev)
		}
		if a.may == b.may {
			return 0
		}
		if a.may {
			return -1
		}
		return 1
	})
	full := true
	for i, k := range cands {
		if i > 0 && cands[i-1].ev == k.ev {
			continue
		}
		if c.Before(k.ev, *dep) {
			continue
		}
		if !k.may && c.Cond.Eligible(k.ev, d) && c.Cond.Independent(k.ev, d, *dep) {
			full = false
			continue
		}
		c.join(dep, c.evs[k.ev].dep)
		c.cjoined = append(c.cjoined, k.ev)
	}
	c.cands = cands
	return full
}

// condRaces appends to out the races of d, a read, write or atomic step
// of thread t whose previous event's dependence clock is base: the
// direct dependences condDeps joined, of other threads.
func (c *Clocks) condRaces(d, t int32, base Clock, out []int32, lo int) []int32 {
	end := int32(len(c.cjoined))
	if d+1 < int32(len(c.evs)) {
		end = c.evs[d+1].cjLo
	}
	for _, e := range c.cjoined[c.evs[d].cjLo:end] {
		if c.evs[e].thread != t && !c.Before(e, base) {
			out = appendUnique(out, lo, e)
		}
	}
	return out
}

// LastWrite returns the latest event before the one being pushed that
// wrote loc (an access it made, not one it only may make) and for which
// keep holds, or -1.
func (c *Clocks) LastWrite(loc int32, keep func(e int32) bool) int32 {
	h := c.depHead[loc]
	if h >= 0 && c.accs[h].kind != accWrite {
		h = c.accs[h].dep.prevW
	}
	for ; h >= 0; h = c.accs[h].dep.prevW {
		c.hops++
		if r := &c.accs[h]; !r.may && keep(r.ev) {
			return r.ev
		}
	}
	return -1
}

// WritesBefore reports whether every write of loc made before the event
// being pushed, other than k's own, happens before event k. Then the
// value loc has where k runs is the same in every execution that orders
// the events like this one does: no write of it can move past k. CDPOR
// asks it of the words a constraint reads (see dpor's cdpor.stable).
func (c *Clocks) WritesBefore(loc, k int32) bool {
	kc := c.evs[k].dep
	h := c.depHead[loc]
	if h >= 0 && c.accs[h].kind != accWrite {
		h = c.accs[h].dep.prevW
	}
	for ; h >= 0; h = c.accs[h].dep.prevW {
		c.hops++
		r := &c.accs[h]
		if r.may || r.ev == k {
			continue
		}
		if !c.Before(r.ev, kc) {
			return false
		}
		if r.full {
			return true // every earlier write happens before r.ev
		}
	}
	return true
}
