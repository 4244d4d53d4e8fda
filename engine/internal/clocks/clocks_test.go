package clocks

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"weft/engine/interp"
	"weft/engine/ir"
)

// The reference: dense clocks and races computed from their definitions,
// looking at every earlier access, as a check of the persistent clocks and
// the linked access chains.

type refAcc struct {
	loc                      int32
	write, atomic, may, tail bool
	pc, idx                  int32
}

type refEv struct {
	thread, index, steps, pc int32
	kind                     ir.EventKind // EvStop for a failed lock, unlock or join
	loc                      int32
	spawned                  int32
	dep, sync                []int32
	accs                     []refAcc
}

type refClocks struct {
	noDep bool
	locs  []ir.Location
	evs   []refEv
}

func at(v []int32, t int32) int32 {
	if int(t) < len(v) {
		return v[t]
	}
	return 0
}

func joinDense(dst *[]int32, src []int32) {
	for len(*dst) < len(src) {
		*dst = append(*dst, 0)
	}
	for i, v := range src {
		(*dst)[i] = max((*dst)[i], v)
	}
}

func setDense(dst *[]int32, t, v int32) {
	for len(*dst) <= int(t) {
		*dst = append(*dst, 0)
	}
	(*dst)[t] = v
}

func (m *refClocks) lastOf(t int32) int {
	for i := len(m.evs) - 1; i >= 0; i-- {
		if m.evs[i].thread == t {
			return i
		}
	}
	return -1
}

func (m *refClocks) spawnOf(t int32) int {
	for i := range m.evs {
		if m.evs[i].spawned == t {
			return i
		}
	}
	return -1
}

// base is the event a new event of t starts from, or -1.
func (m *refClocks) base(t int32) int {
	if e := m.lastOf(t); e >= 0 {
		return e
	}
	return m.spawnOf(t)
}

func (m *refClocks) before(e int, vc []int32) bool {
	return at(vc, m.evs[e].thread) > m.evs[e].index
}

func (m *refClocks) push(ev *interp.Event, may []ir.Access) {
	kind := ev.Kind
	if ev.Stop != interp.NoStop && (kind == ir.EvLock || kind == ir.EvUnlock || kind == ir.EvJoin) {
		kind = ir.EvStop
	}
	e := refEv{thread: ev.Thread, index: ev.Index, steps: int32(ev.Steps()), pc: ev.PC, kind: kind, loc: ev.Loc, spawned: -1}
	if b := m.base(ev.Thread); b >= 0 {
		e.dep = slices.Clone(m.evs[b].dep)
		e.sync = slices.Clone(m.evs[b].sync)
	}
	switch kind {
	case ir.EvRead, ir.EvWrite:
		e.accs = append(e.accs, refAcc{loc: ev.Loc, write: kind == ir.EvWrite, pc: ev.PC, idx: ev.Index})
	case ir.EvAtomic:
		for _, a := range ev.Acc {
			e.accs = append(e.accs, refAcc{loc: a.Loc, write: a.Write, atomic: true, pc: ev.PC, idx: ev.Index})
		}
		for _, a := range may {
			e.accs = append(e.accs, refAcc{loc: a.Loc, write: a.Write, atomic: true, may: true, pc: ev.PC, idx: ev.Index})
		}
	case ir.EvLock:
		for i := len(m.evs) - 1; i >= 0; i-- {
			if f := &m.evs[i]; (f.kind == ir.EvLock || f.kind == ir.EvUnlock) && f.loc == ev.Loc {
				joinDense(&e.dep, f.dep)
				joinDense(&e.sync, f.sync)
				break
			}
		}
	case ir.EvJoin:
		last := m.lastOf(ev.Loc)
		if f := m.base(ev.Loc); f >= 0 {
			joinDense(&e.dep, m.evs[f].dep)
			joinDense(&e.sync, m.evs[f].sync)
			if f == last {
				end := m.evs[f].index + m.evs[f].steps
				setDense(&e.dep, ev.Loc, max(at(e.dep, ev.Loc), end))
				setDense(&e.sync, ev.Loc, max(at(e.sync, ev.Loc), end))
			}
		}
	case ir.EvSpawn:
		e.spawned = ev.Loc
	}
	for j, a := range ev.Tail {
		e.accs = append(e.accs, refAcc{loc: a.Loc, write: a.Write, tail: true, pc: a.PC, idx: ev.Index + 1 + int32(j)})
	}
	// Atomics synchronise: an atomic read (of an atomic location, or in an
	// atomic block) that reads what an earlier event wrote (no earlier
	// write of its own block) joins that event's clock if the write was
	// atomic (to an atomic location, or in an atomic block).
	for i, a := range e.accs {
		if a.may || a.tail || a.write || !(a.atomic || m.locs[a.loc].Atomic) {
			continue
		}
		own := false
		for _, b := range e.accs[:i] {
			own = own || (!b.may && b.write && b.loc == a.loc)
		}
		if own {
			continue
		}
		if w, p := m.lastWrite(a.loc); w >= 0 && (p.atomic || m.locs[a.loc].Atomic) {
			joinDense(&e.sync, m.evs[w].sync)
		}
	}
	// Dependence: every earlier conflicting access that dependence sees.
	for _, a := range e.accs {
		if a.tail {
			continue
		}
		for i := range m.evs {
			for _, p := range m.evs[i].accs {
				if !p.tail && p.loc == a.loc && (a.write || p.write) {
					joinDense(&e.dep, m.evs[i].dep)
				}
			}
		}
	}
	setDense(&e.dep, ev.Thread, ev.Index+1)
	setDense(&e.sync, ev.Thread, ev.Index+1)
	if m.noDep {
		e.dep = nil
	}
	m.evs = append(m.evs, e)
}

