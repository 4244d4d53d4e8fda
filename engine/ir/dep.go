package ir

import "strconv"

// The one dependence relation of the explorations: what a visible step
// touches (its footprint) and when two steps of different threads are
// dependent (language.md: the same location and one writes it; a mutex
// counts as written by lock and unlock; a step that stops the execution
// is dependent with every other). Join and spawn dependences follow from
// thread identities and are the explorations' to add.

// EventKind is the kind of a visible step.
type EventKind uint8

const (
	EvRead EventKind = iota
	EvWrite
	EvLock
	EvUnlock
	EvSpawn
	EvJoin
	EvAtomic
	EvStop // a pending failure of the thread's local computation
	// Language version 2.
	EvChoose    // a choice of a value: touches nothing, independent of every other step
	EvTrylock   // Loc: the mutex (written, whether taken or not)
	EvWait      // Acc: the mutex released and the condition variable (both written)
	EvWake      // Acc: the condition variable (read) and the mutex locked again (written)
	EvSignal    // Loc: the condition variable (written)
	EvBroadcast // Loc: the condition variable (written)
)

// String names the kind as traces spell it: "read", "write", "lock",
// "unlock", "spawn", "join", "atomic", "stop", "choose", "trylock",
// "wait", "wake", "signal", "broadcast".
func (k EventKind) String() string {
	switch k {
	case EvRead:
		return "read"
	case EvWrite:
		return "write"
	case EvLock:
		return "lock"
	case EvUnlock:
		return "unlock"
	case EvSpawn:
		return "spawn"
	case EvJoin:
		return "join"
	case EvAtomic:
		return "atomic"
	case EvStop:
		return "stop"
	case EvChoose:
		return "choose"
	case EvTrylock:
		return "trylock"
	case EvWait:
		return "wait"
	case EvWake:
		return "wake"
	case EvSignal:
		return "signal"
	case EvBroadcast:
		return "broadcast"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Footprint is what dependence needs to know of a step.
type Footprint struct {
	Kind EventKind
	Stop bool
	Loc  int32
	Acc  []Access // atomic steps, wait and wake
}

// Touches calls f for each location a step accesses, with whether it
// writes (mutex operations count as writes of the mutex).
func (fp *Footprint) Touches(f func(loc int32, write bool) bool) bool {
	switch fp.Kind {
	case EvRead:
		return f(fp.Loc, false)
	case EvWrite, EvLock, EvUnlock, EvTrylock, EvSignal, EvBroadcast:
		return f(fp.Loc, true)
	case EvAtomic, EvWait, EvWake:
		for _, a := range fp.Acc {
			if f(a.Loc, a.Write) {
				return true
			}
		}
	}
	return false
}

// Single is the location a step that is not an atomic block accesses (-1
// if none) and whether it writes it (see touches).
func (fp *Footprint) Single() (loc int32, write bool) {
	switch fp.Kind {
	case EvRead:
		return fp.Loc, false
	case EvWrite, EvLock, EvUnlock, EvTrylock, EvSignal, EvBroadcast:
		return fp.Loc, true
	}
	return -1, false
}

// Dependent reports whether two steps of different threads are Dependent.
// A step that stops the execution disables every other step, so it is
// Dependent with all of them.
func Dependent(a, b *Footprint) bool {
	if a.Stop || b.Stop {
		return true
	}
	return a.Touches(func(la int32, wa bool) bool {
		return b.Touches(func(lb int32, wb bool) bool {
			return la == lb && (wa || wb)
		})
	})
}

// AccessIn reports whether a step of the given kind, on location at (or
// with the accesses acc, for an atomic block), accesses loc, and whether
// it writes it.
func AccessIn(kind EventKind, at int32, acc []Access, loc int32) (touch, write bool) {
	switch kind {
	case EvRead:
		return at == loc, false
	case EvWrite, EvLock, EvUnlock, EvTrylock, EvSignal, EvBroadcast:
		return at == loc, at == loc
	case EvAtomic, EvWait, EvWake:
		for _, x := range acc {
			if x.Loc == loc {
				touch = true
				write = write || x.Write
			}
		}
	}
	return
}
