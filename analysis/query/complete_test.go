package query

import (
	"strings"
	"testing"
)

// completionHeader is declared before the body of most completion tests.
const completionHeader = `const N = 4
var count int
var hits atomic int
var m mutex
var locks [N]mutex
var handles [N]tid
proc worker(id int, up bool) { }
thread w[k in 0..N] { }
`

// v2Header declares functions and condition variables.
const v2Header = `const N = 2
var count int
var m mutex
var cv cond
var cvs [N]cond
func max(a int, b int) int {
    return a
}
func log(x int) {
}
`

func TestComplete(t *testing.T) {
	tests := []struct {
		name   string
		marked string
		want   string // labels in order, space-separated
		prefix string // the text of the range to replace
	}{
		{"statement start in a body", completionHeader + "thread t {\n    var a int\n    ‸\n}\n",
			"a count hits handles var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", ""},
		{"statement start in a loop", completionHeader + "thread t {\n    for i in 0..N {\n        ‸\n    }\n}\n",
			"count hits handles var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await break continue", ""},
		{"statement start in atomic", completionHeader + "thread t {\n    atomic {\n        co‸\n    }\n}\n",
			"count hits handles var if while for assert assume", "co"},
		{"top level", completionHeader + "th‸\n", "const var thread proc func", "th"},
		{"expression, mid-word, block left open", completionHeader + "thread t {\n    var total int\n    total = co‸",
			"total N count hits handles w t true false trylock choose spawn", "co"},
		{"expression after = in a body offers spawn", completionHeader + "thread t {\n    var h tid\n    h = ‸\n}\n",
			"h N count hits handles w t true false trylock choose spawn", ""},
		{"locals declared after the cursor are not visible", completionHeader + "thread t {\n    var a int = ‸\n    var b int\n}\n",
			"N count hits handles w t true false trylock choose spawn", ""},
		{"inner names hide outer ones", completionHeader + "thread t {\n    var count bool\n    if count { var N int = 1; assert ‸ }\n}\n",
			"N count hits handles w t true false trylock choose", ""},
		{"thread index and loop variable", completionHeader + "thread u[i in 0..2] {\n    for j in 0..i {\n        count += ‸\n    }\n}\n",
			"j i N count hits handles w u true false trylock choose", ""},
		{"parameters", completionHeader + "proc p(n int, flag bool) {\n    assert fl‸\n}\n",
			"n flag N count hits handles w true false trylock choose", "fl"},
		{"after spawn: procs", completionHeader + "thread t { spawn w‸ }\n", "worker", "w"},
		{"after = spawn: procs", completionHeader + "thread t { var h tid = spawn ‸ }\n", "worker", ""},
		{"after join: threads and tids", completionHeader + "thread t { var h tid\n    join ‸\n}\n", "h handles w t", ""},
		{"in lock(): mutexes", completionHeader + "thread t { lock(‸) }\n", "m locks", ""},
		{"in lock(locks[…]): an expression", completionHeader + "thread t { lock(locks[‸]) }\n",
			"N count hits handles w t true false trylock choose", ""},
		{"spawn arguments", completionHeader + "thread t { spawn worker(co‸",
			"N count hits handles w t true false trylock choose", "co"},
		{"var NAME in a body: types", completionHeader + "thread t { var x ‸ }\n", "int bool tid", ""},
		{"var NAME at top level: atomic and types", completionHeader + "var x ‸\n", "atomic int bool mutex tid cond", ""},
		{"var NAME atomic: types", completionHeader + "var x atomic i‸\n", "int bool mutex tid cond", "i"},
		{"array length: constants", completionHeader + "var x [‸\n", "N true false", ""},
		{"array element type", completionHeader + "thread t { var x [N]‸ }\n", "int bool tid", ""},
		{"shared initialiser: constants", completionHeader + "var x int = ‸\n", "N true false", ""},
		{"initialiser list: constants", completionHeader + "var x [2]int = {1, ‸\n", "N true false", ""},
		{"initialiser list in a body", completionHeader + "thread t {\n    var a [2]int = {\n        count,\n        ‸",
			"N count hits handles w t true false trylock choose", ""},
		{"after an initialiser list left open", completionHeader + "thread t {\n    var a [2]int = {1, 2\n    if true {\n    }\n    ‸",
			"a count hits handles var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", ""},
		{"constant value: constants", completionHeader + "const M = N * ‸\n", "N true false", ""},
		{"thread bounds: constants", completionHeader + "thread v[i in 0..‸] {}\n", "N true false", ""},
		{"thread index name: in", completionHeader + "thread v[i ‸\n", "in", ""},
		{"for I: in", completionHeader + "thread t { for i ‸ }\n", "in", ""},
		{"for bounds", completionHeader + "thread t { var n int\n    for i in 0..‸ }\n", "n N count hits handles w t true false trylock choose", ""},
		{"parameter type", completionHeader + "proc p(a int, b ‸\n", "int bool", ""},
		{"else after }", completionHeader + "thread t { if true { } ‸ }\n", "else", ""},
		{"if after else", completionHeader + "thread t { if true { } else ‸ }\n", "if", ""},
		{"multi-line comment before the cursor", completionHeader + "thread t {\n    /* a\n    comment */ ‸\n}\n",
			"count hits handles var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", ""},
		{"non-ASCII before the cursor", completionHeader + "thread t {\n    var größe int /* 😀 */\n    /* é😀 */ größe = grö‸\n}\n",
			"größe N count hits handles w t true false trylock choose spawn", "grö"},

		{"a constant sees only earlier constants", "const A = 1\nconst B = ‸\nconst C = 2\n", "A true false", ""},
		{"after broken statements", completionHeader + "thread t {\n    var a int\n    a = = 2\n    if {\n    }\n    x := 1\n    a‸",
			"a count hits handles var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", "a"},

		{"declaring a name: nothing", completionHeader + "thread t { var ‸ }\n", "", ""},

		// Language version 2.
		{"v2: statement start: functions too", v2Header + "thread t {\n    ‸\n}\n",
			"count max log var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", ""},
		{"v2: expression: functions with a result", v2Header + "thread t {\n    count = ‸\n}\n",
			"N count max t true false trylock choose spawn", ""},
		{"v2: top level", v2Header + "f‸", "const var thread proc func", "f"},
		{"v2: var at top level: cond", v2Header + "var x ‸\n", "atomic int bool mutex tid cond", ""},
		{"v2: signal(): condition variables", v2Header + "thread t { signal(‸) }\n", "cv cvs", ""},
		{"v2: broadcast(): condition variables", v2Header + "thread t { broadcast(c‸) }\n", "cv cvs", "c"},
		{"v2: wait(): a condition variable first", v2Header + "thread t { wait(‸ }\n", "cv cvs", ""},
		{"v2: wait(cv, ): a mutex second", v2Header + "thread t { wait(cv, ‸ }\n", "m", ""},
		{"v2: wait(cvs[…]): an expression", v2Header + "thread t { wait(cvs[‸ }\n", "N count max t true false trylock choose", ""},
		{"v2: trylock(): mutexes", v2Header + "thread t { if trylock(‸ }\n", "m", ""},
		{"v2: await: no choose, no trylock", v2Header + "thread t {\n    await ‸\n}\n", "N count max t true false", ""},
		{"v2: while condition: no choose", v2Header + "thread t {\n    while ‸\n}\n", "N count max t true false trylock", ""},
		{"v2: inside atomic: neither", v2Header + "thread t {\n    atomic {\n        count = ‸\n    }\n}\n", "N count max t true false spawn", ""},
		{"v2: choose bounds: constants", v2Header + "thread t {\n    count = choose 0..‸\n}\n", "N true false", ""},
		{"v2: after a choose in parentheses", v2Header + "thread t {\n    count = (choose 0..N) + ‸\n}\n",
			"N count max t true false trylock choose", ""},
		{"v2: function parameter type", v2Header + "func f(a int, b ‸\n", "int bool tid", ""},
		{"v2: function result type", v2Header + "func f(a int) ‸\n", "int bool tid", ""},
		{"v2: return in a function", v2Header + "func f(a int) int {\n    return ‸\n}\n", "a N count max f true false trylock choose", ""},
		{"v2: return in a thread: nothing", v2Header + "thread t {\n    return ‸\n}\n", "", ""},
		{"v2: statement start in a function", v2Header + "func f(a int) {\n    ‸\n}\n",
			"a count max log f var if while for assert assume lock unlock spawn join atomic return wait signal broadcast await", ""},
		{"naming a thread: nothing", completionHeader + "thread ‸", "", ""},
		{"naming a loop variable: nothing", completionHeader + "thread t { for ‸ }\n", "", ""},
		{"naming a parameter: nothing", completionHeader + "proc p(a int, ‸\n", "", ""},
		{"after an operand: nothing", completionHeader + "thread t { count = count ‸ }\n", "", ""},
		{"in a line comment: nothing", completionHeader + "thread t { // co‸\n}\n", "", ""},
		{"at the end of a line comment: nothing", completionHeader + "// comment‸", "", ""},
		{"in a block comment: nothing", completionHeader + "thread t { /* co‸ */ }\n", "", ""},
		{"in a string: nothing", completionHeader + "thread t { assert true, \"co‸\" }\n", "", ""},
		{"in an unterminated string: nothing", completionHeader + "thread t { assert true, \"co‸", "", ""},
		{"in a number: nothing", completionHeader + "thread t { count = 0x1‸ }\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModel(t, tt.marked)
			cursor := m.pos(t, "")
			items, replace := Complete(m.src, m.prog, cursor)
			var labels []string
			for _, it := range items {
				labels = append(labels, it.Label)
				if it.Kind == 0 {
					t.Errorf("%s has no kind", it.Label)
				}
			}
			if got := strings.Join(labels, " "); got != tt.want {
				t.Errorf("labels\n  %s\nwant\n  %s", got, tt.want)
			}
			checkRange(t, m.src, replace)
			if replace.End != cursor {
				t.Errorf("replace range %s does not end at the cursor %s", replace, cursor)
			}
			if got := string(m.src.Text[replace.Start.Offset:replace.End.Offset]); got != tt.prefix && tt.want != "" {
				t.Errorf("prefix %q, want %q", got, tt.prefix)
			}
		})
	}
}

