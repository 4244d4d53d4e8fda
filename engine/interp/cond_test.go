package interp

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

func mustStepAlt(t *testing.T, m *Machine, th, alt int) *Event {
	t.Helper()
	ev := &Event{}
	if !m.Enabled(th) {
		t.Fatalf("thread %s cannot move", m.Threads[th].Name)
	}
	if !m.StepAlt(th, alt, ev) {
		t.Fatalf("step of %s stopped: %s", m.Threads[th].Name, ev.Message)
	}
	return ev
}

func describe(m *Machine, ev *Event) string { return DescribeEvent(m.Prog, m, ev) }

// TestChoose: a choose has one alternative per value, each giving its
// value; a bad range is a runtime error and not Choosing.
func TestChoose(t *testing.T) {
	p := irtest.New()
	th := p.Thread("t")
	v := th.Local("v")
	th.Choose(v, 2, 6)
	m := NewMachine(p.MustBuild(), 0)
	if !m.Choosing(0) || m.Alternatives(0) != 4 {
		t.Fatalf("Choosing %v, Alternatives %d; want true, 4", m.Choosing(0), m.Alternatives(0))
	}
	for alt := range 4 {
		ev := mustStepAlt(t, m, 0, alt)
		if ev.Kind != ir.EvChoose || ev.Value != int64(2+alt) || ev.Alt != int32(alt) || m.Threads[0].Frame[v] != int64(2+alt) {
			t.Errorf("alt %d: %+v, v = %d", alt, ev, m.Threads[0].Frame[v])
		}
		if got, want := describe(m, ev), fmt.Sprintf("choose v = %d", 2+alt); got != want {
			t.Errorf("alt %d: %q, want %q", alt, got, want)
		}
		m.Undo()
		if m.Threads[0].Frame[v] != 0 {
			t.Errorf("undo left v = %d", m.Threads[0].Frame[v])
		}
	}
	for _, r := range [][2]int64{{3, 3}, {5, 1}, {0, MaxChoose + 1}, {-1 << 63, 1<<63 - 1}} {
		p := irtest.New()
		th := p.Thread("t")
		th.Choose(th.Temp(), r[0], r[1])
		m := NewMachine(p.MustBuild(), 0)
		if m.Choosing(0) || m.Alternatives(0) != 1 {
			t.Errorf("%v: Choosing %v, Alternatives %d", r, m.Choosing(0), m.Alternatives(0))
		}
		var ev Event
		if m.Step(0, &ev) || ev.Stop != StopRuntimeError || !strings.Contains(ev.Message, "choose over") {
			t.Errorf("%v: %+v, want a runtime error", r, ev)
		}
	}
}

// TestTrylock: a trylock takes a free mutex, fails on a held one, and is a
// runtime error on one the thread holds.
func TestTrylock(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	a := p.Thread("a")
	r := a.Local("r")
	a.Trylock(r, mx)
	a.Trylock(r, mx)
	b := p.Thread("b")
	b.Trylock(b.Local("r"), mx)
	m := NewMachine(p.MustBuild(), 0)
	ev := mustStepAlt(t, m, 0, 0)
	if ev.Kind != ir.EvTrylock || ev.Value != 1 || m.Mem[mx] != 1 || describe(m, ev) != "trylock(m) = true" {
		t.Errorf("free mutex: %+v %q, mutex word %d", ev, describe(m, ev), m.Mem[mx])
	}
	ev = mustStepAlt(t, m, 1, 0)
	if ev.Value != 0 || m.Mem[mx] != 1 || m.Threads[1].Frame[0] != 0 || describe(m, ev) != "trylock(m) = false" {
		t.Errorf("held mutex: %+v %q", ev, describe(m, ev))
	}
	var e Event
	if m.Step(0, &e) || e.Stop != StopRuntimeError || e.Message != "trylock of mutex m already held by this thread" {
		t.Errorf("own mutex: %+v", e)
	}
}

// condProg: n waiters each lock m, wait on cv, unlock; a signaller locks
// m, signals (or broadcasts), unlocks.
func condProg(n int, broadcast bool) (*ir.Program, int32, int32) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("cv", irtest.Cond, 0)
	for i := range n {
		w := p.Thread(fmt.Sprint("w", i))
		w.Lock(mx)
		w.Wait(cv, mx)
		w.Unlock(mx)
	}
	s := p.Thread("s")
	s.Lock(mx)
	if broadcast {
		s.Broadcast(cv)
	} else {
		s.Signal(cv)
	}
	s.Unlock(mx)
	return p.MustBuild(), mx, cv
}

