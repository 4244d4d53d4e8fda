//go:build ignore

// Command gen writes the .weft files of this folder: the benchmarks of
// Table 1 of the CDPOR paper (Albert, Gómez-Zamalloa, Isabel, Rubio:
// Constrained Dynamic Partial Order Reduction, CAV'18) that Weft can
// express, one file per instance. Run it from this folder:
//
//	go run gen.go
//
// Each file is a template below with its parameters filled in; the quicksort
// input is computed here (balanced, see bal). The expected trace counts in
// the headers are those of expected.tsv (README.md says where they come
// from).
package main

import (
	"fmt"
	"os"
	"strings"
)

// traces are the exact Mazurkiewicz trace counts, by file (see README.md).
var traces = map[string]int{
	"fib_2.weft": 2, "fib_3.weft": 12, "fib_4.weft": 2880, "fib_5.weft": 203212800,
	"pi_2.weft": 2, "pi_3.weft": 6, "pi_4.weft": 24, "pi_5.weft": 120, "pi_6.weft": 720,
	"pi_7.weft": 5040, "pi_8.weft": 40320, "pi_9.weft": 362880, "pi_10.weft": 3628800,
	"qs_4.weft": 1, "qs_6.weft": 2, "qs_8.weft": 3, "qs_10.weft": 20, "qs_13.weft": 80,
	"qs_15.weft": 80, "qs_16.weft": 210, "qs_18.weft": 2268, "qs_20.weft": 55440,
	"qs_22.weft": 2745600, "qs_25.weft": 21964800,
	"ms_4.weft": 2, "ms_6.weft": 6, "ms_8.weft": 80, "ms_10.weft": 630, "ms_12.weft": 9072,
	"ms_14.weft": 369600,
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	for _, n := range []int{2, 3, 4, 5} {
		if err := write(fmt.Sprintf("fib_%d.weft", n), fibFile(n)); err != nil {
			return err
		}
	}
	for n := 2; n <= 10; n++ {
		if err := write(fmt.Sprintf("pi_%d.weft", n), piFile(n)); err != nil {
			return err
		}
	}
	for _, n := range qsSizes {
		if err := write(fmt.Sprintf("qs_%d.weft", n), qsFile(n)); err != nil {
			return err
		}
	}
	for _, n := range msSizes {
		if err := write(fmt.Sprintf("ms_%d.weft", n), msFile(n)); err != nil {
			return err
		}
	}
	return nil
}

var (
	qsSizes = []int{4, 6, 8, 10, 13, 15, 16, 18, 20, 22, 25}
	msSizes = []int{4, 6, 8, 10, 12, 14}
)

