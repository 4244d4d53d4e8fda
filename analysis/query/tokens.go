package query

import (
	"strconv"
	"strings"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// TokenType classifies a semantic token. Names are classified by what
// they resolve to; the rest by their lexical kind. The values are dense
// from 0, so that a server can use them as indexes into its legend
// (TokenTypes lists them, String names them).
type TokenType uint8

// The token types.
const (
	TokKeyword     TokenType = iota // const, var, thread, if, true, …
	TokType                         // int, bool, mutex, tid, cond
	TokNumber                       // 42, 0x2A
	TokString                       // "…" (assert messages)
	TokComment                      // one line of a comment
	TokOperator                     // + - * / % && || ! == != < <= > >= = += -= ++ -- ..
	TokSharedVar                    // a shared variable that is not atomic and not a mutex (condition variables included)
	TokAtomicVar                    // a shared variable declared atomic
	TokMutex                        // a mutex or array of mutexes
	TokConst                        // a constant
	TokLocal                        // a local variable or loop variable
	TokParameter                    // a proc parameter
	TokThreadIndex                  // the index of a thread array
	TokThread                       // a thread or thread array
	TokProc                         // a proc
	TokFunc                         // a function
	numTokenTypes
)

var tokenTypeNames = [...]string{
	TokKeyword:     "keyword",
	TokType:        "type",
	TokNumber:      "number",
	TokString:      "string",
	TokComment:     "comment",
	TokOperator:    "operator",
	TokSharedVar:   "sharedVariable",
	TokAtomicVar:   "atomicVariable",
	TokMutex:       "mutex",
	TokConst:       "constant",
	TokLocal:       "localVariable",
	TokParameter:   "parameter",
	TokThreadIndex: "threadIndex",
	TokThread:      "thread",
	TokProc:        "proc",
	TokFunc:        "function",
}

// standardTypes is the LSP standard token type each type refines, for
// clients that know only those.
var standardTypes = [...]string{
	TokKeyword:     "keyword",
	TokType:        "type",
	TokNumber:      "number",
	TokString:      "string",
	TokComment:     "comment",
	TokOperator:    "operator",
	TokSharedVar:   "variable",
	TokAtomicVar:   "variable",
	TokMutex:       "variable",
	TokConst:       "variable",
	TokLocal:       "variable",
	TokParameter:   "parameter",
	TokThreadIndex: "parameter",
	TokThread:      "function",
	TokProc:        "function",
	TokFunc:        "function",
}

// TokenTypes returns every token type, in value order.
func TokenTypes() []TokenType {
	ts := make([]TokenType, numTokenTypes)
	for i := range ts {
		ts[i] = TokenType(i)
	}
	return ts
}

// String is the type's name in a semantic-token legend ("sharedVariable").
func (t TokenType) String() string {
	if int(t) < len(tokenTypeNames) {
		return tokenTypeNames[t]
	}
	return "tokenType(" + strconv.Itoa(int(t)) + ")"
}

// Standard is the LSP standard token type that t refines ("variable" for
// sharedVariable), for a legend restricted to the standard names.
func (t TokenType) Standard() string {
	if int(t) < len(standardTypes) {
		return standardTypes[t]
	}
	return ""
}

// TokenMods is a set of token modifiers. Bit i is the modifier of value
// 1<<i, so that a server can use the set as its bit mask when its legend
// lists TokenModNames in order.
type TokenMods uint8

// The token modifiers.
const (
	ModDeclaration  TokenMods = 1 << iota // the name's declaration
	ModReadonly                           // a constant, loop variable or thread index
	ModModification                       // a variable written here (see Highlights)
)

// TokenModNames returns the modifiers' names in bit order (LSP's standard
// names).
func TokenModNames() []string { return []string{"declaration", "readonly", "modification"} }

func (m TokenMods) String() string {
	var parts []string
	for i, name := range TokenModNames() {
		if m&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ",")
}

// Token is one semantic token. Its Range never spans lines.
type Token struct {
	Range source.Range
	Type  TokenType
	Mods  TokenMods
}

// SemanticTokens classifies the tokens of the file, in source order:
// every name that resolves (by what it denotes), keywords, type names,
// numbers, strings, operators and comments (one token per line of a
// multi-line comment, so that clients without multi-line tokens can use
// them). Punctuation, names that do not resolve and illegal characters get
// no token.
func SemanticTokens(src *source.File, prog *analysis.Program) []Token {
	if src == nil {
		return nil
	}
	idents := make(map[int]*analysis.Object)
	if prog != nil {
		for id, obj := range prog.Uses {
			idents[id.NamePos.Offset] = obj
		}
	}
	sc := grammar.NewScanner(src.Text)
	var out []Token
	writeAt := writeOffsets(prog)
	for {
		t := sc.Next()
		switch {
		case t.Kind == grammar.EOF:
			return out
		case t.Kind == grammar.COMMENT:
			out = appendCommentLines(out, t)
		case t.Kind == grammar.IDENT || t.Kind.IsKeyword() && idents[t.Pos.Offset] != nil:
			// (A keyword that the parser took as a name, after reporting
			// it, is classified as the name.)
			obj := idents[t.Pos.Offset]
			if obj == nil {
				continue
			}
			tok := Token{Range: tokRange(t), Type: nameType(obj)}
			if obj.Ident != nil && obj.Ident.NamePos.Offset == t.Pos.Offset {
				tok.Mods |= ModDeclaration
			}
			switch obj.Kind {
			case analysis.Const, analysis.LoopVar, analysis.ThreadIndex:
				tok.Mods |= ModReadonly
			}
			if writeAt[t.Pos.Offset] {
				tok.Mods |= ModModification
			}
			out = append(out, tok)
		case t.Kind.IsType():
			out = append(out, Token{Range: tokRange(t), Type: TokType})
		case t.Kind.IsKeyword():
			out = append(out, Token{Range: tokRange(t), Type: TokKeyword})
		case t.Kind == grammar.INT:
			out = append(out, Token{Range: tokRange(t), Type: TokNumber})
		case t.Kind == grammar.STRING:
			out = append(out, Token{Range: tokRange(t), Type: TokString})
		case grammar.ADD <= t.Kind && t.Kind <= grammar.DEC || t.Kind == grammar.RANGE:
			out = append(out, Token{Range: tokRange(t), Type: TokOperator})
		}
	}
}

func tokRange(t grammar.Token) source.Range { return source.Range{Start: t.Pos, End: t.End} }

// writeOffsets returns the offsets of the identifiers that statements
// write (see writeTargets).
func writeOffsets(prog *analysis.Program) map[int]bool {
	m := make(map[int]bool)
	if prog == nil {
		return m
	}
	for id := range writeTargets(prog.File) {
		m[id.NamePos.Offset] = true
	}
	return m
}

// nameType classifies a name by the object it denotes.
func nameType(obj *analysis.Object) TokenType {
	switch obj.Kind {
	case analysis.Const:
		return TokConst
	case analysis.SharedVar:
		switch {
		case analysis.ScalarOf(obj.Type) == analysis.Mutex:
			return TokMutex
		case obj.Atomic:
			return TokAtomicVar
		}
		return TokSharedVar
	case analysis.LocalVar, analysis.LoopVar:
		return TokLocal
	case analysis.Param:
		return TokParameter
	case analysis.ThreadIndex:
		return TokThreadIndex
	case analysis.Thread:
		return TokThread
	case analysis.Proc:
		return TokProc
	case analysis.Func:
		return TokFunc
	}
	return TokLocal
}

// appendCommentLines appends one comment token per non-empty line of the
// comment t (a /* */ comment may span lines; a line's \r is left out).
func appendCommentLines(out []Token, t grammar.Token) []Token {
	start := t.Pos
	text := t.Text
	for {
		line, rest, more := strings.Cut(text, "\n")
		line = strings.TrimSuffix(line, "\r")
		if line != "" {
			end := source.Pos{Offset: start.Offset + len(line), Line: start.Line, Col: start.Col + utf16Len(line)}
			out = append(out, Token{Range: source.Range{Start: start, End: end}, Type: TokComment})
		}
		if !more {
			return out
		}
		start = source.Pos{Offset: start.Offset + len(text) - len(rest), Line: start.Line + 1, Col: 0}
		text = rest
	}
}
