package interp

import (
	"fmt"
	"math/rand"
	"testing"

	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

// handoff is the handoff: the producer writes data then raises
// an atomic flag; the consumer spins on the flag (a while loop, or an
// await), then reads the data.
func handoff(await bool) *ir.Program {
	p := irtest.New()
	flag := p.Var("flag", irtest.Atomic, 0)
	data := p.Var("data", irtest.Plain, 0)
	pr := p.Thread("producer")
	pr.StoreConst(data, 42)
	pr.StoreConst(flag, 1)
	c := p.Thread("consumer")
	c.SpinUntil(flag, await)
	v := c.Temp()
	c.Load(v, data)
	return p.MustBuild()
}

func mustStep(t *testing.T, m *Machine, th int) *Event {
	t.Helper()
	ev := &Event{}
	if !m.Enabled(th) {
		t.Fatalf("thread %s cannot move", m.Threads[th].Name)
	}
	if !m.Step(th, ev) {
		t.Fatalf("step of %s stopped: %s", m.Threads[th].Name, ev.Message)
	}
	return ev
}

// TestSpinWaits: a spin loop on a flag nobody has written yet spins after
// one read; a write of the flag makes the spin stale; Undo takes both
// back.
func TestSpinWaits(t *testing.T) {
	for _, await := range []bool{false, true} {
		m := NewMachine(handoff(await), 0)
		const producer, consumer = 0, 1
		mustStep(t, m, consumer) // read flag → 0
		if st := m.Threads[consumer].Status; st != Spinning || m.Enabled(consumer) {
			t.Fatalf("await %v: after reading 0 the consumer is %v (enabled %v), want spinning", await, st, m.Enabled(consumer))
		}
		if m.StaleSpin(consumer) {
			t.Errorf("await %v: stale before any write", await)
		}
		if r := m.SpinReads(consumer); len(r) != 1 || r[0].Loc != 0 || r[0].Value != 0 || r[0].Stale {
			t.Errorf("await %v: SpinReads = %+v", await, r)
		}
		mustStep(t, m, producer) // data = 42
		if m.StaleSpin(consumer) {
			t.Errorf("await %v: stale after a write of data, which the loop does not read", await)
		}
		mustStep(t, m, producer) // flag = 1
		if !m.StaleSpin(consumer) || !m.SpinReads(consumer)[0].Stale {
			t.Errorf("await %v: not stale after the flag was written", await)
		}
		m.Undo()
		if m.StaleSpin(consumer) {
			t.Errorf("await %v: still stale after undoing the write", await)
		}
		m.UndoTo(0)
		if st := m.Threads[consumer].Status; st != Ready {
			t.Errorf("await %v: undoing the read left the consumer %v", await, st)
		}
		// The other order: the consumer reads 1 and goes on.
		mustStep(t, m, producer)
		mustStep(t, m, producer)
		mustStep(t, m, consumer)
		if st := m.Threads[consumer].Status; st != Ready {
			t.Errorf("await %v: after reading 1 the consumer is %v", await, st)
		}
		mustStep(t, m, consumer) // read data
		if st := m.Threads[consumer].Status; st != Finished {
			t.Errorf("await %v: the consumer is %v at the end", await, st)
		}
	}
}

// TestNoSpinWait: with NoSpinWait a while loop goes on reading; an await
// waits all the same.
func TestNoSpinWait(t *testing.T) {
	m := NewMachine(handoff(false), 0)
	m.NoSpinWait = true
	for i := range 5 {
		mustStep(t, m, 1)
		if st := m.Threads[1].Status; st != Ready {
			t.Fatalf("read %d: the consumer is %v, want ready", i+1, st)
		}
	}
	m = NewMachine(handoff(true), 0)
	m.NoSpinWait = true
	mustStep(t, m, 1)
	if st := m.Threads[1].Status; st != Spinning {
		t.Errorf("await with NoSpinWait: the consumer is %v, want spinning", st)
	}
}

// TestLocalInfiniteLoopSpins: `while true {}` spins as soon as it comes
// back to its head, instead of running into the local budget.
func TestLocalInfiniteLoopSpins(t *testing.T) {
	p := irtest.New()
	th := p.Thread("t")
	th.Label("top")
	th.LoopHead(false)
	th.Jmp("top")
	m := NewMachine(p.MustBuild(), 0)
	if st := m.Threads[0].Status; st != Spinning {
		t.Errorf("the thread is %v, want spinning", st)
	}
	m, err := NewMachineConfig(p.MustBuild(), Config{LocalBudget: 1000, NoSpinWait: true})
	if err != nil {
		t.Fatal(err)
	}
	if th := m.Threads[0]; th.Status != Failing || th.fail.kind != StopStepBound {
		t.Errorf("with NoSpinWait the thread is %v (%v), want failing at the local budget", th.Status, th.fail.kind)
	}
}

// TestSpinSlots: the loop's slots decide. An iteration counter nobody
// reads does not stop the spin; a counter the condition reads does: the
// thread spins only once it stops changing (here never: the loop exits).
func TestSpinSlots(t *testing.T) {
	t.Run("unread counter", func(t *testing.T) {
		p := irtest.New()
		flag := p.Var("flag", irtest.Atomic, 0)
		th := p.Thread("t")
		i, v := th.Local("i"), th.Temp()
		th.Label("top")
		th.LoopHead(false)
		th.Load(v, flag)
		th.AddI(i, i, 1)
		th.Jz("top", v)
		m := NewMachine(p.MustBuild(), 0)
		mustStep(t, m, 0)
		if st := m.Threads[0].Status; st != Spinning {
			t.Errorf("the thread is %v after one read, want spinning", st)
		}
	})
	t.Run("bounded retries", func(t *testing.T) {
		// while flag == 0 && n < 3 { n = n + 1 }
		p := irtest.New()
		flag := p.Var("flag", irtest.Atomic, 0)
		th := p.Thread("t")
		n, v, c := th.Local("n"), th.Temp(), th.Temp()
		th.Label("top")
		th.LoopHead(false)
		th.Load(v, flag)
		th.Jnz("out", v)
		th.Op(ir.OpLt, c, n, th.Const(3))
		th.Jz("out", c)
		th.AddI(n, n, 1)
		th.Jmp("top")
		th.Label("out")
		m := NewMachine(p.MustBuild(), 0)
		for range 4 {
			mustStep(t, m, 0)
		}
		if st := m.Threads[0].Status; st != Finished {
			t.Errorf("after 4 reads the thread is %v, want finished", st)
		}
	})
	t.Run("a write in the loop", func(t *testing.T) {
		// Each iteration flips x: its write changes a word.
		p := irtest.New()
		flag := p.Var("flag", irtest.Atomic, 0)
		x := p.Var("x", irtest.Atomic, 0)
		th := p.Thread("t")
		v, w := th.Temp(), th.Temp()
		th.Label("top")
		th.LoopHead(false)
		th.Load(v, flag)
		th.Load(w, x)
		th.Op(ir.OpNot, w, w, 0)
		th.Store(x, w)
		th.Jz("top", v)
		m := NewMachine(p.MustBuild(), 0)
		for i := range 10 {
			mustStep(t, m, 0)
			if st := m.Threads[0].Status; st != Ready {
				t.Fatalf("step %d: the thread is %v, want ready (its loop writes)", i+1, st)
			}
		}
	})
}

// TestCoarseTailStopsAtSpin: a coarse step's tail of plain reads ends
// where its thread starts spinning.
func TestCoarseTailStopsAtSpin(t *testing.T) {
	p := irtest.New()
	flag := p.Var("flag", irtest.Plain, 0)
	mx := p.Var("m", irtest.Mutex, 0)
	th := p.Thread("t")
	th.Lock(mx)
	th.Unlock(mx)
	th.SpinUntil(flag, false)
	m := NewMachine(p.MustBuild(), 0)
	m.Coarse = true
	mustStep(t, m, 0)       // lock
	ev := mustStep(t, m, 0) // unlock, and the read of flag in its tail
	if len(ev.Tail) != 1 || m.Threads[0].Status != Spinning {
		t.Errorf("tail %v, status %v: want one read, then spinning", ev.Tail, m.Threads[0].Status)
	}
}

// spinSnapshot is snapshot with the machine's spin state.
func spinSnapshot(m *Machine) string {
	s := fmt.Sprint(m.Mem, m.writes, len(m.spinSlots), len(m.spinReads), m.StepCount(), m.Depth(), len(m.Threads))
	for i, th := range m.Threads {
		s += fmt.Sprint("|", th.Name, th.PC, th.Status, th.Steps, th.Frame, th.spin, m.SpinReads(i), m.StaleSpin(i))
	}
	return s
}

// TestSpinUndoRestores walks random schedules of spin programs and checks
// that undoing each step restores the spin state too.
func TestSpinUndoRestores(t *testing.T) {
	progs := map[string]*ir.Program{"handoff": handoff(false), "await": handoff(true)}
	{
		// Two threads each raising its flag and waiting for the other's,
		// with a retry counter in between: reads, writes and loop heads
		// interleaved.
		p := irtest.New()
		f := p.Array("f", 2, irtest.Atomic, 0)
		for me := range 2 {
			th := p.Thread(fmt.Sprint("t", me))
			v, n := th.Temp(), th.Local("n")
			th.StoreConst(f+int32(me), 1)
			th.Label("top")
			th.LoopHead(false)
			th.Load(v, f+int32(1-me))
			th.AddI(n, n, 1)
			th.Jnz("out", v)
			th.Jmp("top")
			th.Label("out")
			th.StoreConst(f+int32(me), 0)
			th.Label("again")
			th.LoopHead(false)
			th.Load(v, f+int32(1-me))
			th.Jnz("again", v)
		}
		progs["flags"] = p.MustBuild()
	}
	for name, prog := range progs {
		for seed := int64(0); seed < 30; seed++ {
			r := rand.New(rand.NewSource(seed))
			m := NewMachine(prog, 0)
			m.Coarse = seed%2 == 1
			m.NoSpinWait = seed%3 == 2
			var before []string
			var ev Event
			for step := 0; step < 60; step++ {
				var enabled []int
				for i := range m.Threads {
					if m.Enabled(i) {
						enabled = append(enabled, i)
					}
				}
				if len(enabled) == 0 {
					break
				}
				before = append(before, spinSnapshot(m))
				m.Step(enabled[r.Intn(len(enabled))], &ev)
				if r.Intn(3) == 0 {
					m.Undo()
					if got, want := spinSnapshot(m), before[len(before)-1]; got != want {
						t.Fatalf("%s seed %d: undoing step %d:\n got %s\nwant %s", name, seed, len(before), got, want)
					}
					before = before[:len(before)-1]
				}
			}
			for len(before) > 0 {
				m.Undo()
				if got, want := spinSnapshot(m), before[len(before)-1]; got != want {
					t.Fatalf("%s seed %d: after undoing step %d:\n got %s\nwant %s", name, seed, len(before), got, want)
				}
				before = before[:len(before)-1]
			}
		}
	}
}
