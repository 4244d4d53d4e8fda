package unfolding

import (
	"slices"

	"weft/engine/interp"
	"weft/engine/ir"
)

// Steps with alternatives (see "Choose" and "Condition variables" in the
// package doc): a choose takes one of its values, a signal wakes one of
// the threads waiting on its condition variable. The events of the
// alternatives of one step (one thread, one predecessor, one history)
// are siblings in their thread tree, mutually in conflict. en(C) holds
// one of them per thread (the one enabledOf finds); the others are found
// or made here when Alg. 1 needs them: to follow a clue, for the free
// choice, and as the spike of an alternative in D.
//
// An action's alt tells the alternatives apart: for a choose the value's
// index (interp.Machine.StepAlt's alternative); for a signal 1 + the uid
// of the thread it wakes, 0 if no thread waits (the signal is lost).

// hasChoices reports whether e's step is one of several alternatives.
func hasChoices(e *uevent) bool { return e.fkind == ir.EvChoose || e.fkind == ir.EvSignal }

// choices appends to out the alternatives (action.alt) of the step of
// event c: a choose's values, or the threads its signal may wake, the
// waiters of its condition variable after the last write of it in c's
// history (none: the one alternative 0).
func (q *qexplorer) choices(c *uevent, out []int32) []int32 {
	if c.fkind == ir.EvChoose {
		for i := int32(0); i < c.act.nalt; i++ {
			out = append(out, i)
		}
		return out
	}
	ws := q.cvWaiters[c.lastW]
	if c.lastW == nil || len(ws) == 0 {
		return append(out, 0)
	}
	for _, w := range ws {
		out = append(out, w+1)
	}
	return out
}

// alternativeOf returns the event of alternative v of event c's step
// (c's sibling, or c), making it if U does not hold it; nil if it is
// beyond the step bound (so is c then).
func (q *qexplorer) alternativeOf(c *uevent, v int32) *uevent {
	if c.act.alt == v {
		return c
	}
	return q.event(c.thread, c.pred, c.spawner, c.act.alternative(v), c.maxs)
}

// siblingChoice reports whether a and c are alternatives of one step of
// one thread (or one event).
func siblingChoice(a, c *uevent) bool {
	return hasChoices(a) && a.fkind == c.fkind && a.thread == c.thread &&
		a.pred == c.pred && a.spawner == c.spawner && slices.Equal(a.maxs, c.maxs)
}

// enabledIn reports whether a is enabled at C, en being en(C): in en, or
// an alternative of the step of an event of en.
func (q *qexplorer) enabledIn(en []*uevent, a *uevent) bool {
	for _, f := range en {
		if f == a || (f.thread == a.thread && siblingChoice(a, f)) {
			return true
		}
	}
	return false
}

// freeAlternative returns an alternative of event c's step that is not
// in D, or nil: the one after the latest to enter D first.
func (q *qexplorer) freeAlternative(c *uevent) *uevent {
	vs := q.choices(c, q.choiceBuf[:0])
	q.choiceBuf = vs
	start := 0
	if top := q.lastChoiceInD(c); top != nil {
		if i := slices.Index(vs, top.act.alt); i >= 0 {
			start = i + 1
		}
	}
	for k := range vs {
		if f := q.alternativeOf(c, vs[(start+k)%len(vs)]); f != nil && f.inD == 0 {
			return f
		}
	}
	return nil
}

// lastChoiceInD is the alternative of event c's step that entered D
// last, of those D holds, or nil.
func (q *qexplorer) lastChoiceInD(c *uevent) *uevent {
	s := c.act.alternative(0).inD
	for i := len(s) - 1; i >= 0; i-- {
		if siblingChoice(s[i], c) {
			return s[i]
		}
	}
	return nil
}

// noteD records that e entered D (in) or left it (!in), for
// lastChoiceInD: the alternatives of a step in D are a stack, as D is.
func noteD(e *uevent, in bool) {
	if !hasChoices(e) {
		return
	}
	b := e.act.alternative(0)
	if in {
		b.inD = append(b.inD, e)
		return
	}
	b.inD[len(b.inD)-1] = nil
	b.inD = b.inD[:len(b.inD)-1]
}

// Condition variables (see the package doc): who waits on a condition
// variable after an event that writes it (a wait, a signal, a broadcast),
// kept for the events of U in qexplorer.cvWaiters, decides what a signal
// can wake and whether a wake-up is enabled.

// noteWaiters records, when event e (just executed for the first time,
// ev its step) writes a condition variable, the uids of the threads
// waiting on it after e, sorted.
func (q *qexplorer) noteWaiters(e *uevent, ev *interp.Event) {
	var cv int32
	switch e.fkind {
	case ir.EvWait:
		cv = e.act.acc[1].Loc
	case ir.EvSignal, ir.EvBroadcast:
		cv = e.floc
	default:
		return
	}
	var ws []int32
	m := q.x.M()
	for i, th := range m.Threads {
		if !m.Waiting(i) || th.Status != interp.Ready {
			continue
		}
		if in := th.Body.Code[th.PC]; in.Op == ir.OpWake && int32(th.Frame[in.B]) == cv {
			ws = append(ws, q.uidOf[i])
		}
	}
	slices.Sort(ws)
	if q.cvWaiters == nil {
		q.cvWaiters = make(map[*uevent][]int32)
	}
	q.cvWaiters[e] = ws
}

// waitersIn returns the uids of the threads waiting on condition variable
// cv after the events of C in the configuration with maxima tm: as after
// its last write of cv.
func (q *qexplorer) waitersIn(cv int32, tm []*uevent) []int32 {
	s := q.c.locs[cv]
	for i := len(s) - 1; i >= 0; i-- {
		if f := s[i]; leqView(f, tm) {
			if _, w := f.access(cv); w {
				return q.cvWaiters[f]
			}
		}
	}
	return nil
}

// machineAlt is the machine's alternative (interp.Machine.StepAlt) of
// event e's step: for a signal that wakes a thread, that thread's place
// among the machine's threads waiting on the condition variable, in
// thread order.
func (q *qexplorer) machineAlt(e *uevent) int {
	if e.fkind != ir.EvSignal || e.act.alt == 0 {
		return int(e.act.alt)
	}
	m := q.x.M()
	woken := int(q.midx[e.act.alt-1])
	n := 0
	for i, th := range m.Threads {
		if !m.Waiting(i) || th.Status != interp.Ready {
			continue
		}
		if in := th.Body.Code[th.PC]; in.Op != ir.OpWake || int32(th.Frame[in.B]) != e.floc {
			continue
		}
		if i == woken {
			return n
		}
		n++
	}
	q.x.Anomaly("a signal's thread does not wait") // cannot happen: its history says it does
	return 0
}
