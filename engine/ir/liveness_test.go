package ir_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"weft/engine/ir"
	"weft/source"
)

func in(op ir.Op, a, b, c int32) ir.Instr { return ir.Instr{Op: op, A: a, B: b, C: c} }

// validBody fills in the ranges of b, puts it in a program with one
// thread (and procs, bodies[1:]) and validates it.
func validBody(t *testing.T, bodies ...*ir.Body) *ir.Program {
	t.Helper()
	prog := &ir.Program{Locations: []ir.Location{{Name: "x"}, {Name: "y"}}, Init: []int64{0, 0}}
	for i, b := range bodies {
		b.Ranges = make([]source.Range, len(b.Code))
		prog.Bodies = append(prog.Bodies, b)
		if i > 0 {
			prog.Procs = append(prog.Procs, i)
		}
	}
	prog.Threads = []ir.ThreadSpec{{Name: "t", Body: 0, Args: make([]int64, bodies[0].NumParams)}}
	if err := prog.Validate(); err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestLiveness checks the live sets of small bodies, pc by pc.
func TestLiveness(t *testing.T) {
	type want struct {
		pc   int32
		in   []int32
		susp []int32 // for a call
	}
	// Frames: slots named in each case; constants are never written, so
	// never listed.
	tests := []struct {
		name  string
		body  *ir.Body
		procs []*ir.Body
		want  []want
	}{
		{
			// 0 a, 1 b, 2 const loc 0, 3 const 1
			name: "straight line: a value is live from its write to its last read",
			body: &ir.Body{Frame: []int64{0, 0, 0, 1}, Code: []ir.Instr{
				in(ir.OpLoad, 0, 2, 0),  // 0: a = x
				in(ir.OpAdd, 1, 0, 3),   // 1: b = a + 1
				in(ir.OpStore, 1, 2, 0), // 2: x = b
				in(ir.OpEnd, 0, 0, 0),   // 3
			}},
			want: []want{{0, nil, nil}, {1, []int32{0}, nil}, {2, []int32{1}, nil}, {3, nil, nil}},
		},
		{
			// 0 i, 1 s, 2 c, 3 const 10, 4 const loc 0
			name: "loop: the counter and the sum are live around the back edge",
			body: &ir.Body{Frame: []int64{0, 0, 0, 10, 0}, Code: []ir.Instr{
				in(ir.OpLt, 2, 0, 3),    // 0: c = i < 10
				in(ir.OpJz, 5, 2, 0),    // 1: if !c goto 5
				in(ir.OpAdd, 1, 1, 0),   // 2: s = s + i
				in(ir.OpAddI, 0, 0, 1),  // 3: i++
				in(ir.OpJmp, 0, 0, 0),   // 4: goto 0
				in(ir.OpStore, 1, 4, 0), // 5: x = s
				in(ir.OpEnd, 0, 0, 0),   // 6
			}},
			want: []want{{0, []int32{0, 1}, nil}, {1, []int32{0, 1, 2}, nil}, {2, []int32{0, 1}, nil},
				{4, []int32{0, 1}, nil}, {5, []int32{1}, nil}, {6, nil, nil}},
		},
		{
			// 0 a, 1 b (parameters), 2 c, 3 const loc 0
			name: "branch: live on either side is live before it",
			body: &ir.Body{Frame: []int64{0, 0, 0, 0}, NumParams: 2, Code: []ir.Instr{
				in(ir.OpLoad, 2, 3, 0),  // 0: c = x
				in(ir.OpJz, 4, 2, 0),    // 1: if !c goto 4
				in(ir.OpStore, 0, 3, 0), // 2: x = a
				in(ir.OpEnd, 0, 0, 0),   // 3
				in(ir.OpStore, 1, 3, 0), // 4: x = b
				in(ir.OpEnd, 0, 0, 0),   // 5
			}},
			want: []want{{0, []int32{0, 1}, nil}, {1, []int32{0, 1, 2}, nil}, {2, []int32{0}, nil}, {4, []int32{1}, nil}},
		},
		{
			// 0 a, 1 b: a is overwritten before it is read, b is a
			// parameter read at the end. 2 const loc 0.
			name: "a slot written before any read is dead; a parameter is tracked",
			body: &ir.Body{Frame: []int64{0, 0, 0}, NumParams: 1, ArgSlot: 1, Code: []ir.Instr{
				in(ir.OpLoad, 0, 2, 0),  // 0: a = x
				in(ir.OpStore, 0, 2, 0), // 1: x = a
				in(ir.OpStore, 1, 2, 0), // 2: x = b
				in(ir.OpEnd, 0, 0, 0),
			}},
			want: []want{{0, []int32{1}, nil}, {1, []int32{0, 1}, nil}, {2, []int32{1}, nil}},
		},
		{
			// 0..2 array a, 3 i, 4 v, 5 const 0, 6 const loc 0
			name: "a local array is one unit: a store by index kills nothing, a read by index reads it all",
			body: &ir.Body{Frame: []int64{0, 0, 0, 0, 0, 0, 0},
				Locals: []ir.LocalVar{{Name: "a", Slot: 0, Size: 3, Dims: []int{3}}},
				Code: []ir.Instr{
					in(ir.OpMov, 0, 5, 0),   // 0: a[0] = 0 (an element: no kill)
					in(ir.OpLoad, 3, 6, 0),  // 1: i = x
					in(ir.OpStx, 3, 3, 0),   // 2: a[i] = i
					in(ir.OpLdx, 4, 5, 0),   // 3: v = a[0]
					in(ir.OpStore, 4, 6, 0), // 4: x = v
					in(ir.OpEnd, 0, 0, 0),
				}},
			want: []want{{0, []int32{0, 1, 2}, nil}, {2, []int32{0, 1, 2, 3}, nil}, {3, []int32{0, 1, 2}, nil}, {4, []int32{4}, nil}, {5, nil, nil}},
		},
		{
			// Body: 0 a, 1 r, 2 k, 3 const loc 0. f (frame: 0 n, 1 t, 2
			// const 1): t = n + 1; ret t.
			name: "a call: arguments read, the result dead while suspended, the callee its own region",
			body: &ir.Body{Frame: []int64{0, 0, 0, 0}, Code: []ir.Instr{
				in(ir.OpLoad, 0, 3, 0),  // 0: a = x
				in(ir.OpLoad, 2, 3, 0),  // 1: k = x
				in(ir.OpCall, 1, 0, 0),  // 2: r = f(a)
				in(ir.OpAdd, 1, 1, 2),   // 3: r = r + k
				in(ir.OpStore, 1, 3, 0), // 4: x = r
				in(ir.OpEnd, 0, 0, 0),   // 5
				in(ir.OpAdd, 1, 0, 2),   // 6: t = n + 1
				in(ir.OpRet, 1, 0, 0),   // 7: ret t
			}, Funcs: []ir.Func{{Name: "f", Entry: 6, End: 8, Frame: []int64{0, 0, 1}, NumParams: 1}}},
			want: []want{{1, []int32{0}, nil}, {2, []int32{0, 2}, []int32{2}}, {3, []int32{1, 2}, nil},
				{6, []int32{0}, nil}, {7, []int32{1}, nil}},
		},
		{
			// Thread: 0 a, 1 b, 2 h. Proc w takes one parameter.
			name: "a spawn reads as many slots as the proc has parameters",
			body: &ir.Body{Frame: []int64{0, 0, 0, 0}, Code: []ir.Instr{
				in(ir.OpLoad, 0, 3, 0),  // 0: a = x
				in(ir.OpLoad, 1, 3, 0),  // 1: b = x
				in(ir.OpSpawn, 2, 0, 0), // 2: h = spawn w(a)
				in(ir.OpEnd, 0, 0, 0),
			}},
			procs: []*ir.Body{{Name: "w", Frame: []int64{0}, NumParams: 1, Code: []ir.Instr{in(ir.OpEnd, 0, 0, 0)}}},
			want:  []want{{1, []int32{0}, nil}, {2, []int32{0}, nil}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := validBody(t, append([]*ir.Body{tt.body}, tt.procs...)...)
			lv := prog.Liveness()[0]
			for _, w := range tt.want {
				if got := lv.In(w.pc).Slots(); !slices.Equal(got, w.in) {
					t.Errorf("In(%d) = %v, want %v", w.pc, got, w.in)
				}
				if got := lv.Suspended(w.pc).Slots(); !slices.Equal(got, w.susp) {
					t.Errorf("Suspended(%d) = %v, want %v", w.pc, got, w.susp)
				}
			}
		})
	}
}

// TestLivenessUnknownSpawn: from the body alone a spawn reads every slot
// from its first argument to the end of the frame.
func TestLivenessUnknownSpawn(t *testing.T) {
	b := &ir.Body{Frame: []int64{0, 0, 0, 0}, Code: []ir.Instr{
		in(ir.OpLoad, 0, 3, 0),
		in(ir.OpLoad, 1, 3, 0),
		in(ir.OpSpawn, 2, 0, 0),
		in(ir.OpEnd, 0, 0, 0),
	}}
	validBody(t, b, &ir.Body{Name: "w", Frame: []int64{0}, NumParams: 1, Code: []ir.Instr{in(ir.OpEnd, 0, 0, 0)}})
	// Slots 0 to 3 are read: 0, 1 and 2 (h, which the spawn writes after
	// reading it) are tracked.
	if got := ir.AnalyzeLiveness(b).In(2).Slots(); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("In(2) = %v, want [0 1 2]", got)
	}
}

