package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"weft/engine"
)

// cdporQuickTraces: the rows of ../benchmarks/cdpor/expected.tsv checked by
// a plain go test are those with at most this many traces (and, for dfs,
// at most this many dfs executions); WEFT_CDPOR_BENCH=all checks every row
// whose count is known.
const cdporQuickTraces = 5000

// TestCDPORBenchmarks checks the ports of the CDPOR paper's Table 1
// (../benchmarks/cdpor): sdpor and optimal explore exactly the number of
// Mazurkiewicz traces of expected.tsv and dfs exactly the number of
// executions listed there, each complete and bug-free; cdpor, with the
// constraints of the analysis (SMT included when z3 is installed), at
// most that many, complete and bug-free, and on Pi with the conditions
// that assume no overflow exactly one (the paper's figure). A row whose
// count is "-" (not enumerated) is only loaded.
func TestCDPORBenchmarks(t *testing.T) {
	all := os.Getenv("WEFT_CDPOR_BENCH") == "all"
	dir := "../benchmarks/cdpor"
	tsv, err := os.ReadFile(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")
	if len(lines) < 2 || strings.Join(strings.Fields(lines[0]), " ") != "file traces dfs complete_bug_free" {
		t.Fatalf("expected.tsv: unexpected header %q", lines[0])
	}
	checked := 0
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 4 || f[3] != "yes" {
			t.Fatalf("expected.tsv: malformed row %q", line)
		}
		file := f[0]
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		prog := load(t, file, string(src))
		type run struct {
			algo engine.Algorithm
			want string
		}
		for _, r := range []run{{engine.SDPOR, f[1]}, {engine.Optimal, f[1]}, {engine.DFS, f[2]}, {engine.CDPOR, f[1]}} {
			if r.want == "-" {
				continue
			}
			want, err := strconv.ParseInt(r.want, 10, 64)
			if err != nil {
				t.Fatalf("expected.tsv: %s: %v", file, err)
			}
			if !all && want > cdporQuickTraces {
				continue
			}
			checked++
			if r.algo == engine.CDPOR {
				t.Run(file+"/cdpor", func(t *testing.T) {
					for _, k := range tableKinds[1:] {
						cs := analysisTable(t, file, string(src), k.smt, k.noOverflow)
						res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: r.algo, CDPOR: engine.CDPOROptions{Constraints: cs}})
						if err != nil {
							t.Fatal(err)
						}
						if res.Executions > want || len(res.Bugs) != 0 || !res.Complete {
							t.Errorf("%s: %d executions (want at most %d), bugs %v, complete %v", k.name, res.Executions, want, bugKeys(res), res.Complete)
						}
						if k.noOverflow && strings.HasPrefix(file, "pi_") && res.Executions != 1 {
							t.Errorf("%s: %d executions, want 1: the adds commute", k.name, res.Executions)
						}
					}
				})
				continue
			}
			t.Run(file+"/"+string(r.algo), func(t *testing.T) {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: r.algo})
				if err != nil {
					t.Fatal(err)
				}
				if res.Executions != want || len(res.Bugs) != 0 || !res.Complete {
					t.Errorf("%d executions (want %d), bugs %v, complete %v", res.Executions, want, bugKeys(res), res.Complete)
				}
			})
		}
	}
	if checked == 0 {
		t.Fatal("no row checked")
	}
	t.Logf("%d counts checked (cdpor's: at most the trace count)", checked)
}
