package grammar

import "weft/source"

// Node is any node of the syntax tree. Pos is the position of its first
// character, End the position just after its last.
type Node interface {
	Pos() source.Pos
	End() source.Pos
}

// Range returns the source range a node covers.
func Range(n Node) source.Range { return source.Range{Start: n.Pos(), End: n.End()} }

// File is a parsed Weft source file. Every comment of the file is in
// Comments, in source order, whatever node it sits next to.
type File struct {
	Decls    []Decl
	Comments []*Comment
	EOF      source.Pos
}

func (f *File) Pos() source.Pos { return source.Pos{} }
func (f *File) End() source.Pos { return f.EOF }

// Comment is a // or /* */ comment, Text including the delimiters.
type Comment struct {
	Start source.Pos
	Stop  source.Pos
	Text  string
}

func (c *Comment) Pos() source.Pos { return c.Start }
func (c *Comment) End() source.Pos { return c.Stop }

// ---------------------------------------------------------------------------
// Declarations

// Decl is a top-level declaration: *ConstDecl, *VarDecl, *ThreadDecl,
// *ProcDecl, *FuncDecl or *BadDecl.
type Decl interface {
	Node
	declNode()
}

// ConstDecl is `const Name = Value`.
type ConstDecl struct {
	Const source.Pos
	Name  *Ident
	Value Expr
}

// VarDecl is `var Name [atomic] Type [= Init]`, at top level (a shared
// variable) or inside a thread (a local, wrapped in a DeclStmt). Init is
// an expression, an *InitList for arrays, a *SpawnExpr, or nil.
type VarDecl struct {
	Var    source.Pos
	Name   *Ident
	Atomic source.Pos // position of `atomic`, or NoPos
	Type   TypeExpr
	Init   Expr
}

// IsAtomic reports whether the variable was declared `atomic`.
func (d *VarDecl) IsAtomic() bool { return d.Atomic.IsValid() }

// ThreadDecl is `thread Name Body` or `thread Name[Index in Lo..Hi] Body`.
// Index, Lo and Hi are nil for a single thread.
type ThreadDecl struct {
	Thread source.Pos
	Name   *Ident
	Index  *Ident
	Lo, Hi Expr
	Body   *Block
}

// ProcDecl is `proc Name(P1 T1, …) Body`.
type ProcDecl struct {
	Proc   source.Pos
	Name   *Ident
	Params []*Param
	Rparen source.Pos
	Body   *Block
}

// FuncDecl is `func Name(P1 T1, …) [Result] Body`. Result is nil for a
// function without a result.
type FuncDecl struct {
	Func   source.Pos
	Name   *Ident
	Params []*Param
	Rparen source.Pos
	Result TypeExpr
	Body   *Block
}

// Param is one parameter of a proc or func.
type Param struct {
	Name *Ident
	Type TypeExpr
}

// BadDecl stands for a declaration that could not be parsed.
type BadDecl struct {
	From, To source.Pos
}

func (d *ConstDecl) Pos() source.Pos { return d.Const }
func (d *ConstDecl) End() source.Pos { return endOf(d.Value, d.Name) }
func (d *VarDecl) Pos() source.Pos   { return d.Var }
func (d *VarDecl) End() source.Pos {
	if d.Init != nil {
		return d.Init.End()
	}
	if d.Type != nil {
		return d.Type.End()
	}
	return d.Name.End()
}
func (d *ThreadDecl) Pos() source.Pos { return d.Thread }
func (d *ThreadDecl) End() source.Pos { return d.Body.End() }
func (d *ProcDecl) Pos() source.Pos   { return d.Proc }
func (d *ProcDecl) End() source.Pos   { return d.Body.End() }
func (d *FuncDecl) Pos() source.Pos   { return d.Func }
func (d *FuncDecl) End() source.Pos   { return d.Body.End() }
func (p *Param) Pos() source.Pos      { return p.Name.Pos() }
func (p *Param) End() source.Pos      { return endOf(p.Type, p.Name) }
func (d *BadDecl) Pos() source.Pos    { return d.From }
func (d *BadDecl) End() source.Pos    { return d.To }

