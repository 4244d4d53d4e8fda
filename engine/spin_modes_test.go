package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

// Spin-waiting in every mode: the spin models of issue 17 (the handoff,
// Peterson's and Dekker's algorithms with plain while spin loops, flags
// atomic or not, and their broken variants), built by hand, explored by
// every mode and compared with dfs trace by trace (see checkAgainstDFS:
// the same bugs, and among the executions that do not stop, one per
// trace); and the counts of the POR modes with each other: the same
// executions and the same spin-blocked executions, one per trace each.

// spinModel is a spin model and the bugs every mode must find (kinds,
// sorted, space-separated; data races as "data-race").
type spinModel struct {
	name string
	prog *engine.Program
	bugs string
}

// criticalSection counts the threads inside it in inside (plain or
// atomic) and asserts mutual exclusion.
func criticalSection(th *irtest.Body, inside int32) {
	n, ok := th.Temp(), th.Temp()
	th.Load(n, inside)
	th.AddI(n, n, 1)
	th.Store(inside, n)
	th.Load(n, inside)
	th.Op(ir.OpEq, ok, n, th.Const(1))
	th.Assert(ok, "mutual exclusion")
	th.Load(n, inside)
	th.AddI(n, n, -1)
	th.Store(inside, n)
}

// petersonModel is Peterson's algorithm for two threads with the spin
// loop `while flag[other] && turn == other {}`. Variants: the flags and
// turn plain rather than atomic; the turn given before the flag is raised
// (broken: mutual exclusion fails); no turn at all (broken: both spin
// forever).
func petersonModel(plainFlags bool, variant string) *engine.Program {
	p := irtest.New()
	kind := irtest.Atomic
	if plainFlags {
		kind = irtest.Plain
	}
	flag := p.Array("flag", 2, kind, 0)
	turn := p.Var("turn", kind, 0)
	inside := p.Var("inside", irtest.Plain, 0)
	for me := range 2 {
		other := 1 - me
		th := p.Thread(fmt.Sprintf("p[%d]", me))
		f, tu, ok := th.Temp(), th.Temp(), th.Temp()
		switch variant {
		case "turn first":
			th.StoreConst(turn, int64(other))
			th.StoreConst(flag+int32(me), 1)
		case "no turn":
			th.StoreConst(flag+int32(me), 1)
		default:
			th.StoreConst(flag+int32(me), 1)
			th.StoreConst(turn, int64(other))
		}
		th.Label("top")
		th.LoopHead(false)
		th.Load(f, flag+int32(other))
		th.Jz("enter", f)
		if variant != "no turn" {
			th.Load(tu, turn)
			th.Op(ir.OpEq, ok, tu, th.Const(int64(other)))
			th.Jz("enter", ok)
		}
		th.Jmp("top")
		th.Label("enter")
		criticalSection(th, inside)
		th.StoreConst(flag+int32(me), 0)
	}
	return p.MustBuild()
}

// dekkerModel is Dekker's algorithm for two threads:
//
//	flag[me] = true
//	while flag[other] {
//	    if turn != me {
//	        flag[me] = false
//	        while turn != me {}
//	        flag[me] = true
//	    }
//	}
//	critical section
//	turn = other
//	flag[me] = false
//
// Broken: the flag stays raised while waiting for the turn (both threads
// spin forever).
func dekkerModel(plainFlags, broken bool) *engine.Program {
	p := irtest.New()
	kind := irtest.Atomic
	if plainFlags {
		kind = irtest.Plain
	}
	flag := p.Array("flag", 2, kind, 0)
	turn := p.Var("turn", kind, 0)
	inside := p.Var("inside", irtest.Plain, 0)
	for me := range 2 {
		other := 1 - me
		th := p.Thread(fmt.Sprintf("p[%d]", me))
		f, tu, ok := th.Temp(), th.Temp(), th.Temp()
		th.StoreConst(flag+int32(me), 1)
		th.Label("outer")
		th.LoopHead(false)
		th.Load(f, flag+int32(other))
		th.Jz("enter", f)
		th.Load(tu, turn)
		th.Op(ir.OpEq, ok, tu, th.Const(int64(me)))
		th.Jnz("outer", ok)
		if !broken {
			th.StoreConst(flag+int32(me), 0)
		}
		th.Label("inner")
		th.LoopHead(false)
		th.Load(tu, turn)
		th.Op(ir.OpEq, ok, tu, th.Const(int64(me)))
		th.Jz("inner", ok)
		if !broken {
			th.StoreConst(flag+int32(me), 1)
		}
		th.Jmp("outer")
		th.Label("enter")
		criticalSection(th, inside)
		th.StoreConst(turn, int64(other))
		th.StoreConst(flag+int32(me), 0)
	}
	return p.MustBuild()
}

