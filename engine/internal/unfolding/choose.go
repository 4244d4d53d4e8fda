package unfolding

import "weft/engine/ir"

// Choose (see "Choose" in the package doc): the events of a choose's
// alternatives are siblings in their thread tree, mutually in conflict and
// independent of everything else. en(C) holds one of them per thread (the
// first alternative, as enabledOf finds it); the others are found or made
// here when Alg. 1 needs them: to follow a clue, for the free choice, and
// as the spike of an alternative in D.

// alternativeOf returns the event of alternative i of choose event c's
// choose (c's sibling, or c), making it if U does not hold it; nil if it
// is beyond the step bound (so is c then).
func (q *qexplorer) alternativeOf(c *uevent, i int32) *uevent {
	if c.act.alt == i {
		return c
	}
	return q.event(c.thread, c.pred, c.spawner, c.act.alternative(i), c.maxs)
}

// siblingChoice reports whether a and c are events of the same choose of
// one thread (alternatives of each other, or one event).
func siblingChoice(a, c *uevent) bool {
	return a.fkind == ir.EvChoose && c.fkind == ir.EvChoose && a.thread == c.thread &&
		a.pred == c.pred && a.spawner == c.spawner
}

// enabledIn reports whether a is enabled at C, en being en(C): in en, or
// an alternative of a choose event of en.
func (q *qexplorer) enabledIn(en []*uevent, a *uevent) bool {
	for _, f := range en {
		if f == a || (f.thread == a.thread && siblingChoice(a, f)) {
			return true
		}
	}
	return false
}

// freeAlternative returns an alternative of choose event c's choose that
// is not in D, or nil: the one after the latest to enter D first.
func (q *qexplorer) freeAlternative(c *uevent) *uevent {
	n := c.act.nalt
	start := int32(0)
	if top := lastChoiceInD(c); top != nil {
		start = top.act.alt + 1
	}
	for k := int32(0); k < n; k++ {
		if f := q.alternativeOf(c, (start+k)%n); f != nil && f.inD == 0 {
			return f
		}
	}
	return nil
}

// lastChoiceInD is the alternative of choose event c's choose that
// entered D last, of those D holds, or nil.
func lastChoiceInD(c *uevent) *uevent {
	if s := c.act.alternative(0).inD; len(s) > 0 {
		return s[len(s)-1]
	}
	return nil
}