func (*ConstDecl) declNode()  {}
func (*VarDecl) declNode()    {}
func (*ThreadDecl) declNode() {}
func (*ProcDecl) declNode()   {}
func (*FuncDecl) declNode()   {}
func (*BadDecl) declNode()    {}

// endOf returns the end of the first non-nil node (used where a child may
// be missing after a syntax error).
func endOf(nodes ...Node) source.Pos {
	for _, n := range nodes {
		if n != nil && !isNilNode(n) {
			return n.End()
		}
	}
	return source.NoPos
}

func isNilNode(n Node) bool {
	switch n := n.(type) {
	case *Ident:
		return n == nil
	case *Block:
		return n == nil
	}
	return false
}

// ---------------------------------------------------------------------------
// Types

// TypeExpr is a type: *NamedType or *ArrayType (or *BadExpr after errors).
type TypeExpr interface {
	Node
	typeNode()
}

// NamedType is one of the keywords int, bool, mutex, tid, cond.
type NamedType struct {
	NamePos source.Pos
	Kind    Kind // INT_TYPE, BOOL_TYPE, MUTEX_TYPE, TID_TYPE or COND_TYPE
}

// ArrayType is `[Len]Elem`.
type ArrayType struct {
	Lbrack source.Pos
	Len    Expr
	Elem   TypeExpr
}

func (t *NamedType) Pos() source.Pos { return t.NamePos }
func (t *NamedType) End() source.Pos {
	return advance(t.NamePos, len(t.Kind.String()))
}
func (t *ArrayType) Pos() source.Pos { return t.Lbrack }
func (t *ArrayType) End() source.Pos { return t.Elem.End() }
func (*NamedType) typeNode()         {}
func (*ArrayType) typeNode()         {}
func (*BadExpr) typeNode()           {}

// advance moves an ASCII-only position n bytes to the right.
func advance(p source.Pos, n int) source.Pos {
	return source.Pos{Offset: p.Offset + n, Line: p.Line, Col: p.Col + n}
}

// ---------------------------------------------------------------------------
// Statements

// Stmt is a statement inside a thread, proc or func body.
type Stmt interface {
	Node
	stmtNode()
}

// Block is `{ Stmts }`.
type Block struct {
	Lbrace source.Pos
	Stmts  []Stmt
	Rbrace source.Pos // position of `}`
}

// DeclStmt declares a local variable.
type DeclStmt struct {
	Decl *VarDecl
}

// AssignStmt is `LHS Op RHS` with Op an assignment operator (ASSIGN,
// ADD_ASSIGN, SUB_ASSIGN, MUL_ASSIGN, QUO_ASSIGN, REM_ASSIGN; see
// Kind.IsAssignOp). RHS may be a *SpawnExpr when Op is ASSIGN.
type AssignStmt struct {
	LHS   Expr
	OpPos source.Pos
	Op    Kind
	RHS   Expr
}

// IncDecStmt is `X++` or `X--`.
type IncDecStmt struct {
	X     Expr
	OpPos source.Pos
	Op    Kind // INC or DEC
}

// LockStmt is `lock(Mutex)` or `unlock(Mutex)`.
type LockStmt struct {
	Keyword source.Pos
	Unlock  bool
	Mutex   Expr
	Rparen  source.Pos
}

// SpawnStmt is a spawn whose thread handle is dropped: `spawn P(args)`.
type SpawnStmt struct {
	Call *SpawnExpr
}

// JoinStmt is `join Thread`.
type JoinStmt struct {
	Join   source.Pos
	Thread Expr
}

// ReturnStmt is `return` or `return Result` (Result nil for the first).
type ReturnStmt struct {
	Return source.Pos
	Result Expr
}

// WaitStmt is `wait(Cond, Mutex)`.
type WaitStmt struct {
	Wait        source.Pos
	Cond, Mutex Expr
	Rparen      source.Pos
}

// SignalStmt is `signal(Cond)` or `broadcast(Cond)`.
type SignalStmt struct {
	Keyword   source.Pos
	Broadcast bool
	Cond      Expr
	Rparen    source.Pos
}