// handoffModel is the handoff with consumers consumers spinning
// on the flag (a while loop, or an await), data plain or atomic;
// raiseFirst raises the flag before the data is written.
func handoffModel(consumers int, await, plainData, raiseFirst bool) *engine.Program {
	p := irtest.New()
	flag := p.Var("flag", irtest.Atomic, 0)
	kind := irtest.Atomic
	if plainData {
		kind = irtest.Plain
	}
	data := p.Var("data", kind, 0)
	pr := p.Thread("producer")
	if raiseFirst {
		pr.StoreConst(flag, 1)
		pr.StoreConst(data, 42)
	} else {
		pr.StoreConst(data, 42)
		pr.StoreConst(flag, 1)
	}
	for i := range consumers {
		c := p.Thread(fmt.Sprintf("consumer[%d]", i))
		c.SpinUntil(flag, await)
		v, ok := c.Temp(), c.Temp()
		c.Load(v, data)
		c.Op(ir.OpEq, ok, v, c.Const(42))
		c.Assert(ok, "data published before flag")
	}
	return p.MustBuild()
}

// ticketModel is a ticket lock: each of n threads takes a ticket (an
// atomic block), spins until serving shows it, runs a critical section
// on a plain counter and serves the next ticket.
func ticketModel(n int, broken bool) *engine.Program {
	p := irtest.New()
	next := p.Var("next", irtest.Atomic, 0)
	serving := p.Var("serving", irtest.Atomic, 0)
	inside := p.Var("inside", irtest.Plain, 0)
	for i := range n {
		th := p.Thread(fmt.Sprintf("c[%d]", i))
		ticket, s, ok := th.Temp(), th.Temp(), th.Temp()
		th.AtomicBlock(func() {
			th.Load(ticket, next)
			th.AddI(s, ticket, 1)
			th.Store(next, s)
		})
		th.Label("wait")
		th.LoopHead(false)
		th.Load(s, serving)
		th.Op(ir.OpEq, ok, s, ticket)
		if broken {
			// Enters when serving is at least its ticket minus one.
			th.AddI(s, s, 1)
			th.Op(ir.OpLe, ok, ticket, s)
		}
		th.Jz("wait", ok)
		criticalSection(th, inside)
		th.AtomicBlock(func() {
			th.Load(s, serving)
			th.AddI(s, s, 1)
			th.Store(serving, s)
		})
	}
	return p.MustBuild()
}

