package access

import (
	"context"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/source"
)

const fig1 = `const N = 3

var x [N]int
var c int
var mc mutex
var mx [N]mutex

thread writer[w in 0..N] {
    lock(mx[w])
    x[w] = 7
    unlock(mx[w])
}

thread count {
    for j in 1..N {
        lock(mc)
        c = c + 1
        unlock(mc)
    }
    atomic {
        c = c + 1
        x[0] = c
    }
}
`

// at returns the position of the n-th (from 0) occurrence of sub in src,
// plus delta bytes.
func at(t *testing.T, src, sub string, delta int) source.Pos {
	t.Helper()
	i := strings.Index(src, sub)
	if i < 0 {
		t.Fatalf("%q not in the source", sub)
	}
	return source.NewFile("test.weft", []byte(src)).Pos(i + delta)
}

func TestStatementAt(t *testing.T) {
	_, s := load(t, fig1)
	tests := []struct {
		sub   string
		delta int
		want  string // the statement's String, "" for none
	}{
		{"x[w] = 7", 0, "writer 10:5: write x[w]"},
		{"x[w] = 7", 3, "writer 10:5: write x[w]"},
		{"x[w] = 7", 8, "writer 10:5: write x[w]"}, // just after the statement
		{"lock(mx[w])", 7, "writer 9:5: lock mx[w]"},
		{"}\n\nthread count", 0, "writer 12:1: end"},
		{"thread writer", 2, ""},
		{"for j in", 0, ""}, // a header without steps
		{"c = c + 1\n        x[0]", 4, "count 20:5: atomic reads c writes c, x[0]"},
		{"atomic {", 0, "count 20:5: atomic reads c writes c, x[0]"},
		{"const N", 0, ""},
	}
	for _, tc := range tests {
		got := ""
		if st := s.StatementAt(at(t, fig1, tc.sub, tc.delta)); st != nil {
			got = st.String()
		}
		if got != tc.want {
			t.Errorf("StatementAt(%q%+d) = %q, want %q", tc.sub, tc.delta, got, tc.want)
		}
	}
}

func TestStepAt(t *testing.T) {
	ld, s := load(t, fig1)
	for bi, b := range ld.Exec.Bodies {
		steps := 0
		for pc := range b.Code {
			st, step := s.StepAt(bi, pc)
			if st == nil {
				continue
			}
			steps++
			if step.PC != pc || !st.Range.Contains(step.Range.Start) && st.Range != step.Range {
				t.Errorf("%s pc %d: step %v of %v", b.Name, pc, step, st)
			}
		}
		if want := map[string]int{"writer": 3, "count": 5}[b.Name]; steps != want {
			t.Errorf("%s: %d steps, want %d", b.Name, steps, want)
		}
	}
}

func TestAnalyzeFails(t *testing.T) {
	good := lower.Load("a.weft", []byte(fig1))
	other := lower.Load("b.weft", []byte("var y int\nthread t {\n    y = 1\n}\n"))
	bad := lower.Load("c.weft", []byte("thread t {\n    y = 1\n}\n"))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		ld   *lower.Loaded
		exec *lower.Loaded
		want string
	}{
		{"errors", context.Background(), bad, other, "has errors"},
		{"mismatch", context.Background(), good, other, "does not match"},
		{"cancelled", cancelled, good, good, "context canceled"},
		{"nil", context.Background(), nil, nil, "no program"},
	}
	for _, tc := range tests {
		var err error
		if tc.ld == nil {
			_, err = Analyze(tc.ctx, nil, nil)
		} else {
			_, err = Analyze(tc.ctx, tc.ld.Program, tc.exec.Exec)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestBudget checks that a thread array evaluated over the range of its
// indexes (no budget left to follow instances one by one) is still
// sound, only coarser: writer[w]'s x[w] then meets x[w] of the others.
func TestBudget(t *testing.T) {
	ld := lower.Load("test.weft", []byte(fig1))
	s, err := analyze(context.Background(), ld.Program, ld.Exec, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := s.StatementAt(at(t, fig1, "x[w] = 7", 0))
	var got []string
	for _, p := range s.Interference(st) {
		got = append(got, p.String())
	}
	want := []string{
		"writer[0..3] 10:5: write x[w] (both write x[w])",
		"count 20:5: atomic reads c writes c, x[0] (writes x[w], which it writes as x[0])",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkSound(t, ld.Program, ld.Exec, s, 20000)
	checkSymmetric(t, s)
}

// TestCopies: a statement of a function called from two threads has a
// copy in each; StatementAt finds the first, Copies both, and each copy's
// Interference names the other thread's.
func TestCopies(t *testing.T) {
	const src = `var x int
func bump() {
    x++
}
thread a {
    bump()
}
thread b {
    bump()
    x = 0
}
`
	_, s := load(t, src)
	st := s.StatementAt(at(t, src, "x++", 0))
	if st == nil || st.Func == nil || st.Func.Name != "bump" || st.Owner.Name != "a" {
		t.Fatalf("StatementAt(x++) = %v, want a's copy of bump's statement", st)
	}
	copies := s.Copies(st)
	var got []string
	for _, c := range copies {
		got = append(got, c.String())
		for _, p := range s.Interference(c) {
			got = append(got, "    "+p.String())
		}
	}
	want := []string{
		"a via bump 3:5: read x; write x",
		"    b 3:5: read x; write x (both write x)",
		"    b 9:5: call bump reads x writes x (both write x)",
		"    b 10:5: write x (both write x)",
		"b via bump 3:5: read x; write x",
		"    a 3:5: read x; write x (both write x)",
		"    a 6:5: call bump reads x writes x (both write x)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := s.Copies(s.StatementAt(at(t, src, "x = 0", 0))); len(c) != 1 {
		t.Errorf("a statement of a thread body has %d copies, want itself", len(c))
	}
}

// TestAtomicOnlyFunction: the accesses of a function that runs only
// inside atomic blocks are in an atomic block; those of a function also
// called outside one are not.
func TestAtomicOnlyFunction(t *testing.T) {
	const src = `var x int
var y int
func h() int {
    return x
}
func g() int {
    return y
}
thread t {
    atomic {
        y = h() + g()
    }
    x = g()
}
`
	ld, s := load(t, src)
	var got []string
	for _, name := range []string{"x", "y"} {
		for _, a := range s.Variable(ld.Program.Lookup(name)).Accesses {
			got = append(got, a.String())
		}
	}
	want := []string{
		"t reads x in an atomic block at 4:5",
		"t reads x in an atomic block at 10:5",
		"t writes x at 13:5",
		"t reads y at 7:5",
		"t reads y in an atomic block at 10:5",
		"t writes y in an atomic block at 10:5",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
