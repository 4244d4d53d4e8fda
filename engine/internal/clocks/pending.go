package clocks

import (
	"slices"

	"weft/engine/ir"
)

// Pending races
//
// A stateful exploration stops at a state it has seen before, so the data
// races between an access made before that state and one made after it
// must be decided by the state: two executions reaching the same machine
// state may have made different accesses that are still unordered with
// the threads' futures. PendingRaces gives, per location, what of its
// race chain the future can still see, newest first: the accesses some
// live thread (one that may still access memory) is not yet ordered
// after, as (thread, pc, kind, in an atomic block, the live threads not
// ordered after it), down to the newest write every live thread is
// ordered after, where it stops.
//
// Why that decides the future's reports. DataRaces walks a location's
// chain from the newest access, reports those not ordered before the new
// one, and stops at the first write that is. A write every live thread
// is ordered after stops every future walk (a future access of a live
// thread, or of a thread it spawns, is ordered after it), so nothing
// older is ever reported again; an access every live thread is ordered
// after is never reported either, and only a write can stop a walk, so
// such reads are left out. Whether a future access of thread u is
// ordered after a listed access p depends only on whether a thread that
// is ordered after p now (p's own thread, or one not in its unordered
// set) passes that on to u in the future, which the future alone
// decides. Of two listed accesses with equal descriptions the older
// adds nothing (a walk reaches it only past the newer, reported with
// the same pair of source ranges, or stopped there), so a caller may
// keep the newest of each. Two paths to one machine state with equal
// lists therefore get the same data-race reports from every future.

// Pending is one access some live thread is not yet ordered after.
type Pending struct {
	Thread, PC    int32
	Write, Atomic bool
	// Unordered has bit u%64 of word u/64 set for each live thread u not
	// ordered after the access. It is valid only during the call to
	// PendingRaces' f.
	Unordered []uint64
}

// PendingRaces calls f for each location that can race (neither an
// atomic variable nor a mutex, nor marked in raceFree) and each access of
// its race chain that a live thread is not ordered after, newest first
// (see "Pending races"). live says which threads may still access
// memory.
func (c *Clocks) PendingRaces(locs []ir.Location, raceFree []bool, live func(t int32) bool, f func(loc int32, p Pending)) {
	if c.Off {
		return
	}
	n := int32(len(c.lastEv))
	ps := &c.pend
	ps.syncs = slices.Grow(ps.syncs[:0], int(n))[:n]
	ps.alive = slices.Grow(ps.alive[:0], int(n))[:n]
	ps.set = slices.Grow(ps.set[:0], int(n+63)/64)[:(n+63)/64]
	syncs, alive, set := ps.syncs, ps.alive, ps.set
	for t := int32(0); t < n; t++ {
		alive[t] = live(t)
		if alive[t] {
			_, syncs[t] = c.ThreadClocks(t)
		}
	}
	for loc, head := range c.raceHead {
		if head < 0 || locs[loc].Atomic || locs[loc].Mutex || loc < len(raceFree) && raceFree[loc] {
			continue
		}
		for h := head; h >= 0; h = c.accs[h].race.prev {
			r := &c.accs[h]
			pt := c.evs[r.ev].thread
			clear(set)
			unordered := false
			for u := int32(0); u < n; u++ {
				if u == pt || !alive[u] || c.Get(syncs[u], pt) > r.idx {
					continue
				}
				set[u/64] |= 1 << (u % 64)
				unordered = true
			}
			if unordered {
				f(int32(loc), Pending{Thread: pt, PC: r.pc, Write: r.kind == accWrite, Atomic: r.atomic, Unordered: set})
			} else if r.kind == accWrite {
				break // every future walk stops here
			}
		}
	}
}

// pendingScratch is PendingRaces' scratch, kept between calls.
type pendingScratch struct {
	syncs []Clock
	alive []bool
	set   []uint64
}
