package engine_test

import (
	"fmt"
	"math/rand"
	"strings"
)

// randomProgram generates a small Weft program: 2–4 threads over a few
// shared variables and mutexes, with branches, atomic blocks, assertions
// and sometimes spawn/join.
func randomProgram(r *rand.Rand) string {
	var sb strings.Builder
	vars := []string{"x", "y", "z"}[:1+r.Intn(3)]
	for _, v := range vars {
		if r.Intn(4) == 0 {
			fmt.Fprintf(&sb, "var %s atomic int\n", v)
		} else {
			fmt.Fprintf(&sb, "var %s int\n", v)
		}
	}
	sb.WriteString("var arr [2]int\nvar m0 mutex\nvar m1 mutex\n")
	useProc := r.Intn(4) == 0
	if useProc {
		sb.WriteString("proc helper(v int) {\n    var l int\n    l = v\n")
		writeBody(&sb, r, vars, 2, "    ")
		sb.WriteString("}\n")
	}
	threads := 2 + r.Intn(3)
	spawners := 1 + r.Intn(2) // threads t0 (and t1) spawn the helper
	joinDeclared := r.Intn(3) == 0
	for t := 0; t < threads; t++ {
		fmt.Fprintf(&sb, "thread t%d {\n    var l int\n    var b bool\n", t)
		spawns := useProc && t < spawners
		if spawns {
			fmt.Fprintf(&sb, "    var h tid = spawn helper(%d)\n", t+1)
		}
		writeBody(&sb, r, vars, 1+r.Intn(3), "    ")
		if spawns {
			sb.WriteString("    join h\n")
		}
		if joinDeclared && t == threads-1 {
			sb.WriteString("    join t0\n    l = x\n")
		}
		sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")
	}
	return sb.String()
}

func writeBody(sb *strings.Builder, r *rand.Rand, vars []string, n int, ind string) {
	v := func() string { return vars[r.Intn(len(vars))] }
	for i := 0; i < n; i++ {
		switch r.Intn(13) {
		case 0, 1:
			fmt.Fprintf(sb, "%sl = %s\n", ind, v())
		case 2, 3:
			fmt.Fprintf(sb, "%s%s = %d\n", ind, v(), r.Intn(3))
		case 4:
			fmt.Fprintf(sb, "%s%s = %s + 1\n", ind, v(), v())
		case 5:
			m := r.Intn(2)
			fmt.Fprintf(sb, "%slock(m%d)\n", ind, m)
			writeBody(sb, r, vars, 1+r.Intn(2), ind)
			fmt.Fprintf(sb, "%sunlock(m%d)\n", ind, m)
		case 6:
			fmt.Fprintf(sb, "%sif %s == %d {\n", ind, v(), r.Intn(2))
			writeBody(sb, r, vars, 1, ind+"    ")
			fmt.Fprintf(sb, "%s} else {\n", ind)
			writeBody(sb, r, vars, 1, ind+"    ")
			fmt.Fprintf(sb, "%s}\n", ind)
		case 7:
			fmt.Fprintf(sb, "%satomic {\n%s    l = %s\n%s    %s = l + 1\n%s}\n", ind, ind, v(), ind, v(), ind)
		case 8:
			fmt.Fprintf(sb, "%sassert %s != %d\n", ind, v(), 2+r.Intn(3))
		case 9:
			fmt.Fprintf(sb, "%sarr[l %% 2] = %d\n", ind, r.Intn(2))
		case 10:
			fmt.Fprintf(sb, "%sl = arr[%d]\n", ind, r.Intn(2))
		case 11:
			fmt.Fprintf(sb, "%sfor i in 0..2 {\n%s    %s = %s + i\n%s}\n", ind, ind, v(), v(), ind)
		case 12:
			fmt.Fprintf(sb, "%satomic {\n%s    if %s == 0 {\n%s        %s = 1\n%s    }\n%s}\n", ind, ind, v(), ind, v(), ind, ind)
		}
	}
}
