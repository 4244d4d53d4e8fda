package stateful

import (
	"math"
	"strconv"
	"strings"
	"unsafe"

	"weft/engine/interp"
	"weft/engine/ir"
)

// record is what the exploration keeps of a state it stored.
type record struct {
	depth   int32 // the depth it was (last) explored from
	stackAt int32 // its depth on the stack while it is there, else -1
	edges   int32 // its latest explored transition (DE-S-POR, DL-S-POR), or -1
}

// The targets of an edge that has no successor state.
const (
	toStop    = -1 // the step stopped the execution
	toCut     = -2 // the step went past the step bound
	toUnknown = -3 // a state of which nothing is kept (bitstate hashing)
	toBlocked = -4 // not a step taken: the step a blocked thread waits to make (see "Blocked steps")
)

// edge is an explored transition of the state graph L_r (DE-S-POR and
// DL-S-POR go over it again to compute source sets).
type edge struct {
	thread int32
	fp     int32 // the step's footprint (graph.fps)
	target int32 // the successor's record, or toStop, toCut, toUnknown
	next   int32 // the state's previous explored transition, or -1
}

// graph is the explored state graph: the records of the stored states,
// their explored transitions, and the footprints of those transitions,
// each kept once, with the dependence between them.
type graph struct {
	recs  []record
	edges []edge

	fps   []ir.Footprint
	fpIDs map[string]int32
	dep   map[uint64]bool
	dense []int8 // the dependence of the first denseFootprints footprints: 1, -1, or 0 not known yet
	kb    strings.Builder

	stopping func() bool // whether the run is ending (walks end early)

	stamp []uint32 // per record: the retraversal that last went through it
	epoch uint32
	stack []int32 // scratch of retraversals
}

func newGraph() *graph {
	return &graph{fpIDs: map[string]int32{}, dep: map[uint64]bool{}}
}

func (g *graph) bytes() int64 {
	return int64(cap(g.recs))*int64(unsafe.Sizeof(record{})) + int64(cap(g.edges))*int64(unsafe.Sizeof(edge{})) +
		4*int64(cap(g.stamp)) + 64*int64(len(g.fps)) + 16*int64(len(g.dep))
}

// addRecord adds a state explored from depth d, on the stack there.
func (g *graph) addRecord(d int32) int32 {
	g.recs = append(g.recs, record{depth: d, stackAt: d, edges: -1})
	g.stamp = append(g.stamp, 0)
	return int32(len(g.recs) - 1)
}

// addEdge records that thread t's step with footprint fp was explored
// from state from (a record) to target.
func (g *graph) addEdge(from, t, fp, target int32) {
	r := &g.recs[from]
	g.edges = append(g.edges, edge{thread: t, fp: fp, target: target, next: r.edges})
	r.edges = int32(len(g.edges) - 1)
}

// footprint returns the identifier of the footprint of step ev, whose
// atomic block may also make the accesses may.
func (g *graph) footprint(ev *interp.Event, may []ir.Access) int32 {
	fp := ir.Footprint{Kind: ev.Kind, Stop: ev.Stop != interp.NoStop, Loc: ev.Loc}
	switch ev.Kind {
	case ir.EvAtomic, ir.EvWait, ir.EvWake:
		fp.Acc = append(append([]ir.Access(nil), ev.Acc...), may...)
	}
	switch ev.Kind {
	case ir.EvSpawn, ir.EvJoin, ir.EvChoose:
		// They touch no location; a spawn's and a join's Loc is a
		// thread, not a location (see "Dependence" in the package doc).
		fp.Loc = -1
	}
	return g.intern(fp)
}

// intern returns the identifier of footprint fp.
func (g *graph) intern(fp ir.Footprint) int32 {
	b := &g.kb
	b.Reset()
	b.WriteString(strconv.Itoa(int(fp.Kind)))
	if fp.Stop {
		b.WriteByte('!')
	}
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(int(fp.Loc)))
	for _, a := range fp.Acc {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(int(a.Loc)))
		if a.Write {
			b.WriteByte('w')
		}
	}
	if id, ok := g.fpIDs[b.String()]; ok {
		return id
	}
	id := int32(len(g.fps))
	g.fps = append(g.fps, fp)
	g.fpIDs[b.String()] = id
	return id
}

// denseFootprints is how many footprints have their dependence cached in
// a matrix (the others in a map).
const denseFootprints = 256

// dependent reports whether steps with footprints a and b of different
// threads are dependent.
func (g *graph) dependent(a, b int32) bool {
	if a > b {
		a, b = b, a
	}
	if b < denseFootprints {
		i := int(a)*denseFootprints + int(b)
		if g.dense == nil {
			g.dense = make([]int8, denseFootprints*denseFootprints)
		}
		switch g.dense[i] {
		case 1:
			return true
		case -1:
			return false
		}
		d := ir.Dependent(&g.fps[a], &g.fps[b])
		g.dense[i] = -1
		if d {
			g.dense[i] = 1
		}
		return d
	}
	k := uint64(a)<<32 | uint64(uint32(b))
	if d, ok := g.dep[k]; ok {
		return d
	}
	d := ir.Dependent(&g.fps[a], &g.fps[b])
	g.dep[k] = d
	return d
}

// allKnown is what visit returns when every state it reached is known.
const allKnown = math.MaxInt32

// visit goes over every transition reachable in the graph from the
// states starts (each transition once), calling f with each; f returns
// true to end the walk early. It returns the lowest stack depth of a
// state it reached whose transitions are not all known yet (one on the
// stack: its exploration is not over), 0 if it reached a state of which
// nothing is kept (bitstate hashing), or allKnown. visits counts the
// states it went through.
func (g *graph) visit(starts []int32, f func(e *edge) bool, visits *int64) (low int32) {
	g.epoch++
	if g.epoch == 0 { // wrapped: forget every stamp
		clear(g.stamp)
		g.epoch = 1
	}
	st := g.stack[:0]
	low = allKnown
	push := func(id int32) {
		switch {
		case id == toStop || id == toCut || id == toBlocked:
			return
		case id == toUnknown:
			low = 0
			return
		case g.recs[id].stackAt >= 0:
			low = min(low, g.recs[id].stackAt)
			return
		}
		if g.stamp[id] != g.epoch {
			g.stamp[id] = g.epoch
			st = append(st, id)
		}
	}
	for _, s := range starts {
		push(s)
	}
	for len(st) > 0 {
		id := st[len(st)-1]
		st = st[:len(st)-1]
		*visits++
		if *visits&1023 == 0 && g.stopping != nil && g.stopping() {
			// The run is ending: what was not gone over is unknown.
			g.stack = st
			return 0
		}
		for e := g.recs[id].edges; e >= 0; e = g.edges[e].next {
			ed := &g.edges[e]
			if f(ed) {
				g.stack = st
				return low
			}
			push(ed.target)
		}
	}
	g.stack = st
	return low
}
