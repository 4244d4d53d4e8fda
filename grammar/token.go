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
	SPAWN
	JOIN
	RETURN
	LOCK
	UNLOCK
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
	TRUE
	FALSE
	// Reserved for version 2 of the language: lexed as keywords so that
	// nobody can use them as names today.
	COND
	WAIT
	SIGNAL
	BROADCAST
	CHOOSE
	AWAIT
	keywordEnd
)

var kindText = [...]string{
	ILLEGAL: "ILLEGAL", EOF: "EOF", COMMENT: "COMMENT",
	IDENT: "IDENT", INT: "INT", STRING: "STRING",
	ADD: "+", SUB: "-", MUL: "*", QUO: "/", REM: "%",
	LAND: "&&", LOR: "||", NOT: "!",
	EQL: "==", NEQ: "!=", LSS: "<", LEQ: "<=", GTR: ">", GEQ: ">=",
	ASSIGN: "=", ADD_ASSIGN: "+=", SUB_ASSIGN: "-=", INC: "++", DEC: "--",
	LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", LBRACE: "{", RBRACE: "}",
	COMMA: ",", SEMICOLON: ";", RANGE: "..",
	CONST: "const", VAR: "var", THREAD: "thread", PROC: "proc", SPAWN: "spawn",
	JOIN: "join", RETURN: "return", LOCK: "lock", UNLOCK: "unlock",
	ASSERT: "assert", ASSUME: "assume", ATOMIC: "atomic", IF: "if", ELSE: "else",
	WHILE: "while", FOR: "for", IN: "in", BREAK: "break", CONTINUE: "continue",
	INT_TYPE: "int", BOOL_TYPE: "bool", MUTEX_TYPE: "mutex", TID_TYPE: "tid",
	TRUE: "true", FALSE: "false",
	COND: "cond", WAIT: "wait", SIGNAL: "signal", BROADCAST: "broadcast",
	CHOOSE: "choose", AWAIT: "await",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindText) && kindText[k] != "" {
		return kindText[k]
	}
	return "token(?)"
}

// IsKeyword reports whether k is a keyword (reserved ones included).
func (k Kind) IsKeyword() bool { return keywordBeg < k && k < keywordEnd }

// IsReserved reports whether k is a keyword reserved for a later version.
func (k Kind) IsReserved() bool { return COND <= k && k <= AWAIT }

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
