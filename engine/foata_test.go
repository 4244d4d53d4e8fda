package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
)

// The Foata normal form that identifies an execution's Mazurkiewicz
// trace in the differential tests, computed independently of the
// engine's dependence, and its test against the definition.

// threadID names a thread by its stable identity: declared threads by
// index, spawned threads by their parent and spawn index.
func threadID(m *engine.Machine, t int32) string {
	th := m.Threads[t]
	if th.Parent < 0 {
		return strconv.Itoa(int(t))
	}
	return threadID(m, th.Parent) + "/" + strconv.Itoa(int(th.SpawnIndex))
}

// foataWriter computes a canonical form of the Mazurkiewicz trace of an
// execution, its Foata normal form: its events grouped in Foata levels (an
// event's level is one more than the highest level of the earlier events
// it depends on), each level sorted. It reuses its buffers: a dfs
// reference computes one form per interleaving, millions for some
// examples.
type foataWriter struct {
	ids   []string
	order []int32
	buf   []byte
	lv    levelsBuf
}

// form returns the Foata form of an execution, valid until the next call.
func (f *foataWriter) form(events []engine.Event, m *engine.Machine) []byte {
	level := f.lv.levels(events, m)
	f.ids = append(f.ids[:0], make([]string, len(m.Threads))...)
	f.order = f.order[:0]
	for i := range events {
		f.order = append(f.order, int32(i))
		if t := events[i].Thread; f.ids[t] == "" {
			f.ids[t] = threadID(m, t)
		}
	}
	ids := f.ids
	slices.SortFunc(f.order, func(i, j int32) int {
		if c := cmp.Compare(level[i], level[j]); c != 0 {
			return c
		}
		if c := strings.Compare(ids[events[i].Thread], ids[events[j].Thread]); c != 0 {
			return c
		}
		return cmp.Compare(events[i].Index, events[j].Index)
	})
	buf := f.buf[:0]
	for n, i := range f.order {
		if n > 0 {
			if level[i] != level[f.order[n-1]] {
				buf = append(buf, '|')
			} else {
				buf = append(buf, ',')
			}
		}
		buf = append(buf, ids[events[i].Thread]...)
		buf = append(buf, '.')
		buf = strconv.AppendInt(buf, int64(events[i].Index), 10)
		if alt := events[i].Alt; alt != 0 { // which value, which waiter
			buf = append(buf, '/')
			buf = strconv.AppendInt(buf, int64(alt), 10)
		}
	}
	f.buf = append(buf, '|')
	return f.buf
}

// foataLevelsByDefinition computes the Foata level of every event as
// defined, comparing it with every earlier event: the reference that
// foataLevels is tested against (TestFoataLevels).
func foataLevelsByDefinition(events []engine.Event, m *engine.Machine) []int {
	level := make([]int, len(events))
	for i := range events {
		e := &events[i]
		lv := 0
		for j := 0; j < i; j++ {
			f := &events[j]
			if f.Thread == e.Thread || dependentEvents(f, e, m) {
				if level[j]+1 > lv {
					lv = level[j] + 1
				}
			}
		}
		level[i] = lv
	}
	return level
}

// foataLevels computes the same levels as foataLevelsByDefinition in
// linear time (dfs references have millions of executions). The earlier
// events an event depends on are totally ordered within each kind of
// dependence, so the highest level among them is that of the latest:
// the thread's previous event (or the spawn that created it), the last
// write of each location it reads, the last write and the reads since
// then of each location it writes, and for a join the joined thread's
// last event.
func foataLevels(events []engine.Event, m *engine.Machine) []int {
	var b levelsBuf
	return b.levels(events, m)
}

// levelsBuf holds foataLevels' buffers, for reuse.
type levelsBuf struct {
	level, threadLast, finished, lastWrite, readsSince []int
	accs                                               []engine.Access
}