// AwaitStmt is `await Cond`.
type AwaitStmt struct {
	Await source.Pos
	Cond  Expr
}

// AssertStmt is `assert Cond [, Message]`.
type AssertStmt struct {
	Assert  source.Pos
	Cond    Expr
	Message *StringLit // nil if absent
}

// AssumeStmt is `assume Cond`.
type AssumeStmt struct {
	Assume source.Pos
	Cond   Expr
}

// IfStmt is `if Cond Then [else Else]`; Else is nil, a *Block or an *IfStmt
// (or a *BadStmt after errors). An else-if chain may be arbitrarily long
// (MaxNesting does not count it): code that follows Else must do so in a
// loop, not by recursion.
type IfStmt struct {
	If   source.Pos
	Cond Expr
	Then *Block
	Else Stmt
}

// WhileStmt is `while Cond Body`.
type WhileStmt struct {
	While source.Pos
	Cond  Expr
	Body  *Block
}

// ForStmt is `for Var in Lo..Hi Body` (half-open).
type ForStmt struct {
	For    source.Pos
	Var    *Ident
	Lo, Hi Expr
	Body   *Block
}

// BranchStmt is `break` or `continue`.
type BranchStmt struct {
	TokPos source.Pos
	Tok    Kind // BREAK or CONTINUE
}

// AtomicStmt is `atomic Body`.
type AtomicStmt struct {
	Atomic source.Pos
	Body   *Block
}

// ExprStmt is an expression used as a statement. Only a spawn or a
// function call is valid there; the parser keeps other expressions in an
// ExprStmt so that the analysis can report them with a precise message.
type ExprStmt struct {
	X Expr
}

// BadStmt stands for a statement that could not be parsed.
type BadStmt struct {
	From, To source.Pos
}

func (s *Block) Pos() source.Pos { return s.Lbrace }
func (s *Block) End() source.Pos {
	if s.Rbrace.IsValid() {
		return advance(s.Rbrace, 1)
	}
	if n := len(s.Stmts); n > 0 {
		return s.Stmts[n-1].End()
	}
	return advance(s.Lbrace, 1)
}
func (s *DeclStmt) Pos() source.Pos   { return s.Decl.Pos() }
func (s *DeclStmt) End() source.Pos   { return s.Decl.End() }
func (s *AssignStmt) Pos() source.Pos { return s.LHS.Pos() }
func (s *AssignStmt) End() source.Pos { return endOf(s.RHS, s.LHS) }
func (s *IncDecStmt) Pos() source.Pos { return s.X.Pos() }
func (s *IncDecStmt) End() source.Pos { return advance(s.OpPos, 2) }
func (s *LockStmt) Pos() source.Pos   { return s.Keyword }
func (s *LockStmt) End() source.Pos {
	if s.Rparen.IsValid() {
		return advance(s.Rparen, 1)
	}
	if s.Mutex != nil {
		return s.Mutex.End()
	}
	n := len("lock")
	if s.Unlock {
		n = len("unlock")
	}
	return advance(s.Keyword, n)
}
func (s *SpawnStmt) Pos() source.Pos  { return s.Call.Pos() }
func (s *SpawnStmt) End() source.Pos  { return s.Call.End() }
func (s *JoinStmt) Pos() source.Pos   { return s.Join }
func (s *JoinStmt) End() source.Pos   { return endOf(s.Thread, nil) }
func (s *ReturnStmt) Pos() source.Pos { return s.Return }
func (s *ReturnStmt) End() source.Pos {
	if s.Result != nil {
		return s.Result.End()
	}
	return advance(s.Return, len("return"))
}
func (s *WaitStmt) Pos() source.Pos { return s.Wait }
func (s *WaitStmt) End() source.Pos {
	if s.Rparen.IsValid() {
		return advance(s.Rparen, 1)
	}
	return endOf(s.Mutex, s.Cond)
}
func (s *SignalStmt) Pos() source.Pos { return s.Keyword }
func (s *SignalStmt) End() source.Pos {
	if s.Rparen.IsValid() {
		return advance(s.Rparen, 1)
	}
	return s.Cond.End()
}
func (s *AwaitStmt) Pos() source.Pos  { return s.Await }
func (s *AwaitStmt) End() source.Pos  { return s.Cond.End() }
func (s *AssertStmt) Pos() source.Pos { return s.Assert }
func (s *AssertStmt) End() source.Pos {
	if s.Message != nil {
		return s.Message.End()
	}
	return s.Cond.End()
}
func (s *AssumeStmt) Pos() source.Pos { return s.Assume }
func (s *AssumeStmt) End() source.Pos { return s.Cond.End() }
func (s *IfStmt) Pos() source.Pos     { return s.If }
func (s *IfStmt) End() source.Pos {
	// An else-if chain has no length limit: walk it in a loop.
	for {
		switch e := s.Else.(type) {
		case nil:
			return s.Then.End()
		case *IfStmt:
			if e == nil {
				return s.Then.End()
			}
			s = e
		default:
			return e.End()
		}
	}
}
func (s *WhileStmt) Pos() source.Pos  { return s.While }
func (s *WhileStmt) End() source.Pos  { return s.Body.End() }
func (s *ForStmt) Pos() source.Pos    { return s.For }
func (s *ForStmt) End() source.Pos    { return s.Body.End() }
func (s *BranchStmt) Pos() source.Pos { return s.TokPos }
func (s *BranchStmt) End() source.Pos { return advance(s.TokPos, len(s.Tok.String())) }
func (s *AtomicStmt) Pos() source.Pos { return s.Atomic }
func (s *AtomicStmt) End() source.Pos { return s.Body.End() }
func (s *ExprStmt) Pos() source.Pos   { return s.X.Pos() }
func (s *ExprStmt) End() source.Pos   { return s.X.End() }
func (s *BadStmt) Pos() source.Pos    { return s.From }
func (s *BadStmt) End() source.Pos    { return s.To }

