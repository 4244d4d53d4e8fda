package query

import (
	"strings"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// Signature is what signature help shows inside `spawn p(…)`.
type Signature struct {
	Label  string // "p(i int, up bool)"
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

// SignatureHelp returns the signature of the proc whose spawn arguments
// the cursor is in (`spawn p(a, ‸b)`), and false when it is in none or
// the proc is unknown. It reads the tokens before the cursor, so it works
// while the call is being typed.
func SignatureHelp(src *source.File, prog *analysis.Program, pos source.Pos) (*Signature, bool) {
	if src == nil || prog == nil {
		return nil, false
	}
	off := min(max(pos.Offset, 0), len(src.Text))
	toks, ok := tokensBefore(src.Text, off, off)
	if !ok {
		return nil, false
	}
	// The innermost open `(` of a spawn in the current statement, and the
	// commas at its level.
	type paren struct {
		spawn  bool
		name   grammar.Token
		commas int
	}
	var open []paren
	for i, t := range toks {
		switch t.Kind {
		case grammar.SEMICOLON, grammar.LBRACE, grammar.RBRACE:
			open = open[:0]
		case grammar.LPAREN, grammar.LBRACK:
			p := paren{}
			if t.Kind == grammar.LPAREN && i >= 2 && toks[i-1].Kind == grammar.IDENT && toks[i-2].Kind == grammar.SPAWN {
				p.spawn, p.name = true, toks[i-1]
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
		if !p.spawn {
			continue
		}
		proc := procNamed(prog, p.name)
		if proc == nil {
			return nil, false
		}
		label, params := signatureLabel(proc)
		return &Signature{Label: label, Params: params, Active: p.commas}, true
	}
	return nil, false
}

// procNamed returns the proc that the spawn's name token denotes.
func procNamed(prog *analysis.Program, name grammar.Token) *analysis.Object {
	for id, obj := range prog.Uses {
		if id.NamePos.Offset == name.Pos.Offset {
			if obj.Kind == analysis.Proc {
				return obj
			}
			return nil
		}
	}
	if obj := prog.Lookup(name.Text); obj != nil && obj.Kind == analysis.Proc {
		return obj
	}
	return nil
}

// signatureLabel renders "p(i int, up bool)" and where each parameter is
// in it.
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
	return b.String(), params
}
