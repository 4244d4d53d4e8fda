package clocks

import "weft/engine/ir"

// Pending races
//
// A stateful exploration stops at a state it has seen before, so the data
// races between an access made before that state and one made after it
// must be decided by the state: two executions reaching the same machine
// state may have made different accesses that are still unordered with
// the threads' futures. PendingRaces lists what of the race clocks the
// future can still see: every access on a location's race chain that
// some live thread (one that may still access memory) has not yet
// synchronised with, as (location, thread, pc, kind, in an atomic block,
// the live threads it is not ordered before). An access every live
// thread is ordered after can take part in no future race: a future
// access of a live thread, or of a thread it spawns, comes after it. So
// two paths to the same machine state with the same pending accesses
// give the same future data-race reports, pair for pair, under
// FullRaceWalk (which reports every unordered conflicting pair, not only
// those after the latest ordered write): whether a future access d of
// thread u is ordered after a pending access p depends only on whether
// some thread that already covers p passes it on to u along the future,
// which the future alone decides.

// Pending is one access some live thread is not yet ordered after.
type Pending struct {
	Loc, Thread, PC int32
	Write, Atomic   bool
	// Unordered has bit u%64 of word u/64 set for each live thread u not
	// ordered after the access. It is valid only during the call to
	// PendingRaces' f.
	Unordered []uint64
}

// PendingRaces calls f for each access of the current execution that a
// live thread is not ordered after (see "Pending races"), on the
// locations that can race (neither atomic variables nor mutexes). live
// says which threads may still access memory.
func (c *Clocks) PendingRaces(locs []ir.Location, live func(t int32) bool, f func(Pending)) {
	if c.Off {
		return
	}
	n := int32(len(c.lastEv))
	syncs := make([]Clock, n)
	alive := make([]bool, n)
	set := make([]uint64, (n+63)/64)
	for t := int32(0); t < n; t++ {
		if live(t) {
			alive[t] = true
			_, syncs[t] = c.ThreadClocks(t)
		}
	}
	for loc, head := range c.raceHead {
		if head < 0 || locs[loc].Atomic || locs[loc].Mutex {
			continue
		}
		for h := head; h >= 0; h = c.accs[h].race.prev {
			r := &c.accs[h]
			pt := c.evs[r.ev].thread
			clear(set)
			any := false
			for u := int32(0); u < n; u++ {
				if u == pt || !alive[u] || c.Get(syncs[u], pt) > r.idx {
					continue
				}
				set[u/64] |= 1 << (u % 64)
				any = true
			}
			if any {
				f(Pending{Loc: int32(loc), Thread: pt, PC: r.pc, Write: r.kind == accWrite, Atomic: r.atomic, Unordered: set})
			}
		}
	}
}
