package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/source"
)

// snippetsFile is the VS Code extension's snippet file, which this test
// keeps honest: every snippet must expand to valid Weft.
const snippetsFile = "../../vscode-extension/snippets/weft.json"

// snippetContexts says, for each snippet (by its name in snippetsFile),
// where it is valid and what its defaults need: the declarations that
// come before it (prelude) and whether it is a statement, checked inside
// a thread body, rather than a top-level declaration. A snippet missing
// here fails the test, so a new snippet cannot go unchecked.
var snippetContexts = map[string]struct {
	prelude string
	stmt    bool
}{
	"Thread":              {},
	"Thread array":        {prelude: "const N = 2\n"},
	"Proc":                {},
	"Spawn and join":      {prelude: "proc worker(id int) {}\n", stmt: true},
	"Lock and unlock":     {prelude: "var m mutex\n", stmt: true},
	"Atomic block":        {stmt: true},
	"Constant":            {},
	"Shared variable":     {},
	"Mutex":               {},
	"Assert with message": {prelude: "var count int\n", stmt: true},
	"For loop":            {prelude: "const N = 2\n", stmt: true},
	"While loop":          {prelude: "const N = 2\nvar count int\n", stmt: true},
	"Bounded wait":        {prelude: "var flag bool\n", stmt: true},
	"Function":            {},
	"Wait loop":           {prelude: "var m mutex\nvar cv cond\nvar ready bool\n", stmt: true},
	"Condition variable":  {},
	"Await":               {prelude: "var ready bool\n", stmt: true},
	"Choose":              {prelude: "const N = 2\n", stmt: true},
	"Trylock":             {prelude: "var m mutex\n", stmt: true},
}

type snippet struct {
	Prefix      json.RawMessage `json:"prefix"` // a string or a list of strings
	Body        json.RawMessage `json:"body"`   // a string or a list of lines
	Description string          `json:"description"`
}

// TestSnippets expands every snippet with each placeholder at its default
// (and, for a choice, with each of its alternatives in turn), puts it in
// its context, and loads the result as `weft check` does (parse, check,
// lower): there must be no error. Warnings (an unused loop variable) are
// allowed: a snippet is a start, not a finished model.
func TestSnippets(t *testing.T) {
	data, err := os.ReadFile(snippetsFile)
	if err != nil {
		t.Fatal(err)
	}
	var snippets map[string]snippet
	if err := json.Unmarshal(data, &snippets); err != nil {
		t.Fatalf("%s: %v", snippetsFile, err)
	}
	for name := range snippetContexts {
		if _, ok := snippets[name]; !ok {
			t.Errorf("snippet %q is listed in snippetContexts but not in %s", name, snippetsFile)
		}
	}
	prefixes := map[string]string{}
	for name, sn := range snippets {
		t.Run(name, func(t *testing.T) {
			ctx, ok := snippetContexts[name]
			if !ok {
				t.Fatalf("snippet %q has no entry in snippetContexts: say there what it needs to be valid Weft", name)
			}
			for _, p := range stringOrLines(t, "prefix", sn.Prefix) {
				if other, dup := prefixes[p]; dup {
					t.Errorf("prefix %q is used by %q too", p, other)
				}
				prefixes[p] = name
			}
			if strings.TrimSpace(sn.Description) == "" {
				t.Error("no description")
			}
			body := strings.Join(stringOrLines(t, "body", sn.Body), "\n")
			tree, err := parseSnippet(body)
			if err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			for _, pick := range choicePicks(tree) {
				text, err := expandSnippet(tree, pick)
				if err != nil {
					t.Fatalf("body %q: %v", body, err)
				}
				// VS Code turns each tab into the editor's indentation.
				text = strings.ReplaceAll(text, "\t", "    ")
				src := ctx.prelude + text + "\n"
				if ctx.stmt {
					src = ctx.prelude + "thread snippet {\n" + text + "\n}\n"
				}
				ld := lower.Load(name+".weft", []byte(src))
				for _, d := range ld.Diagnostics {
					if d.Severity == source.Error {
						t.Errorf("expansion with choices %v is not valid Weft: %d:%d: %s [%s]\n%s",
							pick, d.Range.Start.Line+1, d.Range.Start.Col+1, d.Message, d.Code, src)
					}
				}
			}
		})
	}
}

// stringOrLines decodes a snippet field that is a string or a list of
// strings.
func stringOrLines(t *testing.T, field string, raw json.RawMessage) []string {
	t.Helper()
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil || len(lines) == 0 {
		t.Fatalf("%s is neither a string nor a list of strings: %s", field, raw)
	}
	return lines
}

// snipNode is one piece of a parsed snippet body: literal text, or a
// tabstop (tab >= 0) with its placeholder (children) or its choices.
type snipNode struct {
	text     string
	tab      int
	children []snipNode
	choices  []string // a choice ${N|a,b|}: the first is the default
	hasValue bool     // ${N:…} or ${N|…|}, as opposed to $N and ${N}
}

