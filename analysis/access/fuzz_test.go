package access

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"weft/analysis/lower"
	"weft/engine/ir"
	"weft/source"
)

// FuzzAnalyze loads any text and, when it lowers, analyzes it and runs
// every query: Interference and StatementAt at every statement, StepAt
// at every pc, Variable and Thread of every object. None may panic or
// fail, the syntax walk must follow lowering in every body, every
// visible instruction must map to its step, and Interference must be
// symmetric. Seeds: the examples, the models of the tests, the analysis's
// golden sources.
//
//	go test ./analysis/access -run XXX -fuzz FuzzAnalyze -fuzztime 5m -parallel 1
func FuzzAnalyze(f *testing.F) {
	for _, tc := range models {
		f.Add(tc.src)
	}
	for _, src := range soundModels {
		f.Add(src)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	for _, name := range examples {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(string(src))
		}
	}
	archives, _ := filepath.Glob(filepath.Join("..", "testdata", "*.txtar"))
	for _, name := range archives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if filepath.Ext(file.Name) == ".weft" {
				f.Add(string(file.Data))
			}
		}
	}
	f.Add(deepModel(100))
	f.Fuzz(func(t *testing.T, src string) {
		ld := lower.Load("fuzz.weft", []byte(src))
		if ld.Exec == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := Analyze(ctx, ld.Program, ld.Exec)
		if err != nil {
			t.Fatal(err)
		}
		queryAll(t, ld, s)
		checkSymmetric(t, s)
	})
}

// queryAll runs every query of s and checks what must hold whatever the
// program.
func queryAll(t *testing.T, ld *lower.Loaded, s *Summary) {
	t.Helper()
	for _, b := range s.bodies {
		if !b.matched {
			t.Errorf("the code of %s does not match its syntax", b.owner.Name)
		}
		code := b.code.Code
		inAtomic := make([]bool, len(code))
		for pc, in := range code {
			if in.Op == ir.OpAtomic {
				for k := pc + 1; k < atomicEnd(code, pc); k++ {
					inAtomic[k] = true
				}
			}
		}
		for pc, in := range code {
			st, step := s.StepAt(b.index, pc)
			inner := b.visAt[pc] >= 0 && b.vis[b.visAt[pc]].inner
			// A call outside an atomic block has a step of its own too
			// (kind Call): what its function does.
			stepped := (in.Op.IsVisible() && !inner) || in.Op == ir.OpCall && !inAtomic[pc]
			if stepped && (st == nil || step == nil || step.PC != pc) {
				t.Errorf("%s pc %d (%v): no step", b.owner.Name, pc, in.Op)
			}
			if !stepped && st != nil {
				t.Errorf("%s pc %d (%v): a step", b.owner.Name, pc, in.Op)
			}
			if in.Op == ir.OpCall && step != nil && (step.Kind != Call || step.Func == nil) {
				t.Errorf("%s pc %d: call step %v", b.owner.Name, pc, step)
			}
		}
	}
	for _, st := range s.Statements() {
		_ = st.String()
		_ = st.Reads()
		_ = st.Writes()
		for _, p := range s.Interference(st) {
			_ = p.String()
		}
		if at := s.StatementAt(st.Range.Start); at == nil || !contains(at.Range, st.Range.Start) {
			t.Errorf("StatementAt(%v) = %v, not a statement there", st.Range.Start, at)
		}
	}
	for _, v := range ld.Program.Shared {
		vr := s.Variable(v)
		if vr == nil {
			t.Fatalf("no Variable for %s", v.Name)
		}
		_ = vr.String()
		for _, a := range vr.Accesses {
			_ = a.String()
		}
	}
	for _, o := range append(ld.Program.ThreadObjects, ld.Program.Procs...) {
		if th := s.Thread(o); th == nil {
			t.Fatalf("no Thread for %s", o.Name)
		} else {
			_ = th.String()
		}
	}
	for _, o := range ld.Program.Consts {
		if s.Variable(o) != nil || s.Thread(o) != nil {
			t.Errorf("constant %s has a Variable or Thread", o.Name)
		}
	}
	_ = s.Interference(nil)
	_ = s.Variable(nil)
	_ = s.Thread(nil)
	_, _ = s.StepAt(-1, 0)
	_, _ = s.StepAt(len(s.bodies), 0)
	_ = s.StatementAt(source.Pos{Offset: -1})
	_ = s.StatementAt(ld.File.EOF)
}

func contains(r source.Range, p source.Pos) bool {
	return r.Start.Offset <= p.Offset && p.Offset <= r.End.Offset
}

// deepModel nests statements and expressions k levels deep, with an
// else-if chain of k links.
func deepModel(k int) string {
	var b strings.Builder
	b.WriteString("var x int\nvar a [2]int\nvar m mutex\nthread t {\n")
	for range k {
		b.WriteString("if x > 0 {\n")
	}
	b.WriteString("x = x")
	for range k {
		b.WriteString(" + a[x % 2]")
	}
	b.WriteString("\n")
	for range k {
		b.WriteString("}\n")
	}
	b.WriteString("if x == 0 {\nlock(m)\n}")
	for i := range k {
		b.WriteString(" else if x == " + string(rune('1'+i%9)) + " {\nx = a[1]\n}")
	}
	b.WriteString("\n}\nthread u {\nx = 1\na[1] = 2\n}\n")
	return b.String()
}
