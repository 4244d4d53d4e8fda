package access

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/analysis"
	"weft/analysis/lower"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// load analyzes src, which must be free of errors.
func load(t testing.TB, src string) (*lower.Loaded, *Summary) {
	t.Helper()
	ld := lower.Load("test.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatalf("does not lower: %v", ld.Diagnostics)
	}
	s, err := Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	return ld, s
}

// dump renders everything the queries say of a program: each statement
// with its pairs, each shared variable with its accesses, each thread and
// proc.
func dump(p *analysis.Program, s *Summary) string {
	var b strings.Builder
	for _, st := range s.Statements() {
		b.WriteString(st.String() + "\n")
		for _, pair := range s.Interference(st) {
			b.WriteString("    " + pair.String() + "\n")
		}
	}
	for _, v := range p.Shared {
		vr := s.Variable(v)
		b.WriteString(vr.String() + "\n")
		for _, a := range vr.Accesses {
			b.WriteString("    " + a.String() + "\n")
		}
	}
	for _, o := range p.ThreadObjects {
		b.WriteString(s.Thread(o).String() + "\n")
	}
	for _, o := range p.Procs {
		b.WriteString(s.Thread(o).String() + "\n")
	}
	return b.String()
}

// TestModels checks everything the queries say of small models, each
// showing one feature.
func TestModels(t *testing.T) {
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			ld, s := load(t, tc.src)
			got := dump(ld.Program, s)
			want := strings.TrimLeft(tc.want, "\n")
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			checkSymmetric(t, s)
			checkSound(t, ld.Program, ld.Exec, s, 20000)
		})
	}
}

// checkSymmetric checks that Interference is symmetric: if a statement
// lists another, the other lists it.
func checkSymmetric(t *testing.T, s *Summary) {
	t.Helper()
	for _, st := range s.Statements() {
		for _, p := range s.Interference(st) {
			back := false
			for _, q := range s.Interference(p.Other) {
				back = back || q.Other == st && q.Threads.Owner == st.Owner
			}
			if !back {
				t.Errorf("%s lists %s, which does not list it", st, p.Other)
			}
		}
	}
}

