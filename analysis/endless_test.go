package analysis_test

import (
	"testing"

	"weft/analysis"
	"weft/grammar"
)

func TestEndlessLoops(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []int // 1-based lines of the endless loops
	}{
		{"while true", "var x int\nthread t {\n    while true {\n        x = 1\n    }\n}\n", []int{3}},
		{"constant condition", "const on = true\nvar x int\nthread t {\n    while on && 1 < 2 {\n        x = 1\n    }\n}\n", []int{4}},
		{"break leaves it", "var x int\nthread t {\n    while true {\n        if x == 1 {\n            break\n        }\n        x = 1\n    }\n}\n", nil},
		{"inner break leaves the inner loop only", "var x int\nthread t {\n    while true {\n        while true {\n            break\n        }\n        x = 1\n    }\n}\n", []int{3}},
		{"return leaves it", "var x int\nfunc f() int {\n    while true {\n        if x == 1 {\n            return 1\n        }\n    }\n}\nthread t {\n    x = f()\n}\n", nil},
		{"return in an inner loop leaves it", "var x int\nfunc f() int {\n    while true {\n        while x == 0 {\n            return 1\n        }\n    }\n}\nthread t {\n    x = f()\n}\n", nil},
		{"a bounded loop", "var x int\nthread t {\n    while x < 3 {\n        x = x + 1\n    }\n}\n", nil},
		{"in an atomic block", "var x int\nthread t {\n    atomic {\n        while true {\n            x = 1\n        }\n    }\n}\n", nil},
		{"nested endless loops", "var x int\nthread t {\n    while true {\n        while true {\n            x = 1\n        }\n    }\n}\n", []int{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, _ := grammar.ParseFile("m.weft", []byte(tc.src))
			prog := analysis.Check(file)
			if prog.HasErrors() {
				t.Fatalf("the model has errors: %v", prog.Diagnostics)
			}
			var got []int
			for _, r := range prog.EndlessLoops() {
				got = append(got, r.Start.Line+1)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("endless loops at lines %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("endless loops at lines %v, want %v", got, tc.want)
				}
			}
		})
	}
}