func (*Block) stmtNode()      {}
func (*DeclStmt) stmtNode()   {}
func (*AssignStmt) stmtNode() {}
func (*IncDecStmt) stmtNode() {}
func (*LockStmt) stmtNode()   {}
func (*SpawnStmt) stmtNode()  {}
func (*JoinStmt) stmtNode()   {}
func (*ReturnStmt) stmtNode() {}
func (*WaitStmt) stmtNode()   {}
func (*SignalStmt) stmtNode() {}
func (*AwaitStmt) stmtNode()  {}
func (*AssertStmt) stmtNode() {}
func (*AssumeStmt) stmtNode() {}
func (*IfStmt) stmtNode()     {}
func (*WhileStmt) stmtNode()  {}
func (*ForStmt) stmtNode()    {}
func (*BranchStmt) stmtNode() {}
func (*AtomicStmt) stmtNode() {}
func (*ExprStmt) stmtNode()   {}
func (*BadStmt) stmtNode()    {}

// ---------------------------------------------------------------------------
// Expressions

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name.
type Ident struct {
	NamePos source.Pos
	Name    string
	EndPos  source.Pos
}

// IntLit is an integer literal; Raw is its text (decimal or 0x…).
type IntLit struct {
	ValuePos source.Pos
	Raw      string
	EndPos   source.Pos
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	ValuePos source.Pos
	Value    bool
}

// StringLit is a string literal; Raw keeps the quotes and escapes, Value is
// the decoded text.
type StringLit struct {
	ValuePos source.Pos
	Raw      string
	Value    string
	EndPos   source.Pos
}

// IndexExpr is `X[Index]`.
type IndexExpr struct {
	X      Expr
	Lbrack source.Pos
	Index  Expr
	Rbrack source.Pos
}

// ParenExpr is `(X)`.
type ParenExpr struct {
	Lparen source.Pos
	X      Expr
	Rparen source.Pos
}

// UnaryExpr is `-X` or `!X`.
type UnaryExpr struct {
	OpPos source.Pos
	Op    Kind // SUB or NOT
	X     Expr
}

// BinaryExpr is `X Op Y`.
type BinaryExpr struct {
	X     Expr
	OpPos source.Pos
	Op    Kind
	Y     Expr
}

// InitList is `{E1, E2, …}`, the initialiser of an array variable.
type InitList struct {
	Lbrace source.Pos
	Elems  []Expr
	Rbrace source.Pos
}

