package grammar

// The canonical printer behind `weft fmt`.
//
// Format prints a syntax tree in the one layout every Weft file should
// have. The rules (also in docs/language.md):
//
//   - Indentation is 4 spaces per block level, never tabs.
//   - One statement per line; `;` separators are dropped.
//   - `{` ends the line that opens a block; `}` stands on its own line,
//     followed by ` else …` where there is one. A block with neither
//     statements nor comments is printed `{}`.
//   - One space around binary operators, assignment operators, `=` in
//     declarations, after commas and after keywords; none inside
//     parentheses or brackets: `lock(m)`, `unlock(m)`, `spawn p(a, b)`,
//     `f(a, b)`, `wait(cv, m)`, `x[i + 1]`, `[N]int`, `{1, 2, 3}`,
//     `for i in 0..N`, `thread w[i in 0..N]`, `choose 0..N`.
//   - Parentheses are kept exactly as written, so the output parses to the
//     same tree.
//   - Blank lines between declarations, between statements and around
//     comments are kept, at most one in a row; none at the start or end of
//     a block or of the file.
//   - Every comment is kept, in order. A comment that followed code on the
//     same line stays there, after one space; a comment on its own line
//     stays on its own line at the indentation of the code around it. A
//     statement that a comment splits continues on lines indented one
//     extra level.
//   - No trailing white space (also inside comments); the file ends with
//     exactly one newline.
//
// The printer walks the tree and writes tokens in source order. Before each
// token it emits the comments that precede it in the source, and it checks
// that the source between two consecutive tokens holds nothing but white
// space, comments and (between statements) semicolons: if the tree does not
// cover the whole text, Format refuses rather than drop something.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"weft/source"
)

// Format returns the canonical text of file, which must have been parsed
// from src (src supplies the comments' surroundings and the blank lines;
// the printed tokens come from the tree). It returns an error, and no
// text, if the tree has Bad… nodes or missing parts (that is, the parse
// had syntax errors) or if it does not account for every token of src;
// callers then leave the file as it is. Format is linear in the size of
// the file and idempotent: formatting its output again changes nothing.
//
// src may be nil (for a tree built or changed by hand): then no check
// against the text is made, comments go on lines of their own where
// their positions put them, and no blank lines are kept.
func Format(file *File, src []byte) ([]byte, error) {
	if file == nil {
		return nil, errors.New("format: no file")
	}
	if src != nil {
		// The tree alone cannot show every syntax error (a reserved word
		// used as a name, a stray character the parser skipped): ask the
		// parser again.
		if _, diags := ParseFile("", src); source.HasErrors(diags) {
			for _, d := range diags {
				if d.Severity == source.Error {
					return nil, fmt.Errorf("format: %s: %s", d.Range.Start, d.Message)
				}
			}
		}
	}
	p := &printer{src: src, comments: file.Comments, atBlockStart: true}
	if bytes.HasPrefix(src, []byte("\xEF\xBB\xBF")) {
		p.pos = 3 // a byte order mark is dropped
	}
	if err := p.run(file); err != nil {
		return nil, err
	}
	if p.buf == nil {
		p.buf = []byte{}
	}
	return p.buf, nil
}

// formatError is how the printer bails out; Format turns it into an error.
type formatError struct{ err error }

type printer struct {
	src      []byte
	comments []*Comment
	ci       int // index of the next comment to print
	pos      int // source offset up to which the text has been accounted for

	buf []byte

	indent       int  // block depth
	inStmt       bool // inside a statement or declaration (not between them)
	cont         bool // the current statement has been split: continuation indent
	needBreak    bool // a newline must come before the next output
	wantBlank    bool // ... and it should be a blank line
	pendingSpace bool // a space goes before the next token
	lineComment  bool // the current output line ends with a // comment
	atBlockStart bool // nothing printed yet in the current block (or file)
}

func (p *printer) run(file *File) (err error) {
	defer func() {
		if r := recover(); r != nil {
			fe, ok := r.(formatError)
			if !ok {
				panic(r)
			}
			err = fe.err
		}
	}()
	for _, d := range file.Decls {
		p.decl(d)
	}
	end := -1
	if p.src != nil {
		end = len(p.src)
	}
	p.flushAll(end)
	if len(p.buf) > 0 {
		p.buf = append(p.buf, '\n')
	}
	return nil
}

