package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

// The v2 semantics on hand-built programs: choose, trylock, condition
// variables, in dfs and sdpor.

// waitWhile emits `while shared[loc] == val { wait(cv, mx) }` (the thread
// holds mx).
func waitWhile(b *irtest.Body, loc int32, val int64, cv, mx int32) {
	top := fmt.Sprint("ww", b.PC())
	out := top + "out"
	v, c := b.Temp(), b.Temp()
	b.Label(top)
	b.LoopHead(false)
	b.Load(v, loc)
	b.Op(ir.OpEq, c, v, b.Const(val))
	b.Jz(out, c)
	b.Wait(cv, mx)
	b.Jmp(top)
	b.Label(out)
}

// addTo emits shared[loc] = shared[loc] + k.
func addTo(b *irtest.Body, loc int32, k int32) {
	v := b.Temp()
	b.Load(v, loc)
	b.AddI(v, v, k)
	b.Store(loc, v)
}

// boundedBuffer is a buffer of one slot, with producers and consumers of
// one item each. With one condition variable for both conditions and
// signal, a consumer may wake a consumer and every thread end up waiting;
// with two (notFull, notEmpty) it is correct.
func boundedBuffer(producers, consumers int, twoConds, broadcast bool) *engine.Program {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	notFull := p.Var("notFull", irtest.Cond, 0)
	notEmpty := notFull
	if twoConds {
		notEmpty = p.Var("notEmpty", irtest.Cond, 0)
	}
	count := p.Var("count", irtest.Plain, 0)
	wake := func(b *irtest.Body, cv int32) {
		if broadcast {
			b.Broadcast(cv)
		} else {
			b.Signal(cv)
		}
	}
	for i := range producers {
		b := p.Thread(fmt.Sprintf("producer[%d]", i))
		b.Lock(mx)
		waitWhile(b, count, 1, notFull, mx)
		addTo(b, count, 1)
		wake(b, notEmpty)
		b.Unlock(mx)
	}
	for i := range consumers {
		b := p.Thread(fmt.Sprintf("consumer[%d]", i))
		b.Lock(mx)
		waitWhile(b, count, 0, notEmpty, mx)
		addTo(b, count, -1)
		wake(b, notFull)
		b.Unlock(mx)
	}
	return p.MustBuild()
}

// TestBoundedBuffer reproduces the known results: one condition
// variable and signal deadlocks with 2 producers and 2 consumers; two
// condition variables, or broadcast, are correct. dfs and sdpor agree
// trace by trace.
func TestBoundedBuffer(t *testing.T) {
	for _, tt := range []struct {
		twoConds, broadcast bool
		deadlock            bool
	}{
		{false, false, true},
		{true, false, false},
		{false, true, false},
	} {
		name := fmt.Sprintf("bounded buffer two conds %v broadcast %v", tt.twoConds, tt.broadcast)
		prog := boundedBuffer(2, 2, tt.twoConds, tt.broadcast)
		compareModesWithin(t, name, prog, name, 2_000_000)
		res := exploreProg(t, prog, engine.Options{Algorithm: engine.SDPOR})
		got := strings.Join(bugKeys(res), ",")
		if tt.deadlock != strings.HasPrefix(got, "deadlock@") || !tt.deadlock && got != "" {
			t.Errorf("%s: bugs %q", name, got)
		}
		if tt.deadlock && !strings.Contains(res.Bugs[0].Message, "waits on cv notFull") {
			t.Errorf("%s: %s", name, res.Bugs[0].Message)
		}
	}
}

