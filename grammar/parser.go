package grammar

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"weft/source"
)

// Diagnostic codes of the parser (the lexer's are in scanner.go).
const (
	// CodeKeywordAsName: a keyword written where a name is declared or
	// used (`var lock int`); the message says to rename it.
	CodeKeywordAsName = "keyword-as-name"
	// CodeReservedKeyword is no longer reported: version 1 reserved
	// cond, wait, signal, broadcast, choose and await for version 2,
	// which gives them their meaning.
	CodeReservedKeyword = "reserved-keyword"
	CodeNestingTooDeep  = "nesting-too-deep"
)

// MaxNesting is how deep the syntax tree of a file may be, counted in
// levels: every block, parenthesis, unary operator, binary operator, index
// `[…]`, array type `[N]` and initialiser list is one level below the
// construct it is written in. A chain of binary operators or of indexes
// nests as the tree does, one level per operator or index (`a + b + c` is
// two levels, `g[i][j]` two), while an `else if` stays at the level of the
// `if` it continues. Deeper input is reported with code nesting-too-deep
// and the rest of the file is skipped. So no tree the parser returns is
// deeper than this, and every later pass may recurse on the tree (except
// along else-if chains, which have no bound and must be walked in a loop)
// without exhausting the stack.
const MaxNesting = 1000

// ParseFile parses one Weft source file. It never fails and never panics:
// whatever src holds, it returns a tree (with Bad… nodes and empty names
// where the text could not be parsed) and the lexical and syntax errors
// found, in source order, at most one per line. filename is not used for
// positions; it is accepted so that callers can keep one signature.
//
// Where a closing token (`)`, `]`, `}`) is missing, its position field is
// set to the start of the last character of the token before, so that the
// node's End (one byte further) is the end of its last real token and
// stays inside the file. (If that character is not ASCII, End falls inside
// it, at the offset whose line and column source.File.Pos gives as just
// after it, for characters outside the BMP one UTF-16 unit short.)
// A missing name, expression or type is a zero-width Ident (Name "") or
// BadExpr at the end of the token before.
func ParseFile(filename string, src []byte) (*File, []source.Diagnostic) {
	_ = filename
	p := &parser{sc: NewScanner(src)}
	p.next()
	f := p.parseFile()
	// Errors come in source order (a token read ahead can report a
	// lexical error before the parser reports one on the token before).
	sort.SliceStable(p.diags, func(i, j int) bool {
		return p.diags[i].Range.Start.Offset < p.diags[j].Range.Start.Offset
	})
	return f, p.diags
}

type parser struct {
	sc    *Scanner
	scErr int // scanner errors already taken over

	tok     Token // current token (never a COMMENT)
	prev    Token // last consumed token other than an inserted semicolon
	hasPrev bool
	ahead   []Token // tokens read by peek, not yet current

	comments []*Comment

	diags    []source.Diagnostic
	attempts int // errors reported, including those dropped as same-line
	errLines map[int]bool

	depth    int
	bailed   bool   // nesting too deep: the rest of the file is skipped
	eofQuiet bool   // an unterminated comment already explains the EOF
	declCol  int    // column of the current top-level declaration keyword
	bodyKind string // "thread", "proc" or "func": the body being parsed
	started  bool   // next has been called once
}

// ---------------------------------------------------------------------------
// Tokens

// read returns the next non-comment token from the scanner, collecting
// comments and lexical errors.
func (p *parser) read() Token {
	for {
		t := p.sc.Next()
		if errs := p.sc.errs; len(errs) > p.scErr {
			for _, d := range errs[p.scErr:] {
				if d.Code == CodeUnterminatedComment {
					p.eofQuiet = true
				}
				p.report(d)
			}
			p.scErr = len(errs)
		}
		if t.Kind == COMMENT {
			p.comments = append(p.comments, &Comment{Start: t.Pos, Stop: t.End, Text: t.Text})
			continue
		}
		return t
	}
}

// next consumes the current token. At the end of the file it stays on EOF.
func (p *parser) next() {
	if p.started {
		if p.tok.Kind == EOF {
			return
		}
		if !p.isNewline() {
			p.prev = p.tok
			p.hasPrev = true
		}
	}
	p.started = true
	if len(p.ahead) > 0 {
		p.tok = p.ahead[0]
		p.ahead = p.ahead[1:]
		return
	}
	p.tok = p.read()
}

// peek returns the token after the current one.
func (p *parser) peek() Token {
	if len(p.ahead) == 0 {
		if p.tok.Kind == EOF {
			return p.tok
		}
		p.ahead = append(p.ahead, p.read())
	}
	return p.ahead[0]
}

func (p *parser) isNewline() bool { return p.tok.Kind == SEMICOLON && p.tok.Text == "\n" }

// lastEnd is the end of the last consumed token: where a missing name or
// expression is placed.
func (p *parser) lastEnd() source.Pos {
	if p.hasPrev {
		return p.prev.End
	}
	return p.tok.Pos
}

