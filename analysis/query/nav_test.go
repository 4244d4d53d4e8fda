package query

import (
	"strings"
	"testing"

	"weft/source"
)

// The models of the navigation tests. In each, ‸ is the cursor and «d»
// marks the declaration the cursor's name resolves to; «r1», «r2», … its
// other occurrences, in order (a name ending in w is written).
var navTests = []struct {
	name   string
	marked string
}{
	{"constant", `const «d»N = 4
var a [«r1»N]int
thread t[i in 0..«r2»N] { a[i] = «r3»‸N }
`},
	{"shared variable from its declaration", `var «d»co‸unt int
thread t { «r1w»count = «r2»count + 1 }
thread u { «r3w»count++ }
`},
	{"local shadowing a shared variable", `var x int
thread t {
    var «d»x int = x
    «r1w»x += 1
    if «r2»x > 0 { «r3w»x = «r4»‸x }
}
`},
	{"parameter, cursor just after the name", `proc p(«d»k int) {
    var y int = «r1»k‸
    y = «r2»k
}
thread t { spawn p(1) }
`},
	{"loop variable", `var a [3]int
thread t {
    for «d»i in 0..3 {
        a[«r1»i] = «r2»‸i
    }
    for i in 0..3 { a[i] = 0 }
}
`},
	{"thread index", `var a [2]int
thread w[«d»k in 0..2] {
    a[«r1»k] = «r2»‸k
}
`},
	{"thread used as a tid", `thread «d»worker { }
thread main { join «r1»wor‸ker }
`},
	{"proc after spawn", `proc «d»p() { }
thread t { spawn «r1»p‸() }
thread u { var h tid = spawn «r2»p(); join h }
`},
	{"mutex: lock and unlock write it", `var «d»m mutex
thread t { lock(«r1w»m); unlock(«r2w»‸m) }
`},
	{"array element assigned: the array is written", `var «d»a [2][2]int
thread t { «r1w»a[0][«r2»a[1][0]] = 1; («r3w»a[1])[0]++; var x int = ‸«r4»a[0][0]; x = 1 }
`},
	{"non-ASCII comments before the cursor (UTF-16 columns)", `var «d»größe int // Größe 😀 of the model
/* 😀😀 */ thread t { /* é */ «r1w»größe = /* 😀 */ «r2»grö‸ße + 1 }
`},
	{"syntax errors around", `var «d»count int
thread t {
    «r1w»count = 1 +
    x = = 2
    «r2w»count = ‸«r3»count * 2
    if {
}
thread u { «r4w»count++ ) }
`},
	{"function, its recursive call and its calls", `func «d»f(n int) int {
    return «r1»f(n - 1)
}
thread t { var x int = «r2»‸f(1); «r3»f(x) }
`},
	{"function parameter", `func f(«d»n int) int {
    return «r1»n * «r2»‸n
}
`},
	{"condition variable: wait, signal and broadcast write it", `var «d»cv cond
var m mutex
thread t { lock(m); wait(«r1w»cv, m); signal(«r2w»‸cv); broadcast(«r3w»cv); unlock(m) }
`},
	{"mutex: trylock and wait write it", `var «d»m mutex
var cv cond
thread t { if trylock(«r1w»‸m) { wait(cv, «r2w»m); unlock(«r3w»m) } }
`},
	{"a name that does not resolve is not followed", `thread t { x‸ = 1 }
`},
	{"no name at the cursor", `var x int
‸
`},
}

func TestNavigation(t *testing.T) {
	for _, tt := range navTests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModel(t, tt.marked)
			cursor := m.pos(t, "")
			var want []string // "read RANGE" or "write RANGE", in order
			var decl source.Range
			if _, ok := m.at["d"]; ok {
				decl = m.word(t, "d")
				want = append(want, "write "+m.show(decl))
			}
			for i := 1; ; i++ {
				name := "r" + itoa(i)
				kind := "read "
				if _, ok := m.at[name]; !ok {
					name += "w"
					kind = "write "
					if _, ok := m.at[name]; !ok {
						break
					}
				}
				want = append(want, kind+m.show(m.word(t, name)))
			}

			got, ok := Definition(m.prog, cursor)
			if len(want) == 0 {
				if ok {
					t.Errorf("Definition = %s, want none", m.show(got))
				}
				if refs := References(m.prog, cursor, true); refs != nil {
					t.Errorf("References = %v, want none", refs)
				}
				if hs := Highlights(m.prog, cursor); hs != nil {
					t.Errorf("Highlights = %v, want none", hs)
				}
				return
			}
			if !ok || got != decl {
				t.Errorf("Definition = %s %v, want %s", m.show(got), ok, m.show(decl))
			}
			checkRange(t, m.src, got)

			var hl []string
			for _, h := range Highlights(m.prog, cursor) {
				checkRange(t, m.src, h.Range)
				hl = append(hl, h.Kind.String()+" "+m.show(h.Range))
			}
			if strings.Join(hl, "\n") != strings.Join(want, "\n") {
				t.Errorf("Highlights:\n%s\nwant:\n%s", strings.Join(hl, "\n"), strings.Join(want, "\n"))
			}
			for _, withDecl := range []bool{true, false} {
				var refs []string
				for _, r := range References(m.prog, cursor, withDecl) {
					refs = append(refs, m.show(r))
				}
				var wantRefs []string
				for i, w := range want {
					if i > 0 || withDecl {
						_, r, _ := strings.Cut(w, " ")
						wantRefs = append(wantRefs, r)
					}
				}
				if strings.Join(refs, "\n") != strings.Join(wantRefs, "\n") {
					t.Errorf("References(includeDecl=%v):\n%s\nwant:\n%s", withDecl, strings.Join(refs, "\n"), strings.Join(wantRefs, "\n"))
				}
			}
		})
	}
}

// TestUTF16Columns pins one column by hand: in the non-ASCII model, the
// use of größe after two 😀 (two UTF-16 units each) and an é.
func TestUTF16Columns(t *testing.T) {
	m := parseModel(t, "var größe int\n/* 😀😀 */ thread t { /* é */ größe = 1 }\n")
	refs := References(m.prog, m.src.Pos(len("var ")), false)
	if len(refs) != 1 {
		t.Fatalf("references %v", refs)
	}
	// "/* 😀😀 */ thread t { /* é */ " is 30 UTF-16 units (11 + 11 + 8)
	// and 35 bytes, after the 16 bytes of line 1; größe is 5 units and 7
	// bytes.
	want := source.Range{
		Start: source.Pos{Offset: 16 + 35, Line: 1, Col: 30},
		End:   source.Pos{Offset: 16 + 35 + 7, Line: 1, Col: 35},
	}
	if refs[0] != want {
		t.Errorf("reference at %+v, want %+v", refs[0], want)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
