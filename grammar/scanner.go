package grammar

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"weft/source"
)

// Diagnostic codes of the lexer. Every lexical error is an Error; the code
// says what kind it is.
const (
	CodeSyntaxError         = "syntax-error"
	CodeInvalidChar         = "invalid-char"
	CodeInvalidInt          = "invalid-int"
	CodeInvalidEscape       = "invalid-escape"
	CodeUnterminatedString  = "unterminated-string"
	CodeUnterminatedComment = "unterminated-comment"
)

// Scanner turns Weft source text into tokens, in the style of go/scanner.
// Next returns every token, comments included, and inserts a SEMICOLON
// (with Text "\n") at a newline, or at the end of the text, when the line's
// last token is a name, a literal, true, false, return, break, continue,
// a type keyword, `)`, `]`, `}`, `++` or `--`, as Go does. Its Pos is the
// newline (End the start of the next line); at the end of the text it has
// no width. A /* */ comment containing a newline counts as one: the
// semicolon follows the comment, with no width, at its end. One addition
// to Go's rule: an ILLEGAL token also ends a line, so that a stray
// character at the end of a line does not join it to the next one.
//
// Lexical errors do not stop the scan: the Scanner records them (see
// Errors) and goes on. Each is an Error with a stable code: invalid-char,
// invalid-int (malformed or outside int64), invalid-escape,
// unterminated-string or unterminated-comment.
type Scanner struct {
	src  []byte
	text string // src as a string, so that token texts are slices of it

	off  int // byte offset of the next unread character
	line int // 0-based line of off
	col  int // UTF-16 column of off

	insertSemi  bool       // a newline now ends a statement
	pendingSemi bool       // a /* */ comment with a newline was just returned
	semiPos     source.Pos // where that pending semicolon goes

	errs []source.Diagnostic
}

// NewScanner returns a Scanner reading src from the start. A UTF-8 byte
// order mark at the very start of src is skipped.
func NewScanner(src []byte) *Scanner {
	s := &Scanner{src: src, text: string(src)}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3
		s.col = 1 // U+FEFF is one UTF-16 unit
	}
	return s
}

// Errors returns the lexical errors found so far, in source order.
func (s *Scanner) Errors() []source.Diagnostic { return s.errs }

// Tokenize scans all of src and returns its tokens, comments and inserted
// semicolons included, ending with one EOF token, and the lexical errors.
func Tokenize(src []byte) ([]Token, []source.Diagnostic) {
	s := NewScanner(src)
	var toks []Token
	for {
		t := s.Next()
		toks = append(toks, t)
		if t.Kind == EOF {
			return toks, s.errs
		}
	}
}

func (s *Scanner) pos() source.Pos { return source.Pos{Offset: s.off, Line: s.line, Col: s.col} }