// TestLostWakeup: a signal before the wait, and no predicate loop: the
// waiter waits forever, and the deadlock names the condition variable.
func TestLostWakeup(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("ready", irtest.Cond, 0)
	s := p.Thread("signaller")
	s.Lock(mx)
	s.Signal(cv)
	s.Unlock(mx)
	w := p.Thread("waiter")
	w.Lock(mx)
	wait := w.Wait(cv, mx)
	w.Unlock(mx)
	prog := p.MustBuild()
	line := prog.Bodies[1].Ranges[wait].Start.Line + 1
	compareModes(t, "lost wake-up", prog, "lost wake-up")
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
		res := exploreProg(t, prog, engine.Options{Algorithm: algo})
		want := fmt.Sprintf("deadlock: waiter waits on cv ready (wait at line %d), never signalled", line)
		if len(res.Bugs) != 1 || res.Bugs[0].Message != want {
			t.Errorf("%s: bugs %v, want %q", algo, res.Bugs, want)
		}
	}
}

// TestSpuriousWakeups: a waiter that checks its condition with an if, not
// a loop, is correct only without spurious wake-ups.
func TestSpuriousWakeups(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("cv", irtest.Cond, 0)
	full := p.Var("full", irtest.Plain, 0)
	pr := p.Thread("producer")
	pr.Lock(mx)
	pr.StoreConst(full, 1)
	pr.Signal(cv)
	pr.Unlock(mx)
	c := p.Thread("consumer")
	v := c.Temp()
	c.Lock(mx)
	c.Load(v, full)
	c.Jnz("have", v)
	c.Wait(cv, mx)
	c.Label("have")
	c.Load(v, full)
	c.Assert(v, "the item is there")
	c.Unlock(mx)
	prog := p.MustBuild()
	for _, spurious := range []bool{false, true} {
		for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
			res := exploreProg(t, prog, engine.Options{Algorithm: algo, SpuriousWakeups: spurious})
			if got := len(res.Bugs) == 1 && res.Bugs[0].Kind == engine.BugAssertion; got != spurious || !spurious && len(res.Bugs) > 0 {
				t.Errorf("%s spurious %v: bugs %v", algo, spurious, bugKeys(res))
			}
			for _, b := range res.Bugs {
				if !b.SpuriousWakeups {
					t.Errorf("%s: the bug does not record the option it was found with", algo)
				}
			}
		}
	}
}

// TestChooseExplored: every value of a choose is explored, in a trace of
// its own, and a bug found at one value replays to it (Bug.Choices).
func TestChooseExplored(t *testing.T) {
	prog := chooseProgram()
	compareModes(t, "choose", prog, "choose")
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
		res := exploreProg(t, prog, engine.Options{Algorithm: algo})
		// Traces: b reads before a's write (4 values) or after it (4).
		if res.Executions != 8 {
			t.Errorf("%s: %d executions, want 8", algo, res.Executions)
		}
		if len(res.Bugs) != 1 {
			t.Fatalf("%s: bugs %v", algo, bugKeys(res))
		}
		bug := res.Bugs[0]
		if bug.Choices == nil || bug.Choices[0] != 3 {
			t.Errorf("%s: choices %v, want the choose's alternative 3 first", algo, bug.Choices)
		}
		if traceOf(t, bug)[0].Op != "choose v = 3" || traceOf(t, bug)[0].Choice != 3 {
			t.Errorf("%s: first step %+v", algo, traceOf(t, bug)[0])
		}
		// Without its choices the schedule reaches no bug.
		wrong := *bug
		wrong.Choices = nil
		if engine.Reproduce(prog, &wrong) == nil {
			t.Errorf("%s: the schedule reproduces the bug without its choices", algo)
		}
	}
}

// TestTrylockExplored: a trylock that succeeds or fails; dfs and sdpor
// agree trace by trace, and both find the failure.
func TestTrylockExplored(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	got := p.Var("got", irtest.Atomic, 0)
	for i := range 2 {
		b := p.Thread(fmt.Sprint("t", i))
		r := b.Local("r")
		b.Trylock(r, mx)
		b.Jz("no", r)
		addTo(b, got, 1)
		b.Unlock(mx)
		b.Label("no")
	}
	c := p.Thread("check")
	c.Lock(mx)
	v, ok := c.Temp(), c.Temp()
	c.Load(v, got)
	c.Op(ir.OpLt, ok, v, c.Const(2))
	c.Assert(ok, "both took the mutex")
	c.Unlock(mx)
	prog := p.MustBuild()
	compareModes(t, "trylock", prog, "trylock")
	res := exploreProg(t, prog, engine.Options{Algorithm: engine.SDPOR})
	if len(res.Bugs) != 1 || res.Bugs[0].Message != "both took the mutex" {
		t.Errorf("bugs %v", bugKeys(res))
	}
}