func (p *printer) fail(format string, args ...any) {
	panic(formatError{fmt.Errorf("format: "+format, args...)})
}

// ---------------------------------------------------------------------------
// Output

func (p *printer) atLineStart() bool {
	return len(p.buf) == 0 || p.buf[len(p.buf)-1] == '\n'
}

// newline ends the current output line (and adds a blank line if one is
// wanted). A break inside a statement makes the rest of it a continuation.
func (p *printer) newline() {
	if len(p.buf) > 0 {
		p.buf = append(p.buf, '\n')
		if p.wantBlank {
			p.buf = append(p.buf, '\n')
		}
	}
	p.needBreak, p.wantBlank, p.pendingSpace, p.lineComment = false, false, false, false
	if p.inStmt {
		p.cont = true
	}
}

// emit writes text, preceded by the pending newline or space and, at the
// start of a line, by the indentation.
func (p *printer) emit(text string) {
	if p.needBreak {
		p.newline()
	}
	if p.atLineStart() {
		n := p.indent
		if p.cont {
			n++
		}
		for range n {
			p.buf = append(p.buf, "    "...)
		}
	} else if p.pendingSpace && !noSpaceBefore(text) {
		p.buf = append(p.buf, ' ')
	}
	p.pendingSpace = false
	p.buf = append(p.buf, text...)
}

// noSpaceBefore lists the tokens that never follow a space; a space that a
// comment left pending is dropped before them.
func noSpaceBefore(text string) bool {
	switch text {
	case ")", "]", ",", "++", "--":
		return true
	}
	return false
}

func (p *printer) space() { p.pendingSpace = true }

// ---------------------------------------------------------------------------
// Source bookkeeping and comments

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// checkGap makes sure src[from:to] holds only white space, and semicolons
// where statements are separated.
func (p *printer) checkGap(from, to int) {
	if p.src == nil {
		return
	}
	if from > to || to > len(p.src) {
		p.fail("the syntax tree does not match the source")
	}
	for i := from; i < to; i++ {
		b := p.src[i]
		if isBlank(b) || b == ';' && !p.inStmt {
			continue
		}
		at := source.NewFile("", p.src).Pos(i)
		p.fail("%s: text the syntax tree does not account for", at)
	}
}

// flush prints the comments that start before offset to and accounts for
// the source up to it. A negative offset (a token without position) flushes
// nothing.
func (p *printer) flush(to int) {
	if to < 0 {
		return
	}
	for p.ci < len(p.comments) && p.comments[p.ci].Start.Offset < to {
		p.comment(p.comments[p.ci])
		p.ci++
	}
	p.checkGap(p.pos, to)
	if to > p.pos {
		p.pos = to
	}
}

// flushAll prints every remaining comment (to is the end of the source,
// or -1 without one).
func (p *printer) flushAll(to int) {
	p.inStmt, p.cont = false, false
	for p.ci < len(p.comments) {
		p.comment(p.comments[p.ci])
		p.ci++
	}
	if to >= 0 {
		p.checkGap(p.pos, to)
		p.pos = to
	}
}

