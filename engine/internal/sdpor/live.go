package sdpor

import "weft/engine/interp"

// liveThreads lists the threads that have not finished, in increasing
// order, so that a node looks at the threads alive, not at every thread
// the execution ever spawned (a chain of spawns makes 100,000 threads of
// which two are alive at a time). It is a doubly linked list over thread
// indices that follows the steps and their undoing in stack order, so a
// thread removed by a step goes back between the same neighbours when
// the step is undone ("dancing links"); a spawned thread is the highest so
// far and goes at the end.
type liveThreads struct {
	next, prev []int32 // per thread; -1: none
	first      int32
	last       int32
	changes    []liveChange // per step on the machine
}

// liveChange is what one step did to the list.
type liveChange struct {
	added, removed int32 // -1: none
}

// reset makes l list the threads among the first n for which alive says so.
func (l *liveThreads) reset(n int, alive func(t int) bool) {
	l.first, l.last = -1, -1
	l.next, l.prev, l.changes = l.next[:0], l.prev[:0], l.changes[:0]
	for t := 0; t < n; t++ {
		l.grow(t)
		if alive(t) {
			l.append(int32(t))
		}
	}
}

func (l *liveThreads) grow(t int) {
	for len(l.next) <= t {
		l.next = append(l.next, -1)
		l.prev = append(l.prev, -1)
	}
}

func (l *liveThreads) append(t int32) {
	l.grow(int(t))
	l.prev[t], l.next[t] = l.last, -1
	if l.last >= 0 {
		l.next[l.last] = t
	} else {
		l.first = t
	}
	l.last = t
}

// unlink takes t out, leaving its own links as they were, for relink.
func (l *liveThreads) unlink(t int32) {
	p, n := l.prev[t], l.next[t]
	if p >= 0 {
		l.next[p] = n
	} else {
		l.first = n
	}
	if n >= 0 {
		l.prev[n] = p
	} else {
		l.last = p
	}
}

// relink puts back the thread unlink took out last.
func (l *liveThreads) relink(t int32) {
	p, n := l.prev[t], l.next[t]
	if p >= 0 {
		l.next[p] = t
	} else {
		l.first = t
	}
	if n >= 0 {
		l.prev[n] = t
	} else {
		l.last = t
	}
}

// step records that thread t made a step on m, which had before threads
// before it.
func (l *liveThreads) step(m *interp.Machine, t, before int) {
	added, removed := int32(-1), int32(-1)
	if len(m.Threads) > before && m.Threads[before].Status != interp.Finished {
		added = int32(before)
	}
	if m.Threads[t].Status == interp.Finished {
		removed = int32(t)
	}
	l.stepped(added, removed)
}

// stepped records a step: added is a thread it spawned that is alive, or
// -1; removed is its thread if the step finished it, or -1.
func (l *liveThreads) stepped(added, removed int32) {
	if added >= 0 {
		l.append(added)
	}
	if removed >= 0 {
		l.unlink(removed)
	}
	l.changes = append(l.changes, liveChange{added, removed})
}

// undo takes the last step's change back.
func (l *liveThreads) undo() {
	c := l.changes[len(l.changes)-1]
	l.changes = l.changes[:len(l.changes)-1]
	if c.removed >= 0 {
		l.relink(c.removed)
	}
	if c.added >= 0 {
		l.unlink(c.added)
	}
}
