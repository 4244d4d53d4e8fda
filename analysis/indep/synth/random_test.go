package synth

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// gen writes random blocks of the encoded subset.
type gen struct {
	rng   *rand.Rand
	local string
}

func (g *gen) lval() string {
	return []string{"x", "y", "a[1]", g.local}[g.rng.Intn(4)]
}

func (g *gen) int(d int) string {
	if d <= 0 || g.rng.Intn(3) == 0 {
		return []string{"x", "y", "a[0]", "a[1]", g.local, "1", "0", "2", "i"}[g.rng.Intn(9)]
	}
	switch g.rng.Intn(3) {
	case 0:
		return g.int(d-1) + " + " + g.int(d-1)
	case 1:
		return g.int(d-1) + " - " + g.int(d-1)
	}
	return "2 * (" + g.int(d-1) + ")"
}

func (g *gen) cond(d int) string {
	switch g.rng.Intn(5) {
	case 0:
		return "f"
	case 1:
		return "!f"
	case 2:
		if d > 0 {
			return "(" + g.cond(d-1) + ") && (" + g.cond(d-1) + ")"
		}
	case 3:
		return g.int(1) + " == " + g.int(1)
	}
	return g.int(1) + " < " + g.int(1)
}

func (g *gen) stmts(d, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch k := g.rng.Intn(6); {
		case k == 0 && d > 0:
			fmt.Fprintf(&b, "if %s { %s } else { %s }\n", g.cond(1), g.stmts(d-1, 1+g.rng.Intn(2)), g.stmts(d-1, g.rng.Intn(2)))
		case k == 1:
			fmt.Fprintf(&b, "f = %s\n", g.cond(1))
		case k == 2:
			fmt.Fprintf(&b, "%s++\n", g.lval())
		case k == 3:
			fmt.Fprintf(&b, "%s += %s\n", g.lval(), g.int(1))
		default:
			fmt.Fprintf(&b, "%s = %s\n", g.lval(), g.int(2))
		}
	}
	return b.String()
}

// TestRandomBlocks: on random pairs, every condition is sufficient and
// their disjunction necessary, on a grid of small states (where nothing
// overflows), against the concrete interpreter.
func TestRandomBlocks(t *testing.T) {
	s := solver(t)
	n := 50
	if testing.Short() {
		n = 15
	}
	rng := rand.New(rand.NewSource(7))
	total, queries, conds := 0, 0, 0
	for iter := 0; iter < n; iter++ {
		g0 := &gen{rng: rng, local: "l"}
		g1 := &gen{rng: rng, local: "m"}
		src := fmt.Sprintf(`var x int
var y int
var a [2]int
var f bool
thread p[i in 0..1] {
    var l int
    atomic {
%s    }
    assert l >= 0
}
thread q[i in 1..2] {
    var m int
    atomic {
%s    }
    assert m >= 0
}
`, g0.stmts(2, 1+rng.Intn(3)), g1.stmts(2, 1+rng.Intn(3)))
		prog, blocks := load(t, src)
		res, err := Pair(context.Background(), s, prog, blocks[0], blocks[1], Options{})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if res.Unsupported != "" || res.TimedOut || !res.Exact {
			t.Fatalf("unsupported %q, timed out %v, exact %v\n%s", res.Unsupported, res.TimedOut, res.Exact, src)
		}
		total += int(res.Time.Microseconds())
		queries += res.Queries
		conds += len(res.Conds)
		c := pairCase{
			vars:  []string{"x", "y", "a[0]", "a[1]", "f", "l#0", "m#1", "i#0", "i#1"},
			keep:  []string{"x", "y", "a[0]", "a[1]", "f", "l#0", "m#1"},
			vals:  []int64{-1, 0, 1},
			exact: true,
		}
		before := t.Failed()
		checkGrid(t, prog, blocks[0], blocks[1], c, res, map[string]bool{"f": true})
		if !before && t.Failed() {
			for _, e := range res.Conds {
				t.Logf("cond: %s", show(e))
			}
			t.Fatalf("program:\n%s", src)
		}
	}
	t.Logf("%d pairs: %d conditions, %d queries, %d µs in all", n, conds, queries, total)
}