// TestExamples checks the dumps of the examples against
// testdata/examples.txtar (go test -update rewrites it).
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	golden := filepath.Join("testdata", "examples.txtar")
	ar := &txtar.Archive{Comment: []byte("What the access analysis says of each example (go test -update rewrites it).\n")}
	want := map[string]string{}
	if !*update {
		old, err := txtar.ParseFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range old.Files {
			want[f.Name] = string(f.Data)
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ld, s := load(t, string(src))
		for _, b := range s.bodies {
			if !b.matched {
				t.Errorf("%s: the code of %s does not match its syntax", f, b.owner.Name)
			}
		}
		got := dump(ld.Program, s)
		name := filepath.Base(f)
		ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got)})
		checkSymmetric(t, s)
		if !*update && got != want[name] {
			t.Errorf("%s: got:\n%s\nwant:\n%s", name, got, want[name])
		}
	}
	if *update {
		if err := os.WriteFile(golden, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var models = []struct {
	name, src, want string
}{
	{"v2: a function that waits in a predicate loop; trylock in an if", `
var c int
var m mutex
var cv cond
var ready bool
func take() int {
    lock(m)
    while !ready {
        wait(cv, m)
    }
    var v int = c
    unlock(m)
    return v
}
thread consumer {
    c = take() + 1
}
thread producer {
    if trylock(m) {
        c = 1
        ready = true
        signal(cv)
        unlock(m)
    }
}
`, `
consumer via take 7:5: lock m
    producer 19:5: trylock m (same mutex m)
    producer 23:9: unlock m (same mutex m)
consumer via take 8:5: read ready
    producer 21:9: write ready (reads ready, which it writes)
consumer via take 9:9: wait cv, m; wake cv, m
    producer 19:5: trylock m (same mutex m)
    producer 22:9: signal cv (same condition variable cv)
    producer 23:9: unlock m (same mutex m)
consumer via take 11:5: read c
    producer 20:9: write c (reads c, which it writes)
consumer via take 12:5: unlock m
    producer 19:5: trylock m (same mutex m)
    producer 23:9: unlock m (same mutex m)
consumer 16:5: call take reads ready, c uses m, cv; write c
    producer 19:5: trylock m (same mutex m (in take))
    producer 20:9: write c (reads c (in take), which it writes; both write c)
    producer 21:9: write ready (reads ready (in take), which it writes)
    producer 22:9: signal cv (same condition variable cv (in take))
    producer 23:9: unlock m (same mutex m (in take))
consumer 17:1: end
producer 19:5: trylock m
    consumer 7:5: lock m (same mutex m)
    consumer 9:9: wait cv, m; wake cv, m (same mutex m)
    consumer 12:5: unlock m (same mutex m)
    consumer 16:5: call take reads ready, c uses m, cv; write c (same mutex m)
producer 20:9: write c
    consumer 11:5: read c (writes c, which it reads)
    consumer 16:5: call take reads ready, c uses m, cv; write c (both write c)
producer 21:9: write ready
    consumer 8:5: read ready (writes ready, which it reads)
    consumer 16:5: call take reads ready, c uses m, cv; write c (writes ready, which it reads)
producer 22:9: signal cv
    consumer 9:9: wait cv, m; wake cv, m (same condition variable cv)
    consumer 16:5: call take reads ready, c uses m, cv; write c (same condition variable cv)
producer 23:9: unlock m
    consumer 7:5: lock m (same mutex m)
    consumer 9:9: wait cv, m; wake cv, m (same mutex m)
    consumer 12:5: unlock m (same mutex m)
    consumer 16:5: call take reads ready, c uses m, cv; write c (same mutex m)
producer 25:1: end
c; read by consumer; written by consumer, producer; lockset no common lock
    consumer reads c holding m at 11:5
    consumer writes c at 16:5
    producer writes c holding m at 20:9
m; locked by consumer, producer
    consumer locks m at 7:5
    consumer releases (waiting) m holding m at 9:9
    consumer locks again (woken) m at 9:9
    consumer unlocks m holding m at 12:5
    producer trylocks m at 19:5
    producer unlocks m holding m at 23:9
cv; used by consumer, producer
    consumer waits on cv holding m at 9:9
    consumer wakes up from cv at 9:9
    producer signals cv holding m at 22:9
ready; read by consumer; written by producer; lockset {m}
    consumer reads ready holding m at 8:5
    producer writes ready holding m at 21:9
consumer: 1 instance
producer: 1 instance
`},
	{"locks", `
var c int
var d int
var m mutex
var n mutex
thread a {
    lock(m)
    c = 1
    if c > 0 {
        unlock(m)
        d = 2
        lock(m)
    }
    d = 3
    unlock(m)
}
thread b {
    for k in 0..2 {
        lock(m)
        lock(n)
        d++
        unlock(n)
        c = d
        unlock(m)
    }
}
`, `
a 7:5: lock m
    b 19:9: lock m (same mutex m)
    b 24:9: unlock m (same mutex m)
a 8:5: write c
    b 23:9: read d; write c (both write c)
a 9:5: read c
    b 23:9: read d; write c (reads c, which it writes)
a 10:9: unlock m
    b 19:9: lock m (same mutex m)
    b 24:9: unlock m (same mutex m)
a 11:9: write d
    b 21:9: read d; write d (both write d)
    b 23:9: read d; write c (writes d, which it reads)
a 12:9: lock m
    b 19:9: lock m (same mutex m)
    b 24:9: unlock m (same mutex m)
a 14:5: write d
    b 21:9: read d; write d (both write d)
    b 23:9: read d; write c (writes d, which it reads)
a 15:5: unlock m
    b 19:9: lock m (same mutex m)
    b 24:9: unlock m (same mutex m)
a 16:1: end
b 19:9: lock m
    a 7:5: lock m (same mutex m)
    a 10:9: unlock m (same mutex m)
    a 12:9: lock m (same mutex m)
    a 15:5: unlock m (same mutex m)
b 20:9: lock n
b 21:9: read d; write d
    a 11:9: write d (both write d)
    a 14:5: write d (both write d)
b 22:9: unlock n
b 23:9: read d; write c
    a 8:5: write c (both write c)
    a 9:5: read c (writes c, which it reads)
    a 11:9: write d (reads d, which it writes)
    a 14:5: write d (reads d, which it writes)
b 24:9: unlock m
    a 7:5: lock m (same mutex m)
    a 10:9: unlock m (same mutex m)
    a 12:9: lock m (same mutex m)
    a 15:5: unlock m (same mutex m)
b 26:1: end
c; read by a; written by a, b; lockset {m}
    a writes c holding m at 8:5
    a reads c holding m at 9:5
    b writes c holding m at 23:9
d; read by b; written by a, b; lockset no common lock
    a writes d at 11:9
    a writes d holding m at 14:5
    b reads d holding m, n at 21:9
    b writes d holding m, n at 21:9
    b reads d holding m at 23:9
m; locked by a, b
    a locks m at 7:5
    a unlocks m holding m at 10:9
    a locks m at 12:9
    a unlocks m holding m at 15:5
    b locks m at 19:9
    b unlocks m holding m at 24:9
n; locked by b
    b locks n holding m at 20:9
    b unlocks n holding m, n at 22:9
a: 1 instance
b: 1 instance
`},
	{"array indexes: constant, computed, two dimensions", `
const N = 4
var a [N]int
var g [2][3]int
thread p {
    a[1] = 1
    a[N - 1] = 2
    var i int = 2
    a[i] = 3
    g[1][2] = a[0]
    g[i % 2][1] = 4
}
thread q {
    a[2] = a[1]
    g[0][1]++
}
`, `
p 6:5: write a[1]
    q 14:5: read a[1]; write a[2] (writes a[1], which it reads)
p 7:5: write a[3]
p 9:5: write a[*]
    q 14:5: read a[1]; write a[2] (writes a[*], which it reads as a[1]; writes a[*], which it writes as a[2])
p 10:5: read a[0]; write g[1][2]
p 11:5: write g[*][1]
    q 15:5: read g[0][1]; write g[0][1] (writes g[*][1], which it writes as g[0][1])
p 12:1: end
q 14:5: read a[1]; write a[2]
    p 6:5: write a[1] (reads a[1], which it writes)
    p 9:5: write a[*] (reads a[1], which it writes as a[*]; writes a[2], which it writes as a[*])
q 15:5: read g[0][1]; write g[0][1]
    p 11:5: write g[*][1] (writes g[0][1], which it writes as g[*][1])
q 16:1: end
a; read by p, q; written by p, q; lockset no common lock; a[0]: no common lock; a[1]: no common lock; a[2]: no common lock; a[3]: no common lock
    p writes a[1] at 6:5
    p writes a[3] at 7:5
    p writes a[*] at 9:5
    p reads a[0] at 10:5
    q reads a[1] at 14:5
    q writes a[2] at 14:5
g; read by q; written by p, q; lockset no common lock; g[0][1]: no common lock; g[0][2]: no common lock; g[1][0]: no common lock; g[1][1]: no common lock; g[1][2]: no common lock
    p writes g[1][2] at 10:5
    p writes g[*][1] at 11:5
    q reads g[0][1] at 15:5
    q writes g[0][1] at 15:5
p: 1 instance
q: 1 instance
`},
	{"atomic blocks and atomic variables", `
var x atomic int
var y int
var z [2]int
thread a {
    atomic {
        x = x + 1
        y = 2
    }
    y = 3
}
thread b {
    var k int = x
    atomic {
        if k > 0 {
            z[0] = 1
        }
    }
    atomic {
        z[k % 2] = y
    }
}
`, `
a 6:5: atomic reads x writes x, y
    b 13:5: read x (writes x, which it reads)
    b 19:5: atomic reads y writes z[*] (writes y, which it reads)
a 10:5: write y
    b 19:5: atomic reads y writes z[*] (writes y, which it reads)
a 11:1: end
b 13:5: read x
    a 6:5: atomic reads x writes x, y (reads x, which it writes)
b 14:5: atomic writes z[0] (unstable)
b 19:5: atomic reads y writes z[*]
    a 6:5: atomic reads x writes x, y (reads y, which it writes)
    a 10:5: write y (reads y, which it writes)
b 22:1: end
x (atomic); read by a, b; written by a; lockset no common lock
    a reads x in an atomic block at 6:5
    a writes x in an atomic block at 6:5
    b reads x at 13:5
y; read by b; written by a; lockset no common lock
    a writes y in an atomic block at 6:5
    a writes y at 10:5
    b reads y in an atomic block at 19:5
z; written by b; lockset no common lock; every access in an atomic block; z[0]: no common lock; z[1]: no common lock
    b writes z[0] in an atomic block at 14:5
    b writes z[*] in an atomic block at 19:5
a: 1 instance
b: 1 instance
`},
	{"spawn and join", `
var r int
proc worker(v int) {
    r = v
}
proc never() {
    r = 0
}
thread main {
    var t tid = spawn worker(1)
    join t
    var u [2]tid
    for i in 0..2 {
        u[i] = spawn worker(i)
    }
    join u[1]
    r = 5
}
thread other {
    join main
    r = 6
}
`, `
worker 4:5: write r
    spawned worker 4:5: write r (both write r)
    main 17:5: write r (both write r)
    other 21:5: write r (both write r)
worker 5:1: end
    main 11:5: join spawned worker (joined there)
    main 16:5: join spawned worker (joined there)
never 7:5: write r
never 8:1: end
main 10:5: spawn worker
main 11:5: join spawned worker
    spawned worker 5:1: end (waits for its end)
main 14:9: spawn worker
main 16:5: join spawned worker
    spawned worker 5:1: end (waits for its end)
main 17:5: write r
    spawned worker 4:5: write r (both write r)
    other 21:5: write r (both write r)
main 18:1: end
    other 20:5: join main (joined there)
other 20:5: join main
    main 18:1: end (waits for its end)
other 21:5: write r
    spawned worker 4:5: write r (both write r)
    main 17:5: write r (both write r)
other 22:1: end
r; written by main, other, spawned worker; lockset no common lock
    spawned worker writes r at 4:5
    main writes r at 17:5
    other writes r at 21:5
main: 1 instance; spawns at 10:5, 14:9; joins at 11:5, 16:5; joined at 20:5
other: 1 instance; joins at 20:5
worker: proc, runs many; spawned at 10:5, 14:9; joined at 11:5, 16:5
never: proc, runs never
`},
	{"thread arrays", `
const N = 3
var x [N]int
var g [N][2]int
var m [N]mutex
thread w[i in 0..N] {
    lock(m[i])
    x[i] = i
    g[i][1] = x[(i + 1) % N]
    unlock(m[i])
}
thread solo[k in 5..6] {
    x[0] = 0
}
`, `
w 7:5: lock m[i]
w 8:5: write x[i]
    w[0..3] 9:5: read x[(i + 1) % N]; write g[i][1] (writes x[i], which it reads as x[(i + 1) % N])
    solo[5] 13:5: write x[0] (writes x[i], which it writes as x[0])
w 9:5: read x[(i + 1) % N]; write g[i][1]
    w[0..3] 8:5: write x[i] (reads x[(i + 1) % N], which it writes as x[i])
    solo[5] 13:5: write x[0] (reads x[(i + 1) % N], which it writes as x[0])
w 10:5: unlock m[i]
w 11:1: end
solo 13:5: write x[0]
    w[0] 8:5: write x[i] (writes x[0], which it writes as x[i])
    w[2] 9:5: read x[(i + 1) % N]; write g[i][1] (writes x[0], which it reads as x[(i + 1) % N])
solo 14:1: end
x; read by w[0..3]; written by w[0..3], solo[5]; lockset no common lock; x[0]: no common lock; x[1]: no common lock; x[2]: no common lock
    w[0..3] writes x[i] holding m[i] at 8:5
    w[0..3] reads x[(i + 1) % N] holding m[i] at 9:5
    solo[5] writes x[0] at 13:5
g; written by w[0..3]; lockset no common lock; g[0][1]: {m[0]}; g[1][1]: {m[1]}; g[2][1]: {m[2]}
    w[0..3] writes g[i][1] holding m[i] at 9:5
m; locked by w[0..3]
    w[0..3] locks m[i] at 7:5
    w[0..3] unlocks m[i] holding m[i] at 10:5
w: 3 instances
solo: 1 instance
`},
	{"procs: once, many, spawned by procs", `
var s int
var q [2]int
proc once() {
    s = 1
}
proc inner(k int) {
    q[k] = k
}
proc outer() {
    spawn inner(0)
    spawn inner(1)
}
thread main {
    spawn once()
    spawn outer()
    s = 2
}
`, `
once 5:5: write s
    main 17:5: write s (both write s)
once 6:1: end
inner 8:5: write q[*]
    spawned inner 8:5: write q[*] (both write q[*])
inner 9:1: end
outer 11:5: spawn inner
outer 12:5: spawn inner
outer 13:1: end
main 15:5: spawn once
main 16:5: spawn outer
main 17:5: write s
    spawned once 5:5: write s (both write s)
main 18:1: end
s; written by main, spawned once; lockset no common lock
    spawned once writes s at 5:5
    main writes s at 17:5
q; written by spawned inner; lockset no common lock; q[0]: no common lock; q[1]: no common lock
    spawned inner writes q[*] at 8:5
main: 1 instance; spawns at 15:5, 16:5
once: proc, runs once; spawned at 15:5
inner: proc, runs many; spawned at 11:5, 12:5
outer: proc, runs once; spawned at 16:5; spawns at 11:5, 12:5
`},
	{"constant index out of range (a warning): a runtime error, no access", `
var z [2]int
var w int
thread A {
    w = 2
    z[3] = w
    atomic {
        z[2] = 1
    }
}
thread B {
    w = 1
}
`, `
A 5:5: write w
    B 12:5: write w (both write w)
A 6:5: read w; write z[3]
    B 12:5: write w (reads w, which it writes)
A 7:5: atomic writes z[2]
A 10:1: end
B 12:5: write w
    A 5:5: write w (both write w)
    A 6:5: read w; write z[3] (writes w, which it reads)
B 13:1: end
z; never accessed
w; read by A; written by A, B; lockset no common lock
    A writes w at 5:5
    A reads w at 6:5
    B writes w at 12:5
A: 1 instance
B: 1 instance
`},
}