// lastWrite is the latest write made to loc (may-accesses are not made)
// and its event, or -1.
func (m *refClocks) lastWrite(loc int32) (int, refAcc) {
	for i := len(m.evs) - 1; i >= 0; i-- {
		accs := m.evs[i].accs
		for j := len(accs) - 1; j >= 0; j-- {
			if p := accs[j]; !p.may && p.write && p.loc == loc {
				return i, p
			}
		}
	}
	return -1, refAcc{}
}

// races is Clocks.Races by definition: the earlier events with an access
// p, seen by dependence, that conflicts with an access r of d with no
// write seen by dependence after p; of another thread and not ordered
// before d's thread; and not ordered before another such event. For a
// lock: the previous lock of the mutex.
func (m *refClocks) races(d int) []int32 {
	e := &m.evs[d]
	var base []int32
	if b := m.baseBefore(d); b >= 0 {
		base = m.evs[b].dep
	}
	var cand []int32
	add := func(f int) {
		if m.evs[f].thread != e.thread && !m.before(f, base) && !slices.Contains(cand, int32(f)) {
			cand = append(cand, int32(f))
		}
	}
	switch e.kind {
	case ir.EvRead, ir.EvWrite, ir.EvAtomic:
		for _, r := range e.accs {
			if r.tail {
				continue
			}
			laterWrite := false // a write after the access looked at
			for i := d - 1; i >= 0; i-- {
				accs := m.evs[i].accs
				for j := len(accs) - 1; j >= 0; j-- {
					p := accs[j]
					if p.tail || p.loc != r.loc {
						continue
					}
					if (r.write || p.write) && !laterWrite {
						add(i)
					}
					if p.write {
						laterWrite = true
					}
				}
			}
		}
	case ir.EvLock:
		for i := d - 1; i >= 0; i-- {
			if f := &m.evs[i]; f.kind == ir.EvLock && f.loc == e.loc {
				add(i)
				break
			}
		}
	}
	var out []int32
	for _, f := range cand {
		covered := false
		for _, g := range cand {
			if f != g && m.before(int(f), m.evs[g].dep) {
				covered = true
			}
		}
		if !covered {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// baseBefore is the event event d's clocks start from, or -1.
func (m *refClocks) baseBefore(d int) int {
	t := m.evs[d].thread
	for i := d - 1; i >= 0; i-- {
		if m.evs[i].thread == t {
			return i
		}
	}
	for i := 0; i < d; i++ {
		if m.evs[i].spawned == t {
			return i
		}
	}
	return -1
}

type raceKey struct {
	loc, thread, pc int32
}

// dataRaces is Clocks.DataRaces by definition: for each access r of d, the
// accesses made since the latest write of r's location ordered before d
// (by synchronisation) that are in a data race with r; as the set of
// (location, event) pairs and of (location, thread, pc) keys.
func (m *refClocks) dataRaces(d int, locs []ir.Location) (map[[2]int32]bool, map[raceKey]bool) {
	e := &m.evs[d]
	pairs := map[[2]int32]bool{}
	keys := map[raceKey]bool{}
	for _, r := range e.accs {
		if r.may || locs[r.loc].Atomic {
			continue
		}
		type rec struct {
			ev int
			p  refAcc
		}
		var chain []rec // newest first
		for i := d - 1; i >= 0; i-- {
			accs := m.evs[i].accs
			for j := len(accs) - 1; j >= 0; j-- {
				if p := accs[j]; !p.may && p.loc == r.loc {
					chain = append(chain, rec{i, p})
				}
			}
		}
		for _, q := range chain {
			th := m.evs[q.ev].thread
			ordered := at(e.sync, th) > q.p.idx
			if (r.write || q.p.write) && th != e.thread && !ordered && !(r.atomic && q.p.atomic) {
				pairs[[2]int32{int32(q.ev), r.loc}] = true
				keys[raceKey{r.loc, th, q.p.pc}] = true
			}
			if q.p.write && ordered {
				break
			}
		}
	}
	return pairs, keys
}

// gen makes random steps that are consistent: indices follow each
// thread's steps, locks take free mutexes, unlocks release held ones.
type gen struct {
	rng     *rand.Rand
	data    int32 // locations [0, data) are variables, the rest mutexes
	mutexes int32
	pcs     int32
	coarse  bool
	dep     bool
	spawnP  int // per mille
	states  []genState
}

type genState struct {
	next   []int32 // per thread: the index of its next step
	holder []int32 // per mutex: its holder, or -1
}

func (g *gen) pc(k ir.EventKind) int32 {
	return int32(k)*g.pcs + int32(g.rng.Intn(int(g.pcs)))
}

func (g *gen) cur() *genState { return &g.states[len(g.states)-1] }

func (g *gen) step() (interp.Event, []ir.Access, int) {
	s := g.cur()
	ns := genState{next: slices.Clone(s.next), holder: slices.Clone(s.holder)}
	nth := int32(len(ns.next))
	t := int32(g.rng.Intn(int(nth)))
	if g.rng.Intn(3) == 0 {
		t = nth - 1 // the newest thread: deep spawn chains
	}
	ev := interp.Event{Thread: t, Index: ns.next[t]}
	var may []ir.Access
	tailOK := true
	switch r := g.rng.Intn(1000); {
	case r < g.spawnP:
		ev.Kind, ev.Loc = ir.EvSpawn, nth
		ns.next = append(ns.next, 0)
	case r < 350:
		ev.Kind, ev.Loc = ir.EvRead, int32(g.rng.Intn(int(g.data)))
	case r < 550:
		ev.Kind, ev.Loc = ir.EvWrite, int32(g.rng.Intn(int(g.data)))
	case r < 650:
		ev.Kind = ir.EvAtomic
		tailOK = false
		for k := g.rng.Intn(4); k >= 0; k-- {
			ev.Acc = append(ev.Acc, ir.Access{Loc: int32(g.rng.Intn(int(g.data))), Write: g.rng.Intn(2) == 0})
		}
		if g.dep {
			for k := g.rng.Intn(3) - 1; k >= 0; k-- {
				may = append(may, ir.Access{Loc: int32(g.rng.Intn(int(g.data))), Write: g.rng.Intn(2) == 0})
			}
		}
	case r < 850:
		m := int32(g.rng.Intn(int(g.mutexes)))
		ev.Loc = g.data + m
		switch h := ns.holder[m]; {
		case h == t:
			ev.Kind = ir.EvUnlock
			ns.holder[m] = -1
		case h < 0:
			ev.Kind = ir.EvLock
			ns.holder[m] = t
		default:
			ev.Kind, ev.Stop = ir.EvUnlock, interp.StopRuntimeError // not its mutex
			tailOK = false
		}
	case r < 950:
		ev.Kind, ev.Loc = ir.EvJoin, int32(g.rng.Intn(int(nth)))
		if ev.Loc == t || g.rng.Intn(8) == 0 {
			ev.Stop = interp.StopRuntimeError
			tailOK = false
		}
	default:
		ev.Kind, ev.Stop = ir.EvStop, interp.StopAssertion
		tailOK = false
	}
	// A pc is one instruction: reads, writes, atomic blocks and the rest
	// have pcs of their own.
	ev.PC = g.pc(ev.Kind)
	if g.coarse && tailOK {
		for k := g.rng.Intn(5) - 1; k >= 0; k-- {
			// Tails are plain accesses: never of the atomic location.
			a := ir.Access{Loc: int32(g.rng.Intn(int(g.data) - 1)), Write: g.rng.Intn(3) == 0}
			kind := ir.EvRead
			if a.Write {
				kind = ir.EvWrite
			}
			ev.Tail = append(ev.Tail, interp.TailStep{Access: a, PC: g.pc(kind)})
		}
	}
	ns.next[t] += int32(ev.Steps())
	g.states = append(g.states, ns)
	return ev, may, len(ns.next)
}

func TestAgainstDense(t *testing.T) {
	tests := []struct {
		name          string
		threads       int
		coarse, noDep bool
		spawnP        int
		steps         int
		popP          int // per cent
	}{
		{"fine", 3, false, false, 60, 400, 30},
		{"coarse", 3, true, false, 60, 400, 30},
		{"fine-nodep", 3, false, true, 60, 400, 30},
		{"coarse-nodep", 4, true, true, 60, 400, 30},
		{"many-threads", 30, false, false, 150, 400, 20},
		{"spawn-heavy", 1, false, false, 500, 300, 10},
		{"spawn-heavy-coarse", 1, true, false, 500, 300, 10},
		{"beyond-1024-threads", 1000, false, false, 400, 150, 10},
	}
	for _, tc := range tests {
		seeds := int64(20)
		if tc.threads > 100 {
			seeds = 4
		}
		for seed := int64(0); seed < seeds; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				checkAgainstDense(t, seed, tc.threads, tc.coarse, tc.noDep, tc.spawnP, tc.steps, tc.popP)
			})
		}
	}
}