// levels is foataLevels; the result is valid until the next call.
func (b *levelsBuf) levels(events []engine.Event, m *engine.Machine) []int {
	nt, nl := len(m.Threads), len(m.Mem)
	level := fill(&b.level, len(events), 0)
	// -1: no such event yet. threadLast[t] is the level of t's last event
	// (or of its spawn), finished[t] of the event that ended t.
	threadLast, finished := fill(&b.threadLast, nt, -1), fill(&b.finished, nt, -1)
	lastWrite, readsSince := fill(&b.lastWrite, nl, -1), fill(&b.readsSince, nl, -1)
	for i := range events {
		e := &events[i]
		b.accs = eventAccesses(e, b.accs[:0])
		lv := threadLast[e.Thread]
		if e.Kind == ir.EvJoin && e.Loc >= 0 && int(e.Loc) < nt {
			lv = max(lv, finished[e.Loc])
		}
		for _, a := range b.accs {
			lv = max(lv, lastWrite[a.Loc])
			if a.Write {
				lv = max(lv, readsSince[a.Loc])
			}
		}
		lv++
		level[i] = lv
		threadLast[e.Thread] = lv
		if e.Finished {
			finished[e.Thread] = lv
		}
		if e.Kind == ir.EvSpawn {
			threadLast[e.Loc] = lv
		}
		for _, a := range b.accs {
			if a.Write {
				lastWrite[a.Loc], readsSince[a.Loc] = lv, -1
			} else {
				readsSince[a.Loc] = max(readsSince[a.Loc], lv)
			}
		}
	}
	return level
}

// fill sets *s to n copies of v, reusing its array.
func fill(s *[]int, n, v int) []int {
	*s = slices.Grow((*s)[:0], n)[:n]
	for i := range *s {
		(*s)[i] = v
	}
	return *s
}

// eventAccesses appends the shared accesses of an event as dependence
// sees them (locks and unlocks write their mutex) to buf.
func eventAccesses(ev *engine.Event, buf []engine.Access) []engine.Access {
	switch ev.Kind {
	case ir.EvRead:
		return append(buf, engine.Access{Loc: ev.Loc})
	case ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock, ir.EvSignal, ir.EvBroadcast:
		return append(buf, engine.Access{Loc: ev.Loc, Write: true})
	case ir.EvAtomic, ir.EvWait, ir.EvWake:
		return append(buf, ev.Acc...)
	}
	return buf
}

// dependentEvents is the dependence of language.md, computed
// independently of the engine's: same location with a write, same mutex,
// spawn before the child's steps, a thread's last step before its join.
func dependentEvents(f, e *engine.Event, m *engine.Machine) bool {
	if f.Kind == ir.EvSpawn && f.Loc == e.Thread {
		return true
	}
	if e.Kind == ir.EvJoin && e.Loc == f.Thread && f.Finished {
		return true
	}
	type acc struct {
		loc   int32
		write bool
	}
	list := func(ev *engine.Event) []acc {
		switch ev.Kind {
		case ir.EvRead:
			return []acc{{ev.Loc, false}}
		case ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock, ir.EvSignal, ir.EvBroadcast:
			return []acc{{ev.Loc, true}}
		case ir.EvAtomic, ir.EvWait, ir.EvWake:
			var out []acc
			for _, a := range ev.Acc {
				out = append(out, acc{a.Loc, a.Write})
			}
			return out
		}
		return nil
	}
	for _, a := range list(f) {
		for _, b := range list(e) {
			if a.loc == b.loc && (a.write || b.write) {
				return true
			}
		}
	}
	return false
}

// TestFoataLevels: the linear-time Foata levels that the dfs references
// use agree with the definition on every execution of the examples (the
// first few thousand of each) and of random programs.
func TestFoataLevels(t *testing.T) {
	check := func(t *testing.T, name string, prog *engine.Program, src string) {
		n := 0
		_, err := engine.Explore(context.Background(), prog, engine.Options{
			Algorithm:     engine.DFS,
			MaxSteps:      2000,
			MaxExecutions: 5000,
			OnExecution: func(events []engine.Event, m *engine.Machine) {
				want, got := foataLevelsByDefinition(events, m), foataLevels(events, m)
				if fmt.Sprint(want) != fmt.Sprint(got) && n < 3 {
					n++
					t.Errorf("%s: Foata levels %v, want %v\n%s", name, got, want, src)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("examples", func(t *testing.T) { forEachExample(t, check) })
	t.Run("random", func(t *testing.T) { forEachRandomProgram(t, check) })
}
