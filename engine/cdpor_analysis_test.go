package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/analysis/access"
	"weft/analysis/indep"
	"weft/analysis/indep/synth"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
	"weft/examples"
	"weft/internal/z3"
	"weft/internal/z3/z3test"
)

// The tests of this file run cdpor end to end as `weft check --algo cdpor`
// and the language server do: with the independence constraints the
// analysis computes (analysis/indep's syntactic rules, and z3's synthesis
// by analysis/indep/synth), not with hand-made tables. Each table is
// checked the way TestCDPORRandom checks the engine's own conditions:
// dfs's bugs, every final state of dfs, no more executions than sdpor.

// tableKinds are the ways a table is built: syntactic rules only; with
// SMT conditions over int64 (the default); with the unbounded ones too
// (--assume-no-overflow: sound on models that cannot overflow, as every
// model checked here).
var tableKinds = []struct {
	name       string
	smt        bool
	noOverflow bool
}{
	{"syntactic", false, false},
	{"smt", true, false},
	{"smt-no-overflow", true, true},
}

// analysisTable computes the constraints of src as the CLI does, skipping
// the test (visibly) when SMT is asked for and z3 is not installed, or
// failing it where z3 is required (z3test.Missing: CI).
func analysisTable(t *testing.T, name, src string, smt, noOverflow bool) *ir.Constraints {
	t.Helper()
	ld := lower.Load(name, []byte(src))
	if ld.Exec == nil {
		t.Fatalf("%s: not lowered: %v", name, ld.Diagnostics)
	}
	ctx := context.Background()
	sum, err := access.Analyze(ctx, ld.Program, ld.Exec)
	if errors.Is(err, access.ErrUnsupported) {
		t.Skipf("no table: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var res *indep.Result
	if smt {
		s, err := z3.Start(ctx, z3.Config{})
		if errors.Is(err, z3.ErrNotFound) {
			z3test.Missing(t, "not compared with SMT conditions: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		res, _, err = synth.Analyze(ctx, ld.Program, ld.Exec, sum, z3.Config{}, synth.Options{AssumeNoOverflow: noOverflow})
	} else {
		res, err = indep.Analyze(ctx, ld.Program, ld.Exec, sum, indep.Options{NoSMT: "test: syntactic rules only"})
	}
	if err != nil {
		t.Fatal(err)
	}
	return res.Constraints()
}

// atomicBlocksProgram generates a program of atomic blocks with branches
// and linear arithmetic over small values (what the SMT synthesis
// encodes), array elements indexed by thread index, and now and then a
// plain access outside any block (then the program may race and the
// engine must not merge synchronising steps): the programs on which the
// analysis finds conditions that hold in some states and fail in others.
func atomicBlocksProgram(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("var x int\nvar y int\nvar a [2]int\nvar z atomic int\n")
	scal := []string{"x", "y"}
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	block := func(ind, idx string) {
		v, w := pick(scal...), pick(scal...)
		c := r.Intn(3) - 1
		switch r.Intn(10) {
		case 0:
			fmt.Fprintf(&b, "%sif %s >= %d { %s = %s }\n", ind, v, c, v, w)
		case 1:
			fmt.Fprintf(&b, "%s%s = %s + 1\n%s%s = %s + 1\n", ind, v, v, ind, w, w)
		case 2:
			fmt.Fprintf(&b, "%s%s = %d\n", ind, v, c)
		case 3:
			fmt.Fprintf(&b, "%sa[%s] = %s\n", ind, idx, v)
		case 4:
			fmt.Fprintf(&b, "%sif %s == %d { %s = %s - 1 } else { %s = %d }\n", ind, v, c, w, w, v, c)
		case 5:
			fmt.Fprintf(&b, "%sl = %s\n%s%s = l + %d\n", ind, v, ind, w, c)
		case 6:
			fmt.Fprintf(&b, "%sa[%s] = a[%s] + %s\n", ind, idx, idx, w)
		case 7:
			fmt.Fprintf(&b, "%s%s = %s + %s\n", ind, v, v, w)
		case 8:
			fmt.Fprintf(&b, "%sz = l + %d\n", ind, c)
		case 9:
			fmt.Fprintf(&b, "%sl = z\n%s%s = l\n", ind, ind, v)
		}
	}
	body := func(idx string) {
		b.WriteString("    var l int\n")
		for n := 1 + r.Intn(2); n > 0; n-- {
			switch r.Intn(8) {
			case 0:
				fmt.Fprintf(&b, "    %s = %d\n", pick(scal...), r.Intn(2))
				continue
			case 1:
				// Single accesses of an atomic variable, beside blocks
				// that write it: the engine's own conditions meet the
				// table's.
				fmt.Fprintf(&b, "    z = %d\n", r.Intn(2))
				continue
			case 2:
				fmt.Fprintf(&b, "    l = z\n    atomic {\n        %s = l + %d\n    }\n", pick(scal...), r.Intn(2))
				continue
			}
			b.WriteString("    atomic {\n")
			block("        ", idx)
			b.WriteString("    }\n")
		}
	}
	b.WriteString("thread t[i in 0..2] {\n")
	body("i")
	b.WriteString("}\nthread u {\n")
	body(pick("0", "1"))
	b.WriteString("}\n")
	if r.Intn(2) == 0 {
		b.WriteString("thread main {\n    join t[0]\n    join t[1]\n    join u\n    var s int\n")
		b.WriteString("    atomic {\n        s = x + y + a[0] + a[1] + z\n    }\n")
		fmt.Fprintf(&b, "    assert s != %d\n}\n", r.Intn(5)-1)
	}
	return b.String()
}

// TestCDPORAnalysisRandom: cdpor with the analysis' tables on random
// programs of atomic blocks and on the random programs of the engine's
// own conditions.
func TestCDPORAnalysisRandom(t *testing.T) {
	for _, gen := range []struct {
		name string
		gen  func(*rand.Rand) string
	}{{"atomic-blocks", atomicBlocksProgram}, {"values", cdporProgram}} {
		t.Run(gen.name, func(t *testing.T) {
			// held counts, per kind of table, how often a condition of
			// the table held: a table no exploration used tests nothing.
			held := map[string]int64{}
			forEachProgram(t, gen.gen, func(t *testing.T, name string, prog *engine.Program, src string) {
				ref := dfsReference(t, prog, src, dfsBudget)
				sd := explore(t, prog, engine.SDPOR, true)
				for _, k := range tableKinds {
					t.Run(k.name, func(t *testing.T) {
						cs := analysisTable(t, name, src, k.smt, k.noOverflow)
						res := checkCDPOR(t, name+" "+k.name, prog, src, engine.Options{CDPOR: engine.CDPOROptions{Constraints: cs}}, ref, sd)
						for _, s := range res.Independence {
							if s.Origin != "same-value" { // the engine's own
								held[k.name] += s.Held
							}
						}
					})
				}
			})
			t.Logf("conditions of the tables that held: %v", held)
			if gen.name == "atomic-blocks" {
				for _, k := range tableKinds {
					if held[k.name] == 0 && !t.Failed() {
						t.Errorf("no condition of a %s table held in any exploration", k.name)
					}
				}
			}
		})
	}
}

// TestCDPORAnalysisModels: the same on the examples and on the CDPOR
// benchmark ports small enough to compare with dfs.
func TestCDPORAnalysisModels(t *testing.T) {
	var files []string
	files, err := filepath.Glob("../examples/*.weft")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fib_3", "pi_4", "pi_5", "qs_8", "qs_10", "ms_6"} {
		files = append(files, "../benchmarks/cdpor/"+f+".weft")
	}
	if len(files) < 20 {
		t.Fatalf("only %d models found", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if examples.LoopsForever(data) {
				t.Skipf("loops forever: neither dfs nor sdpor completes it")
			}
			src := string(data)
			prog := load(t, f, src)
			// The reference is dfs where it has at most 200,000
			// interleavings, else sdpor: it explores every Mazurkiewicz
			// trace, so every final state and every bug.
			sd := explore(t, prog, engine.SDPOR, true)
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog), MaxExecutions: 200_000}, true)
			if !ref.res.Complete {
				if !sd.res.Complete {
					t.Skipf("not compared: neither dfs nor sdpor completes")
				}
				t.Logf("compared with sdpor: dfs has more than 200,000 interleavings")
				ref = sd
			}
			for _, k := range tableKinds {
				t.Run(k.name, func(t *testing.T) {
					cs := analysisTable(t, f, src, k.smt, k.noOverflow)
					checkCDPOR(t, f+" "+k.name, prog, src, engine.Options{CDPOR: engine.CDPOROptions{Constraints: cs}}, ref, sd)
				})
			}
		})
	}
}