func (s *Scanner) errorf(from, to source.Pos, code, format string, args ...any) {
	s.errs = append(s.errs, source.Diagnostic{
		Range:    source.Range{Start: from, End: to},
		Severity: source.Error,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
}

// step consumes one character (a whole rune, or one byte of invalid UTF-8)
// and returns it; utf8.RuneError with ok == false means an invalid byte.
func (s *Scanner) step() (r rune, ok bool) {
	c := s.src[s.off]
	if c < utf8.RuneSelf {
		s.off++
		if c == '\n' {
			s.line++
			s.col = 0
		} else {
			s.col++
		}
		return rune(c), true
	}
	r, size := utf8.DecodeRune(s.src[s.off:])
	s.off += size
	if r >= 0x10000 {
		s.col += 2
	} else {
		s.col++
	}
	return r, !(r == utf8.RuneError && size == 1)
}

// peek returns the byte at off+i, or 0 past the end.
func (s *Scanner) peek(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

func (s *Scanner) make(kind Kind, start source.Pos) Token {
	return Token{Kind: kind, Text: s.text[start.Offset:s.off], Pos: start, End: s.pos()}
}

// Next returns the next token. After the end of the text it returns EOF
// tokens forever.
func (s *Scanner) Next() Token {
	if s.pendingSemi {
		s.pendingSemi = false
		return Token{Kind: SEMICOLON, Text: "\n", Pos: s.semiPos, End: s.semiPos}
	}
	// Skip white space; a newline may end a statement.
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' {
			s.off++
			s.col++
			continue
		}
		if c == '\n' {
			if s.insertSemi {
				s.insertSemi = false
				start := s.pos()
				s.step()
				return Token{Kind: SEMICOLON, Text: "\n", Pos: start, End: s.pos()}
			}
			s.step()
			continue
		}
		break
	}
	start := s.pos()
	if s.off >= len(s.src) {
		if s.insertSemi {
			s.insertSemi = false
			return Token{Kind: SEMICOLON, Text: "\n", Pos: start, End: start}
		}
		return Token{Kind: EOF, Pos: start, End: start}
	}

	c := s.src[s.off]
	switch {
	case scanIsLetter(c) || c >= utf8.RuneSelf && s.letterAt():
		return s.scanIdent(start)
	case '0' <= c && c <= '9':
		s.insertSemi = true
		return s.scanNumber(start)
	}

	insertSemi := false
	kind := ILLEGAL
	// two returns kind k2 (consuming two bytes) if the byte after c is
	// next, and kind k1 (one byte) otherwise.
	one := func(k Kind) Kind {
		s.off++
		s.col++
		return k
	}
	two := func(next byte, k2, k1 Kind) Kind {
		if s.peek(1) == next {
			s.off += 2
			s.col += 2
			return k2
		}
		s.off++
		s.col++
		return k1
	}
	switch c {
	case '"':
		s.insertSemi = true
		return s.scanString(start)
	case '/':
		if n := s.peek(1); n == '/' || n == '*' {
			return s.scanComment(start)
		}
		kind = two('=', QUO_ASSIGN, QUO)
	case '+':
		if s.peek(1) == '+' {
			kind = two('+', INC, ADD)
			insertSemi = true
		} else {
			kind = two('=', ADD_ASSIGN, ADD)
		}
	case '-':
		if s.peek(1) == '-' {
			kind = two('-', DEC, SUB)
			insertSemi = true
		} else {
			kind = two('=', SUB_ASSIGN, SUB)
		}
	case '*':
		kind = two('=', MUL_ASSIGN, MUL)
	case '%':
		kind = two('=', REM_ASSIGN, REM)
	case '&':
		kind = two('&', LAND, ILLEGAL)
		if kind == ILLEGAL {
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character '&' (did you mean '&&'?)")
			insertSemi = true
		}
	case '|':
		kind = two('|', LOR, ILLEGAL)
		if kind == ILLEGAL {
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character '|' (did you mean '||'?)")
			insertSemi = true
		}
	case '!':
		kind = two('=', NEQ, NOT)
	case '=':
		kind = two('=', EQL, ASSIGN)
	case '<':
		kind = two('=', LEQ, LSS)
	case '>':
		kind = two('=', GEQ, GTR)
	case '(':
		kind = one(LPAREN)
	case ')':
		kind = one(RPAREN)
		insertSemi = true
	case '[':
		kind = one(LBRACK)
	case ']':
		kind = one(RBRACK)
		insertSemi = true
	case '{':
		kind = one(LBRACE)
	case '}':
		kind = one(RBRACE)
		insertSemi = true
	case ',':
		kind = one(COMMA)
	case ';':
		kind = one(SEMICOLON)
	case '.':
		kind = two('.', RANGE, ILLEGAL)
		if kind == ILLEGAL {
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character '.' (ranges are written LO..HI; Weft has no other use for '.')")
			insertSemi = true
		}
	case ':':
		kind = two('=', ILLEGAL, ILLEGAL)
		if s.off-start.Offset == 2 {
			s.errorf(start, s.pos(), CodeInvalidChar, "':=' is not Weft syntax: declare variables with 'var NAME TYPE = VALUE'")
		} else {
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character ':'")
		}
		insertSemi = true
	default:
		r, ok := s.step()
		switch {
		case !ok:
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid UTF-8 encoding")
		case r == utf8.RuneError:
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character U+FFFD")
		case unicode.IsPrint(r):
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character %q", r)
		default:
			s.errorf(start, s.pos(), CodeInvalidChar, "invalid character %U", r)
		}
		insertSemi = true
	}
	s.insertSemi = insertSemi
	return s.make(kind, start)
}

func scanIsLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

func scanIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// letterAt reports whether a non-ASCII letter starts at off.
func (s *Scanner) letterAt() bool {
	r, _ := utf8.DecodeRune(s.src[s.off:])
	return unicode.IsLetter(r)
}

// identCharAt reports whether the character at off may continue an
// identifier.
func (s *Scanner) identCharAt() bool {
	if s.off >= len(s.src) {
		return false
	}
	c := s.src[s.off]
	if c < utf8.RuneSelf {
		return scanIsLetter(c) || scanIsDigit(c)
	}
	r, _ := utf8.DecodeRune(s.src[s.off:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (s *Scanner) scanIdent(start source.Pos) Token {
	for s.identCharAt() {
		s.step()
	}
	t := s.make(IDENT, start)
	// Keywords are 2 to 9 lowercase ASCII letters: most names need no
	// look-up.
	if n := len(t.Text); n >= 2 && n <= 9 && 'a' <= t.Text[0] && t.Text[0] <= 'w' {
		t.Kind = Lookup(t.Text)
	}
	switch t.Kind {
	case IDENT, TRUE, FALSE, RETURN, BREAK, CONTINUE,
		INT_TYPE, BOOL_TYPE, MUTEX_TYPE, TID_TYPE, COND_TYPE:
		s.insertSemi = true
	default:
		s.insertSemi = false
	}
	return t
}

func scanIsHex(c byte) bool {
	return scanIsDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber scans a decimal or hexadecimal integer literal. Letters and
// digits glued to it are taken into the token (and reported), so that
// `12ab` is one bad literal rather than a number and a name.
func (s *Scanner) scanNumber(start source.Pos) Token {
	hex := false
	if s.src[s.off] == '0' && (s.peek(1) == 'x' || s.peek(1) == 'X') {
		hex = true
		s.off += 2
		s.col += 2
		for s.off < len(s.src) && scanIsHex(s.src[s.off]) {
			s.off++
			s.col++
		}
	} else {
		for s.off < len(s.src) && scanIsDigit(s.src[s.off]) {
			s.off++
			s.col++
		}
	}
	digitsEnd := s.off
	for s.identCharAt() {
		s.step()
	}
	t := s.make(INT, start)
	switch {
	case s.off > digitsEnd:
		s.errorf(start, t.End, CodeInvalidInt, "invalid integer literal %q", t.Text)
	case hex && len(t.Text) == 2:
		s.errorf(start, t.End, CodeInvalidInt, "hexadecimal literal %q has no digits", t.Text)
	case !hex && len(t.Text) > 1 && t.Text[0] == '0':
		s.errorf(start, t.End, CodeInvalidInt,
			"integer literal %s has a leading zero (Weft has no octal literals; write it without the zeros)", t.Text)
	default:
		var err error
		if hex {
			_, err = strconv.ParseInt(t.Text[2:], 16, 64)
		} else {
			_, err = strconv.ParseInt(t.Text, 10, 64)
		}
		if err != nil {
			s.errorf(start, t.End, CodeInvalidInt,
				"integer literal %s is out of range (the largest int is 9223372036854775807)", t.Text)
		}
	}
	return t
}

// scanString scans a string literal. It cannot span lines; the escapes are
// \" \\ and \n.
func (s *Scanner) scanString(start source.Pos) Token {
	s.step() // opening quote
	badUTF8 := false
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			t := s.make(STRING, start)
			s.errorf(start, t.End, CodeUnterminatedString, "string literal not terminated (strings cannot span lines)")
			return t
		}
		c := s.src[s.off]
		if c == '"' {
			s.step()
			return s.make(STRING, start)
		}
		if c == '\\' {
			escStart := s.pos()
			s.step()
			if s.off >= len(s.src) || s.src[s.off] == '\n' {
				continue // reported as unterminated
			}
			r, ok := s.step()
			switch {
			case r == '"' || r == '\\' || r == 'n':
			case !ok:
				s.errorf(escStart, s.pos(), CodeInvalidEscape, "invalid escape sequence in string literal (only \\\", \\\\ and \\n are allowed)")
			default:
				s.errorf(escStart, s.pos(), CodeInvalidEscape,
					"unknown escape sequence '\\%c' in string literal (only \\\", \\\\ and \\n are allowed)", r)
			}
			continue
		}
		at := s.pos()
		if _, ok := s.step(); !ok && !badUTF8 {
			badUTF8 = true
			s.errorf(at, s.pos(), CodeInvalidChar, "invalid UTF-8 encoding in string literal")
		}
	}
}

// scanComment scans a // or /* */ comment. A /* */ comment that contains a
// newline ends a statement as a newline would: the semicolon follows the
// comment, with no width, at the comment's end.
func (s *Scanner) scanComment(start source.Pos) Token {
	badUTF8 := false
	check := func(at source.Pos, ok bool) {
		if !ok && !badUTF8 {
			badUTF8 = true
			s.errorf(at, s.pos(), CodeInvalidChar, "invalid UTF-8 encoding in comment")
		}
	}
	if s.src[s.off+1] == '/' {
		for s.off < len(s.src) && s.src[s.off] != '\n' {
			if s.src[s.off] == '\r' && s.peek(1) == '\n' {
				break // the \r of a \r\n line end is not part of the comment
			}
			at := s.pos()
			_, ok := s.step()
			check(at, ok)
		}
		return s.make(COMMENT, start)
	}
	s.off += 2
	s.col += 2
	newline := false
	for {
		if s.off >= len(s.src) {
			s.errorf(start, source.Pos{Offset: start.Offset + 2, Line: start.Line, Col: start.Col + 2},
				CodeUnterminatedComment, "comment not terminated (a /* comment needs a closing */)")
			break
		}
		if s.src[s.off] == '*' && s.peek(1) == '/' {
			s.off += 2
			s.col += 2
			break
		}
		if s.src[s.off] == '\n' {
			newline = true
		}
		at := s.pos()
		_, ok := s.step()
		check(at, ok)
	}
	t := s.make(COMMENT, start)
	if newline && s.insertSemi {
		s.insertSemi = false
		s.pendingSemi = true
		s.semiPos = t.End
	}
	return t
}
