package query

import (
	"unicode/utf8"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// Completion is one proposal of Complete.
type Completion struct {
	Label  string
	Kind   Kind
	Detail string // see describe; "" for keywords and types
}

// Complete proposes what may be typed at pos: the names visible there
// that fit (innermost first; an inner name hides an outer one), then
// keywords. It also returns the range of the partial name before pos that
// a chosen proposal replaces (empty when pos follows no name).
//
// What fits is read from the tokens before the cursor, not from the tree,
// so that it works on the text as it is being typed:
//
//   - at the start of a statement in a body: the assignable variables, the
//     functions (a call is a statement) and the statement keywords (break
//     and continue only in a loop; none of lock, unlock, spawn, join,
//     return, atomic, wait, signal, broadcast and await inside atomic); at
//     top level the declaration keywords; after `}` on the same line,
//     else;
//   - in an expression: the values in scope (constants, variables, loop
//     variables, thread indexes, threads as tid values, functions) and
//     true, false, trylock and choose (neither inside atomic, neither in an
//     await condition, no choose in a while condition); spawn after `=` in
//     a body; only constants where a constant is needed (a constant's
//     value, a shared variable's initialiser, an array length, a thread
//     array's bounds, the bounds of a choose);
//   - the mutexes in lock(…), unlock(…) and trylock(…), the condition
//     variables in signal(…), broadcast(…) and as wait's first argument,
//     the mutexes as its second, the procs after spawn, the threads and tid
//     variables after join, the types after var NAME (and atomic at top
//     level), after a parameter's name and after a function's `)`, in
//     after for I and after thread NAME[I.
//
// Nothing is proposed inside a comment, a string or a number, nor where a
// new name is being declared.
func Complete(src *source.File, prog *analysis.Program, pos source.Pos) ([]Completion, source.Range) {
	if src == nil {
		return nil, source.Range{}
	}
	text := src.Text
	off := min(max(pos.Offset, 0), len(text))
	start := off
	for start > 0 {
		r, size := utf8.DecodeLastRune(text[:start])
		if !isIdentPart(r) {
			break
		}
		start -= size
	}
	replace := source.Range{Start: src.Pos(start), End: src.Pos(off)}
	if start < off {
		if r, _ := utf8.DecodeRune(text[start:]); !isIdentStart(r) {
			return nil, replace // inside a number
		}
	}
	toks, ok := tokensBefore(text, start, off)
	if !ok {
		return nil, replace
	}
	tree := buildScopes(prog, text)
	c := completer{scope: tree.innermost(start), off: start, declaring: -1, constsBefore: -1}
	c.context(toks)
	return c.items, replace
}

// tokensBefore returns the tokens that end at or before offset start,
// comments left out and inserted semicolons kept; false if offset off is
// inside a comment or a string.
func tokensBefore(text []byte, start, off int) ([]grammar.Token, bool) {
	sc := grammar.NewScanner(text)
	var toks []grammar.Token
	for {
		t := sc.Next()
		if t.Kind == grammar.EOF || t.Pos.Offset >= start {
			return toks, true
		}
		switch t.Kind {
		case grammar.COMMENT:
			lineComment := len(t.Text) > 1 && t.Text[1] == '/'
			if off < t.End.Offset || off == t.End.Offset && lineComment {
				return nil, false
			}
			continue
		case grammar.STRING:
			closed := len(t.Text) > 1 && t.Text[len(t.Text)-1] == '"'
			if off < t.End.Offset || off == t.End.Offset && !closed {
				return nil, false
			}
		}
		if t.End.Offset > start {
			return toks, true
		}
		toks = append(toks, t)
	}
}

type completer struct {
	scope *scope
	off   int
	items []Completion
	// declaring is the offset of the name that the current statement
	// declares (var NAME, const NAME), which its own initialiser cannot
	// use; -1 if none.
	declaring int
	// constsBefore, when non-negative, admits only the constants declared
	// before it: a constant's value can use only earlier constants.
	constsBefore int
	// noChoose and noTrylock leave choose and trylock out of expressions
	// (a while condition, an await condition).
	noChoose, noTrylock bool
}

// The groups of keywords proposed together.
var (
	declKeywords = []string{"const", "var", "thread", "proc", "func"}
	stmtKeywords = []string{"var", "if", "while", "for", "assert", "assume",
		"lock", "unlock", "spawn", "join", "atomic", "return",
		"wait", "signal", "broadcast", "await"}
	loopKeywords = []string{"break", "continue"}
)

// notInAtomic are the statements an atomic block may not contain.
var notInAtomic = map[string]bool{"lock": true, "unlock": true, "spawn": true, "join": true, "atomic": true, "return": true,
	"wait": true, "signal": true, "broadcast": true, "await": true}

func (c *completer) keywords(words ...string) {
	for _, w := range words {
		c.items = append(c.items, Completion{Label: w, Kind: KindKeyword})
	}
}

func (c *completer) types(words ...string) {
	for _, w := range words {
		c.items = append(c.items, Completion{Label: w, Kind: KindType})
	}
}

// names proposes the visible objects that keep is true for.
func (c *completer) names(keep func(*analysis.Object) bool) {
	visible(c.scope, c.off, func(obj *analysis.Object) {
		at := obj.Ident.NamePos.Offset
		if at == c.declaring || c.constsBefore >= 0 && obj.Kind == analysis.Const && at >= c.constsBefore {
			return
		}
		if keep(obj) {
			c.items = append(c.items, Completion{Label: obj.Name, Kind: kindOf(obj), Detail: describe(obj)})
		}
	})
}

func isMutex(obj *analysis.Object) bool {
	return obj.Kind == analysis.SharedVar && analysis.ScalarOf(obj.Type) == analysis.Mutex
}

func isCond(obj *analysis.Object) bool {
	return obj.Kind == analysis.SharedVar && analysis.ScalarOf(obj.Type) == analysis.Cond
}

// isValue: what an expression may name (procs, mutexes and condition
// variables are not values; functions with a result are called in one).
func isValue(obj *analysis.Object) bool {
	if obj.Kind == analysis.Func {
		return obj.HasResult()
	}
	return obj.Kind != analysis.Proc && obj.Kind != analysis.BadObj && !isMutex(obj) && !isCond(obj)
}

func isFunc(obj *analysis.Object) bool { return obj.Kind == analysis.Func }

func isConst(obj *analysis.Object) bool { return obj.Kind == analysis.Const }

func isAssignable(obj *analysis.Object) bool {
	switch obj.Kind {
	case analysis.SharedVar, analysis.LocalVar, analysis.Param:
		return !isMutex(obj) && !isCond(obj)
	}
	return false
}

func isJoinable(obj *analysis.Object) bool {
	return obj.Kind == analysis.Thread || isValue(obj) && obj.Type != nil && analysis.ScalarOf(obj.Type) == analysis.Tid
}

func isProc(obj *analysis.Object) bool { return obj.Kind == analysis.Proc }

// expression proposes what an expression may hold here.
func (c *completer) expression() {
	if !c.scope.body {
		c.constExpression()
		return
	}
	c.names(isValue)
	c.keywords("true", "false")
	if !c.scope.atomic {
		if !c.noTrylock {
			c.keywords("trylock")
		}
		if !c.noChoose {
			c.keywords("choose")
		}
	}
}

func (c *completer) constExpression() {
	c.names(isConst)
	c.keywords("true", "false")
}

// bracket is an open parenthesis, bracket or initialiser-list brace.
type bracket struct {
	kind grammar.Kind
	at   int // index in the tokens
}

// context reads the tokens before the cursor and proposes what fits.
func (c *completer) context(toks []grammar.Token) {
	// One forward pass: where the current statement starts, and the
	// brackets open in it. A `{` after `=`, `,` or another list's `{`
	// opens an initialiser list; any other ends a statement.
	stmt := 0
	var open []bracket
	var lists []bool // for each open `{`: an initialiser list?
	endStmt := func(i int) {
		// Initialiser lists left open end with their statement.
		for len(lists) > 0 && lists[len(lists)-1] {
			lists = lists[:len(lists)-1]
		}
		stmt, open = i+1, open[:0]
	}
	for i, t := range toks {
		switch t.Kind {
		case grammar.SEMICOLON:
			endStmt(i)
		case grammar.LPAREN, grammar.LBRACK:
			open = append(open, bracket{t.Kind, i})
		case grammar.RPAREN, grammar.RBRACK:
			if n := len(open); n > 0 && open[n-1].kind != grammar.LBRACE {
				open = open[:n-1]
			}
		case grammar.LBRACE:
			list := i > 0 && (toks[i-1].Kind == grammar.ASSIGN || toks[i-1].Kind == grammar.COMMA ||
				toks[i-1].Kind == grammar.LBRACE && len(lists) > 0 && lists[len(lists)-1])
			if list {
				open = append(open, bracket{t.Kind, i})
			} else {
				endStmt(i)
			}
			lists = append(lists, list)
		case grammar.RBRACE:
			list := false
			if n := len(lists); n > 0 {
				list = lists[n-1]
				lists = lists[:n-1]
			}
			if n := len(open); list && n > 0 && open[n-1].kind == grammar.LBRACE {
				open = open[:n-1]
			} else if !list {
				endStmt(i)
			}
		}
	}
	cur := toks[stmt:]
	if len(cur) == 0 {
		c.statementStart(toks)
		return
	}
	last := cur[len(cur)-1].Kind
	switch first := cur[0].Kind; {
	case (first == grammar.VAR || first == grammar.CONST) && len(cur) > 1:
		c.declaring = cur[1].Pos.Offset
		if first == grammar.CONST {
			c.constsBefore = cur[0].Pos.Offset
		}
	case first == grammar.WHILE:
		c.noChoose = true
	case first == grammar.AWAIT:
		c.noChoose, c.noTrylock = true, true
	}
	if last == grammar.CHOOSE || inChooseBounds(cur) {
		// The bounds of a choose are constants.
		c.constExpression()
		return
	}
	if n := len(open); n > 0 {
		switch {
		case c.inBrackets(toks, cur, open[n-1]):
		case last == grammar.SPAWN:
			c.names(isProc)
		case !endsOperand(last):
			c.expression()
		}
		return
	}
	hasAssign := hasKind(cur, grammar.ASSIGN)
	switch first := cur[0].Kind; {
	case last == grammar.SPAWN:
		c.names(isProc)
	case last == grammar.ELSE:
		c.keywords("if")
	case first == grammar.VAR:
		switch {
		case len(cur) == 1:
			// A new name.
		case hasAssign:
			if !endsOperand(last) {
				c.expression()
				if last == grammar.ASSIGN && c.scope.body {
					c.keywords("spawn")
				}
			}
		case c.scope.body && (len(cur) == 2 || last == grammar.RBRACK):
			c.types("int", "bool", "tid")
		case !c.scope.body && len(cur) == 2:
			c.keywords("atomic")
			c.types("int", "bool", "mutex", "tid", "cond")
		case !c.scope.body && (last == grammar.ATOMIC || last == grammar.RBRACK):
			c.types("int", "bool", "mutex", "tid", "cond")
		}
	case first == grammar.CONST:
		if hasAssign && !endsOperand(last) {
			c.constExpression()
		}
	case first == grammar.FUNC:
		if last == grammar.RPAREN {
			c.types("int", "bool", "tid") // the result
		}
	case first == grammar.THREAD, first == grammar.PROC:
		// A name, or the header's parts (see inBrackets).
	case first == grammar.RETURN && len(cur) == 1:
		if c.scope.fn {
			c.expression()
		}
	case first == grammar.FOR:
		switch {
		case len(cur) == 1:
		case len(cur) == 2 && last == grammar.IDENT:
			c.keywords("in")
		case !endsOperand(last):
			c.expression()
		}
	case endsOperand(last):
		// An operator or the end of the statement comes next.
	case first == grammar.JOIN && len(cur) == 1:
		c.names(isJoinable)
	case first == grammar.LOCK, first == grammar.UNLOCK, first == grammar.WAIT,
		first == grammar.SIGNAL, first == grammar.BROADCAST:
		// The mutex or condition variable goes in parentheses (see
		// inBrackets).
	default:
		c.expression()
		if last == grammar.ASSIGN && c.scope.body {
			c.keywords("spawn")
		}
	}
}

// endsOperand reports whether a token of kind k ends an operand, so that
// a name cannot follow it.
func endsOperand(k grammar.Kind) bool {
	switch k {
	case grammar.IDENT, grammar.INT, grammar.STRING, grammar.TRUE, grammar.FALSE,
		grammar.RPAREN, grammar.RBRACK, grammar.RBRACE,
		grammar.INT_TYPE, grammar.BOOL_TYPE, grammar.MUTEX_TYPE, grammar.TID_TYPE, grammar.COND_TYPE,
		grammar.INC, grammar.DEC, grammar.RETURN, grammar.BREAK, grammar.CONTINUE:
		return true
	}
	return false
}

// inChooseBounds reports whether the end of the statement's tokens cur is
// in the bounds of a choose: after `choose` and within the brackets open
// at it (a choose's upper bound extends as far as its expression).
func inChooseBounds(cur []grammar.Token) bool {
	for i := len(cur) - 1; i >= 0; i-- {
		if cur[i].Kind != grammar.CHOOSE {
			continue
		}
		depth := 0
		for _, t := range cur[i+1:] {
			switch t.Kind {
			case grammar.LPAREN, grammar.LBRACK:
				depth++
			case grammar.RPAREN, grammar.RBRACK, grammar.COMMA:
				if depth == 0 {
					return false // the choose is over: closed or an argument ended
				}
				if t.Kind != grammar.COMMA {
					depth--
				}
			}
		}
		return true
	}
	return false
}

// statementStart proposes what may start a statement or a declaration.
func (c *completer) statementStart(toks []grammar.Token) {
	if n := len(toks); n > 0 && toks[n-1].Kind == grammar.RBRACE {
		// Right after `}` on the same line: only else can follow.
		if c.scope.body {
			c.keywords("else")
		}
		return
	}
	if !c.scope.body {
		c.keywords(declKeywords...)
		return
	}
	c.names(func(obj *analysis.Object) bool { return isAssignable(obj) || isFunc(obj) })
	for _, w := range stmtKeywords {
		if !c.scope.atomic || !notInAtomic[w] {
			c.keywords(w)
		}
	}
	if c.scope.loop {
		c.keywords(loopKeywords...)
	}
}

// inBrackets proposes what fits inside the open bracket b of the current
// statement cur, if it knows; it reports whether it did.
func (c *completer) inBrackets(toks, cur []grammar.Token, b bracket) bool {
	before := func(i int) grammar.Kind {
		if j := b.at - i; j >= 0 {
			return toks[j].Kind
		}
		return grammar.ILLEGAL
	}
	last := cur[len(cur)-1].Kind
	after := len(toks) - 1 - b.at // tokens after the bracket
	switch {
	case b.kind == grammar.LPAREN && (before(1) == grammar.LOCK || before(1) == grammar.UNLOCK || before(1) == grammar.TRYLOCK):
		if after == 0 {
			c.names(isMutex)
		} else if !endsOperand(last) {
			c.expression()
		}
		return true
	case b.kind == grammar.LPAREN && (before(1) == grammar.SIGNAL || before(1) == grammar.BROADCAST || before(1) == grammar.WAIT):
		switch {
		case after == 0:
			c.names(isCond)
		case before(1) == grammar.WAIT && last == grammar.COMMA && !hasKind(toks[b.at+1:len(toks)-1], grammar.COMMA):
			c.names(isMutex)
		case !endsOperand(last):
			c.expression()
		}
		return true
	case b.kind == grammar.LPAREN && before(1) == grammar.IDENT && (before(2) == grammar.PROC || before(2) == grammar.FUNC):
		// Parameters: NAME TYPE, …
		switch {
		case last == grammar.IDENT || last == grammar.RBRACK:
			if before(2) == grammar.FUNC {
				c.types("int", "bool", "tid")
			} else {
				c.types("int", "bool")
			}
		case last == grammar.LBRACK:
			c.constExpression()
		}
		return true
	case b.kind == grammar.LBRACK && cur[0].Kind == grammar.THREAD:
		// thread NAME[I in LO..HI]
		switch {
		case after == 0:
		case after == 1 && last == grammar.IDENT:
			c.keywords("in")
		case !endsOperand(last):
			c.constExpression()
		}
		return true
	case b.kind == grammar.LBRACK && (cur[0].Kind == grammar.VAR && !hasKind(cur, grammar.ASSIGN) ||
		cur[0].Kind == grammar.PROC || cur[0].Kind == grammar.FUNC):
		// An array length in a type.
		if !endsOperand(last) {
			c.constExpression()
		}
		return true
	}
	return false
}

func hasKind(toks []grammar.Token, k grammar.Kind) bool {
	for _, t := range toks {
		if t.Kind == k {
			return true
		}
	}
	return false
}
