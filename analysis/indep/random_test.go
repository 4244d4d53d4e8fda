package indep

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"weft/analysis/lower"
)

// TestRandom runs the checks of W (TestWritesSound) and of the table
// (TestTableCommutes) on random small models: atomic blocks of one
// assignment of locals, constants, thread indexes and shared reads,
// plain reads and writes of scalars and array elements, compound
// assignments, branches and asserts, locks, a function, a proc spawned
// once or in a loop. WEFT_INDEP_RANDOM=N runs N models instead of 30.
func TestRandom(t *testing.T) {
	n := 30
	if v, err := strconv.Atoi(os.Getenv("WEFT_INDEP_RANDOM")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 8
	}
	for seed := range n {
		src := randomIndepModel(uint64(seed))
		if ld := lower.Load("random.weft", []byte(src)); ld.Exec == nil {
			t.Fatalf("seed %d does not load: %v\n%s", seed, ld.Diagnostics, src)
		}
		ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
			checkWrites(t, src, 1500)
			checkTable(t, src, 8000)
		})
		if !ok {
			t.Logf("seed %d:\n%s", seed, src)
		}
	}
}

type igen struct {
	r *rand.Rand
	b strings.Builder
}

func (g *igen) line(indent int, format string, args ...any) {
	g.b.WriteString(strings.Repeat("    ", indent))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *igen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func randomIndepModel(seed uint64) string {
	g := &igen{r: rand.New(rand.NewPCG(seed, 18))}
	g.line(0, "var x int")
	g.line(0, "var y int")
	g.line(0, "var a [3]int")
	g.line(0, "var m mutex")
	g.line(0, "func set(k int) {")
	g.stmt(1, "k", "k")
	g.line(0, "}")
	g.line(0, "proc p(k int) {")
	g.line(1, "var v int = k %% 3")
	g.stmt(1, "v", "k % 3")
	g.stmt(1, "v", "k % 3")
	g.line(0, "}")
	g.line(0, "thread t[i in 0..2] {")
	g.line(1, "var v int = %d", g.r.IntN(3))
	for range 3 {
		g.stmt(1, "v", "i")
	}
	g.line(0, "}")
	g.line(0, "thread u {")
	g.line(1, "var w int = %d", g.r.IntN(3))
	if g.r.IntN(2) == 0 {
		g.line(1, "spawn p(%d)", g.r.IntN(3))
	} else {
		g.line(1, "for j in 0..2 {")
		g.line(2, "spawn p(j)")
		g.line(1, "}")
	}
	for range 3 {
		g.stmt(1, "w", "1")
	}
	g.line(0, "}")
	return g.b.String()
}

// stmt writes one statement; local is a local of the body, idx an index
// in [0, 3).
func (g *igen) stmt(indent int, local, idx string) {
	val := func() string {
		return g.pick(local, "1", "0", local+" + 1", "x", "y + "+local, "a["+idx+"]")
	}
	place := func() string { return g.pick("x", "y", "a["+idx+"]", "a[1]", "a[("+idx+" + 1) % 3]") }
	switch g.r.IntN(9) {
	case 0, 1:
		g.line(indent, "atomic {")
		g.line(indent+1, "%s = %s", place(), val())
		g.line(indent, "}")
	case 2:
		g.line(indent, "%s = %s", place(), g.pick(local, "1", "0", local+" + 1"))
	case 3:
		g.line(indent, "%s = %s", local, g.pick("x", "y", "a["+idx+"]"))
	case 4:
		g.line(indent, "atomic {")
		g.line(indent+1, "%s %s", place(), g.pick("+= 1", "++", "-= "+local))
		g.line(indent, "}")
	case 5:
		g.line(indent, "if %s > %d {", g.pick("x", "y", "a["+idx+"]"), g.r.IntN(2))
		g.line(indent+1, "%s = %s", place(), g.pick(local, "1"))
		g.line(indent, "}")
	case 6:
		g.line(indent, "lock(m)")
		g.line(indent, "%s = %s", place(), val())
		g.line(indent, "unlock(m)")
	case 7:
		if local != "k" {
			g.line(indent, "set(%s)", idx)
			return
		}
		g.line(indent, "%s = %s + 1", place(), local)
	default:
		g.line(indent, "atomic {")
		g.line(indent+1, "%s = %s", place(), val())
		g.line(indent+1, "%s = %s", place(), val())
		g.line(indent, "}")
	}
}
