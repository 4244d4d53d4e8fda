package access

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"weft/analysis/lower"
)

// TestSoundRandom runs checkSound on random small models that mix every
// feature the analysis follows: constant, thread-index and computed
// indexes, locks of fixed and computed mutexes in branches and loops,
// stable and unstable atomic blocks, procs spawned once or in loops,
// handles in tid locals, joins; and, for odd seeds, the steps of
// language version 2: a function (recursive, with its own accesses and
// locks) called from statements and atomic blocks, trylock in ifs,
// choose, waits, signals and broadcasts. WEFT_ACCESS_RANDOM=N runs N
// models instead of 40.
func TestSoundRandom(t *testing.T) {
	n := 40
	if v, err := strconv.Atoi(os.Getenv("WEFT_ACCESS_RANDOM")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 10
	}
	for seed := range n {
		src := randomModel(uint64(seed))
		ld := lower.Load("random.weft", []byte(src))
		if ld.Exec == nil {
			t.Fatalf("seed %d does not lower: %v\n%s", seed, ld.Diagnostics, src)
		}
		s, err := Analyze(context.Background(), ld.Program, ld.Exec)
		if err != nil {
			t.Fatal(err)
		}
		ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
			for _, b := range s.bodies {
				if !b.matched {
					t.Errorf("the code of %s does not match its syntax", b.owner.Name)
				}
			}
			checkSound(t, ld.Program, ld.Exec, s, 2000)
			checkSymmetric(t, s)
		})
		if !ok {
			t.Logf("seed %d:\n%s", seed, src)
		}
	}
}

// randomModel writes a small random model: a thread array of two, a
// single thread, and a proc the single thread spawns.
func randomModel(seed uint64) string {
	g := &gen{r: rand.New(rand.NewPCG(seed, 7)), v2: seed%2 == 1}
	g.line("const N = 2")
	g.line("var a [N]int")
	g.line("var b int")
	g.line("var c atomic int")
	g.line("var g [2][N]int")
	g.line("var m [N]mutex")
	g.line("var l mutex")
	if g.v2 {
		g.line("var cv [N]cond")
		g.line("func f(k int) int {")
		g.inFunc = true
		g.body("k % N", 2, false)
		g.inFunc = false
		g.line("    if k > 0 {")
		g.line("        b = f(k - 1) + 1")
		g.line("    }")
		g.line("    return a[k %% N]")
		g.line("}")
		// h may be called in atomic blocks: shared accesses only.
		g.line("func h(k int) int {")
		g.line("    g[1][k %% N] = a[%s] + 1", []string{"k % N", "(k + 1) % N", "0"}[g.r.IntN(3)])
		g.line("    if k > 0 {")
		g.line("        return h(k - 1) + b")
		g.line("    }")
		g.line("    return g[0][k %% N]")
		g.line("}")
	}
	g.line("proc p(k int) {")
	g.body("k % N", 3, false)
	g.line("}")
	g.line("thread t[i in 0..2] {")
	g.body("i", 4, false)
	g.line("}")
	g.line("thread u {")
	g.line("    var k int = b %% N")
	g.body("k", 4, true)
	g.line("    join t[%d]", g.r.IntN(2))
	g.line("}")
	return g.b.String()
}

type gen struct {
	r      *rand.Rand
	b      strings.Builder
	indent int
	locals int
	v2     bool // use the steps of language version 2
	inFunc bool // writing f's body: no calls of f
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("    ", g.indent))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

// index is an index in [0, N): constant, the body's own (thread index,
// parameter or local), or derived from it.
func (g *gen) index(own string) string {
	switch g.r.IntN(4) {
	case 0:
		return strconv.Itoa(g.r.IntN(2))
	case 1:
		return own
	case 2:
		return "(" + own + " + 1) % N"
	}
	return "b % N"
}

func (g *gen) body(own string, n int, spawner bool) {
	g.indent++
	defer func() { g.indent-- }()
	for range n {
		g.stmt(own, spawner, 2)
	}
}

func (g *gen) stmt(own string, spawner bool, depth int) {
	n := 12
	if g.v2 {
		n = 18
	}
	switch k := g.r.IntN(n); {
	case k == 12 && !g.inFunc:
		g.line("b = f(%s)", g.index(own))
	case k == 13:
		mx := "m[" + g.index(own) + "]"
		if g.r.IntN(2) == 0 {
			mx = "l"
		}
		neg := g.r.IntN(2) == 0
		if neg {
			g.line("if !trylock(%s) {", mx)
			g.body(own, 1, false)
			g.line("} else {")
		} else {
			g.line("if trylock(%s) {", mx)
		}
		g.indent++
		g.stmt(own, false, 0)
		g.line("unlock(%s)", mx)
		g.indent--
		g.line("}")
	case k == 14:
		g.line("a[choose 0..N] = choose %d..%d", g.r.IntN(2), 2+g.r.IntN(2))
	case k == 15:
		op := "signal"
		if g.r.IntN(2) == 0 {
			op = "broadcast"
		}
		g.line("%s(cv[%s])", op, g.index(own))
	case k == 16 && depth > 0:
		g.line("lock(l)")
		g.line("while b == %d {", g.r.IntN(2))
		g.line("    wait(cv[%s], l)", g.index(own))
		g.line("}")
		g.line("unlock(l)")
	case k == 17:
		g.line("atomic {")
		g.line("    g[0][%s] = h(%s) + c", g.index(own), g.index(own))
		g.line("}")
	case k == 0:
		g.line("a[%s] = a[%s] + 1", g.index(own), g.index(own))
	case k == 1:
		g.line("b++")
	case k == 2:
		g.line("g[%d][%s] = b", g.r.IntN(2), g.index(own))
	case k == 3:
		mx := "m[" + g.index(own) + "]"
		if g.r.IntN(2) == 0 {
			mx = "l"
		}
		g.line("lock(%s)", mx)
		g.stmt(own, false, 0)
		if depth > 0 && g.r.IntN(2) == 0 {
			g.line("if b > %d {", g.r.IntN(3))
			g.indent++
			g.line("unlock(%s)", mx)
			g.stmt(own, false, 0)
			g.line("lock(%s)", mx)
			g.indent--
			g.line("}")
		}
		g.line("unlock(%s)", mx)
	case k == 4:
		g.line("atomic {")
		g.indent++
		g.line("c = c + a[%s]", g.index(own))
		if g.r.IntN(2) == 0 {
			g.line("if c > 1 {")
			g.line("    g[1][%s] = c", g.index(own))
			g.line("}")
		}
		g.indent--
		g.line("}")
	case k == 5 && depth > 0:
		g.line("for j in 0..2 {")
		g.body(own, 1+g.r.IntN(2), false)
		g.line("}")
	case k == 6 && depth > 0:
		g.line("if a[%s] > 0 {", g.index(own))
		g.body(own, 1, spawner)
		g.line("} else {")
		g.body(own, 1, false)
		g.line("}")
	case k == 7 && spawner:
		g.locals++
		h := "h" + strconv.Itoa(g.locals)
		g.line("var %s tid = spawn p(%s)", h, g.index(own))
		g.stmt(own, false, 0)
		g.line("join %s", h)
	case k == 8 && spawner && depth > 0:
		g.line("for j in 0..2 {")
		g.line("    spawn p(j)")
		g.line("}")
	case k == 9:
		g.line("assert c >= 0")
	default:
		g.line("b = a[%s] + g[0][%s]", g.index(own), g.index(own))
	}
}
