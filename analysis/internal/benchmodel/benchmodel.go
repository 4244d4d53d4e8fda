// Package benchmodel writes the model the analyses' benchmarks and size
// tests run on, so that their figures are about one and the same text.
package benchmodel

import (
	"fmt"
	"strings"
)

// Generate writes an error-free model of about lines lines: thread arrays
// and single threads with locks, loops, branches, constant and computed
// indexes, atomic blocks, spawns and joins of procs.
func Generate(lines int) string {
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	line("const N = 8")
	line("var data [N][N]int")
	line("var sums [N]int")
	line("var flags [N]bool")
	line("var total atomic int")
	line("var locks [N]mutex")
	line("var big mutex")
	line("proc helper(k int) {")
	line("    lock(locks[k %% N])")
	line("    sums[k %% N] += k")
	line("    unlock(locks[k %% N])")
	line("}")
	for t := 0; n < lines; t++ {
		if t%2 == 0 {
			line("thread worker%d[w in 0..N] {", t)
		} else {
			line("thread single%d {", t)
			line("    var w int = %d %% N", t)
		}
		line("    var acc int")
		line("    var h tid = spawn helper(w)")
		line("    for i in 0..N {")
		line("        lock(locks[w])")
		line("        data[w][i] = data[w][i] + i * %d", t%5+1)
		line("        acc += data[i][w]")
		line("        unlock(locks[w])")
		line("        if acc > 100 && !flags[w] {")
		line("            flags[w] = true")
		line("            break")
		line("        } else if acc < 0 {")
		line("            continue")
		line("        }")
		line("    }")
		line("    atomic {")
		line("        total += acc")
		line("        sums[(w + %d) %% N]++", t)
		line("    }")
		line("    join h")
		line("    lock(big)")
		line("    sums[0] = sums[0] + total")
		line("    unlock(big)")
		line("}")
	}
	return b.String()
}