// parseSnippet parses VS Code's snippet syntax, as much of it as a Weft
// snippet should use: text with the escapes \$ \} \\, tabstops $N and
// ${N}, placeholders ${N:…} (nested), choices ${N|a,b|}. Variables
// ($TM_FILENAME…) are refused: a snippet that depends on the editor's
// state could not be checked here.
func parseSnippet(body string) ([]snipNode, error) {
	nodes, rest, err := parseSnipSeq(body, false)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("unexpected %q", rest)
	}
	return nodes, nil
}

// parseSnipSeq parses up to the end of s or, inside a placeholder, up to
// its closing brace (left in rest).
func parseSnipSeq(s string, inside bool) (nodes []snipNode, rest string, err error) {
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, snipNode{text: text.String(), tab: -1})
			text.Reset()
		}
	}
	for s != "" {
		switch {
		case s[0] == '\\' && len(s) > 1 && strings.ContainsRune(`$}\`, rune(s[1])):
			text.WriteByte(s[1])
			s = s[2:]
		case s[0] == '}' && inside:
			flush()
			return nodes, s, nil
		case s[0] == '$':
			flush()
			var n snipNode
			n, s, err = parseSnipTabstop(s)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n)
		default:
			text.WriteByte(s[0])
			s = s[1:]
		}
	}
	if inside {
		return nil, "", errors.New("a placeholder is not closed with }")
	}
	flush()
	return nodes, "", nil
}

// parseSnipTabstop parses the tabstop at the start of s (s[0] == '$').
func parseSnipTabstop(s string) (snipNode, string, error) {
	digits := func(s string) (int, string, error) {
		i := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, s, fmt.Errorf("%q: variables and bare $ are not allowed in a Weft snippet (write \\$ for a dollar)", firstN(s, 12))
		}
		n, err := strconv.Atoi(s[:i])
		return n, s[i:], err
	}
	if len(s) > 1 && s[1] != '{' {
		n, rest, err := digits(s[1:])
		return snipNode{tab: n}, rest, err
	}
	if len(s) < 2 {
		return snipNode{}, "", errors.New("a lone $ at the end")
	}
	n, rest, err := digits(s[2:])
	if err != nil {
		return snipNode{}, "", err
	}
	node := snipNode{tab: n}
	switch {
	case strings.HasPrefix(rest, "}"):
		return node, rest[1:], nil
	case strings.HasPrefix(rest, ":"):
		node.hasValue = true
		node.children, rest, err = parseSnipSeq(rest[1:], true)
		if err != nil {
			return snipNode{}, "", err
		}
		return node, rest[1:], nil // rest starts with the closing brace
	case strings.HasPrefix(rest, "|"):
		node.hasValue = true
		rest = rest[1:]
		var cur strings.Builder
		for {
			switch {
			case rest == "":
				return snipNode{}, "", errors.New("a choice is not closed with |}")
			case rest[0] == '\\' && len(rest) > 1 && strings.ContainsRune(`$}\,|`, rune(rest[1])):
				cur.WriteByte(rest[1])
				rest = rest[2:]
			case rest[0] == ',':
				node.choices = append(node.choices, cur.String())
				cur.Reset()
				rest = rest[1:]
			case strings.HasPrefix(rest, "|}"):
				node.choices = append(node.choices, cur.String())
				return node, rest[2:], nil
			default:
				cur.WriteByte(rest[0])
				rest = rest[1:]
			}
		}
	}
	return snipNode{}, "", fmt.Errorf("%q: expected }, : or | after the tabstop number", firstN(rest, 12))
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// choicePicks lists the choices to try: all at their default first, then
// each alternative of each choice with the others at their defaults. A
// pick maps a tabstop number to the index of its chosen alternative.
func choicePicks(nodes []snipNode) []map[int]int {
	picks := []map[int]int{{}}
	var walk func([]snipNode)
	walk = func(ns []snipNode) {
		for _, n := range ns {
			for i := 1; i < len(n.choices); i++ {
				picks = append(picks, map[int]int{n.tab: i})
			}
			walk(n.children)
		}
	}
	walk(nodes)
	return picks
}

// expandSnippet renders the snippet as the text it inserts when every
// placeholder keeps its default and each choice takes the alternative
// pick gives it (the first otherwise). Every occurrence of a tabstop
// shows the same text, as in the editor: the one its placeholder gives.
func expandSnippet(nodes []snipNode, pick map[int]int) (string, error) {
	values := map[int][]snipNode{} // tabstop → the placeholder giving its value
	var collect func([]snipNode) error
	collect = func(ns []snipNode) error {
		for _, n := range ns {
			if n.tab < 0 || !n.hasValue {
				continue
			}
			if n.choices != nil {
				i := pick[n.tab]
				n.children = []snipNode{{text: n.choices[i], tab: -1}}
			}
			if prev, ok := values[n.tab]; ok {
				a, _ := render(prev, nil, 0)
				b, _ := render(n.children, nil, 0)
				if a != b {
					return fmt.Errorf("tabstop %d has two different defaults, %q and %q", n.tab, a, b)
				}
				continue
			}
			values[n.tab] = n.children
			if err := collect(n.children); err != nil {
				return err
			}
		}
		return nil
	}
	if err := collect(nodes); err != nil {
		return "", err
	}
	return render(nodes, values, 0)
}

func render(nodes []snipNode, values map[int][]snipNode, depth int) (string, error) {
	if depth > 20 {
		return "", errors.New("placeholders nest too deeply (does a tabstop contain itself?)")
	}
	var b strings.Builder
	for _, n := range nodes {
		if n.tab < 0 {
			b.WriteString(n.text)
			continue
		}
		v, ok := values[n.tab]
		if !ok {
			v = n.children
		}
		s, err := render(v, values, depth+1)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// TestSnippetsDocumented: the extension's README lists every snippet
// prefix in the table of its section on snippets, and no prefix that is
// not a snippet.
func TestSnippetsDocumented(t *testing.T) {
	data, err := os.ReadFile(snippetsFile)
	if err != nil {
		t.Fatal(err)
	}
	var snippets map[string]snippet
	if err := json.Unmarshal(data, &snippets); err != nil {
		t.Fatalf("%s: %v", snippetsFile, err)
	}
	readme, err := os.ReadFile(snippetsReadme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+snippetsSection+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", snippetsReadme, snippetsSection)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	documented := map[string]bool{}
	for _, m := range readmePrefixRow.FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	for name, sn := range snippets {
		for _, p := range stringOrLines(t, "prefix", sn.Prefix) {
			if !documented[p] {
				t.Errorf("snippet %q: its prefix %q is not in the table of %s", name, p, snippetsReadme)
			}
			delete(documented, p)
		}
	}
	for p := range documented {
		t.Errorf("%s lists the prefix %q, which no snippet has", snippetsReadme, p)
	}
}

// snippetsReadme documents the snippets in its section snippetsSection,
// in a table whose rows start with the prefix in backquotes.
const (
	snippetsReadme  = "../../vscode-extension/README.md"
	snippetsSection = "## Highlighting and snippets"
)

var readmePrefixRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ")

// TestSnippetExpansion checks the expansion itself on the syntax that
// TestSnippets relies on, so that a bug in it cannot make that test pass
// vacuously.
func TestSnippetExpansion(t *testing.T) {
	tests := []struct {
		body string
		pick map[int]int
		want string
		err  bool
	}{
		{body: "lock(${1:m})\n$0\nunlock(${1:m})", want: "lock(m)\n\nunlock(m)"},
		{body: "var ${1:t} tid\njoin $1", want: "var t tid\njoin t"},
		{body: "join ${1}\nvar ${1:u} tid", want: "join u\nvar u tid"},
		{body: "${1:a ${2:b} c}$2", want: "a b cb"},
		{body: "x ${2|int,bool|}", want: "x int"},
		{body: "x ${2|int,bool|}", pick: map[int]int{2: 1}, want: "x bool"},
		{body: `a \$ \} \\ b`, want: `a $ } \ b`},
		{body: `${1|a\,b,c|}`, want: "a,b"},
		{body: "${1:x} ${1:y}", err: true},
		{body: "$TM_FILENAME", err: true},
		{body: "${1:unclosed", err: true},
		{body: "${1|a,b", err: true},
		{body: "${x}", err: true},
	}
	for _, tt := range tests {
		tree, err := parseSnippet(tt.body)
		var got string
		if err == nil {
			got, err = expandSnippet(tree, tt.pick)
		}
		switch {
		case tt.err && err == nil:
			t.Errorf("%q: expanded to %q, want an error", tt.body, got)
		case !tt.err && err != nil:
			t.Errorf("%q: %v", tt.body, err)
		case !tt.err && got != tt.want:
			t.Errorf("%q: got %q, want %q", tt.body, got, tt.want)
		}
	}
	picks := choicePicks(mustParseSnippet(t, "${1|a,b,c|} ${2|d,e|}"))
	want := []map[int]int{{}, {1: 1}, {1: 2}, {2: 1}}
	if len(picks) != len(want) || !slices.EqualFunc(picks, want, func(a, b map[int]int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
		t.Errorf("choicePicks = %v, want %v", picks, want)
	}
}

func mustParseSnippet(t *testing.T, body string) []snipNode {
	t.Helper()
	nodes, err := parseSnippet(body)
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}