func write(name, src string) error {
	if _, ok := traces[name]; !ok {
		return fmt.Errorf("%s: no trace count in traces", name)
	}
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// expected is the header line that states the trace count of a file.
func expected(name string) string {
	return fmt.Sprintf("// Expected Mazurkiewicz traces: %d (README.md: the formula).", traces[name])
}

// fib returns fib(n) with fib(0) = 0, fib(1) = 1.
func fib(n int) int {
	a, b := 0, 1
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a
}

func fibFile(n int) string {
	name := fmt.Sprintf("fib_%d.weft", n)
	return fmt.Sprintf(`// Fib(%[1]d) of Table 1 of the CDPOR paper (Albert et al., CAV'18; the
// fib/res pair of its Sec. 4.2), from the description in the paper (SYCO's
// source was not available).
//
// fib(v) spawns fib(v-1) and fib(v-2), or, for v <= 1, a result res(v, 1).
// Results meet in one shared slot (nr = 1: empty): a res finding the slot
// empty parks its value there; one finding it full takes the parked value
// out and spawns res with the sum. Each res carries c, the number of leaves
// its value sums; the one with c = LEAVES = fib(N+1) holds the final value
// and asserts it is fib(N). Its block is one atomic step. The paper spawns
// inside the block; Weft forbids spawn in atomic, so the block sets the
// local combine and the spawn follows it. The spawn tree is dynamic, so
// nobody joins it.
//
// Instance: N = %[1]d (fib(N) = %[2]d, %[3]d leaves).
%[4]s
// Every execution is complete and bug free.

const N = %[1]d
const FIB = %[2]d
const LEAVES = %[3]d

var r int
var rc int
var nr int = 1

proc fib(v int) {
    if v <= 1 {
        spawn res(v, 1)
    } else {
        spawn fib(v - 1)
        spawn fib(v - 2)
    }
}

proc res(v int, c int) {
    if c == LEAVES {
        assert v == FIB, "the last result is fib(N)"
    }
    var combine bool = false
    var sv int
    var sc int
    atomic {
        if nr > 0 {
            nr = 0
            r = v
            rc = c
        } else {
            sv = r + v
            sc = rc + c
            r = 0
            rc = 0
            nr = 1
            combine = true
        }
    }
    if combine {
        spawn res(sv, sc)
    }
}

thread main {
    spawn fib(N)
}
`, n, fib(n), fib(n+1), expected(name))
}

func piFile(n int) string {
	name := fmt.Sprintf("pi_%d.weft", n)
	return fmt.Sprintf(`// Pi(%[1]d) of Table 1 of the CDPOR paper (Albert et al., CAV'18): N
// workers each compute a partial sum of pi = 4 * (1 - 1/3 + 1/5 - ...)
// locally and add it to a shared accumulator in one atomic block. SYCO's
// source was not available; the workers are those of ../pi_N.weft (the
// QPOR port, same series, same fixed point) with the mutex replaced by an
// atomic block, the programming model of the CDPOR paper.
//
// Thread main spawns the N workers, joins them, recomputes the same terms
// serially and asserts that both sums agree exactly and that the estimate
// lies between 3.14 and 3.15 (integers only: terms are SCALE / (2i + 1),
// truncated, so the total does not depend on the order of the additions).
//
// Instance: N = %[1]d workers, ITERS = 5000 terms in all.
%[2]s
// The adds commute (the paper's IC true), so CDPOR should need 1. Every
// execution is complete and bug free.

const N = %[1]d
const ITERS = 5000
const SCALE = 1000000000000

var sum int

proc worker(rank int) {
    var my_n int = ITERS / N
    var first int = my_n * rank
    var positive bool = first %% 2 == 0
    var my_sum int = 0
    for i in first..first + my_n {
        if positive {
            my_sum += SCALE / (2 * i + 1)
        } else {
            my_sum -= SCALE / (2 * i + 1)
        }
        positive = !positive
    }
    atomic {
        sum = sum + my_sum
    }
}

thread main {
    var handles [N]tid
    for w in 0..N {
        handles[w] = spawn worker(w)
    }
    for w in 0..N {
        join handles[w]
    }
    // Read in an atomic block, as the adds are: the join already orders
    // it after them, but the static race check (what lets cdpor merge
    // atomic blocks, engine/ir.Constraints.RaceFree) does not see joins.
    var total int
    atomic {
        total = sum
    }
    var serial int = 0
    var positive bool = true
    for i in 0..ITERS / N * N {
        if positive {
            serial += SCALE / (2 * i + 1)
        } else {
            serial -= SCALE / (2 * i + 1)
        }
        positive = !positive
    }
    assert total == serial, "parallel and serial sums agree"
    assert 4 * total > 314 * (SCALE / 100), "estimate above 3.14"
    assert 4 * total < 315 * (SCALE / 100), "estimate below 3.15"
}
`, n, expected(name))
}

// bal is a permutation of lo..hi-1 on which qs's partition (Lomuto, the
// last element as pivot) always picks the middle value (lo+hi)/2, at every
// level: the values below it in the order bal gives them, then those
// above it rotated right by one (the partition's final swap moves the
// first of them to the end), then the pivot.
func bal(lo, hi int) []int {
	if hi-lo <= 1 {
		var out []int
		for v := lo; v < hi; v++ {
			out = append(out, v)
		}
		return out
	}
	m := (lo + hi) / 2
	left, right := bal(lo, m), bal(m+1, hi)
	out := append([]int{}, left...)
	if len(right) > 0 {
		out = append(out, right[len(right)-1])
		out = append(out, right[:len(right)-1]...)
	}
	return append(out, m)
}

func list(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func qsFile(n int) string {
	name := fmt.Sprintf("qs_%d.weft", n)
	return fmt.Sprintf(`// QS(%[1]d) of Table 1 of the CDPOR paper (Albert et al., CAV'18):
// concurrent quicksort of a shared array, written from the paper's
// description (SYCO's source was not available).
//
// qs(lo, hi) sorts a[lo..hi): one atomic block partitions it (Lomuto, the
// last element as pivot), then it spawns a qs for each side that has two
// or more elements and joins them. Thread main spawns qs(0, N), joins it and
// asserts that a holds 0..N-1 in order. The input is a permutation (made by
// gen.go) on which every pivot is the middle value, so the recursion tree
// is balanced.
//
// The partition loops over the array, so for dependence the block counts
// as accessing all of a (Weft's footprint of an atomic block whose accesses
// depend on values it reads): partitions of disjoint ranges are dependent,
// although they commute.
//
// Instance: N = %[1]d.
%[2]s
// Every execution is complete and bug free.

const N = %[1]d

var a [N]int = {%[3]s}

proc qs(lo int, hi int) {
    var p int
    atomic {
        var pivot int = a[hi - 1]
        var i int = lo
        for j in lo..hi - 1 {
            if a[j] < pivot {
                var t int = a[i]
                a[i] = a[j]
                a[j] = t
                i++
            }
        }
        a[hi - 1] = a[i]
        a[i] = pivot
        p = i
    }
    var left tid
    var right tid
    if p - lo > 1 {
        left = spawn qs(lo, p)
    }
    if hi - (p + 1) > 1 {
        right = spawn qs(p + 1, hi)
    }
    if p - lo > 1 {
        join left
    }
    if hi - (p + 1) > 1 {
        join right
    }
}

thread main {
    var root tid = spawn qs(0, N)
    join root
    for i in 0..N {
        assert a[i] == i, "sorted"
    }
}
`, n, expected(name), list(bal(0, n)))
}

func msFile(n int) string {
	name := fmt.Sprintf("ms_%d.weft", n)
	rev := make([]int, n)
	for i := range rev {
		rev[i] = n - 1 - i
	}
	return fmt.Sprintf(`// MS(%[1]d) of Table 1 of the CDPOR paper (Albert et al., CAV'18):
// concurrent mergesort of a shared array, written from the paper's
// description (SYCO's source was not available).
//
// ms(lo, hi) sorts a[lo..hi): it spawns an ms for each half that has two or
// more elements, joins them, then merges the two sorted halves in one atomic
// block (through a local buffer). Thread main spawns ms(0, N), joins it and
// asserts that a holds 0..N-1 in order; the input is N-1..0.
//
// The merge loops over the array, so for dependence the block counts as
// accessing all of a (Weft's footprint of an atomic block whose accesses
// depend on values it reads): merges of disjoint ranges are dependent,
// although they commute. The recursion tree, and so the count, does not
// depend on the input.
//
// Instance: N = %[1]d.
%[2]s
// Every execution is complete and bug free.

const N = %[1]d

var a [N]int = {%[3]s}

proc ms(lo int, hi int) {
    var mid int = (lo + hi) / 2
    var left tid
    var right tid
    if mid - lo > 1 {
        left = spawn ms(lo, mid)
    }
    if hi - mid > 1 {
        right = spawn ms(mid, hi)
    }
    if mid - lo > 1 {
        join left
    }
    if hi - mid > 1 {
        join right
    }
    var tmp [N]int
    atomic {
        var i int = lo
        var j int = mid
        for k in 0..hi - lo {
            if j >= hi || i < mid && a[i] <= a[j] {
                tmp[k] = a[i]
                i++
            } else {
                tmp[k] = a[j]
                j++
            }
        }
        for k in 0..hi - lo {
            a[lo + k] = tmp[k]
        }
    }
}

thread main {
    var root tid = spawn ms(0, N)
    join root
    for i in 0..N {
        assert a[i] == i, "sorted"
    }
}
`, n, expected(name), list(rev))
}