// TestSignal: a signal with two waiters has two alternatives, each waking
// one of them in thread order; the woken thread wakes up once the mutex is
// free; the other waits on.
func TestSignal(t *testing.T) {
	prog, mx, cv := condProg(2, false)
	const w0, w1, s = 0, 1, 2
	for alt := range 2 {
		m := NewMachine(prog, 0)
		for _, w := range []int{w0, w1} {
			mustStepAlt(t, m, w, 0) // lock
			ev := mustStepAlt(t, m, w, 0)
			if ev.Kind != ir.EvWait || describe(m, ev) != "wait(cv, m)" || m.Mem[mx] != 0 || !m.Waiting(w) || m.Enabled(w) {
				t.Fatalf("wait: %+v %q", ev, describe(m, ev))
			}
		}
		if m.Mem[cv] != 2 {
			t.Fatalf("%d waiters counted, want 2", m.Mem[cv])
		}
		mustStepAlt(t, m, s, 0) // lock
		if n := m.Alternatives(s); n != 2 {
			t.Fatalf("signal: %d alternatives, want 2", n)
		}
		ev := mustStepAlt(t, m, s, alt)
		woken, other := []int{w0, w1}[alt], []int{w1, w0}[alt]
		if want := fmt.Sprintf("signal(cv) wakes w%d", alt); describe(m, ev) != want || ev.Alt != int32(alt) {
			t.Errorf("%q, want %q", describe(m, ev), want)
		}
		if m.Mem[cv] != 1 || m.Waiting(woken) || !m.Waiting(other) {
			t.Errorf("after the signal: %d waiters, woken %v waiting %v", m.Mem[cv], m.Waiting(woken), m.Waiting(other))
		}
		if m.Enabled(woken) {
			t.Errorf("w%d wakes up while the signaller holds the mutex", alt)
		}
		signal := int32(m.Depth() - 1)
		mustStepAlt(t, m, s, 0) // unlock
		if !m.Enabled(woken) || m.Enabled(other) {
			t.Errorf("after the unlock: woken enabled %v, other enabled %v", m.Enabled(woken), m.Enabled(other))
		}
		ev = mustStepAlt(t, m, woken, 0)
		if ev.Kind != ir.EvWake || ev.Waker != signal || m.Mem[mx] != int64(woken)+1 || describe(m, ev) != "wake from cv, lock m" {
			t.Errorf("wake: %+v %q", ev, describe(m, ev))
		}
		m.UndoTo(0)
		if m.Mem[cv] != 0 || m.Waiting(w0) || m.Waiting(w1) {
			t.Errorf("undoing everything left %d waiters", m.Mem[cv])
		}
	}
}

// TestBroadcastAndLostSignal: a broadcast wakes every waiter; a signal
// with no waiter is lost.
func TestBroadcastAndLostSignal(t *testing.T) {
	prog, _, cv := condProg(2, true)
	m := NewMachine(prog, 0)
	for _, w := range []int{0, 1} {
		mustStepAlt(t, m, w, 0)
		mustStepAlt(t, m, w, 0)
	}
	mustStepAlt(t, m, 2, 0)
	if m.Alternatives(2) != 1 {
		t.Errorf("a broadcast has %d alternatives", m.Alternatives(2))
	}
	ev := mustStepAlt(t, m, 2, 0)
	if describe(m, ev) != "broadcast(cv) wakes 2" || m.Mem[cv] != 0 || m.Waiting(0) || m.Waiting(1) {
		t.Errorf("%q, %d waiters left", describe(m, ev), m.Mem[cv])
	}

	prog, _, cv = condProg(1, false)
	m = NewMachine(prog, 0)
	mustStepAlt(t, m, 1, 0)
	if m.Alternatives(1) != 1 {
		t.Errorf("a signal with no waiter has %d alternatives", m.Alternatives(1))
	}
	ev = mustStepAlt(t, m, 1, 0)
	if describe(m, ev) != "signal(cv) wakes nobody" {
		t.Errorf("%q", describe(m, ev))
	}
	mustStepAlt(t, m, 1, 0) // unlock
	mustStepAlt(t, m, 0, 0) // lock
	mustStepAlt(t, m, 0, 0) // wait
	if m.Enabled(0) || m.Mem[cv] != 1 {
		t.Errorf("after a lost signal, the waiter is enabled %v with %d waiters", m.Enabled(0), m.Mem[cv])
	}
}

