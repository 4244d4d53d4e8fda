package slicing

import (
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
// mode found them: what a bug shows depends on the trace its slice is,
// not on which order of it an exploration happened to run. A failing last step is last
// in every order: each step of the slice is in its past.

// orderBufs are Order's buffers.
type orderBufs struct {
	ids, order              []int
	thread, lastOf, lastW   []int32
	readHead                []int32 // per word: its latest read record since its latest write, or -1
	recStep, recNext        []int32 // per read record: the kept step, the word's record before (-1: none)
	edges                   []edge
	indeg, start, succ, pos []int32
	heap                    readyHeap
}

type edge struct{ from, to int32 }

// Order returns the fine steps keep marks (Keep) in the canonical order
// of their trace (see "The order of a slice"); with target None, every
// step in order. The answer is valid until the next call.
func (s *Slicer) Order(prog *ir.Program, evs []interp.Event, m *interp.Machine, target Target, keep []bool) []int {
	b := &s.ord
	if target == None {
		b.order = b.order[:0]
		for i := range keep {
			b.order = append(b.order, i)
		}
		return b.order
	}
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
	b.ids, b.thread, b.edges = b.ids[:0], b.thread[:0], b.edges[:0]
	b.lastOf = fill32(b.lastOf, nth, -1)
	b.lastW = fill32(b.lastW, nloc+1+nth, -1)
	b.readHead = fill32(b.readHead, nloc+1+nth, -1)
	b.recStep, b.recNext = b.recStep[:0], b.recNext[:0]
	fine := 0
	for e := range evs {
		ev := &evs[e]
		for j := 0; j < ev.Steps(); j, fine = j+1, fine+1 {
			if !keep[fine] {
				continue
			}
			k := int32(len(b.ids))
			b.ids = append(b.ids, fine)
			b.thread = append(b.thread, ev.Thread)
			if p := b.lastOf[ev.Thread]; p >= 0 {
				b.edges = append(b.edges, edge{p, k})
			}
			b.lastOf[ev.Thread] = k
			if target == Last && fine == len(keep)-1 {
				s.acc = s.targetAccesses(s.acc[:0], ev, j, m, status, valid)
			} else {
				s.acc = s.pieceAccesses(s.acc[:0], ev, j, status, valid)
			}
			for _, a := range s.acc {
				if w := b.lastW[a.loc]; w >= 0 && w != k {
					b.edges = append(b.edges, edge{w, k})
				}
				if !a.write {
					b.recStep = append(b.recStep, k)
					b.recNext = append(b.recNext, b.readHead[a.loc])
					b.readHead[a.loc] = int32(len(b.recStep) - 1)
					continue
				}
				for r := b.readHead[a.loc]; r >= 0; r = b.recNext[r] {
					if st := b.recStep[r]; st != k {
						b.edges = append(b.edges, edge{st, k})
					}
				}
				b.readHead[a.loc] = -1
				b.lastW[a.loc] = k
			}
		}
	}
	return b.kahn()
}

// kahn orders the kept steps by Kahn's algorithm, the lowest thread
// first, and returns their fine-step indices.
func (b *orderBufs) kahn() []int {
	n := len(b.ids)
	b.indeg = fill32(b.indeg, n, 0)
	b.start = fill32(b.start, n+1, 0)
	for _, ed := range b.edges {
		b.indeg[ed.to]++
		b.start[ed.from+1]++
	}
	for k := 0; k < n; k++ {
		b.start[k+1] += b.start[k]
	}
	b.succ = fill32(b.succ, len(b.edges), 0)
	b.pos = append(b.pos[:0], b.start[:n]...)
	for _, ed := range b.edges {
		b.succ[b.pos[ed.from]] = ed.to
		b.pos[ed.from]++
	}
	h := &b.heap
	h.steps, h.thread = h.steps[:0], b.thread
	for k := int32(0); k < int32(n); k++ {
		if b.indeg[k] == 0 {
			h.push(k)
		}
	}
	b.order = b.order[:0]
	for h.Len() > 0 {
		k := h.pop()
		b.order = append(b.order, b.ids[k])
		for _, x := range b.succ[b.start[k]:b.start[k+1]] {
			if b.indeg[x]--; b.indeg[x] == 0 {
				h.push(x)
			}
		}
	}
	return b.order
}

// readyHeap holds the kept steps that can go, the lowest thread on top
// (at most one step of a thread is ready at a time: program order).
type readyHeap struct {
	steps  []int32
	thread []int32
}

func (h *readyHeap) Len() int { return len(h.steps) }

func (h *readyHeap) less(i, j int) bool {
	a, b := h.steps[i], h.steps[j]
	if h.thread[a] != h.thread[b] {
		return h.thread[a] < h.thread[b]
	}
	return a < b
}

func (h *readyHeap) push(k int32) {
	h.steps = append(h.steps, k)
	for i := len(h.steps) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.steps[i], h.steps[p] = h.steps[p], h.steps[i]
		i = p
	}
}

func (h *readyHeap) pop() int32 {
	top := h.steps[0]
	last := len(h.steps) - 1
	h.steps[0] = h.steps[last]
	h.steps = h.steps[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.less(l, m) {
			m = l
		}
		if r < last && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h.steps[i], h.steps[m] = h.steps[m], h.steps[i]
		i = m
	}
	return top
}

// fill32 is b resized to n entries, each v.
func fill32(b []int32, n int, v int32) []int32 {
	if cap(b) < n {
		b = make([]int32, n)
	}
	b = b[:n]
	for i := range b {
		b[i] = v
	}
	return b
}
