package slicing

import (
	"container/heap"

	"weft/engine/interp"
	"weft/engine/ir"
)

// The order of a slice
//
// Any order of the slice's steps that keeps each pair of dependent steps
// as the execution had it is an execution of the slice, reaching the same
// state (the argument of the package doc). The explorations run
// different orders of one trace (each mode picks its own representative,
// and a coarse step runs its tail at once), so the trace's own order
// would make the slice of one failure differ from mode to mode, and from
// the editor's quick check to the CLI. The slice is put in one order
// instead, the canonical one of its trace: at each point, the step of the
// lowest-numbered thread that can go (all the steps it depends on have
// gone). Two executions whose slices are the same trace (equivalent up
// to the order of independent steps) get the same schedule, whatever
// mode found them, and the kept schedule of a bug (the shortest, then
// the first in the order of schedules) does not depend on which order of
// the trace an exploration happened to run. A failing last step is last
// in every order: each step of the slice is in its past.

// order is Slice's canonical order of the steps keep marks.
func (s *Slicer) order(prog *ir.Program, evs []interp.Event, m *interp.Machine, target Target, keep []bool) []int {
	nth := len(m.Threads)
	for _, ev := range evs {
		nth = max(nth, int(ev.Thread)+1)
	}
	nloc := len(prog.Locations)
	status := func(t int32) int32 { return int32(nloc) + 1 + t }
	valid := func(t int32) bool { return t >= 0 && int(t) < nth }

	// The kept steps, in the execution's order, and the edges between
	// them: program order; a read after the latest write of its word; a
	// write after the latest write and the reads since.
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	ids := make([]int, 0, n)      // kept step k's index among the fine steps
	thread := make([]int32, 0, n) // its thread
	type edge struct{ from, to int32 }
	var edges []edge
	lastOf := make([]int32, nth)
	for i := range lastOf {
		lastOf[i] = -1
	}
	lastWrite := make([]int32, nloc+1+nth)
	for i := range lastWrite {
		lastWrite[i] = -1
	}
	readsSince := make(map[int32][]int32)
	fine := 0
	for e := range evs {
		ev := &evs[e]
		for j := 0; j < ev.Steps(); j, fine = j+1, fine+1 {
			if !keep[fine] {
				continue
			}
			k := int32(len(ids))
			ids = append(ids, fine)
			thread = append(thread, ev.Thread)
			if p := lastOf[ev.Thread]; p >= 0 {
				edges = append(edges, edge{p, k})
			}
			lastOf[ev.Thread] = k
			if target == Last && fine == len(keep)-1 {
				s.acc = s.targetAccesses(s.acc[:0], ev, j, m, status, valid)
			} else {
				s.acc = s.pieceAccesses(s.acc[:0], ev, j, status, valid)
			}
			for _, a := range s.acc {
				if w := lastWrite[a.loc]; w >= 0 && w != k {
					edges = append(edges, edge{w, k})
				}
				if !a.write {
					if rs := readsSince[a.loc]; len(rs) == 0 || rs[len(rs)-1] != k {
						readsSince[a.loc] = append(rs, k)
					}
					continue
				}
				for _, r := range readsSince[a.loc] {
					if r != k {
						edges = append(edges, edge{r, k})
					}
				}
				delete(readsSince, a.loc)
				lastWrite[a.loc] = k
			}
		}
	}

	// Kahn's algorithm, the lowest thread first.
	indeg := make([]int32, n)
	start := make([]int32, n+1) // the edges out of k: succ[start[k]:start[k+1]]
	for _, ed := range edges {
		indeg[ed.to]++
		start[ed.from+1]++
	}
	for k := 0; k < n; k++ {
		start[k+1] += start[k]
	}
	succ := make([]int32, len(edges))
	fill := append([]int32(nil), start[:n]...)
	for _, ed := range edges {
		succ[fill[ed.from]] = ed.to
		fill[ed.from]++
	}
	ready := &readyHeap{thread: thread}
	for k := int32(0); k < int32(n); k++ {
		if indeg[k] == 0 {
			heap.Push(ready, k)
		}
	}
	order := make([]int, 0, n)
	for ready.Len() > 0 {
		k := heap.Pop(ready).(int32)
		order = append(order, ids[k])
		for _, x := range succ[start[k]:start[k+1]] {
			if indeg[x]--; indeg[x] == 0 {
				heap.Push(ready, x)
			}
		}
	}
	return order
}

// readyHeap holds the kept steps that can go, the lowest thread on top
// (at most one step of a thread is ready at a time: program order).
type readyHeap struct {
	steps  []int32
	thread []int32
}

func (h *readyHeap) Len() int { return len(h.steps) }
func (h *readyHeap) Less(i, j int) bool {
	a, b := h.steps[i], h.steps[j]
	if h.thread[a] != h.thread[b] {
		return h.thread[a] < h.thread[b]
	}
	return a < b
}
func (h *readyHeap) Swap(i, j int) { h.steps[i], h.steps[j] = h.steps[j], h.steps[i] }
func (h *readyHeap) Push(x any)    { h.steps = append(h.steps, x.(int32)) }
func (h *readyHeap) Pop() any {
	x := h.steps[len(h.steps)-1]
	h.steps = h.steps[:len(h.steps)-1]
	return x
}