func checkAgainstDense(t *testing.T, seed int64, threads int, coarse, noDep bool, spawnP, steps, popP int) {
	g := &gen{rng: rand.New(rand.NewSource(seed)), data: 4, mutexes: 2, pcs: 3, coarse: coarse, dep: !noDep, spawnP: spawnP}
	g.states = []genState{{next: make([]int32, threads), holder: []int32{-1, -1}}}
	locs := make([]ir.Location, g.data+g.mutexes)
	locs[3].Atomic = true
	for i := g.data; i < int32(len(locs)); i++ {
		locs[i].Mutex = true
	}
	c := ForProgram(threads, locs)
	c.NoDep = noDep
	ref := &refClocks{noDep: noDep, locs: locs}
	var evs []interp.Event
	for n := 0; n < steps; n++ {
		if len(ref.evs) > 0 && g.rng.Intn(100) < popP {
			c.Pop()
			ref.evs = ref.evs[:len(ref.evs)-1]
			evs = evs[:len(evs)-1]
			g.states = g.states[:len(g.states)-1]
			continue
		}
		ev, may, nth := g.step()
		evs = append(evs, ev)
		c.Push(&evs[len(evs)-1], nth, may)
		ref.push(&ev, may)
		d := int32(len(ref.evs) - 1)
		where := fmt.Sprintf("step %d, event %d (%+v)", n, d, ev)

		// Every live event's clocks: a node updated in place that an
		// older clock shares would show here.
		for e := range ref.evs {
			if e != int(d) && g.rng.Intn(8) != 0 {
				continue
			}
			if !noDep {
				sum := 0
				for _, v := range ref.evs[e].dep {
					sum += int(v)
				}
				if got := c.Past(int32(e)); got != sum {
					t.Fatalf("%s: Past(%d) = %d, want %d", where, e, got, sum)
				}
			}
			for u := int32(0); u < int32(nth)+2; u++ {
				if !noDep {
					if got, want := c.Get(c.DepClock(int32(e)), u), at(ref.evs[e].dep, u); got != want {
						t.Fatalf("%s: dependence clock of event %d, thread %d: %d, want %d", where, e, u, got, want)
					}
				}
				if got, want := c.Get(c.evs[e].sync, u), at(ref.evs[e].sync, u); got != want {
					t.Fatalf("%s: synchronisation clock of event %d, thread %d: %d, want %d", where, e, u, got, want)
				}
			}
		}
		if !noDep {
			got := c.Races(d, &ev, nil)
			slices.Sort(got)
			if want := ref.races(int(d)); !slices.Equal(got, want) {
				t.Fatalf("%s: races %v, want %v", where, got, want)
			}
		}
		pairs, keys := ref.dataRaces(int(d), locs)
		gotKeys := map[raceKey]bool{}
		c.DataRaces(d, locs, func(other, loc int32) {
			if !pairs[[2]int32{other, loc}] {
				t.Fatalf("%s: data race with event %d on %d, not one by definition (%v)", where, other, loc, pairs)
			}
			gotKeys[raceKey{loc, ref.evs[other].thread, ref.evs[other].pc}] = true
		})
		if coarse {
			// A tail access has its own pc: compare per thread.
			keys = coarseKeys(keys)
			gotKeys = coarseKeys(gotKeys)
		}
		for k := range keys {
			if !gotKeys[k] {
				t.Fatalf("%s: data race %+v not reported (got %v)", where, k, gotKeys)
			}
		}
		for u := int32(0); u < int32(nth); u++ {
			if nth > 40 && g.rng.Intn(nth) >= 40 {
				continue // a sample
			}
			dep, sync := c.ThreadClocks(u)
			b := ref.base(u)
			for v := int32(0); v < int32(nth); v++ {
				var wd, ws int32
				if b >= 0 {
					wd, ws = at(ref.evs[b].dep, v), at(ref.evs[b].sync, v)
				}
				if c.Get(sync, v) != ws || (!noDep && c.Get(dep, v) != wd) {
					t.Fatalf("%s: ThreadClocks(%d)[%d] = %d, %d, want %d, %d", where, u, v, c.Get(dep, v), c.Get(sync, v), wd, ws)
				}
			}
		}
		for m := g.data; m < int32(len(locs)); m++ {
			want := int32(-1)
			for i := len(ref.evs) - 1; i >= 0; i-- {
				if ref.evs[i].kind == ir.EvLock && ref.evs[i].loc == m {
					want = int32(i)
					break
				}
			}
			if got := c.LastLock(m); got != want {
				t.Fatalf("%s: LastLock(%d) = %d, want %d", where, m, got, want)
			}
		}
	}
}