// TestWaitErrors: waiting without holding the mutex is a runtime error.
func TestWaitErrors(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("notEmpty", irtest.Cond, 0)
	a := p.Thread("a")
	a.Lock(mx)
	b := p.Thread("b")
	b.Wait(cv, mx)
	m := NewMachine(p.MustBuild(), 0)
	var ev Event
	if m.Step(1, &ev) || ev.Message != "wait on notEmpty without holding mutex m" {
		t.Errorf("free mutex: %+v", ev)
	}
	m.Undo()
	mustStepAlt(t, m, 0, 0)
	if m.Step(1, &ev) || ev.Message != "wait on notEmpty without holding mutex m (held by a)" {
		t.Errorf("mutex held by another: %+v", ev)
	}
}

// TestSpuriousWakeup: with SpuriousWakeups a waiter may wake up unsignalled,
// counting itself out.
func TestSpuriousWakeup(t *testing.T) {
	prog, _, cv := condProg(1, false)
	m, err := NewMachineConfig(prog, Config{SpuriousWakeups: true})
	if err != nil {
		t.Fatal(err)
	}
	mustStepAlt(t, m, 0, 0)
	mustStepAlt(t, m, 0, 0)
	if !m.Enabled(0) {
		t.Fatal("a waiter cannot wake up spuriously")
	}
	ev := mustStepAlt(t, m, 0, 0)
	if ev.Waker != -1 || m.Mem[cv] != 0 || describe(m, ev) != "spurious wake-up from cv, lock m" || !ev.Acc[0].Write {
		t.Errorf("%+v %q, %d waiters", ev, describe(m, ev), m.Mem[cv])
	}
}

// condSnapshot is spinSnapshot with the threads' condition state.
func condSnapshot(m *Machine) string {
	s := spinSnapshot(m) + fmt.Sprint(len(m.wokeUndo))
	for i, th := range m.Threads {
		s += fmt.Sprint("|", th.cond, m.Enabled(i), m.Alternatives(i))
	}
	return s
}

// TestCondUndoRestores walks random schedules with random alternatives of
// programs with condition variables, trylocks and chooses, and checks that
// Undo restores everything.
func TestCondUndoRestores(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("cv", irtest.Cond, 0)
	n := p.Var("n", irtest.Atomic, 0)
	for i := range 3 {
		w := p.Thread(fmt.Sprint("w", i))
		c, r := w.Temp(), w.Temp()
		w.Choose(c, 0, 3)
		w.Trylock(r, mx)
		w.Jnz("have", r)
		w.Lock(mx)
		w.Label("have")
		w.Jz("skip", c)
		w.Wait(cv, mx)
		w.Label("skip")
		w.Store(n, c)
		w.Signal(cv)
		w.Broadcast(cv)
		w.Unlock(mx)
	}
	prog := p.MustBuild()
	seen := map[string]bool{}
	for seed := int64(0); seed < 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		m, _ := NewMachineConfig(prog, Config{SpuriousWakeups: seed%2 == 0})
		var before []string
		var ev Event
		for range 40 {
			var enabled []int
			for i := range m.Threads {
				if m.Enabled(i) {
					enabled = append(enabled, i)
				}
			}
			if len(enabled) == 0 {
				break
			}
			before = append(before, condSnapshot(m))
			th := enabled[r.Intn(len(enabled))]
			ok := m.StepAlt(th, r.Intn(m.Alternatives(th)), &ev)
			seen[ev.Kind.String()] = true
			if ev.Kind == ir.EvSignal && ev.Value > 0 && ev.Alt > 0 {
				seen["signal alt"] = true
			}
			if ev.Kind == ir.EvWake && ev.Waker < 0 {
				seen["spurious"] = true
			}
			if !ok {
				m.Undo()
				before = before[:len(before)-1]
				break
			}
			if r.Intn(3) == 0 {
				m.Undo()
				if got, want := condSnapshot(m), before[len(before)-1]; got != want {
					t.Fatalf("seed %d: undoing step %d:\n got %s\nwant %s", seed, len(before), got, want)
				}
				before = before[:len(before)-1]
			}
		}
		for len(before) > 0 {
			m.Undo()
			if got, want := condSnapshot(m), before[len(before)-1]; got != want {
				t.Fatalf("seed %d: after undoing step %d:\n got %s\nwant %s", seed, len(before), got, want)
			}
			before = before[:len(before)-1]
		}
	}
	for _, k := range []string{"choose", "trylock", "lock", "wait", "wake", "signal", "signal alt", "broadcast", "spurious"} {
		if !seen[k] {
			t.Errorf("no %s step in the random schedules", k)
		}
	}
}
