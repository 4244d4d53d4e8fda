package grammar

import "weft/source"

// Kind is the kind of a lexical token.
type Kind int

// The token kinds. Keywords sit between keywordBeg and keywordEnd so that
// IsKeyword is a range check.
const (
	ILLEGAL Kind = iota
	EOF
	COMMENT

	IDENT
	INT    // 42, 0x2A
	STRING // "…"

	// Operators and delimiters.
	ADD        // +
	SUB        // -
	MUL        // *
	QUO        // /
	REM        // %
	LAND       // &&
	LOR        // ||
	NOT        // !
	EQL        // ==
	NEQ        // !=
	LSS        // <
	LEQ        // <=
	GTR        // >
	GEQ        // >=
	ASSIGN     // =
	ADD_ASSIGN // +=
	SUB_ASSIGN // -=
	MUL_ASSIGN // *=
	QUO_ASSIGN // /=
	REM_ASSIGN // %=
	INC        // ++
	DEC        // --
	LPAREN     // (
	RPAREN     // )
	LBRACK     // [
	RBRACK     // ]
	LBRACE     // {
	RBRACE     // }
	COMMA      // ,
	SEMICOLON  // ; (or an automatically inserted one, with Text "\n")
	RANGE      // ..

	keywordBeg
	CONST
	VAR
	THREAD
	PROC
	FUNC
	SPAWN
	JOIN
	RETURN
	LOCK
	UNLOCK
	TRYLOCK
	WAIT
	SIGNAL
	BROADCAST
	AWAIT
	CHOOSE
	ASSERT
	ASSUME
	ATOMIC
	IF
	ELSE
	WHILE
	FOR
	IN
	BREAK
	CONTINUE
	INT_TYPE   // int
	BOOL_TYPE  // bool
	MUTEX_TYPE // mutex
	TID_TYPE   // tid
	COND_TYPE  // cond
	TRUE
	FALSE
	keywordEnd
)

var kindText = [...]string{
	ILLEGAL: "ILLEGAL", EOF: "EOF", COMMENT: "COMMENT",
	IDENT: "IDENT", INT: "INT", STRING: "STRING",
	ADD: "+", SUB: "-", MUL: "*", QUO: "/", REM: "%",
	LAND: "&&", LOR: "||", NOT: "!",
	EQL: "==", NEQ: "!=", LSS: "<", LEQ: "<=", GTR: ">", GEQ: ">=",
	ASSIGN: "=", ADD_ASSIGN: "+=", SUB_ASSIGN: "-=", MUL_ASSIGN: "*=", QUO_ASSIGN: "/=", REM_ASSIGN: "%=",
	INC: "++", DEC: "--",
	LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", LBRACE: "{", RBRACE: "}",
	COMMA: ",", SEMICOLON: ";", RANGE: "..",
	CONST: "const", VAR: "var", THREAD: "thread", PROC: "proc", FUNC: "func", SPAWN: "spawn",
	JOIN: "join", RETURN: "return", LOCK: "lock", UNLOCK: "unlock", TRYLOCK: "trylock",
	WAIT: "wait", SIGNAL: "signal", BROADCAST: "broadcast", AWAIT: "await", CHOOSE: "choose",
	ASSERT: "assert", ASSUME: "assume", ATOMIC: "atomic", IF: "if", ELSE: "else",
	WHILE: "while", FOR: "for", IN: "in", BREAK: "break", CONTINUE: "continue",
	INT_TYPE: "int", BOOL_TYPE: "bool", MUTEX_TYPE: "mutex", TID_TYPE: "tid", COND_TYPE: "cond",
	TRUE: "true", FALSE: "false",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindText) && kindText[k] != "" {
		return kindText[k]
	}
	return "token(?)"
}

// IsKeyword reports whether k is a keyword. Language version 2 has no
// reserved words: every keyword means something, and none can be a name.
func (k Kind) IsKeyword() bool { return keywordBeg < k && k < keywordEnd }

// IsType reports whether k names a basic type: int, bool, mutex, tid or
// cond.
func (k Kind) IsType() bool { return INT_TYPE <= k && k <= COND_TYPE }

// IsAssignOp reports whether k is an assignment operator: =, +=, -=, *=,
// /= or %=.
func (k Kind) IsAssignOp() bool { return k == ASSIGN || ADD_ASSIGN <= k && k <= REM_ASSIGN }

// BinaryOp returns the binary operator of a compound assignment (ADD for
// +=, …), or ILLEGAL for any other kind.
func (k Kind) BinaryOp() Kind {
	switch k {
	case ADD_ASSIGN:
		return ADD
	case SUB_ASSIGN:
		return SUB
	case MUL_ASSIGN:
		return MUL
	case QUO_ASSIGN:
		return QUO
	case REM_ASSIGN:
		return REM
	}
	return ILLEGAL
}

var keywords = func() map[string]Kind {
	m := make(map[string]Kind)
	for k := keywordBeg + 1; k < keywordEnd; k++ {
		m[kindText[k]] = k
	}
	return m
}()

// Lookup maps an identifier to its keyword kind, or IDENT.
func Lookup(name string) Kind {
	if k, ok := keywords[name]; ok {
		return k
	}
	return IDENT
}

// Precedence returns the binary operator precedence of k, loosest 1, or 0
// if k is not a binary operator.
func (k Kind) Precedence() int {
	switch k {
	case LOR:
		return 1
	case LAND:
		return 2
	case EQL, NEQ:
		return 3
	case LSS, LEQ, GTR, GEQ:
		return 4
	case ADD, SUB:
		return 5
	case MUL, QUO, REM:
		return 6
	}
	return 0
}

// Token is one lexical token with its exact extent.
type Token struct {
	Kind Kind
	Text string // the source text; "\n" for an inserted semicolon
	Pos  source.Pos
	End  source.Pos
}
