package engine_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine"
)

// v2Program generates a small program in the constructs of language
// version 2: an atomic flag that publishes plain data, spin loops and
// awaits on it, a condition variable used with a predicate loop (or, on
// purpose, without one: lost wake-ups), signal and broadcast, trylock,
// choose, and calls of functions (one pure, one that takes a mutex).
// Every execution ends or waits, so counts are compared with dfs's.
func v2Program(r *rand.Rand) string { return generateWith(r, (*progGen).v2Program) }

// generateWith draws programs from gen until one is small enough for dfs.
func generateWith(r *rand.Rand, gen func(*progGen) string) string {
	for {
		g := &progGen{r: r}
		src := gen(g)
		if fitsDFS(src, false) {
			return src
		}
		genRejected++
	}
}

func (g *progGen) v2Program() string {
	r, sb := g.r, &g.sb
	sb.WriteString("var f atomic int\nvar x int\nvar y int\nvar cnt int\nvar m0 mutex\nvar c0 cond\n")
	sb.WriteString("func add(a int, b int) int {\n    return a + b\n}\n")
	sb.WriteString("func bump(k int) {\n    lock(m0)\n    y = y + k\n    unlock(m0)\n}\n")
	threads := 2 + r.Intn(2)
	for t := 0; t < threads; t++ {
		fmt.Fprintf(sb, "thread t%d {\n    var l int\n", t)
		g.budget = []int{0, 0, 9, 6}[threads]
		for i := 0; i < 1+r.Intn(4) && g.budget > 0; i++ {
			g.v2Stmt("    ")
		}
		sb.WriteString("    assert l < 1000\n}\n")
	}
	return sb.String()
}

// v2Stmt writes one statement of a v2 program, charging the budget.
func (g *progGen) v2Stmt(ind string) {
	r, sb := g.r, &g.sb
	line := func(format string, args ...any) {
		sb.WriteString(ind)
		fmt.Fprintf(sb, format, args...)
		sb.WriteString("\n")
	}
	lines := func(text string) {
		for _, l := range strings.Split(text, "\n") {
			sb.WriteString(ind + l + "\n")
		}
	}
	switch r.Intn(14) {
	case 0:
		line("l = choose 0..%d", 2+r.Intn(2))
		line("if l == 1 {")
		line("    x = l")
		line("}")
		g.budget--
	case 1:
		line("x = %d", 1+r.Intn(2))
		line("f = %d", 1+r.Intn(2))
		g.budget -= 2
	case 2:
		line("while f == 0 {")
		line("}")
		line("l = x")
		g.budget -= 2
	case 3:
		line("await f != 0 && y >= 0")
		line("assert x != 0 || y > 0, \"published\"")
		g.budget -= 3
	case 4:
		lines("lock(m0)\nwhile cnt == 0 {\n    wait(c0, m0)\n}\ncnt = cnt - 1\nunlock(m0)")
		g.budget -= 4
	case 5:
		lines("lock(m0)\ncnt = cnt + 1")
		if r.Intn(3) == 0 {
			line("broadcast(c0)")
		} else {
			line("signal(c0)")
		}
		line("unlock(m0)")
		g.budget -= 4
	case 6:
		lines("lock(m0)\nwait(c0, m0)\nunlock(m0)")
		g.budget -= 3
	case 7:
		lines("if trylock(m0) {\n    x = x + 1\n    unlock(m0)\n}")
		g.budget -= 3
	case 8:
		line("l = add(l, %d)", 1+r.Intn(2))
		line("y = l")
		g.budget--
	case 9:
		line("bump(%d)", 1+r.Intn(2))
		g.budget -= 3
	case 10:
		line("l = y")
		g.budget--
	case 11:
		line("x = choose 0..2")
		g.budget--
	case 12:
		line("assert x != %d", 2+r.Intn(2))
		g.budget--
	case 13:
		// l is compared at the head: the first iteration may change it,
		// the second cannot.
		line("while y == 0 && l >= 0 {")
		line("    l = x")
		line("}")
		g.budget -= 2
	}
}

// TestV2SourcePrograms: random programs in the syntax of version 2
// (v2Program), through the whole front end, every mode against dfs: the
// same bugs and, where no execution stops early, one execution per
// Mazurkiewicz trace. A mode that refuses a program's feature (qpor and
// optimal, for choose and condition variables) is skipped for that
// program, visibly, in a subtest of its own.
func TestV2SourcePrograms(t *testing.T) {
	forEachProgram(t, v2Program, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareModes(t, name, prog, src)
		t.Run("unfolding", func(t *testing.T) { compareQPOR(t, name, prog, src) })
	})
}