func coarseKeys(keys map[raceKey]bool) map[raceKey]bool {
	out := map[raceKey]bool{}
	for k := range keys {
		out[raceKey{k.loc, k.thread, 0}] = true
	}
	return out
}

// TestWalksLinear: the walks along the access chains cost amortised O(1)
// per access in the patterns of issue 14: a thread reading a shared
// variable in a loop (fine, in coarse tails, inside one atomic block),
// threads reading it in turn, a thread alternating reads and writes, reads
// of an array at varying indices. Walking back over the reads made (as
// before the chains had out and prevW links) made these quadratic: 97% of
// the time of 90,000 reads in one thread.
func TestWalksLinear(t *testing.T) {
	read := func(loc int32) ir.Access { return ir.Access{Loc: loc} }
	write := func(loc int32) ir.Access { return ir.Access{Loc: loc, Write: true} }
	tests := []struct {
		name    string
		n       int // steps
		threads int
		locs    int
		// step returns the i-th step's thread, kind, accesses (one for a
		// read or write) and tail.
		step func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access)
	}{
		{"one thread reads", 20000, 1, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			return 0, ir.EvRead, []ir.Access{read(0)}, nil
		}},
		{"coarse reads", 1000, 1, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			tail := make([]ir.Access, interp.MaxTail)
			for j := range tail {
				tail[j] = read(0)
			}
			return 0, ir.EvRead, []ir.Access{read(0)}, tail
		}},
		{"atomic block of reads", 100, 1, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			acc := make([]ir.Access, 1000)
			for j := range acc {
				acc[j] = read(0)
			}
			return 0, ir.EvAtomic, acc, nil
		}},
		{"threads read in turn", 20000, 8, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			return int32(i % 8), ir.EvRead, []ir.Access{read(0)}, nil
		}},
		{"threads read in turn, coarse", 20000, 8, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			return int32(i % 8), ir.EvRead, []ir.Access{read(0)}, []ir.Access{read(0), read(0), read(0)}
		}},
		{"read, write, read, …", 20000, 1, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			if i%2 == 0 {
				return 0, ir.EvRead, []ir.Access{read(0)}, nil
			}
			return 0, ir.EvWrite, []ir.Access{write(0)}, nil
		}},
		{"array reads", 20000, 1, 1000, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			return 0, ir.EvRead, []ir.Access{read(int32(i * 7 % 1000))}, nil
		}},
		{"threads read, one writes", 20000, 8, 1, func(i int) (int32, ir.EventKind, []ir.Access, []ir.Access) {
			if i%100 == 99 {
				return 0, ir.EvWrite, []ir.Access{write(0)}, nil
			}
			return int32(i % 8), ir.EvRead, []ir.Access{read(0)}, nil
		}},
	}
	for _, tc := range tests {
		for _, noDep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nodep=%v", tc.name, noDep), func(t *testing.T) {
				locs := make([]ir.Location, tc.locs)
				c := New(tc.threads, tc.locs)
				c.NoDep = noDep
				next := make([]int32, tc.threads)
				accesses := 0
				evs := make([]interp.Event, tc.n)
				for i := range evs {
					th, kind, acc, tail := tc.step(i)
					ev := &evs[i]
					*ev = interp.Event{Thread: th, Kind: kind, Index: next[th], PC: int32(kind)}
					if kind == ir.EvAtomic {
						ev.Acc = acc
					} else {
						ev.Loc = acc[0].Loc
					}
					for _, a := range tail {
						ev.Tail = append(ev.Tail, interp.TailStep{Access: a, PC: int32(kind)})
					}
					next[th] += int32(ev.Steps())
					accesses += len(acc) + len(tail)
					c.Push(ev, tc.threads, nil)
					if !noDep {
						c.Races(int32(i), ev, nil)
					}
					c.DataRaces(int32(i), locs, func(int32, int32) {})
				}
				// Per access: at most a few hops in each of the walks that
				// add it (dependence), look for its races and its data
				// races.
				if limit := int64(8*accesses + 100); c.hops > limit {
					t.Errorf("%d accesses: %d records walked, more than %d", accesses, c.hops, limit)
				}
			})
		}
	}
}

