package lower_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"weft/analysis/lower"
	"weft/engine/ir"
	"weft/grammar"
)

var update = flag.Bool("update", false, "rewrite the ir sections of testdata/lower/*.txtar")

// TestLowerGolden lowers the src.weft of each testdata/lower/*.txtar case
// and compares the program form, as dumpProgram prints it, with its ir
// section (go test -run TestLowerGolden -update rewrites them). Every
// lowered program must pass ir.Validate (Lower checks it).
func TestLowerGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "lower", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, name := range files {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			for _, f := range ar.Files {
				if f.Name == "src.weft" {
					src = f.Data
				}
			}
			ld := lower.Load("src.weft", src)
			if ld.Exec == nil {
				t.Fatalf("not lowered: %s", brief(errorsOf(ld.Diagnostics)))
			}
			got := dumpProgram(ld.Exec)
			if *update {
				found := false
				for i := range ar.Files {
					if ar.Files[i].Name == "ir" {
						ar.Files[i].Data, found = []byte(got), true
					}
				}
				if !found {
					ar.Files = append(ar.Files, txtar.File{Name: "ir", Data: []byte(got)})
				}
				if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			var want string
			for _, f := range ar.Files {
				if f.Name == "ir" {
					want = string(f.Data)
				}
			}
			if got != want {
				t.Errorf("ir differs (run with -update if intended):\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// dumpProgram prints the bodies of a program: per body its frame, its
// instructions (pc, operation, operands by kind: sN a slot, @N a target,
// #N an immediate, mN a message, pN a proc, fN a function, lN a loop; and
// the 1-based source range), its loops, and each function's part.
func dumpProgram(p *ir.Program) string {
	var b strings.Builder
	for _, body := range p.Bodies {
		fmt.Fprintf(&b, "body %s: frame %s", body.Name, frameString(body.Frame))
		if body.NumParams > 0 {
			fmt.Fprintf(&b, ", %d params at s%d", body.NumParams, body.ArgSlot)
		}
		b.WriteString("\n")
		next := 0
		for pc, in := range body.Code {
			if next < len(body.Funcs) && int32(pc) == body.Funcs[next].Entry {
				f := body.Funcs[next]
				fmt.Fprintf(&b, "func f%d %s: [%d, %d), frame %s, %d params\n", next, f.Name, f.Entry, f.End, frameString(f.Frame), f.NumParams)
				next++
			}
			fmt.Fprintf(&b, "  %3d %-10s", pc, in.Op)
			for k := range 3 {
				v, kind := in.Operand(k)
				if s := operandString(kind, *v); s != "" {
					b.WriteString(" " + s)
				}
			}
			r := body.Ranges[pc]
			fmt.Fprintf(&b, "  ; %d:%d-%d:%d\n", r.Start.Line+1, r.Start.Col+1, r.End.Line+1, r.End.Col+1)
		}
		for i, l := range body.Loops {
			fmt.Fprintf(&b, "loop l%d: await %v\n", i, l.Await)
		}
		for pc := int32(0); pc < int32(len(body.Code)); pc++ {
			if fp := body.Atomics[pc]; fp != nil {
				fmt.Fprintf(&b, "atomic at %d: stable %v, reads %v, writes %v\n", pc, fp.Stable, fp.Reads, fp.Writes)
			}
		}
	}
	return b.String()
}

// frameString shows a frame's size and its non-zero initial words.
func frameString(frame []int64) string {
	var parts []string
	for i, v := range frame {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("s%d=%d", i, v))
		}
	}
	return fmt.Sprintf("%d [%s]", len(frame), strings.Join(parts, " "))
}

func operandString(kind ir.OperandKind, v int32) string {
	switch kind {
	case ir.ReadSlot, ir.WriteSlot, ir.BaseSlot, ir.ArgSlots, ir.CallArgSlots:
		return fmt.Sprintf("s%d", v)
	case ir.Target:
		return fmt.Sprintf("@%d", v)
	case ir.Immediate:
		return fmt.Sprintf("#%d", v)
	case ir.MessageIndex:
		return fmt.Sprintf("m%d", v)
	case ir.ProcIndex:
		return fmt.Sprintf("p%d", v)
	case ir.FuncIndex:
		return fmt.Sprintf("f%d", v)
	case ir.LoopIndex:
		return fmt.Sprintf("l%d", v)
	}
	return ""
}

// TestFunctionCode: in every body of the golden cases (and of a proc that
// calls functions), each function appears once in Funcs, its code's
// ranges lie inside the function's declaration, every instruction of the
// body's own code lies inside the thread's or proc's declaration, and
// every loop head's loop and every call's function exist.
func TestFunctionCode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "lower", "*.txtar"))
	var srcs []string
	for _, name := range files {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "src.weft" {
				srcs = append(srcs, string(f.Data))
			}
		}
	}
	srcs = append(srcs, `var x int
func g(n int) int {
    return n + h()
}
func h() int {
    return x
}
proc p(n int) {
    x = g(n) + h()
}
thread t {
    spawn p(g(1))
}
`)
	for _, src := range srcs {
		ld := lower.Load("src.weft", []byte(src))
		if ld.Exec == nil {
			t.Fatalf("not lowered: %s\n%s", brief(errorsOf(ld.Diagnostics)), src)
		}
		decls := map[string][2]int{}
		for _, d := range ld.File.Decls {
			r := grammarRange(d)
			decls[declName(d)] = r
		}
		for _, body := range ld.Exec.Bodies {
			seen := map[string]bool{}
			own := len(body.Code)
			if len(body.Funcs) > 0 {
				own = int(body.Funcs[0].Entry)
			}
			inside := func(pc int, name string) {
				r, ok := decls[name]
				got := body.Ranges[pc]
				if !ok || got.Start.Offset < r[0] || got.End.Offset > r[1] {
					t.Errorf("body %s pc %d (%s): range %v outside %s's declaration %v", body.Name, pc, body.Code[pc].Op, got, name, r)
				}
			}
			for pc := 0; pc < own; pc++ {
				inside(pc, body.Name)
			}
			for _, f := range body.Funcs {
				if seen[f.Name] {
					t.Errorf("body %s: function %s twice", body.Name, f.Name)
				}
				seen[f.Name] = true
				for pc := f.Entry; pc < f.End; pc++ {
					inside(int(pc), f.Name)
				}
			}
			for pc, in := range body.Code {
				switch in.Op {
				case ir.OpCall:
					if in.C < 0 || int(in.C) >= len(body.Funcs) {
						t.Errorf("body %s pc %d: call of function %d", body.Name, pc, in.C)
					}
				case ir.OpLoopHead:
					if in.A < 0 || int(in.A) >= len(body.Loops) {
						t.Errorf("body %s pc %d: loop %d", body.Name, pc, in.A)
					}
				}
			}
		}
	}
}

func declName(d grammar.Decl) string {
	switch d := d.(type) {
	case *grammar.ThreadDecl:
		return d.Name.Name
	case *grammar.ProcDecl:
		return d.Name.Name
	case *grammar.FuncDecl:
		return d.Name.Name
	}
	return ""
}

func grammarRange(d grammar.Decl) [2]int {
	return [2]int{d.Pos().Offset, d.End().Offset}
}
