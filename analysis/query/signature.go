package query

import (
	"strings"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// Signature is what signature help shows inside `spawn p(…)`, a call
// `f(…)` or a built-in statement such as `wait(…)`.
type Signature struct {
	Label  string // "p(i int, up bool)", "f(a int) bool", "wait(cv cond, m mutex)"
	Params []SignatureParam
	// Active is the index of the argument the cursor is in; it may be
	// len(Params) or more when there are too many arguments.
	Active int
}

// SignatureParam is one parameter of a Signature: its text is
// Label[Start:End] counted in UTF-16 code units (as LSP's parameter label
// offsets are).
type SignatureParam struct {
	Name       string
	Start, End int
}

// builtins are the signatures of the keywords written like calls.
var builtins = map[grammar.Kind]struct {
	params []string // "NAME TYPE"
	result string
}{
	grammar.LOCK:      {params: []string{"m mutex"}},
	grammar.UNLOCK:    {params: []string{"m mutex"}},
	grammar.TRYLOCK:   {params: []string{"m mutex"}, result: "bool"},
	grammar.WAIT:      {params: []string{"cv cond", "m mutex"}},
	grammar.SIGNAL:    {params: []string{"cv cond"}},
	grammar.BROADCAST: {params: []string{"cv cond"}},
}

// SignatureHelp returns the signature of what the cursor is in the
// arguments of: the proc of a spawn (`spawn p(a, ‸b)`), a function called
// (`f(‸)`), or a built-in (lock, unlock, trylock, wait, signal,
// broadcast); false when it is in none, or the proc or function is
// unknown. It reads the tokens before the cursor, so it works while the
// call is being typed.
func SignatureHelp(src *source.File, prog *analysis.Program, pos source.Pos) (*Signature, bool) {
	if src == nil || prog == nil {
		return nil, false
	}
	off := min(max(pos.Offset, 0), len(src.Text))
	toks, ok := tokensBefore(src.Text, off, off)
	if !ok {
		return nil, false
	}
	// The open parentheses of the current statement that belong to a
	// spawn, a call or a built-in, and the commas at their level.
	type paren struct {
		kind   grammar.Kind // SPAWN, IDENT (a call), a built-in's keyword, or ILLEGAL
		name   grammar.Token
		commas int
	}
	var open []paren
	for i, t := range toks {
		switch t.Kind {
		case grammar.SEMICOLON, grammar.LBRACE, grammar.RBRACE:
			open = open[:0]
		case grammar.LPAREN, grammar.LBRACK:
			p := paren{kind: grammar.ILLEGAL}
			if t.Kind == grammar.LPAREN && i >= 1 {
				prev := toks[i-1]
				switch {
				case prev.Kind == grammar.IDENT && i >= 2 && toks[i-2].Kind == grammar.SPAWN:
					p.kind, p.name = grammar.SPAWN, prev
				case prev.Kind == grammar.IDENT && (i < 2 || toks[i-2].Kind != grammar.PROC && toks[i-2].Kind != grammar.FUNC):
					p.kind, p.name = grammar.IDENT, prev
				default:
					if _, ok := builtins[prev.Kind]; ok {
						p.kind, p.name = prev.Kind, prev
					}
				}
			}
			open = append(open, p)
		case grammar.RPAREN, grammar.RBRACK:
			if n := len(open); n > 0 {
				open = open[:n-1]
			}
		case grammar.COMMA:
			if n := len(open); n > 0 {
				open[n-1].commas++
			}
		}
	}
	for i := len(open) - 1; i >= 0; i-- {
		p := open[i]
		switch p.kind {
		case grammar.ILLEGAL:
			continue
		case grammar.SPAWN, grammar.IDENT:
			want := analysis.Proc
			if p.kind == grammar.IDENT {
				want = analysis.Func
			}
			obj := objectNamed(prog, p.name, want)
			if obj == nil {
				return nil, false
			}
			label, params := signatureLabel(obj)
			return &Signature{Label: label, Params: params, Active: p.commas}, true
		default:
			b := builtins[p.kind]
			label, params := builtinLabel(p.name.Text, b.params, b.result)
			return &Signature{Label: label, Params: params, Active: p.commas}, true
		}
	}
	return nil, false
}

// builtinLabel renders a built-in's signature: "wait(cv cond, m mutex)".
func builtinLabel(name string, params []string, result string) (string, []SignatureParam) {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	var out []SignatureParam
	for i, p := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		pname, _, _ := strings.Cut(p, " ")
		out = append(out, SignatureParam{Name: pname, Start: b.Len(), End: b.Len() + len(p)})
		b.WriteString(p)
	}
	b.WriteByte(')')
	if result != "" {
		b.WriteString(" " + result)
	}
	return b.String(), out
}

// objectNamed returns the proc or function (kind) that a spawn's or a
// call's name token denotes.
func objectNamed(prog *analysis.Program, name grammar.Token, kind analysis.ObjKind) *analysis.Object {
	for id, obj := range prog.Uses {
		if id.NamePos.Offset == name.Pos.Offset {
			if obj.Kind == kind {
				return obj
			}
			return nil
		}
	}
	if obj := prog.Lookup(name.Text); obj != nil && obj.Kind == kind {
		return obj
	}
	return nil
}

// signatureLabel renders "p(i int, up bool)" (a function's with its
// result: "f(a int) bool") and where each parameter is in it.
func signatureLabel(proc *analysis.Object) (string, []SignatureParam) {
	var b strings.Builder
	b.WriteString(proc.Name)
	b.WriteByte('(')
	units := utf16Len(proc.Name) + 1
	params := make([]SignatureParam, 0, len(proc.Params))
	for i, p := range proc.Params {
		if i > 0 {
			b.WriteString(", ")
			units += 2
		}
		text := p.Name
		if t := declaredType(p); t != "" {
			text += " " + t
		}
		b.WriteString(text)
		n := utf16Len(text)
		params = append(params, SignatureParam{Name: p.Name, Start: units, End: units + n})
		units += n
	}
	b.WriteByte(')')
	if proc.Kind == analysis.Func && proc.HasResult() {
		if d, ok := proc.Decl.(*grammar.FuncDecl); ok {
			if proc.Result != nil {
				b.WriteString(" " + proc.Result.String())
			} else if t := typeSyntax(d.Result); t != "" {
				b.WriteString(" " + t)
			}
		}
	}
	return b.String(), params
}