// TestLivenessRandom checks the analysis against the definition on
// random bodies: a tracked unit is live at pc when some path from pc
// reaches a use of it without passing a kill, searched path by path.
func TestLivenessRandom(t *testing.T) {
	const frame = 10 // 0..5 scalars, 6..8 an array, 9 a constant
	locals := []ir.LocalVar{{Name: "a", Slot: 6, Size: 3, Dims: []int{3}}}
	scalar := func(r *rand.Rand) int32 { return int32(r.Intn(6)) }
	for seed := range int64(400) {
		r := rand.New(rand.NewSource(seed))
		n := 3 + r.Intn(14)
		code := make([]ir.Instr, n)
		for pc := range n - 1 {
			switch k := r.Intn(10); k {
			case 0:
				code[pc] = in(ir.OpJmp, int32(r.Intn(n)), 0, 0)
			case 1:
				code[pc] = in(ir.OpJz, int32(r.Intn(n)), scalar(r), 0)
			case 2:
				code[pc] = in(ir.OpStx, scalar(r), scalar(r), 6)
			case 3:
				code[pc] = in(ir.OpLdx, scalar(r), scalar(r), 6)
			case 4:
				code[pc] = in(ir.OpStore, scalar(r), 9, 0)
			case 5:
				code[pc] = in(ir.OpMov, int32(6+r.Intn(3)), scalar(r), 0) // an element, no kill
			case 6:
				code[pc] = in(ir.OpLoad, scalar(r), 9, 0)
			default:
				code[pc] = in(ir.OpAdd, scalar(r), scalar(r), []int32{scalar(r), 9}[r.Intn(2)])
			}
		}
		code[n-1] = in(ir.OpEnd, 0, 0, 0)
		b := &ir.Body{Frame: make([]int64, frame), Locals: locals, Code: code}
		if r.Intn(2) == 0 {
			b.NumParams, b.ArgSlot = 1, 5
		}
		validBody(t, b)
		lv := ir.AnalyzeLiveness(b)
		tracked := map[int32]bool{}
		if b.NumParams > 0 {
			tracked[5] = true
		}
		for _, ins := range code {
			switch ins.Op {
			case ir.OpStx:
				for s := int32(6); s < 9; s++ {
					tracked[s] = true
				}
			case ir.OpJmp, ir.OpJz, ir.OpStore, ir.OpEnd:
			default:
				tracked[ins.A] = true
			}
		}
		if tracked[6] || tracked[7] || tracked[8] {
			tracked[6], tracked[7], tracked[8] = true, true, true // one unit
		}
		unit := func(s int32) []int32 {
			if s >= 6 && s < 9 {
				return []int32{6, 7, 8}
			}
			return []int32{s}
		}
		uses := func(ins ir.Instr, s int32) bool {
			var read []int32
			switch ins.Op {
			case ir.OpJz:
				read = []int32{ins.B}
			case ir.OpStx:
				read = []int32{ins.A, ins.B}
			case ir.OpLdx:
				read = []int32{ins.B, 6, 7, 8}
			case ir.OpStore:
				read = []int32{ins.A, ins.B}
			case ir.OpMov:
				read = []int32{ins.B}
			case ir.OpLoad:
				read = []int32{ins.B}
			case ir.OpAdd:
				read = []int32{ins.B, ins.C}
			}
			for _, x := range read {
				if slices.Contains(unit(s), x) {
					return true
				}
			}
			return false
		}
		kills := func(ins ir.Instr, s int32) bool {
			switch ins.Op {
			case ir.OpJmp, ir.OpJz, ir.OpStx, ir.OpStore, ir.OpEnd:
				return false
			}
			return ins.A == s && s < 6
		}
		liveByPaths := func(pc, s int32) bool {
			seen := map[int32]bool{}
			stack := []int32{pc}
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if seen[p] {
					continue
				}
				seen[p] = true
				ins := code[p]
				if uses(ins, s) {
					return true
				}
				if kills(ins, s) {
					continue
				}
				switch ins.Op {
				case ir.OpJmp:
					stack = append(stack, ins.A)
				case ir.OpJz:
					stack = append(stack, ins.A, p+1)
				case ir.OpEnd:
				default:
					stack = append(stack, p+1)
				}
			}
			return false
		}
		for pc := range int32(n) {
			var want []int32
			for s := range int32(frame) {
				if tracked[s] && liveByPaths(pc, s) {
					want = append(want, s)
				}
			}
			if got := lv.In(pc).Slots(); !slices.Equal(got, want) {
				t.Fatalf("seed %d: In(%d) = %v, want %v\n%s", seed, pc, got, want, dump(code))
			}
		}
	}
}

func dump(code []ir.Instr) string {
	s := ""
	for pc, ins := range code {
		s += fmt.Sprintf("%d: %s %d %d %d\n", pc, ins.Op, ins.A, ins.B, ins.C)
	}
	return s
}

func TestSlotSetHas(t *testing.T) {
	s := ir.SlotSet{{1, 3}, {5, 6}, {8, 12}}
	for slot := int32(-1); slot < 14; slot++ {
		want := slot >= 1 && slot < 3 || slot == 5 || slot >= 8 && slot < 12
		if got := s.Has(slot); got != want {
			t.Errorf("Has(%d) = %v", slot, got)
		}
	}
	if s.Len() != 7 {
		t.Errorf("Len = %d", s.Len())
	}
}
