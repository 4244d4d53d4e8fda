package unfolding

import (
	"fmt"
	"slices"
)

// checkIndexes verifies the state the unfolding modes derive and keep in
// step by hand, against its definition: C's positions and chains, the
// per-location lists of C (locs, lpos, wpos, runs), D's counts and
// positions, the spike-candidate buckets and every event's place in them,
// the hidden candidates, and the lookup structures (byKey, child lists,
// wide). Both pruning paths (unlink and compact) must leave them valid. It
// costs a pass over U and C: the tests that prune after every call run it
// after every pruning (Options.pruneAlways); a slip then fails a test
// instead of silently changing a count.
func (q *qexplorer) checkIndexes() error {
	c, u := &q.c, q.u
	inU := make(map[*uevent]bool, len(u.all))
	for _, e := range u.all {
		inU[e] = true
	}
	// C.
	for i, e := range c.events {
		if e.cpos != int32(i) {
			return fmt.Errorf("C[%d] has cpos %d", i, e.cpos)
		}
		if !c.contains(e) {
			return fmt.Errorf("C[%d] (thread %d, index %d) is not in its thread's chain", i, e.thread, e.idx)
		}
		if !inU[e] {
			return fmt.Errorf("C[%d] is not in U", i)
		}
	}
	for t, ch := range c.chain {
		var last *uevent
		for i, e := range ch {
			if e.idx != int32(i) || e.thread != int32(t) || e.pred != last {
				return fmt.Errorf("chain of thread %d is broken at %d", t, i)
			}
			last = e
		}
		if c.tmax[t] != last {
			return fmt.Errorf("tmax of thread %d is not the end of its chain", t)
		}
	}
	// C's events by location.
	for l := range c.locs {
		s := c.locs[l]
		if len(c.runs[l]) != len(s) {
			return fmt.Errorf("location %d: %d runs for %d events", l, len(c.runs[l]), len(s))
		}
		lastW, nw := -1, 0
		for i, e := range s {
			touch, w := e.access(int32(l))
			if !touch || !c.contains(e) {
				return fmt.Errorf("location %d: entry %d does not touch it or is not in C", l, i)
			}
			if e.hasLastW() && e.lpos != int32(i) {
				return fmt.Errorf("location %d: entry %d has lpos %d", l, i, e.lpos)
			}
			if i > 0 && s[i-1].cpos >= e.cpos {
				return fmt.Errorf("location %d: entries %d and %d out of C's order", l, i-1, i)
			}
			want := int32(i - 1)
			if !w && i > 0 && s[i-1].thread == e.thread && lastW != i-1 {
				want = c.runs[l][i-1].jump
			}
			if c.runs[l][i].jump != want {
				return fmt.Errorf("location %d: jump of entry %d is %d, want %d", l, i, c.runs[l][i].jump, want)
			}
			other := i - 1
			for other >= 0 && s[other].thread == e.thread {
				other--
			}
			if c.runs[l][i].other != int32(other) {
				return fmt.Errorf("location %d: other of entry %d is %d, want %d", l, i, c.runs[l][i].other, other)
			}
			if w {
				if nw >= len(c.wpos[l]) || c.wpos[l][nw] != int32(i) {
					return fmt.Errorf("location %d: write at entry %d missing from wpos", l, i)
				}
				nw++
				lastW = i
			}
		}
		if nw != len(c.wpos[l]) {
			return fmt.Errorf("location %d: %d writes, wpos has %d", l, nw, len(c.wpos[l]))
		}
	}
	// D.
	count := map[*uevent]int32{}
	for i, e := range q.d {
		count[e]++
		if !inU[e] {
			return fmt.Errorf("D[%d] is not in U", i)
		}
	}
	for i, e := range q.d {
		if e.inD != count[e] {
			return fmt.Errorf("D[%d] is in D %d times, inD says %d", i, count[e], e.inD)
		}
		last := i
		for j := i + 1; j < len(q.d); j++ {
			if q.d[j] == e {
				last = j
			}
		}
		if e.dpos != int32(last) {
			return fmt.Errorf("D[%d] has dpos %d, its last place is %d", i, e.dpos, last)
		}
	}
	// Spike candidates: every bucket's events are in U and know their
	// place; hidden candidates are counted in their bucket.
	hidden := map[*candBucket]int32{}
	hiddenList := map[*candList]int32{}
	for _, hs := range q.hidden {
		for _, h := range hs {
			if !inU[h.e] {
				return fmt.Errorf("a hidden candidate is not in U")
			}
			hidden[h.b]++
			if l := h.b.list; l != nil {
				hiddenList[l]++
				if g := l.group; u.group(g.loc, g.w, false) != g || !slices.Contains(g.lists, l) {
					return fmt.Errorf("a hidden candidate's list (location %d, thread %d) is out of the index", g.loc, l.thread)
				}
				if !l.sparse && !slices.Contains(l.buckets(), h.b) {
					return fmt.Errorf("a hidden candidate's bucket is out of its list, which is not sparse")
				}
			}
		}
	}
	checkBucket := func(b *candBucket, what string) error {
		for j, f := range b.ev {
			if !inU[f] {
				return fmt.Errorf("%s holds an event not in U", what)
			}
			if b.posOf(f) != j {
				return fmt.Errorf("%s: event at %d thinks it is at %d", what, j, b.posOf(f))
			}
		}
		if b.nhidden != hidden[b] {
			return fmt.Errorf("%s: %d hidden candidates, nhidden says %d", what, hidden[b], b.nhidden)
		}
		return nil
	}
	checkGroup := func(g *candGroup) error {
		if g.w != nil && !inU[g.w] {
			return fmt.Errorf("a candidate group hangs off a write not in U")
		}
		for _, cl := range g.lists {
			if cl.group != g {
				return fmt.Errorf("a list of group (location %d) is another group's", g.loc)
			}
			if cl.nhidden != hiddenList[cl] {
				return fmt.Errorf("list (location %d, thread %d): %d hidden candidates, nhidden says %d", g.loc, cl.thread, hiddenList[cl], cl.nhidden)
			}
			bs := cl.buckets()
			if len(bs) == 0 && cl.nhidden == 0 {
				return fmt.Errorf("list (location %d, thread %d) is empty", g.loc, cl.thread)
			}
			for i, b := range bs {
				what := fmt.Sprintf("bucket (location %d, thread %d, index %d)", g.loc, cl.thread, b.idx)
				if b.list != cl || (len(b.ev) == 0 && (cl.sparse || b.nhidden == 0)) || (i > 0 && bs[i-1].idx > b.idx) {
					return fmt.Errorf("%s: another list's, empty, or out of order", what)
				}
				if err := checkBucket(b, what); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, g := range u.unwritten {
		if g != nil {
			if err := checkGroup(g); err != nil {
				return err
			}
		}
	}
	for _, e := range u.all {
		for g := e.wgroups; g != nil; g = g.next {
			if g.w != e {
				return fmt.Errorf("a group on event %d's chain is another write's", e.id)
			}
			if err := checkGroup(g); err != nil {
				return err
			}
		}
		if err := checkBucket(&e.kids, fmt.Sprintf("children of event %d", e.id)); err != nil {
			return err
		}
		if e.bucket != nil && e.bpos >= 0 && (int(e.bpos) >= len(e.bucket.ev) || e.bucket.ev[e.bpos] != e) {
			return fmt.Errorf("event %d is not where bpos says in its bucket", e.id)
		}
		if p := e.pred; p != nil && e.kpos >= 0 && (int(e.kpos) >= len(p.kids.ev) || p.kids.ev[e.kpos] != e) {
			return fmt.Errorf("event %d is not where kpos says among its predecessor's", e.id)
		}
		// Lookup: a thread's first event in byKey, the others among their
		// predecessor's children (and in wide, by hash, if it has many).
		chain := u.byKey[e.hkey]
		if e.pred != nil {
			chain = e.pred.child
			if !inU[e.pred] {
				return fmt.Errorf("event %d's predecessor is not in U", e.id)
			}
			if e.pred.wide {
				if f := u.wide[e.pred][e.hkey]; f == nil || f.hkey != e.hkey || f.pred != e.pred {
					return fmt.Errorf("event %d's hash is not in its predecessor's wide index", e.id)
				}
			}
		}
		found := false
		for f := chain; f != nil; f = f.hnext {
			if !inU[f] {
				return fmt.Errorf("a lookup chain holds an event not in U")
			}
			found = found || f == e
		}
		if !found {
			return fmt.Errorf("event %d cannot be looked up", e.id)
		}
	}
	for p, m := range u.wide {
		if !p.wide || !inU[p] {
			return fmt.Errorf("a wide index belongs to an event not wide or not in U")
		}
		for h, f := range m {
			if f.hkey != h || f.pred != p || !inU[f] {
				return fmt.Errorf("event %d's wide index holds a stranger", p.id)
			}
		}
	}
	return nil
}