// ownLine reports whether only white space separates offset off from the
// start of its line (or of the file).
func (p *printer) ownLine(off int) bool {
	if p.src == nil || off > len(p.src) {
		return true
	}
	for i := off - 1; i >= 0; i-- {
		switch p.src[i] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// blankBefore reports whether a blank line precedes offset off in the
// source (two newlines with only white space around them).
func (p *printer) blankBefore(off int) bool {
	if p.src == nil || off > len(p.src) {
		return false
	}
	n := 0
	for i := off - 1; i >= 0 && isBlank(p.src[i]); i-- {
		if p.src[i] == '\n' {
			n++
		}
	}
	return n >= 2
}

// codeFollows reports whether something other than white space follows
// offset off on its line.
func (p *printer) codeFollows(off int) bool {
	if p.src == nil {
		return false
	}
	for i := off; i < len(p.src); i++ {
		switch p.src[i] {
		case ' ', '\t', '\r':
		case '\n':
			return false
		default:
			return true
		}
	}
	return false
}

func (p *printer) comment(c *Comment) {
	start := c.Start.Offset
	if p.src != nil {
		if start < p.pos || c.Stop.Offset > len(p.src) || c.Stop.Offset < start ||
			string(p.src[start:c.Stop.Offset]) != c.Text {
			p.fail("comment %q does not match the source", c.Text)
		}
	}
	p.checkGap(p.pos, start)
	text := trimComment(c.Text)
	// A comment after a // comment cannot share its line, even where
	// only a ';' separated them in the source.
	if p.atLineStart() || p.ownLine(start) || p.lineComment {
		// A comment on a line of its own.
		if !p.atLineStart() {
			p.wantBlank = !p.inStmt && !p.atBlockStart && p.blankBefore(start)
			p.newline()
		}
		p.needBreak = false
		p.pendingSpace = false
		p.emit(text)
		p.atBlockStart = false
	} else {
		// A comment after code on the same line.
		if last := p.buf[len(p.buf)-1]; last != '(' && last != '[' {
			p.buf = append(p.buf, ' ')
		}
		p.buf = append(p.buf, text...)
	}
	p.lineComment = strings.HasPrefix(c.Text, "//")
	if p.lineComment || !p.codeFollows(c.Stop.Offset) {
		p.needBreak = true
		p.pendingSpace = false
	} else if !p.needBreak {
		p.pendingSpace = true
	}
	if p.src != nil {
		p.pos = c.Stop.Offset
	}
}

// trimComment removes trailing white space from every line of a comment.
func trimComment(text string) string {
	if !strings.ContainsAny(text, " \t\r") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// ---------------------------------------------------------------------------
// Tokens

// tok prints a token that starts at source offset off (negative: unknown).
func (p *printer) tok(off int, text string) {
	if off >= 0 {
		p.flush(off)
		if p.src != nil {
			if off+len(text) > len(p.src) || string(p.src[off:off+len(text)]) != text {
				p.fail("%s: expected %q in the source", source.NewFile("", p.src).Pos(off), text)
			}
			p.pos = off + len(text)
		}
	} else if p.src != nil {
		p.fail("%q has no position", text)
	}
	p.emit(text)
}

// find locates a token whose position the tree does not record (such as
// `=` in a declaration or `else`): the next token after the text printed so
// far, skipping white space and comments.
func (p *printer) find(text string) int {
	if p.src == nil {
		return -1
	}
	i := p.next()
	if !bytes.HasPrefix(p.src[i:], []byte(text)) {
		p.fail("%s: expected %q in the source", source.NewFile("", p.src).Pos(i), text)
	}
	return i
}

// next returns the offset of the next token in the source: the first
// character after the text accounted for that is neither white space nor
// part of a comment.
func (p *printer) next() int {
	i, k := p.pos, p.ci
	for i < len(p.src) {
		if isBlank(p.src[i]) {
			i++
			continue
		}
		if k < len(p.comments) && p.comments[k].Start.Offset == i && p.comments[k].Stop.Offset > i {
			i = p.comments[k].Stop.Offset
			k++
			continue
		}
		break
	}
	return min(i, len(p.src))
}

// trailingComma deals with an optional `,` after the last element of a
// list closed at offset closer. The canonical form drops it, unless a
// comment comes before the closer: the comment may end the line, and the
// comma keeps the list going past the newline.
func (p *printer) trailingComma(closer int) {
	if p.src == nil {
		return
	}
	i := p.next()
	if i >= len(p.src) || p.src[i] != ',' {
		return
	}
	if p.ci < len(p.comments) && p.comments[p.ci].Start.Offset < closer {
		p.tok(i, ",")
		return
	}
	p.flush(i)
	p.pos = i + 1
}

// word prints a token whose position is not in the tree.
func (p *printer) word(text string) { p.tok(p.find(text), text) }

func (p *printer) posTok(pos source.Pos, text string) {
	if !pos.IsValid() && p.src != nil {
		p.fail("missing %q", text)
	}
	p.tok(pos.Offset, text)
}

// ---------------------------------------------------------------------------
// Declarations and statements

// beginLine starts a declaration or statement on a line of its own.
func (p *printer) beginLine(pos source.Pos) {
	p.inStmt, p.cont = false, false
	p.flush(pos.Offset)
	if len(p.buf) > 0 {
		p.wantBlank = !p.atBlockStart && p.blankBefore(pos.Offset)
		p.needBreak = true
	}
	if p.needBreak {
		p.newline()
	}
	p.atBlockStart = false
	p.inStmt = true
}

func (p *printer) endLine() {
	p.inStmt, p.cont = false, false
	p.needBreak = true
}

func (p *printer) decl(d Decl) {
	if d == nil {
		p.fail("missing declaration")
	}
	switch d := d.(type) {
	case *ConstDecl:
		p.beginLine(d.Const)
		p.posTok(d.Const, "const")
		p.space()
		p.ident(d.Name)
		p.space()
		p.word("=")
		p.space()
		p.expr(d.Value)
	case *VarDecl:
		p.beginLine(d.Var)
		p.varDecl(d)
	case *ThreadDecl:
		p.beginLine(d.Thread)
		p.posTok(d.Thread, "thread")
		p.space()
		p.ident(d.Name)
		if d.Index != nil || d.Lo != nil || d.Hi != nil {
			p.word("[")
			p.ident(d.Index)
			p.space()
			p.word("in")
			p.space()
			p.expr(d.Lo)
			p.word("..")
			p.expr(d.Hi)
			p.word("]")
		}
		p.space()
		p.block(d.Body)
	case *ProcDecl:
		p.beginLine(d.Proc)
		p.posTok(d.Proc, "proc")
		p.space()
		p.ident(d.Name)
		p.params(d.Params, d.Rparen)
		p.space()
		p.block(d.Body)
	case *FuncDecl:
		p.beginLine(d.Func)
		p.posTok(d.Func, "func")
		p.space()
		p.ident(d.Name)
		p.params(d.Params, d.Rparen)
		p.space()
		if d.Result != nil {
			p.typ(d.Result)
			p.space()
		}
		p.block(d.Body)
	case *BadDecl:
		p.fail("%s: syntax error", d.From)
	default:
		p.fail("unexpected declaration %T", d)
	}
	p.endLine()
}

// params prints `(P1 T1, …)`, the `)` at rparen.
func (p *printer) params(params []*Param, rparen source.Pos) {
	p.word("(")
	for i, par := range params {
		if par == nil {
			p.fail("missing parameter")
		}
		if i > 0 {
			p.word(",")
			p.space()
		}
		p.ident(par.Name)
		p.space()
		p.typ(par.Type)
	}
	if len(params) > 0 {
		p.trailingComma(rparen.Offset)
	}
	p.posTok(rparen, ")")
}

func (p *printer) varDecl(d *VarDecl) {
	p.posTok(d.Var, "var")
	p.space()
	p.ident(d.Name)
	p.space()
	if d.IsAtomic() {
		p.posTok(d.Atomic, "atomic")
		p.space()
	}
	p.typ(d.Type)
	if d.Init != nil {
		p.space()
		p.word("=")
		p.space()
		p.expr(d.Init)
	}
}

func (p *printer) typ(t TypeExpr) {
	switch t := t.(type) {
	case *NamedType:
		if !t.Kind.IsType() {
			p.fail("%s: not a type", t.NamePos)
		}
		p.posTok(t.NamePos, t.Kind.String())
	case *ArrayType:
		p.posTok(t.Lbrack, "[")
		p.expr(t.Len)
		p.word("]")
		p.typ(t.Elem)
	case *BadExpr:
		p.fail("%s: syntax error", t.From)
	default:
		p.fail("missing type")
	}
}

// block prints `{`, the statements, `}`. The body is indented one level
// deeper than the line that holds `}`.
func (p *printer) block(b *Block) {
	if b == nil {
		p.fail("missing block")
	}
	p.posTok(b.Lbrace, "{")
	if !b.Rbrace.IsValid() && p.src != nil {
		p.fail("%s: missing }", b.Lbrace)
	}
	hasComments := p.ci < len(p.comments) && p.comments[p.ci].Start.Offset < b.Rbrace.Offset
	if len(b.Stmts) == 0 && !hasComments {
		p.inStmt = false // `{;}` is an empty block too
		p.flush(b.Rbrace.Offset)
		p.inStmt = true
		p.posTok(b.Rbrace, "}")
		return
	}
	saveIndent := p.indent
	p.indent++
	p.atBlockStart = true
	p.needBreak = true
	p.pendingSpace = false
	for _, s := range b.Stmts {
		p.stmt(s)
	}
	// Comments after the last statement belong to the body.
	p.inStmt, p.cont = false, false
	p.flush(b.Rbrace.Offset)
	p.needBreak = true
	p.newline()
	p.indent = saveIndent
	p.inStmt, p.cont = true, false
	p.atBlockStart = false
	p.posTok(b.Rbrace, "}")
}

func (p *printer) stmt(s Stmt) {
	if s == nil {
		p.fail("missing statement")
	}
	p.beginLine(s.Pos())
	p.stmtBody(s)
	p.endLine()
}

// stmtBody prints a statement from its first token on.
func (p *printer) stmtBody(s Stmt) {
	switch s := s.(type) {
	case *Block:
		p.block(s)
	case *DeclStmt:
		if s.Decl == nil {
			p.fail("missing declaration")
		}
		p.varDecl(s.Decl)
	case *AssignStmt:
		p.expr(s.LHS)
		p.space()
		if !s.Op.IsAssignOp() {
			p.fail("%s: not an assignment operator", s.OpPos)
		}
		p.posTok(s.OpPos, s.Op.String())
		p.space()
		p.expr(s.RHS)
	case *IncDecStmt:
		p.expr(s.X)
		if s.Op != INC && s.Op != DEC {
			p.fail("%s: not ++ or --", s.OpPos)
		}
		p.posTok(s.OpPos, s.Op.String())
	case *LockStmt:
		kw := "lock"
		if s.Unlock {
			kw = "unlock"
		}
		p.posTok(s.Keyword, kw)
		p.word("(")
		p.expr(s.Mutex)
		p.posTok(s.Rparen, ")")
	case *SpawnStmt:
		if s.Call == nil {
			p.fail("missing spawn")
		}
		p.expr(s.Call)
	case *JoinStmt:
		p.posTok(s.Join, "join")
		p.space()
		p.expr(s.Thread)
	case *ReturnStmt:
		p.posTok(s.Return, "return")
		if s.Result != nil {
			p.space()
			p.expr(s.Result)
		}
	case *WaitStmt:
		p.posTok(s.Wait, "wait")
		p.word("(")
		p.expr(s.Cond)
		p.word(",")
		p.space()
		p.expr(s.Mutex)
		p.posTok(s.Rparen, ")")
	case *SignalStmt:
		kw := "signal"
		if s.Broadcast {
			kw = "broadcast"
		}
		p.posTok(s.Keyword, kw)
		p.word("(")
		p.expr(s.Cond)
		p.posTok(s.Rparen, ")")
	case *AwaitStmt:
		p.posTok(s.Await, "await")
		p.space()
		p.expr(s.Cond)
	case *AssertStmt:
		p.posTok(s.Assert, "assert")
		p.space()
		p.expr(s.Cond)
		if s.Message != nil {
			p.word(",")
			p.space()
			p.expr(s.Message)
		}
	case *AssumeStmt:
		p.posTok(s.Assume, "assume")
		p.space()
		p.expr(s.Cond)
	case *IfStmt:
		p.ifStmt(s)
	case *WhileStmt:
		p.posTok(s.While, "while")
		p.space()
		p.expr(s.Cond)
		p.space()
		p.block(s.Body)
	case *ForStmt:
		p.posTok(s.For, "for")
		p.space()
		p.ident(s.Var)
		p.space()
		p.word("in")
		p.space()
		p.expr(s.Lo)
		p.word("..")
		p.expr(s.Hi)
		p.space()
		p.block(s.Body)
	case *BranchStmt:
		if s.Tok != BREAK && s.Tok != CONTINUE {
			p.fail("%s: not break or continue", s.TokPos)
		}
		p.posTok(s.TokPos, s.Tok.String())
	case *AtomicStmt:
		p.posTok(s.Atomic, "atomic")
		p.space()
		p.block(s.Body)
	case *ExprStmt:
		p.expr(s.X)
	case *BadStmt:
		p.fail("%s: syntax error", s.From)
	default:
		p.fail("unexpected statement %T", s)
	}
}

// ifStmt prints an if statement and its else-if chain, in a loop: the
// chain has no length limit.
func (p *printer) ifStmt(s *IfStmt) {
	for {
		p.posTok(s.If, "if")
		p.space()
		p.expr(s.Cond)
		p.space()
		p.block(s.Then)
		switch e := s.Else.(type) {
		case nil:
			return
		case *IfStmt:
			if e == nil {
				return
			}
			p.space()
			p.word("else")
			p.space()
			s = e
			continue
		case *Block:
			p.space()
			p.word("else")
			p.space()
			p.block(e)
		case *BadStmt:
			p.fail("%s: syntax error", e.From)
		default:
			p.fail("unexpected else branch %T", e)
		}
		return
	}
}

// ---------------------------------------------------------------------------
// Expressions

func (p *printer) ident(id *Ident) {
	if id == nil || id.Name == "" {
		p.fail("missing name")
	}
	p.posTok(id.NamePos, id.Name)
}

// precedence of an expression as an operand: binary operators by their
// level, everything else binds tighter than any of them.
func precedence(e Expr) int {
	if b, ok := e.(*BinaryExpr); ok {
		return b.Op.Precedence()
	}
	return 7
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case *Ident:
		p.ident(e)
	case *IntLit:
		if e.Raw == "" {
			p.fail("empty integer literal")
		}
		p.posTok(e.ValuePos, e.Raw)
	case *BoolLit:
		if e.Value {
			p.posTok(e.ValuePos, "true")
		} else {
			p.posTok(e.ValuePos, "false")
		}
	case *StringLit:
		if len(e.Raw) < 2 {
			p.fail("bad string literal")
		}
		p.posTok(e.ValuePos, e.Raw)
	case *IndexExpr:
		p.operand(e.X, 7)
		p.posTok(e.Lbrack, "[")
		p.expr(e.Index)
		p.posTok(e.Rbrack, "]")
	case *ParenExpr:
		p.posTok(e.Lparen, "(")
		p.expr(e.X)
		p.posTok(e.Rparen, ")")
	case *UnaryExpr:
		if e.Op != SUB && e.Op != NOT {
			p.fail("%s: not a unary operator", e.OpPos)
		}
		p.posTok(e.OpPos, e.Op.String())
		if u, ok := e.X.(*UnaryExpr); ok && e.Op == SUB && u.Op == SUB {
			p.space() // `- -x`, not the `--` token
		}
		p.operand(e.X, 7)
	case *BinaryExpr:
		prec := e.Op.Precedence()
		if prec == 0 {
			p.fail("%s: not a binary operator", e.OpPos)
		}
		p.operand(e.X, prec)
		p.space()
		p.posTok(e.OpPos, e.Op.String())
		p.space()
		p.operand(e.Y, prec+1)
	case *InitList:
		p.posTok(e.Lbrace, "{")
		for i, x := range e.Elems {
			if i > 0 {
				p.word(",")
				p.space()
			}
			p.expr(x)
		}
		if len(e.Elems) > 0 {
			p.trailingComma(e.Rbrace.Offset)
		}
		p.posTok(e.Rbrace, "}")
	case *SpawnExpr:
		p.posTok(e.Spawn, "spawn")
		p.space()
		p.ident(e.Proc)
		p.word("(")
		p.args(e.Args, e.Rparen)
	case *CallExpr:
		p.ident(e.Func)
		p.posTok(e.Lparen, "(")
		p.args(e.Args, e.Rparen)
	case *TrylockExpr:
		p.posTok(e.Trylock, "trylock")
		p.word("(")
		p.expr(e.Mutex)
		p.posTok(e.Rparen, ")")
	case *ChooseExpr:
		p.posTok(e.Choose, "choose")
		p.space()
		p.expr(e.Lo)
		p.word("..")
		p.expr(e.Hi)
	case *BadExpr:
		p.fail("%s: syntax error", e.From)
	case nil:
		p.fail("missing expression")
	default:
		p.fail("unexpected expression %T", e)
	}
}

// args prints the arguments of a spawn or call after its `(`, and the
// `)` at rparen.
func (p *printer) args(args []Expr, rparen source.Pos) {
	for i, x := range args {
		if i > 0 {
			p.word(",")
			p.space()
		}
		p.expr(x)
	}
	if len(args) > 0 {
		p.trailingComma(rparen.Offset)
	}
	p.posTok(rparen, ")")
}

// operand prints e where an operand of at least precedence prec is needed.
// Trees from the parser always satisfy this (it records parentheses as
// ParenExpr); a tree built by hand gets the parentheses it needs. A
// choose extends as far to the right as an expression goes: the parser
// never makes one the left operand of anything, and a tree built by hand
// gets parentheses around every choose that is an operand.
func (p *printer) operand(e Expr, prec int) {
	if _, ok := e.(*ChooseExpr); ok && p.src == nil {
		p.emit("(")
		p.expr(e)
		p.emit(")")
		return
	}
	if precedence(e) >= prec {
		p.expr(e)
		return
	}
	if p.src != nil {
		p.fail("operator precedence does not match the source")
	}
	p.emit("(")
	p.expr(e)
	p.emit(")")
}