// closerPos is the position given to a missing closing token: the start of
// the last character of the previous token, so that advance(pos, 1), which
// the tree uses for End, does not go past that token.
func (p *parser) closerPos() source.Pos {
	if !p.hasPrev || p.prev.Text == "" {
		return p.tok.Pos
	}
	t := p.prev
	r, size := utf8.DecodeLastRuneInString(t.Text)
	w := 1
	if r >= 0x10000 {
		w = 2
	}
	return source.Pos{Offset: t.End.Offset - size, Line: t.End.Line, Col: t.End.Col - w}
}

// ---------------------------------------------------------------------------
// Errors

func (p *parser) report(d source.Diagnostic) {
	p.attempts++
	if p.bailed {
		return
	}
	line := d.Range.Start.Line
	if n := len(p.diags); n > 0 && p.diags[n-1].Range.Start.Line == line || p.errLines[line] {
		return // at most one error per line
	}
	if p.errLines == nil {
		p.errLines = make(map[int]bool)
	}
	p.errLines[line] = true
	p.diags = append(p.diags, d)
}

// errorAt reports an error on token t.
func (p *parser) errorAt(t Token, code, format string, args ...any) {
	if t.Kind == EOF && p.eofQuiet {
		p.attempts++
		return
	}
	p.report(source.Diagnostic{
		Range:    source.Range{Start: t.Pos, End: t.End},
		Severity: source.Error,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
}

func (p *parser) errorf(format string, args ...any) {
	p.errorAt(p.tok, CodeSyntaxError, format, args...)
}

// expected reports "expected WHAT, found TOKEN" at the current token.
func (p *parser) expected(what string) {
	p.errorf("expected %s, found %s", what, tokenDesc(p.tok))
}

// tokenDesc names a token for a message.
func tokenDesc(t Token) string {
	switch t.Kind {
	case EOF:
		return "end of file"
	case SEMICOLON:
		if t.Text == "\n" {
			return "newline"
		}
		return "';'"
	case STRING:
		return "string " + shortenText(t.Text)
	case ILLEGAL:
		return strconv.Quote(shortenText(t.Text))
	case IDENT, INT:
		return "'" + shortenText(t.Text) + "'"
	}
	return "'" + t.Kind.String() + "'"
}

func shortenText(s string) string {
	if len(s) <= 24 {
		return s
	}
	cut := 20
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// expect consumes a token of kind k, or reports it missing without
// consuming anything.
func (p *parser) expect(k Kind) {
	if p.tok.Kind == k {
		p.next()
		return
	}
	p.expected("'" + k.String() + "'")
}

// expectClosing consumes the closing token k and returns its position; if
// it is missing it reports it and returns closerPos.
func (p *parser) expectClosing(k Kind) source.Pos {
	if p.tok.Kind == k {
		pos := p.tok.Pos
		p.next()
		return pos
	}
	p.expected("'" + k.String() + "'")
	return p.closerPos()
}

// Nesting. p.depth counts the levels (see MaxNesting) that enclose what
// is being parsed: blocks, parentheses, unary operators, the brackets of
// an index or array type, initialiser lists, binary operators whose right
// operand is being parsed (and, to bound the recursion, spawns written
// inside a spawn's arguments, which become BadExprs). enter guards that
// recursion. A chain of binary operators or indexes is built in a loop,
// each link wrapping the tree built so far, so the depth of its left
// operand is not known on the way down: the expression parsers return the
// height of what they built (0 for a name or literal, one more than its
// highest child for anything else) and fits checks depth plus height as
// each link is added.

// enter counts one level of nesting; it returns false (after reporting
// the error and skipping the rest of the file) when the limit is passed.
// Callers must call p.depth-- when they leave, whatever enter returned.
func (p *parser) enter() bool {
	p.depth++
	if p.depth <= MaxNesting {
		return true
	}
	p.tooDeep(p.tok)
	return false
}

// fits reports whether a node of height h built at the current depth is
// within MaxNesting; if not, it reports the error at t (the operator or
// bracket that went too deep) and skips the rest of the file.
func (p *parser) fits(h int, t Token) bool {
	if p.depth+h <= MaxNesting {
		return true
	}
	p.tooDeep(t)
	return false
}

func (p *parser) tooDeep(t Token) {
	if p.bailed {
		return
	}
	// This error explains why the rest of the file is not read: it takes
	// the place of an error already on its line, if there is one.
	line := t.Pos.Line
	if n := len(p.diags); n > 0 && p.diags[n-1].Range.Start.Line == line {
		p.diags = p.diags[:n-1]
		delete(p.errLines, line)
	}
	p.errorAt(t, CodeNestingTooDeep,
		"nesting too deep: more than %d levels of blocks, parentheses, brackets and operators "+
			"(each operator of a chain such as a + b + c is one level; split the expression)", MaxNesting)
	p.bailed = true
	for p.tok.Kind != EOF {
		p.next()
	}
}

// cut stands for a node that made the tree too deep: a BadExpr over its
// text, so that no later pass sees the deep tree.
func cut(x Expr) Expr { return &BadExpr{From: x.Pos(), To: x.End()} }

// ---------------------------------------------------------------------------
// Synchronisation

func kindStartsStmt(k Kind) bool {
	switch k {
	case VAR, LOCK, UNLOCK, SPAWN, JOIN, RETURN, ASSERT, ASSUME, ATOMIC,
		IF, WHILE, FOR, BREAK, CONTINUE, WAIT, SIGNAL, BROADCAST, AWAIT:
		return true
	}
	return false
}

// syncDecl skips to the next top-level declaration keyword: const,
// thread, proc and func wherever they are, var when not inside braces
// (where it would declare a local).
func (p *parser) syncDecl() {
	depth := 0
	for {
		switch p.tok.Kind {
		case EOF, CONST, THREAD, PROC, FUNC:
			return
		case VAR:
			if depth == 0 {
				return
			}
		case LBRACE:
			depth++
		case RBRACE:
			if depth > 0 {
				depth--
			}
		}
		p.next()
	}
}

// closesBlock reports whether the current token is a declaration keyword
// that is not indented more than the declaration being parsed: the body
// before it is taken to lack its closing brace.
func (p *parser) closesBlock() bool {
	switch p.tok.Kind {
	case CONST, THREAD, PROC, FUNC:
		return p.tok.Pos.Col <= p.declCol
	}
	return false
}

// syncStmt skips to the end of the current statement: a semicolon or
// newline, the `}` that closes the block, or a keyword that starts a
// statement, with braces in between skipped as a whole.
func (p *parser) syncStmt() {
	depth := 0
	for {
		k := p.tok.Kind
		switch {
		case k == EOF || p.closesBlock():
			return
		case k == LBRACE:
			depth++
		case k == RBRACE:
			if depth == 0 {
				return
			}
			depth--
		case depth == 0 && (k == SEMICOLON || kindStartsStmt(k)):
			return
		}
		p.next()
	}
}

// ---------------------------------------------------------------------------
// Declarations

func (p *parser) parseFile() *File {
	f := &File{}
	for p.tok.Kind != EOF {
		if p.tok.Kind == SEMICOLON {
			p.next()
			continue
		}
		before := p.tok.Pos.Offset
		f.Decls = append(f.Decls, p.parseDecl())
		if p.tok.Pos.Offset == before && p.tok.Kind != EOF {
			p.next() // cannot happen; never loop forever
		}
	}
	f.Comments = p.comments
	f.EOF = p.tok.Pos
	return f
}

func (p *parser) parseDecl() Decl {
	start := p.tok
	p.declCol = start.Pos.Col
	n0 := p.attempts
	var d Decl
	switch start.Kind {
	case CONST:
		d = p.parseConstDecl()
	case VAR:
		d = p.parseVarDecl()
	case THREAD:
		p.bodyKind = "thread"
		d = p.parseThreadDecl()
	case PROC:
		p.bodyKind = "proc"
		d = p.parseProcDecl()
	case FUNC:
		p.bodyKind = "func"
		d = p.parseFuncDecl()
	default:
		if kindStartsStmt(start.Kind) || start.Kind == IDENT {
			p.errorf("expected declaration (const, var, thread, proc or func), found %s: statements belong inside a thread, proc or func body", tokenDesc(start))
		} else {
			p.expected("declaration (const, var, thread, proc or func)")
		}
		p.next()
		p.syncDecl()
		return &BadDecl{From: start.Pos, To: p.lastEnd()}
	}
	switch p.tok.Kind {
	case SEMICOLON:
		p.next()
	case EOF:
	default:
		if p.attempts == n0 {
			p.expected("newline or ';' after declaration")
		}
		p.syncDecl()
	}
	return d
}

func (p *parser) parseConstDecl() *ConstDecl {
	d := &ConstDecl{Const: p.tok.Pos}
	p.next()
	d.Name = p.parseIdent("constant name", func(k Kind) bool { return k == ASSIGN })
	if p.tok.Kind == ASSIGN {
		p.next()
		d.Value = p.parseExpr()
	} else {
		p.expected("'='")
		if p.exprStart() {
			d.Value = p.parseExpr()
		} else {
			d.Value = p.badExpr()
		}
	}
	return d
}

func (p *parser) parseVarDecl() *VarDecl {
	d := &VarDecl{Var: p.tok.Pos, Atomic: source.NoPos}
	p.next()
	d.Name = p.parseIdent("variable name", func(k Kind) bool { return k.IsType() || k == LBRACK || k == ATOMIC })
	if p.tok.Kind == ATOMIC {
		d.Atomic = p.tok.Pos
		p.next()
	}
	d.Type = p.parseType()
	if p.tok.Kind == ASSIGN {
		p.next()
		switch p.tok.Kind {
		case LBRACE:
			d.Init = p.parseInitList()
		case SPAWN:
			d.Init = p.parseSpawnExpr()
		default:
			d.Init = p.parseExpr()
		}
	}
	return d
}

func (p *parser) parseThreadDecl() *ThreadDecl {
	d := &ThreadDecl{Thread: p.tok.Pos}
	p.next()
	d.Name = p.parseIdent("thread name", func(k Kind) bool { return k == LBRACE || k == LBRACK })
	if p.tok.Kind == LBRACK {
		p.next()
		d.Index = p.parseIdent("index name", isIn)
		if p.tok.Kind == IN {
			p.next()
		} else {
			p.expected("'in' (thread NAME[I in LO..HI])")
		}
		d.Lo = p.parseExpr()
		p.expect(RANGE)
		d.Hi = p.parseExpr()
		p.expectClosing(RBRACK)
	}
	d.Body = p.parseBlock()
	return d
}

func (p *parser) parseProcDecl() *ProcDecl {
	d := &ProcDecl{Proc: p.tok.Pos}
	p.next()
	d.Name = p.parseIdent("proc name", isLparen)
	d.Params, d.Rparen = p.parseParams()
	d.Body = p.parseBlock()
	return d
}

// parseFuncDecl parses `func NAME(PARAMS) [TYPE] BLOCK`.
func (p *parser) parseFuncDecl() *FuncDecl {
	d := &FuncDecl{Func: p.tok.Pos}
	p.next()
	d.Name = p.parseIdent("function name", isLparen)
	d.Params, d.Rparen = p.parseParams()
	if startsType(p.tok.Kind) {
		d.Result = p.parseType()
	}
	d.Body = p.parseBlock()
	return d
}

// parseParams parses the parameter list `(P1 T1, …)` of a proc or func
// and returns it with the position of its `)`.
func (p *parser) parseParams() ([]*Param, source.Pos) {
	if p.tok.Kind != LPAREN {
		p.expected("'(' and the parameters")
		return nil, p.closerPos()
	}
	p.next()
	var params []*Param
	// A keyword followed by a name is more likely a type written first
	// (int a) than a keyword used as a name.
	typeNext := func(k Kind) bool { return k.IsType() || k == LBRACK }
	for p.nameHere(typeNext) {
		prm := &Param{Name: p.parseIdent("parameter name", typeNext)}
		prm.Type = p.parseType()
		params = append(params, prm)
		if p.tok.Kind != COMMA {
			break
		}
		p.next()
	}
	switch {
	case p.tok.Kind == RPAREN:
		pos := p.tok.Pos
		p.next()
		return params, pos
	case p.prev.Kind == LPAREN || p.prev.Kind == COMMA:
		p.expected("parameter name or ')'")
	default:
		p.expected("',' or ')'")
	}
	return params, p.closerPos()
}

func isLparen(k Kind) bool { return k == LPAREN }
func isIn(k Kind) bool     { return k == IN }

// startsType reports whether a token of kind k can start a type (a name
// starts an unknown type, which parseType reports).
func startsType(k Kind) bool { return k.IsType() || k == LBRACK || k == IDENT }

// nameHere reports whether the current token is a name, or a keyword
// written as one: a keyword followed by a token that follows reports true
// for (what comes after the name in the construct being parsed).
func (p *parser) nameHere(follows func(Kind) bool) bool {
	switch k := p.tok.Kind; {
	case k == IDENT:
		return true
	case k.IsKeyword():
		return follows(p.peek().Kind)
	}
	return false
}

// parseIdent parses a name that is declared, or the proc or function a
// spawn or a call names. A keyword followed by what follows the name
// (follows reports true for the kind of the next token: `var lock int`) is
// a keyword used as a name: it is reported, with a suggestion to rename
// it, and taken as the name. Anything else leaves an empty Ident at the
// end of the previous token.
func (p *parser) parseIdent(what string, follows func(Kind) bool) *Ident {
	t := p.tok
	switch {
	case t.Kind == IDENT:
	case t.Kind.IsKeyword() && follows(p.peek().Kind):
		p.keywordAsName(t)
	case t.Kind.IsKeyword():
		p.errorf("expected %s, found keyword %s", what, tokenDesc(t))
		return p.emptyIdent()
	default:
		p.expected(what)
		return p.emptyIdent()
	}
	p.next()
	return &Ident{NamePos: t.Pos, Name: t.Text, EndPos: t.End}
}

// keywordAsName reports the keyword t written as a name.
func (p *parser) keywordAsName(t Token) {
	p.errorAt(t, CodeKeywordAsName, "`%s` is a keyword and cannot be used as a name; rename it (e.g. `%s_`)", t.Text, t.Text)
}

func (p *parser) emptyIdent() *Ident {
	pos := p.lastEnd()
	return &Ident{NamePos: pos, EndPos: pos}
}

func (p *parser) badExpr() *BadExpr {
	pos := p.lastEnd()
	return &BadExpr{From: pos, To: pos}
}

// ---------------------------------------------------------------------------
// Types

func (p *parser) parseType() TypeExpr {
	t := p.tok
	switch {
	case t.Kind.IsType():
		p.next()
		return &NamedType{NamePos: t.Pos, Kind: t.Kind}
	case t.Kind == LBRACK:
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr()
		}
		a := &ArrayType{Lbrack: t.Pos}
		p.next()
		if p.tok.Kind == RBRACK {
			p.expected("array length")
			a.Len = p.badExpr()
		} else {
			a.Len = p.parseExpr()
		}
		p.expectClosing(RBRACK)
		a.Elem = p.parseType()
		return a
	case t.Kind == IDENT:
		p.errorf("unknown type %s: the types are int, bool, mutex, tid, cond and arrays [N]T", tokenDesc(t))
		p.next()
		return &BadExpr{From: t.Pos, To: t.End}
	}
	p.expected("type (int, bool, mutex, tid, cond or [N]T)")
	return p.badExpr()
}

// ---------------------------------------------------------------------------
// Statements

// parseBlock parses `{ statements }`. If the `{` is missing it looks for
// one later on the same line (or at the start of the next one); failing
// that it returns an empty block.
func (p *parser) parseBlock() *Block {
	defer func() { p.depth-- }()
	if !p.enter() {
		pos := p.closerPos()
		return &Block{Lbrace: pos, Rbrace: pos}
	}
	if p.tok.Kind != LBRACE {
		p.expected("'{'")
		if p.isNewline() && p.peek().Kind == LBRACE {
			p.next()
		} else {
			for p.tok.Kind != LBRACE && p.tok.Kind != SEMICOLON && p.tok.Kind != RBRACE &&
				p.tok.Kind != EOF && !p.closesBlock() {
				p.next()
			}
		}
		if p.tok.Kind != LBRACE {
			pos := p.closerPos()
			return &Block{Lbrace: pos, Rbrace: pos}
		}
	}
	b := &Block{Lbrace: p.tok.Pos}
	p.next()
	b.Stmts = p.parseStmtList()
	b.Rbrace = p.expectClosing(RBRACE)
	return b
}

func (p *parser) parseStmtList() []Stmt {
	var list []Stmt
	for p.tok.Kind != RBRACE && p.tok.Kind != EOF && !p.closesBlock() {
		if p.tok.Kind == SEMICOLON {
			p.next()
			continue
		}
		before := p.tok.Pos.Offset
		n0 := p.attempts
		list = append(list, p.parseStmt())
		switch {
		case p.tok.Kind == SEMICOLON:
			p.next()
		case p.tok.Kind == RBRACE || p.tok.Kind == EOF || p.closesBlock():
		default:
			if p.attempts == n0 {
				p.expected("newline or ';' after statement")
			}
			p.syncStmt()
		}
		if p.tok.Pos.Offset == before && p.tok.Kind != EOF && p.tok.Kind != RBRACE && !p.closesBlock() {
			p.next() // never loop forever
		}
	}
	return list
}

func (p *parser) parseStmt() Stmt {
	t := p.tok
	switch t.Kind {
	case VAR:
		return &DeclStmt{Decl: p.parseVarDecl()}
	case LOCK, UNLOCK:
		return p.parseLockStmt()
	case SPAWN:
		return &SpawnStmt{Call: p.parseSpawnExpr()}
	case JOIN:
		p.next()
		return &JoinStmt{Join: t.Pos, Thread: p.parseExpr()}
	case RETURN:
		p.next()
		s := &ReturnStmt{Return: t.Pos}
		if p.exprStart() {
			s.Result = p.parseExpr()
		}
		return s
	case WAIT:
		s := &WaitStmt{Wait: t.Pos}
		args, rparen, _ := p.parseBuiltinArgs("wait(CV, M)", 2)
		s.Cond, s.Mutex, s.Rparen = args[0], args[1], rparen
		return s
	case SIGNAL, BROADCAST:
		s := &SignalStmt{Keyword: t.Pos, Broadcast: t.Kind == BROADCAST}
		args, rparen, _ := p.parseBuiltinArgs(t.Text+"(CV)", 1)
		s.Cond, s.Rparen = args[0], rparen
		return s
	case AWAIT:
		p.next()
		return &AwaitStmt{Await: t.Pos, Cond: p.parseExpr()}
	case ASSERT:
		return p.parseAssertStmt()
	case ASSUME:
		p.next()
		return &AssumeStmt{Assume: t.Pos, Cond: p.parseExpr()}
	case IF:
		return p.parseIfStmt()
	case WHILE:
		p.next()
		s := &WhileStmt{While: t.Pos, Cond: p.parseExpr()}
		s.Body = p.parseBlock()
		return s
	case FOR:
		return p.parseForStmt()
	case BREAK, CONTINUE:
		p.next()
		return &BranchStmt{TokPos: t.Pos, Tok: t.Kind}
	case ATOMIC:
		p.next()
		return &AtomicStmt{Atomic: t.Pos, Body: p.parseBlock()}
	case LBRACE:
		p.errorf("unexpected '{': a block may only follow if, else, while, for or atomic")
		b := p.parseBlock()
		return &BadStmt{From: t.Pos, To: b.End()}
	case CONST, THREAD, PROC, FUNC:
		// Indented more than the enclosing declaration: a declaration
		// written inside a body. Parse it whole so that its body's braces
		// do not end ours.
		what := map[Kind]string{CONST: "constants", THREAD: "threads", PROC: "procs", FUNC: "functions"}[t.Kind]
		p.errorf("'%s' declaration inside a %s body: %s are declared at top level", t.Text, p.bodyKind, what)
		switch t.Kind {
		case CONST:
			p.parseConstDecl()
		case THREAD:
			p.parseThreadDecl()
		case FUNC:
			p.parseFuncDecl()
		default:
			p.parseProcDecl()
		}
		return &BadStmt{From: t.Pos, To: p.lastEnd()}
	case ELSE:
		p.errorf("'else' must follow the '}' of its if on the same line")
		p.next()
		switch p.tok.Kind {
		case IF:
			p.parseIfStmt()
		case LBRACE:
			p.parseBlock()
		}
		return &BadStmt{From: t.Pos, To: p.lastEnd()}
	}
	if p.exprStart() {
		return p.parseSimpleStmt()
	}
	p.expected("statement")
	p.next()
	p.syncStmt()
	return &BadStmt{From: t.Pos, To: p.lastEnd()}
}

// exprStart reports whether the current token can start an expression.
func (p *parser) exprStart() bool { return kindStartsExpr(p.tok.Kind) }

func kindStartsExpr(k Kind) bool {
	switch k {
	case IDENT, INT, TRUE, FALSE, LPAREN, SUB, NOT, TRYLOCK, CHOOSE:
		return true
	}
	// A type keyword written as a name: parseOperand reports it.
	return k.IsType()
}

func (p *parser) parseSimpleStmt() Stmt {
	x := p.parseExpr()
	switch k := p.tok.Kind; k {
	case ASSIGN, ADD_ASSIGN, SUB_ASSIGN, MUL_ASSIGN, QUO_ASSIGN, REM_ASSIGN:
		s := &AssignStmt{LHS: x, OpPos: p.tok.Pos, Op: k}
		p.next()
		if k == ASSIGN && p.tok.Kind == SPAWN {
			s.RHS = p.parseSpawnExpr()
		} else {
			s.RHS = p.parseExpr()
		}
		return s
	case INC, DEC:
		s := &IncDecStmt{X: x, OpPos: p.tok.Pos, Op: k}
		p.next()
		return s
	}
	return &ExprStmt{X: x}
}

// parseBuiltinArgs parses the parenthesised arguments after a keyword
// such as wait (the current token): exactly n expressions, separated by
// commas. form is how the call is written, for messages ("wait(CV, M)").
// A missing argument is a BadExpr; a missing `)` is reported and placed
// as expectClosing does. It also returns the greatest height of the
// arguments.
func (p *parser) parseBuiltinArgs(form string, n int) ([]Expr, source.Pos, int) {
	kw := p.tok.Text
	p.next()
	args := make([]Expr, n)
	h := 0
	if p.tok.Kind != LPAREN {
		p.errorf("expected '(' after '%s' (%s), found %s", kw, form, tokenDesc(p.tok))
		for i := range args {
			if i == 0 && p.exprStart() {
				args[i], h = p.parseBinaryExpr(1)
			} else {
				args[i] = p.badExpr()
			}
		}
		return args, p.closerPos(), h
	}
	p.next()
	for i := range args {
		if i > 0 {
			if p.tok.Kind != COMMA {
				p.errorf("expected ',' and the next argument of %s, found %s", form, tokenDesc(p.tok))
				for ; i < n; i++ {
					args[i] = p.badExpr()
				}
				break
			}
			p.next()
		}
		var ha int
		args[i], ha = p.parseBinaryExpr(1)
		h = max(h, ha)
	}
	return args, p.expectClosing(RPAREN), h
}

func (p *parser) parseLockStmt() *LockStmt {
	s := &LockStmt{Keyword: p.tok.Pos, Unlock: p.tok.Kind == UNLOCK}
	kw := p.tok.Text
	p.next()
	if p.tok.Kind != LPAREN {
		p.errorf("expected '(' after '%s' (%s(M)), found %s", kw, kw, tokenDesc(p.tok))
		if p.exprStart() {
			s.Mutex = p.parseExpr()
		} else {
			s.Mutex = p.badExpr()
		}
		s.Rparen = p.closerPos()
		return s
	}
	p.next()
	s.Mutex = p.parseExpr()
	s.Rparen = p.expectClosing(RPAREN)
	return s
}

func (p *parser) parseAssertStmt() *AssertStmt {
	s := &AssertStmt{Assert: p.tok.Pos}
	p.next()
	s.Cond = p.parseExpr()
	if p.tok.Kind == COMMA {
		p.next()
		if p.tok.Kind == STRING {
			s.Message = p.stringLit()
		} else {
			p.expected("a string message after ','")
			if p.exprStart() {
				p.parseExpr()
			}
		}
	}
	return s
}

func (p *parser) stringLit() *StringLit {
	t := p.tok
	p.next()
	return &StringLit{ValuePos: t.Pos, Raw: t.Text, Value: unquoteString(t.Text), EndPos: t.End}
}

// unquoteString decodes a string literal's text, tolerating the errors
// that the scanner has already reported (a missing closing quote, unknown
// escapes, which are kept as written).
func unquoteString(raw string) string {
	s := strings.TrimPrefix(raw, `"`)
	if !strings.ContainsAny(s, `\"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String() // the closing quote
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case '"', '\\':
				b.WriteByte(s[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (p *parser) parseIfStmt() *IfStmt {
	first := &IfStmt{If: p.tok.Pos}
	p.next()
	first.Cond = p.parseExpr()
	first.Then = p.parseBlock()
	// else-if chains are built in a loop, not by recursion.
	cur := first
	for p.tok.Kind == ELSE {
		elsePos := p.tok.Pos
		p.next()
		switch p.tok.Kind {
		case IF:
			s := &IfStmt{If: p.tok.Pos}
			p.next()
			s.Cond = p.parseExpr()
			s.Then = p.parseBlock()
			cur.Else = s
			cur = s
			continue
		case LBRACE:
			cur.Else = p.parseBlock()
		default:
			p.expected("'if' or '{' after 'else'")
			cur.Else = &BadStmt{From: elsePos, To: p.lastEnd()}
		}
		break
	}
	return first
}

func (p *parser) parseForStmt() *ForStmt {
	s := &ForStmt{For: p.tok.Pos}
	p.next()
	s.Var = p.parseIdent("loop variable", isIn)
	if p.tok.Kind == IN {
		p.next()
	} else {
		p.expected("'in' (for I in LO..HI; use while for a loop on a condition)")
	}
	s.Lo = p.parseExpr()
	p.expect(RANGE)
	s.Hi = p.parseExpr()
	s.Body = p.parseBlock()
	return s
}

// ---------------------------------------------------------------------------
// Expressions

func (p *parser) parseExpr() Expr {
	x, _ := p.parseBinaryExpr(1)
	return x
}

// parseBinaryExpr parses operands joined by operators of precedence prec
// or more, and returns the expression and its height.
func (p *parser) parseBinaryExpr(prec int) (Expr, int) {
	x, h := p.parseUnaryExpr()
	for {
		op := p.tok
		oprec := op.Kind.Precedence()
		if oprec < prec {
			return x, h
		}
		p.next()
		// The right operand is a child of the new node: one level down.
		p.depth++
		if p.depth > MaxNesting {
			p.tooDeep(op)
		}
		y, hy := p.parseBinaryExpr(oprec + 1)
		p.depth--
		x = &BinaryExpr{X: x, OpPos: op.Pos, Op: op.Kind, Y: y}
		h = 1 + max(h, hy)
		if !p.fits(h, op) {
			return cut(x), 0
		}
	}
}

func (p *parser) parseUnaryExpr() (Expr, int) {
	if k := p.tok.Kind; k == SUB || k == NOT {
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr(), 0
		}
		pos := p.tok.Pos
		p.next()
		x, h := p.parseUnaryExpr()
		return &UnaryExpr{OpPos: pos, Op: k, X: x}, h + 1
	}
	return p.parsePrimaryExpr()
}

func (p *parser) parsePrimaryExpr() (Expr, int) {
	x, h := p.parseOperand()
	for p.tok.Kind == LBRACK {
		lbrack := p.tok
		ok := p.enter()
		if !ok {
			p.depth--
			return cut(x), 0
		}
		p.next()
		idx, hi := p.parseBinaryExpr(1)
		p.depth--
		x = &IndexExpr{X: x, Lbrack: lbrack.Pos, Index: idx, Rbrack: p.expectClosing(RBRACK)}
		h = 1 + max(h, hi)
		if !p.fits(h, lbrack) {
			return cut(x), 0
		}
	}
	return x, h
}

func (p *parser) parseOperand() (Expr, int) {
	t := p.tok
	switch {
	case t.Kind == IDENT:
		p.next()
		id := &Ident{NamePos: t.Pos, Name: t.Text, EndPos: t.End}
		if p.tok.Kind == LPAREN {
			return p.parseCallExpr(id)
		}
		return id, 0
	case t.Kind.IsType():
		// A type keyword where a value belongs: most likely a variable
		// named tid, cond or mutex.
		p.keywordAsName(t)
		p.next()
		return &Ident{NamePos: t.Pos, Name: t.Text, EndPos: t.End}, 0
	case t.Kind == TRYLOCK:
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr(), 0
		}
		e := &TrylockExpr{Trylock: t.Pos}
		args, rparen, h := p.parseBuiltinArgs("trylock(M)", 1)
		e.Mutex, e.Rparen = args[0], rparen
		return e, 1 + h
	case t.Kind == CHOOSE:
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr(), 0
		}
		p.next()
		e := &ChooseExpr{Choose: t.Pos}
		var hl, hh int
		e.Lo, hl = p.parseBinaryExpr(1)
		if p.tok.Kind == RANGE {
			p.next()
			e.Hi, hh = p.parseBinaryExpr(1)
		} else {
			p.expected("'..' (choose LO..HI)")
			e.Hi = p.badExpr()
		}
		return e, 1 + max(hl, hh)
	case t.Kind == INT:
		p.next()
		return &IntLit{ValuePos: t.Pos, Raw: t.Text, EndPos: t.End}, 0
	case t.Kind == TRUE || t.Kind == FALSE:
		p.next()
		return &BoolLit{ValuePos: t.Pos, Value: t.Kind == TRUE}, 0
	case t.Kind == LPAREN:
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr(), 0
		}
		p.next()
		x, h := p.parseBinaryExpr(1)
		return &ParenExpr{Lparen: t.Pos, X: x, Rparen: p.expectClosing(RPAREN)}, h + 1
	case t.Kind == SPAWN:
		p.errorf("'spawn' may only be a statement, the right-hand side of '=' or a tid variable's initialiser")
		// A spawn in a spawn's arguments recurses: count it.
		defer func() { p.depth-- }()
		if !p.enter() {
			return p.badExpr(), 0
		}
		s := p.parseSpawnExpr()
		return &BadExpr{From: s.Pos(), To: s.End()}, 0
	}
	if p.hasPrev && p.tok.Pos.Line > p.prev.End.Line && !(p.tok.Kind == EOF && p.eofQuiet) {
		// The line ends with an operator (or '=') and the expression
		// after it is missing, as in a half-typed `c = c +`: say so at
		// the operator, not at whatever the next lines hold.
		p.errorAt(p.prev, CodeSyntaxError, "expected expression after %s, found %s", tokenDesc(p.prev), tokenDesc(t))
		return p.badExpr(), 0
	}
	p.expected("expression")
	return p.badExpr(), 0
}

// parseCallExpr parses the arguments of a call of fn, the current token
// being its `(`, and returns the call and its height.
func (p *parser) parseCallExpr(fn *Ident) (Expr, int) {
	defer func() { p.depth-- }()
	if !p.enter() {
		return p.badExpr(), 0
	}
	c := &CallExpr{Func: fn, Lparen: p.tok.Pos}
	p.next()
	h := 0
	for p.tok.Kind != RPAREN && p.tok.Kind != EOF && p.tok.Kind != SEMICOLON {
		a, ha := p.parseBinaryExpr(1)
		c.Args = append(c.Args, a)
		h = max(h, ha)
		if p.tok.Kind != COMMA {
			break
		}
		p.next()
	}
	c.Rparen = p.expectClosing(RPAREN)
	return c, h + 1
}

func (p *parser) parseSpawnExpr() *SpawnExpr {
	s := &SpawnExpr{Spawn: p.tok.Pos}
	p.next()
	s.Proc = p.parseIdent("proc name", isLparen)
	if p.tok.Kind != LPAREN {
		p.expected("'(' and the arguments")
		s.Rparen = p.closerPos()
		return s
	}
	p.next()
	for p.tok.Kind != RPAREN && p.tok.Kind != EOF && p.tok.Kind != SEMICOLON {
		s.Args = append(s.Args, p.parseExpr())
		if p.tok.Kind != COMMA {
			break
		}
		p.next()
	}
	s.Rparen = p.expectClosing(RPAREN)
	return s
}

// parseInitList parses `{E1, E2, …}`, elements being expressions or nested
// lists. A trailing comma is allowed (it is needed to end a line inside the
// list).
func (p *parser) parseInitList() Expr {
	defer func() { p.depth-- }()
	if !p.enter() {
		return p.badExpr()
	}
	l := &InitList{Lbrace: p.tok.Pos}
	p.next()
	for p.tok.Kind != RBRACE && p.tok.Kind != EOF {
		if p.tok.Kind == LBRACE {
			l.Elems = append(l.Elems, p.parseInitList())
		} else if p.exprStart() {
			l.Elems = append(l.Elems, p.parseExpr())
		} else {
			break
		}
		if p.tok.Kind == COMMA {
			p.next()
			continue
		}
		// A newline inside the list where a ',' belongs, as Go reports it;
		// the list goes on if what follows can continue it.
		if p.isNewline() {
			if k := p.peek().Kind; k == RBRACE || k == LBRACE || kindStartsExpr(k) {
				p.errorf("missing ',' before newline in initialiser list")
				p.next()
				continue
			}
		}
		break
	}
	l.Rbrace = p.expectClosing(RBRACE)
	return l
}
