package query

import (
	"strconv"
	"strings"
	"unicode"

	"weft/analysis"
	"weft/grammar"
)

// Kind says what a symbol or a completion names.
type Kind uint8

// The kinds of names, and the two kinds of completions that are not names.
const (
	KindConst       Kind = iota + 1 // const N = …
	KindSharedVar                   // a top-level var (mutexes included)
	KindThread                      // thread NAME { … }
	KindThreadArray                 // thread NAME[I in LO..HI] { … }
	KindProc                        // proc NAME(…) { … }
	KindLocal                       // a var inside a body
	KindParam                       // a proc parameter
	KindLoopVar                     // the variable of a for loop
	KindThreadIndex                 // the I of thread NAME[I in LO..HI]
	KindKeyword                     // a keyword (completion only)
	KindType                        // int, bool, mutex, tid, cond (completion only)
	KindFunc                        // func NAME(…) [T] { … }
)

var kindNames = [...]string{
	KindConst:       "constant",
	KindSharedVar:   "shared variable",
	KindThread:      "thread",
	KindThreadArray: "thread array",
	KindProc:        "proc",
	KindLocal:       "local variable",
	KindParam:       "parameter",
	KindLoopVar:     "loop variable",
	KindThreadIndex: "thread index",
	KindKeyword:     "keyword",
	KindType:        "type",
	KindFunc:        "function",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// kindOf returns the Kind of an object (0 for a bad one).
func kindOf(obj *analysis.Object) Kind {
	switch obj.Kind {
	case analysis.Const:
		return KindConst
	case analysis.SharedVar:
		return KindSharedVar
	case analysis.Thread:
		if obj.IsArray {
			return KindThreadArray
		}
		return KindThread
	case analysis.Proc:
		return KindProc
	case analysis.Func:
		return KindFunc
	case analysis.LocalVar:
		return KindLocal
	case analysis.Param:
		return KindParam
	case analysis.LoopVar:
		return KindLoopVar
	case analysis.ThreadIndex:
		return KindThreadIndex
	}
	return 0
}

// describe is the short detail shown beside a name in the outline and in
// completion lists: a constant's value ("= 8"), a variable's type ("int",
// "atomic int", "[4]mutex"), the instances of a thread array ("0..4"), a
// proc's parameters ("(i int, up bool)"), a function's parameters and
// result ("(a int, b int) int"); "" when there is nothing to say.
func describe(obj *analysis.Object) string {
	switch obj.Kind {
	case analysis.Const:
		if obj.Value.IsValid() {
			return "= " + obj.Value.String()
		}
		return ""
	case analysis.SharedVar:
		t := declaredType(obj)
		if obj.Atomic {
			return "atomic " + t
		}
		return t
	case analysis.LocalVar, analysis.Param:
		return declaredType(obj)
	case analysis.LoopVar, analysis.ThreadIndex:
		return "int"
	case analysis.Thread:
		if !obj.IsArray {
			return ""
		}
		if obj.Type != nil {
			return strconv.FormatInt(obj.Lo, 10) + ".." + strconv.FormatInt(obj.Hi, 10)
		}
		if d, ok := obj.Decl.(*grammar.ThreadDecl); ok && d.Lo != nil && d.Hi != nil {
			return analysis.ExprString(d.Lo) + ".." + analysis.ExprString(d.Hi)
		}
		return ""
	case analysis.Proc, analysis.Func:
		return paramList(obj)
	}
	return ""
}

// declaredType is a variable's or parameter's type: the checked type, or
// when that is invalid the type as written.
func declaredType(obj *analysis.Object) string {
	if obj.Type != nil {
		return obj.Type.String()
	}
	switch d := obj.Decl.(type) {
	case *grammar.VarDecl:
		return typeSyntax(d.Type)
	case *grammar.Param:
		return typeSyntax(d.Type)
	}
	return ""
}

// typeSyntax renders a type expression as written (array lengths briefly).
func typeSyntax(te grammar.TypeExpr) string {
	var b strings.Builder
	for {
		switch t := te.(type) {
		case *grammar.NamedType:
			b.WriteString(t.Kind.String())
			return b.String()
		case *grammar.ArrayType:
			if t == nil {
				return b.String()
			}
			b.WriteByte('[')
			if t.Len != nil {
				b.WriteString(analysis.ExprString(t.Len))
			}
			b.WriteByte(']')
			te = t.Elem
		default:
			if b.Len() > 0 {
				b.WriteByte('?')
			}
			return b.String()
		}
	}
}

// paramList renders a proc's parameters, "(i int, up bool)", or a
// function's parameters and result, "(a int, b int) int".
func paramList(proc *analysis.Object) string {
	label, _ := signatureLabel(proc)
	return strings.TrimPrefix(label, proc.Name)
}

// isIdentStart and isIdentPart follow the scanner's rules for names.
func isIdentStart(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80 && unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || '0' <= r && r <= '9' || r >= 0x80 && unicode.IsDigit(r)
}

// utf16Len counts the UTF-16 code units of s (invalid bytes count one, as
// in source.UTF16Len).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