// TestClockMemory: an event's clocks cost the entries that change, not the
// number of threads: a chain of spawns and joins (each thread spawns the
// next and joins it) and many threads taking one mutex in turn. Dense
// clocks took 4 GB for the chain of 8,000 threads.
func TestClockMemory(t *testing.T) {
	const threads = 20000
	// The chain: thread k spawns k+1; then, from the last, each joins the
	// one it spawned.
	chain := New(1, 0)
	var evs []interp.Event
	for k := int32(0); k < threads; k++ {
		evs = append(evs, interp.Event{Thread: k, Kind: ir.EvSpawn, Loc: k + 1})
	}
	for k := int32(threads - 1); k >= 0; k-- {
		evs = append(evs, interp.Event{Thread: k, Kind: ir.EvJoin, Loc: k + 1, Index: 1})
	}
	for i := range evs {
		chain.Push(&evs[i], threads+1, nil)
	}
	if got := chain.Get(chain.DepClock(int32(len(evs)-1)), threads-1); got != 2 {
		t.Fatalf("the last join knows %d steps of the last thread, want 2", got)
	}
	// Many threads, one mutex: lock, read, write, unlock each.
	mutex := New(threads, 2)
	evs = evs[:0]
	for k := int32(0); k < threads; k++ {
		evs = append(evs,
			interp.Event{Thread: k, Kind: ir.EvLock, Loc: 1, Index: 0},
			interp.Event{Thread: k, Kind: ir.EvRead, Loc: 0, Index: 1},
			interp.Event{Thread: k, Kind: ir.EvWrite, Loc: 0, Index: 2},
			interp.Event{Thread: k, Kind: ir.EvUnlock, Loc: 1, Index: 3})
	}
	for i := range evs {
		mutex.Push(&evs[i], threads, nil)
	}
	for _, tc := range []struct {
		name string
		c    *Clocks
	}{{"spawn-join chain", chain}, {"one mutex", mutex}} {
		perEvent := float64(4*len(tc.c.nodes)) / float64(len(tc.c.evs))
		t.Logf("%s: %d events, %.0f bytes of clocks per event", tc.name, len(tc.c.evs), perEvent)
		if perEvent > 2000 {
			t.Errorf("%s: %.0f bytes of clocks per event, more than 2,000 (dense: %d)", tc.name, perEvent, 2*4*threads)
		}
	}
}
