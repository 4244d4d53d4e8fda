package sdpor

import (
	"slices"

	"weft/engine/ir"
)

// Alternatives
//
// Some steps have several outcomes (interp.Machine.Alternatives): the
// values of a choose, the waiter a signal wakes. The tree (in DFS and in
// SDPOR) treats a thread's step with all its alternatives as one step of
// the thread:
// whenever a node explores thread p (p is picked from its backtrack set),
// it explores every alternative of p's step there, one after the other
// (node.alt of node.alts), and only then is p done there and, in SDPOR,
// put to sleep. Backtrack, done and sleep sets stay sets of threads.
//
// Why this is sound for SDPOR. Consider the system whose transitions are
// the pairs (p, alt). The alternatives of one step have the same
// footprint (a choose touches nothing; a signal writes its condition
// variable whichever waiter it wakes), so they are dependent with the
// same steps of other threads, and they are enabled and disabled
// together (a choose and a signal never block). Hence (1) a race of
// (p, a) with (q, b) is a race of (p, a') with (q, b) for every a', and
// the reversal adds q to the backtrack set, after which every (q, b') is
// explored; (2) a sleeping (p, a) would wake up exactly when (p, a')
// would: putting p to sleep once all its alternatives were explored
// puts all of them to sleep together, and a step that wakes one wakes
// them all. The number of alternatives of p's step depends only on the
// state of what it touches (a signal's waiters are the waits on its
// condition variable, which write it), so it is the same at every node
// where p sleeps. So Source-DPOR's argument goes through with "thread p"
// read as "every alternative of p's step": every Mazurkiewicz trace is
// explored, and sleep sets still make each one explored once.
//
// A choose goes first. A thread standing at a choose with a valid range
// (Machine.Choosing) makes a step that touches nothing and that nothing
// can disable or enable: {p} is a persistent set at that node. So a node
// where some thread stands at a choose explores that thread alone (the
// lowest such thread), with every value, in DFS and SDPOR: DFS explores
// every interleaving modulo taking choose steps first. Races never
// involve a choose, so no race adds a thread at such a node. (An
// execution that another thread would stop before the choose runs is
// explored with the choose first: the same stop, after it.)

// programHas reports whether some body of prog has one of ops.
func programHas(prog *ir.Program, ops ...ir.Op) bool {
	for _, b := range prog.Bodies {
		for _, in := range b.Code {
			if slices.Contains(ops, in.Op) {
				return true
			}
		}
	}
	return false
}

// chooser is the lowest thread that can move at node n (which the
// current state is) and stands at a choose, or -1.
func (tr *Tree) chooser(n *node) int32 {
	if !tr.chooses {
		return -1
	}
	for t := n.enabled.next(0); t >= 0; t = n.enabled.next(t + 1) {
		if tr.m.Choosing(t) {
			return int32(t)
		}
	}
	return -1
}
