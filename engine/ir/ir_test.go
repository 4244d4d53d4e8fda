package ir

import (
	"strings"
	"testing"

	"weft/source"
)

// validProgram is a proc that adds its argument to a constant and stores
// it, and a thread that spawns it: every kind of operand appears.
func validProgram() *Program {
	proc := &Body{
		Name:      "p",
		NumParams: 1,
		Frame:     make([]int64, 4),
		Code: []Instr{
			{OpAddI, 1, 0, 2},  // s1 = s0 + 2
			{OpCheck, 0, 1, 1}, // s1 in [0, 1)
			{OpStore, 1, 2, 0}, // shared[s2] = s1
			{OpJz, 4, 1, 0},    // if s1 == 0 goto 4
			{OpAssert, 0, 1, 0},
			{OpEnd, 0, 0, 0},
		},
		Messages: []string{"m"},
	}
	main := &Body{
		Name:  "main",
		Frame: make([]int64, 3),
		Code: []Instr{
			{OpSpawn, 0, 1, 0}, // s0 = spawn p(s1)
			{OpJoin, 0, 0, 0},
			{OpEnd, 0, 0, 0},
		},
	}
	for _, b := range []*Body{proc, main} {
		b.Ranges = make([]source.Range, len(b.Code))
	}
	return &Program{
		Bodies:    []*Body{proc, main},
		Procs:     []int{0},
		Threads:   []ThreadSpec{{Name: "main", Body: 1}},
		Locations: []Location{{Name: "x"}},
		Init:      []int64{0},
	}
}

func TestValidate(t *testing.T) {
	if err := validProgram().Validate(); err != nil {
		t.Fatalf("valid program: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(p *Program)
		want   string
	}{
		{"read slot", func(p *Program) { p.Bodies[0].Code[0].B = 9 }, "slot 9 outside frame"},
		{"write slot", func(p *Program) { p.Bodies[0].Code[0].A = -1 }, "slot -1 outside frame"},
		{"jump target", func(p *Program) { p.Bodies[0].Code[3].A = 6 }, "jump to 6 outside its code"},
		{"message", func(p *Program) { p.Bodies[0].Code[4].C = 1 }, "message 1 missing"},
		{"proc", func(p *Program) { p.Bodies[1].Code[0].C = 1 }, "proc 1 missing"},
		{"argument slots", func(p *Program) { p.Bodies[1].Code[0].B = 3 }, "slot 3 outside frame"},
		{"unknown operation", func(p *Program) { p.Bodies[0].Code[0].Op = 200 }, "unknown operation"},
		{"no end", func(p *Program) { p.Bodies[1].Code[2].Op = OpNop }, "does not end with end"},
		{"proc body", func(p *Program) { p.Procs[0] = 5 }, "proc body 5 missing"},
		{"thread args", func(p *Program) { p.Threads[0].Args = []int64{1} }, "1 args for 0 params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validProgram()
			tc.mutate(p)
			err := p.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestOpTable: every operation has a name and is described once.
func TestOpTable(t *testing.T) {
	names := map[string]Op{}
	for op := OpNop; op <= OpAtomicEnd; op++ {
		info := op.Info()
		if info.Name == "" {
			t.Errorf("op %d has no entry", op)
		}
		if prev, ok := names[info.Name]; ok {
			t.Errorf("ops %d and %d are both %q", prev, op, info.Name)
		}
		names[info.Name] = op
		if op.IsVisible() && op != OpAtomic && op != OpSpawn && info.B != ReadSlot {
			t.Errorf("%s: a visible access, lock or join takes its address or handle in B", op)
		}
	}
	if got := Op(200).String(); got != "op(200)" {
		t.Errorf("unknown op prints as %q", got)
	}
}