func TestCompletionDetails(t *testing.T) {
	m := parseModel(t, completionHeader+"const M = N * 2\nthread t {\n    var a [N]int\n    for i in 0..N {\n        a[i] = ‸\n    }\n}\n")
	items, _ := Complete(m.src, m.prog, m.pos(t, ""))
	var got []string
	for _, it := range items {
		got = append(got, it.Label+" "+it.Kind.String()+" "+it.Detail)
	}
	want := []string{
		"i loop variable int",
		"a local variable [4]int",
		"N constant = 4",
		"count shared variable int",
		"hits shared variable atomic int",
		"handles shared variable [4]tid",
		"w thread array 0..4",
		"M constant = 8",
		"t thread ",
		"true keyword ",
		"false keyword ",
		"trylock keyword ",
		"choose keyword ",
		"spawn keyword ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSignatureHelp(t *testing.T) {
	const procs = "proc worker(id int, up bool) { }\nproc none() { }\nproc größe(ä int, b int) { }\n"
	const funcs = "func max(a int, b int) int { return a }\nfunc log(x int) { }\n"
	tests := []struct {
		name   string
		marked string
		active int // -1: no signature
		label  string
	}{
		{"first argument", procs + "thread t { spawn worker(‸) }\n", 0, "worker(id int, up bool)"},
		{"second argument", procs + "thread t { spawn worker(1, tr‸ue) }\n", 1, "worker(id int, up bool)"},
		{"nested parentheses", procs + "thread t { spawn worker((1 + 2) * 3, (‸ }\n", 1, "worker(id int, up bool)"},
		{"after = spawn, being typed", procs + "thread t {\n    var h tid = spawn worker(1,\n        ‸", 1, "worker(id int, up bool)"},
		{"too many arguments", procs + "thread t { spawn worker(1, true, ‸) }\n", 2, "worker(id int, up bool)"},
		{"no parameters", procs + "thread t { spawn none(‸) }\n", 0, "none()"},
		{"non-ASCII names", procs + "thread t { spawn größe(1, ‸) }\n", 1, "größe(ä int, b int)"},
		{"before the parenthesis", procs + "thread t { spawn worker‸() }\n", -1, ""},
		{"after the call", procs + "thread t { spawn worker(1, true)‸ }\n", -1, ""},
		{"an unknown proc", procs + "thread t { spawn nobody(‸) }\n", -1, ""},
		{"not a spawn", procs + "thread t { var x int = (1 + ‸) }\n", -1, ""},
		{"in a comment", procs + "thread t { spawn worker(/* ‸ */) }\n", -1, ""},

		{"a function call", funcs + "thread t { var x int = max(1, ‸) }\n", 1, "max(a int, b int) int"},
		{"a function call as a statement", funcs + "thread t { log(‸ }\n", 0, "log(x int)"},
		{"a call inside a call", funcs + "thread t { var x int = max(1, max(‸, 2)) }\n", 0, "max(a int, b int) int"},
		{"a call in a spawn's arguments", procs + funcs + "thread t { spawn worker(max(1, 2), ‸) }\n", 1, "worker(id int, up bool)"},
		{"a function's declaration", funcs + "func f(‸", -1, ""},
		{"a call of a variable", funcs + "thread t { var y int\n    y(‸ }\n", -1, ""},
		{"lock", funcs + "thread t { lock(‸) }\n", 0, "lock(m mutex)"},
		{"trylock", funcs + "thread t { if trylock(‸) {} }\n", 0, "trylock(m mutex) bool"},
		{"wait, second argument", funcs + "thread t { wait(cv, ‸) }\n", 1, "wait(cv cond, m mutex)"},
		{"broadcast", funcs + "thread t { broadcast(‸) }\n", 0, "broadcast(cv cond)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModel(t, tt.marked)
			sig, ok := SignatureHelp(m.src, m.prog, m.pos(t, ""))
			if tt.active < 0 {
				if ok {
					t.Errorf("got %+v, want no signature", sig)
				}
				return
			}
			if !ok {
				t.Fatalf("no signature")
			}
			if sig.Label != tt.label || sig.Active != tt.active {
				t.Errorf("got %q active %d, want %q active %d", sig.Label, sig.Active, tt.label, tt.active)
			}
			// Each parameter's offsets (UTF-16) pick out its name and type.
			units := utf16Units(sig.Label)
			for _, p := range sig.Params {
				text := string(utf16Decode(units[p.Start:p.End]))
				if !strings.HasPrefix(text, p.Name+" ") {
					t.Errorf("parameter %s covers %q", p.Name, text)
				}
			}
		})
	}
}