func spinModels() []spinModel {
	var ms []spinModel
	for _, plain := range []bool{false, true} {
		race := ""
		if plain {
			race = "data-race "
		}
		fl := map[bool]string{false: "atomic flags", true: "plain flags"}[plain]
		ms = append(ms,
			spinModel{"peterson, " + fl, petersonModel(plain, ""), strings.TrimSpace(race)},
			spinModel{"peterson, turn first, " + fl, petersonModel(plain, "turn first"), "assertion data-race"},
			spinModel{"peterson, no turn, " + fl, petersonModel(plain, "no turn"), race + "deadlock"},
			spinModel{"dekker, " + fl, dekkerModel(plain, false), strings.TrimSpace(race)},
			spinModel{"dekker, flag kept, " + fl, dekkerModel(plain, true), race + "deadlock"},
		)
	}
	for _, await := range []bool{false, true} {
		w := map[bool]string{false: "while", true: "await"}[await]
		ms = append(ms,
			spinModel{"handoff, " + w, handoffModel(1, await, true, false), ""},
			spinModel{"handoff, atomic data, " + w, handoffModel(1, await, false, false), ""},
			spinModel{"handoff, flag first, " + w, handoffModel(1, await, true, true), "assertion data-race"},
			spinModel{"handoff, two consumers, " + w, handoffModel(2, await, true, false), ""},
			spinModel{"handoff, two consumers, flag first, " + w, handoffModel(2, await, false, true), "assertion"},
		)
	}
	ms = append(ms,
		spinModel{"ticket lock", ticketModel(2, false), ""},
		spinModel{"ticket lock, 3 threads", ticketModel(3, false), ""},
		spinModel{"ticket lock, broken", ticketModel(2, true), "assertion data-race"},
	)
	return ms
}

// bugKinds lists the kinds of res's bugs, sorted, once each.
func bugKinds(res *engine.Result) string {
	seen := map[string]bool{}
	var kinds []string
	for _, b := range res.Bugs {
		if !seen[string(b.Kind)] {
			seen[string(b.Kind)] = true
			kinds = append(kinds, string(b.Kind))
		}
	}
	return strings.Join(sortedStrings(kinds), " ")
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestSpinModelsEveryMode: every spin model in every mode against dfs,
// with the bugs it must have; no mode meets the step bound; sdpor, qpor
// and optimal count the same executions and the same spin-blocked ones.
func TestSpinModelsEveryMode(t *testing.T) {
	for _, m := range spinModels() {
		t.Run(m.name, func(t *testing.T) {
			ref := dfsReference(t, m.prog, m.name, dfsBudget)
			if got, want := bugKinds(ref.res), strings.Join(sortedStrings(strings.Fields(m.bugs)), " "); got != want {
				t.Errorf("dfs: bugs %q, want %q", got, want)
			}
			if hitStepBound(ref.res) {
				t.Fatalf("dfs met the step bound: %v", bugKeys(ref.res))
			}
			sd := explore(t, m.prog, engine.SDPOR, true)
			checkAgainstDFS(t, m.name, "sdpor", m.prog, m.name, ref, sd)
			for _, mode := range qporModes {
				got := exploreK(t, m.prog, mode.algo, mode.k, mode.prune)
				checkAgainstDFS(t, m.name, mode.name, m.prog, m.name, ref, got)
				if n := engine.Anomalies(got.res); n != 0 {
					t.Errorf("%s: %d anomalies; the first: %s", mode.name, n, engine.FirstAnomaly(got.res))
				}
				if !got.res.Complete {
					t.Errorf("%s: incomplete (%s)", mode.name, got.res.Stopped)
				}
				if mode.algo == engine.Optimal && got.res.SSB != 0 {
					t.Errorf("optimal explored %d sleep-set-blocked executions", got.res.SSB)
				}
				// Executions that stop are counted differently by each
				// mode; the others, spin-blocked or not, one per trace.
				if ref.stops == 0 && got.res.Executions != sd.res.Executions || got.res.SpinBlocked != sd.res.SpinBlocked {
					t.Errorf("%s: %d executions and %d spin-blocked; sdpor %d and %d", mode.name,
						got.res.Executions, got.res.SpinBlocked, sd.res.Executions, sd.res.SpinBlocked)
				}
				if ref.res.SpinBlocked > 0 && got.res.SpinBlocked == 0 {
					t.Errorf("%s: no spin-blocked execution, dfs %d", mode.name, ref.res.SpinBlocked)
				}
			}
			t.Logf("dfs %d executions (%d spin-blocked); sdpor %d (%d spin-blocked, %d ssb)",
				ref.res.Executions, ref.res.SpinBlocked, sd.res.Executions, sd.res.SpinBlocked, sd.res.SSB)
		})
	}
}
