package unfolding

import (
	"sort"

	"weft/engine/ir"
)

// The configuration C being explored, with its indexes by location.

// config is the configuration being explored, with its events in the
// order they were added (a linearisation).
type config struct {
	events    []*uevent
	tmax      []*uevent   // per uid
	chain     [][]*uevent // per uid: its events in C, by index
	locs      [][]*uevent // per location: the events of C touching it, in order
	runs      [][]run     // per location, parallel to locs: where scans newest first go on
	wpos      [][]int32   // per location: the indices in locs of its writes
	spawnerOf []*uevent   // per uid: the spawn event in C that created it
	stops     []*uevent   // its stops, in order

	// The positions of C (an event of C, or a thread's start, with the
	// thread's next action there) by the locations their next action
	// accesses, and by the thread their next action joins: the
	// positions whose next action may depend on a new event.
	nextOn [][]position
	joinOn [][]position
}

// run tells a scan of C's entries on a location, newest first, where to
// go on from an entry: a spin loop makes runs of thousands of one thread's
// entries.
type run struct {
	// jump is the index of the entry to look at next past a read,
	// skipping the reads of the same thread just before it (they are
	// below it); past a write, the entry before it.
	jump int32
	// other is the index of the last earlier entry of another thread,
	// or -1 (the scans for other threads' events pass over a thread's
	// own entries in one jump: a thread that spins on a lock makes
	// runs of writes).
	other int32
}

// position is a place in C where thread t can take action a: after p, or
// at its start if p is nil.
type position struct {
	t    int32
	skip int32 // in config.nextOn or joinOn: the index of the last earlier position of another thread, or -1
	p    *uevent
	a    *action
}

// addPos records the position (t, p) with next action a (probed).
func (c *config) addPos(t int32, p *uevent, a *action) {
	add := func(s []position) []position {
		pos := position{t: t, skip: int32(len(s)) - 1, p: p, a: a}
		if n := len(s); n > 0 && s[n-1].t == t {
			pos.skip = s[n-1].skip
		}
		return append(s, pos)
	}
	if a.kind == ir.EvJoin {
		if a.loc >= 0 {
			for int(a.loc) >= len(c.joinOn) {
				c.joinOn = append(c.joinOn, nil)
			}
			c.joinOn[a.loc] = add(c.joinOn[a.loc])
		}
		return
	}
	forLocs(a, func(l int32) { c.nextOn[l] = add(c.nextOn[l]) })
}

// removePos undoes the last addPos of (t, p).
func (c *config) removePos(t int32, p *uevent, a *action) {
	drop := func(s []position) []position {
		if n := len(s); n > 0 && s[n-1].t == t && s[n-1].p == p {
			return s[:n-1]
		}
		return s
	}
	if a.kind == ir.EvJoin {
		if a.loc >= 0 && int(a.loc) < len(c.joinOn) {
			c.joinOn[a.loc] = drop(c.joinOn[a.loc])
		}
		return
	}
	forLocs(a, func(l int32) { c.nextOn[l] = drop(c.nextOn[l]) })
}

// forLocs calls f once for every location action a accesses.
func forLocs(a *action, f func(l int32)) {
	switch a.kind {
	case ir.EvRead, ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock:
		f(a.loc)
	case ir.EvAtomic, ir.EvWait, ir.EvWake:
		for i, x := range a.acc {
			dup := false
			for _, y := range a.acc[:i] {
				dup = dup || y.Loc == x.Loc
			}
			if !dup {
				f(x.Loc)
			}
		}
	}
}

// spawnedStart returns the spawned thread whose start position e added
// to C (uid, action), if any.
func (e *uevent) spawnedStart() (int32, *action) {
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 && e.childNext != nil && !e.childFin {
		return e.childUID, e.childNext
	}
	return -1, nil
}

func (c *config) grow(n int32) {
	for int32(len(c.tmax)) < n {
		c.tmax = append(c.tmax, nil)
		c.chain = append(c.chain, nil)
		c.spawnerOf = append(c.spawnerOf, nil)
	}
}

// posOn is the index in locs[l] of e, an event of C that touches l: its
// lpos if it touches one location; otherwise found by its position in C,
// which orders each list (an event touching several locations has one
// lpos, that of the last it was entered on).
func (c *config) posOn(l int32, e *uevent) int {
	if e.hasLastW() {
		return int(e.lpos)
	}
	s := c.locs[l]
	return sort.Search(len(s), func(i int) bool { return s[i].cpos >= e.cpos })
}

// lastWritePos is the index in locs[l] of the last write of l in C, or -1.
func (c *config) lastWritePos(l int32) int {
	if wp := c.wpos[l]; len(wp) > 0 {
		return int(wp[len(wp)-1])
	}
	return -1
}

func (c *config) contains(e *uevent) bool {
	ch := c.chain[e.thread]
	return int(e.idx) < len(ch) && ch[e.idx] == e
}

func (c *config) push(e *uevent) {
	e.cpos = int32(len(c.events))
	c.events = append(c.events, e)
	c.tmax[e.thread] = e
	c.chain[e.thread] = append(c.chain[e.thread], e)
	last := int32(-1)
	e.touches(func(l int32, _ bool) bool {
		if l != last {
			n := len(c.locs[l])
			if n == 0 || c.locs[l][n-1] != e {
				e.lpos = int32(n)
				c.locs[l] = append(c.locs[l], e)
				_, w := e.access(l)
				r := run{int32(n - 1), int32(n - 1)}
				if n > 0 && c.locs[l][n-1].thread == e.thread {
					prev := c.runs[l][n-1]
					r.other = prev.other
					if !w && c.lastWritePos(l) != n-1 {
						r.jump = prev.jump
					}
				}
				c.runs[l] = append(c.runs[l], r)
				if w {
					c.wpos[l] = append(c.wpos[l], int32(n))
				}
			}
			last = l
		}
		return false
	})
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 {
		c.spawnerOf[e.childUID] = e
	}
	if e.stop {
		c.stops = append(c.stops, e)
	} else if e.next != nil {
		c.addPos(e.thread, e, e.next)
	}
	if t, a := e.spawnedStart(); a != nil {
		c.addPos(t, nil, a)
	}
}

func (c *config) pop() *uevent {
	n := len(c.events) - 1
	e := c.events[n]
	c.events = c.events[:n]
	ch := c.chain[e.thread]
	c.chain[e.thread] = ch[:len(ch)-1]
	if len(ch) > 1 {
		c.tmax[e.thread] = ch[len(ch)-2]
	} else {
		c.tmax[e.thread] = nil
	}
	if t, a := e.spawnedStart(); a != nil {
		c.removePos(t, nil, a)
	}
	if !e.stop && e.next != nil {
		c.removePos(e.thread, e, e.next)
	}
	e.touches(func(l int32, _ bool) bool {
		s := c.locs[l]
		if n := len(s) - 1; n >= 0 && s[n] == e {
			c.locs[l] = s[:n]
			c.runs[l] = c.runs[l][:n]
			if c.lastWritePos(l) == n {
				c.wpos[l] = c.wpos[l][:len(c.wpos[l])-1]
			}
		}
		return false
	})
	if e.fkind == ir.EvSpawn && !e.stop && e.childUID >= 0 {
		c.spawnerOf[e.childUID] = nil
	}
	if e.stop {
		c.stops = c.stops[:len(c.stops)-1]
	}
	return e
}