// TestV2StepStates: the states a trace view shows replay a v2 bug's
// schedule with its alternatives and say what each step did.
func TestV2StepStates(t *testing.T) {
	prog := boundedBuffer(2, 2, false, false)
	res := exploreProg(t, prog, engine.Options{Algorithm: engine.SDPOR})
	if len(res.Bugs) == 0 {
		t.Fatal("no bug")
	}
	bug := res.Bugs[0]
	states, err := engine.StepStates(context.Background(), prog, bug.Schedule, bug.ReplayOptions(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != len(bug.Schedule) {
		t.Fatalf("%d states for %d steps", len(states), len(bug.Schedule))
	}
	var ops []string
	trace := traceOf(t, bug)
	for i, st := range states {
		if st.Op != trace[i].Op || st.Kind != trace[i].Kind || st.Object != trace[i].Object {
			t.Errorf("step %d: state %q %v %q, trace %q %v %q", i+1, st.Op, st.Kind, st.Object, trace[i].Op, trace[i].Kind, trace[i].Object)
		}
		ops = append(ops, st.Op)
	}
	all := strings.Join(ops, "\n")
	for _, want := range []string{"wait(notFull, m)", "signal(notFull) wakes consumer[", "wake from notFull, lock m"} {
		if !strings.Contains(all, want) {
			t.Errorf("no step says %q:\n%s", want, all)
		}
	}
	for _, th := range states[len(states)-1].Threads {
		if th.Status != "blocked" && th.Status != "finished" {
			t.Errorf("at the deadlock %s is %s", th.Name, th.Status)
		}
	}
}

// TestWaitInFunctionTrace: the trace words of a wait made inside a
// function name its mutex from the step itself; they were read from the
// thread's frame when the trace was built, by then another function's,
// and indexed out of range (found by the access analysis' soundness run
// with spurious wake-ups).
func TestWaitInFunctionTrace(t *testing.T) {
	src := `var m mutex
var cv cond
var count int
var out [2]int
func arrive(k int) {
    lock(m)
    count++
    if count == 2 {
        broadcast(cv)
    }
    while count < 2 {
        wait(cv, m)
    }
    out[k] = count
    unlock(m)
}
proc w() {
    arrive(1)
}
func start() tid {
    var h tid = spawn w()
    return h
}
thread main {
    var h tid = start()
    arrive(0)
    join h
    assert out[1] == 3
}
`
	prog := load(t, "wait in a function", src)
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 60, SpuriousWakeups: true})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range res.Bugs {
			for _, st := range traceOf(t, b) {
				if strings.HasPrefix(st.Op, "wait(") {
					found = true
					if st.Op != "wait(cv, m)" {
						t.Errorf("%s: %q, want wait(cv, m)", algo, st.Op)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no trace with a wait among %d bugs", algo, len(res.Bugs))
		}
	}
}

// chooseProgram: a chooses v in 0..4 and writes it to x; b asserts x is
// not 3 (a bug at one value only).
func chooseProgram() *engine.Program {
	p := irtest.New()
	x := p.Var("x", irtest.Atomic, 0)
	a := p.Thread("a")
	v := a.Local("v")
	a.Choose(v, 0, 4)
	a.Store(x, v)
	b := p.Thread("b")
	r, ok := b.Temp(), b.Temp()
	b.Load(r, x)
	b.Op(ir.OpNe, ok, r, b.Const(3))
	b.Assert(ok, "x is not 3")
	prog := p.MustBuild()
	return prog
}
