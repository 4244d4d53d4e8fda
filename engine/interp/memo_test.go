package interp

import (
	"testing"

	"weft/analysis/lower"
)

// TestMemoHits checks that a long local computation that runs again from
// the same frame comes from the memo, with the same result, and that the
// memo stays within its bound on words.
func TestMemoHits(t *testing.T) {
	const src = `
var x atomic int

thread t {
    var a [3000]int
    for j in 0..4 {
        var s int = x % 2
        for i in 0..3000 {
            a[i] = (s * 3 + i) % 1000003
            s = a[i]
        }
        x = s
    }
}
`
	ld := lower.Load("memo.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatal(ld.Diagnostics)
	}
	for _, tt := range []struct {
		name    string
		budget  int64
		entries int // memo entries after the runs
	}{
		{"unbounded", 0, 1},
		// An eighth of 64 KiB is 1,024 words: a frame of 3,000 does not fit.
		{"small budget", 64 << 10, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewBoundedMachine(ld.Exec, 0, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			var ev Event
			m.Step(0, &ev) // read x: 0, then the loop runs (1st time: marked hot)
			want := append([]int64(nil), m.Threads[0].Frame...)
			for run := 2; run <= 4; run++ { // 2nd time: memoised; 3rd, 4th: from the memo
				m.Undo()
				m.Step(0, &ev)
				for i, w := range m.Threads[0].Frame {
					if w != want[i] {
						t.Fatalf("run %d: slot %d is %d, want %d", run, i, w, want[i])
					}
				}
				if m.memoSize != tt.entries {
					t.Errorf("after run %d: %d memo entries, want %d", run, m.memoSize, tt.entries)
				}
			}
			if m.memoWords > m.memoWordLimit() {
				t.Errorf("the memo holds %d words, more than its limit of %d", m.memoWords, m.memoWordLimit())
			}
		})
	}
}