// SpawnExpr is `spawn Proc(Args)`; it is valid only as a statement, as the
// right-hand side of `=`, or as a local `tid` variable's initialiser.
type SpawnExpr struct {
	Spawn  source.Pos
	Proc   *Ident
	Args   []Expr
	Rparen source.Pos
}

// CallExpr is a function call `Func(Args)`.
type CallExpr struct {
	Func   *Ident
	Lparen source.Pos
	Args   []Expr
	Rparen source.Pos
}

// TrylockExpr is `trylock(Mutex)`, a bool.
type TrylockExpr struct {
	Trylock source.Pos
	Mutex   Expr
	Rparen  source.Pos
}

// ChooseExpr is `choose Lo..Hi`: an int of the half-open range, each value
// explored. Hi extends as far as an expression goes (`choose 0..N + 1`
// chooses among 0 … N), so a choose that is the left operand of an
// operator is written in parentheses.
type ChooseExpr struct {
	Choose source.Pos
	Lo, Hi Expr
}

// BadExpr stands for an expression that could not be parsed.
type BadExpr struct {
	From, To source.Pos
}

func (e *Ident) Pos() source.Pos   { return e.NamePos }
func (e *Ident) End() source.Pos   { return e.EndPos }
func (e *IntLit) Pos() source.Pos  { return e.ValuePos }
func (e *IntLit) End() source.Pos  { return e.EndPos }
func (e *BoolLit) Pos() source.Pos { return e.ValuePos }
func (e *BoolLit) End() source.Pos {
	if e.Value {
		return advance(e.ValuePos, 4)
	}
	return advance(e.ValuePos, 5)
}
func (e *StringLit) Pos() source.Pos   { return e.ValuePos }
func (e *StringLit) End() source.Pos   { return e.EndPos }
func (e *IndexExpr) Pos() source.Pos   { return e.X.Pos() }
func (e *IndexExpr) End() source.Pos   { return advance(e.Rbrack, 1) }
func (e *ParenExpr) Pos() source.Pos   { return e.Lparen }
func (e *ParenExpr) End() source.Pos   { return advance(e.Rparen, 1) }
func (e *UnaryExpr) Pos() source.Pos   { return e.OpPos }
func (e *UnaryExpr) End() source.Pos   { return e.X.End() }
func (e *BinaryExpr) Pos() source.Pos  { return e.X.Pos() }
func (e *BinaryExpr) End() source.Pos  { return e.Y.End() }
func (e *InitList) Pos() source.Pos    { return e.Lbrace }
func (e *InitList) End() source.Pos    { return advance(e.Rbrace, 1) }
func (e *SpawnExpr) Pos() source.Pos   { return e.Spawn }
func (e *SpawnExpr) End() source.Pos   { return advance(e.Rparen, 1) }
func (e *CallExpr) Pos() source.Pos    { return e.Func.Pos() }
func (e *CallExpr) End() source.Pos    { return advance(e.Rparen, 1) }
func (e *TrylockExpr) Pos() source.Pos { return e.Trylock }
func (e *TrylockExpr) End() source.Pos { return advance(e.Rparen, 1) }
func (e *ChooseExpr) Pos() source.Pos  { return e.Choose }
func (e *ChooseExpr) End() source.Pos  { return e.Hi.End() }
func (e *BadExpr) Pos() source.Pos     { return e.From }
func (e *BadExpr) End() source.Pos     { return e.To }

func (*Ident) exprNode()       {}
func (*IntLit) exprNode()      {}
func (*BoolLit) exprNode()     {}
func (*StringLit) exprNode()   {}
func (*IndexExpr) exprNode()   {}
func (*ParenExpr) exprNode()   {}
func (*UnaryExpr) exprNode()   {}
func (*BinaryExpr) exprNode()  {}
func (*InitList) exprNode()    {}
func (*SpawnExpr) exprNode()   {}
func (*CallExpr) exprNode()    {}
func (*TrylockExpr) exprNode() {}
func (*ChooseExpr) exprNode()  {}
func (*BadExpr) exprNode()     {}
