package dap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The Debug Console's expressions: names (a local of the frame's thread,
// a shared variable, a mutex), integer and boolean constants, indexes
// (x[1], fork[i], m[i][j+1]), unary - and !, the binary operators * / %
// + - < <= > >= == != && || with Weft's precedence, and parentheses. They
// are evaluated over the values the replay document shows for the step:
// nothing runs in the model, and an expression that cannot be answered
// exactly (an element the document elides, a division by zero, an
// overflow) is an error, never a guess.

// maxExprLen and maxExprDepth bound what evaluate parses.
const (
	maxExprLen   = 1000
	maxExprDepth = 100
)

// exprValue is a value of an expression: an int, a bool, an array (its
// elements as the document shows them) or another shown value (a thread,
// a mutex's holder), which only == and != compare.
type exprValue struct {
	kind  byte // 'i', 'b', 'a', 's'
	i     int64
	b     bool
	elems []string
	s     string // the value as shown
	// partial: an element of an array the step's state elides, whose
	// "… K more" (if it has one) counts words beyond it.
	partial bool
}

func (v exprValue) String() string {
	switch v.kind {
	case 'i':
		return strconv.FormatInt(v.i, 10)
	case 'b':
		return strconv.FormatBool(v.b)
	}
	return v.s
}

// shownValue reads a value as the document shows it.
func shownValue(s string) exprValue {
	switch s {
	case "true", "false":
		return exprValue{kind: 'b', b: s == "true", s: s}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return exprValue{kind: 'i', i: n, s: s}
	}
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		return exprValue{kind: 'a', elems: splitElems(s[1 : len(s)-1]), s: s}
	}
	return exprValue{kind: 's', s: s}
}

// splitElems splits an array's shown elements at the commas outside
// braces.
func splitElems(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" || len(out) > 0 {
		out = append(out, t)
	}
	return out
}

// exprParser evaluates an expression as it parses it. lookup answers a
// name's shown value.
type exprParser struct {
	toks   []string
	pos    int
	depth  int
	lookup func(name string) (string, bool)
}

// evalExpr evaluates src with names answered by lookup.
func evalExpr(src string, lookup func(string) (string, bool)) (exprValue, error) {
	if len(src) > maxExprLen {
		return exprValue{}, fmt.Errorf("the expression is longer than %d characters", maxExprLen)
	}
	toks, err := exprTokens(src)
	if err != nil {
		return exprValue{}, err
	}
	if len(toks) == 0 {
		return exprValue{}, fmt.Errorf("no expression")
	}
	p := &exprParser{toks: toks, lookup: lookup}
	v, err := p.binary(1)
	if err != nil {
		return exprValue{}, err
	}
	if p.pos < len(p.toks) {
		return exprValue{}, fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	return v, nil
}

func exprTokens(src string) ([]string, error) {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			if i+1 < len(src) {
				switch two := src[i : i+2]; two {
				case "==", "!=", "<=", ">=", "&&", "||":
					toks = append(toks, two)
					i += 2
					continue
				}
			}
			if !strings.ContainsRune("+-*/%<>!()[]", rune(c)) {
				return nil, fmt.Errorf("unexpected character %q", src[i:i+1])
			}
			toks = append(toks, src[i:i+1])
			i++
		}
	}
	return toks, nil
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// precedence of the binary operators, as Weft's.
func precedence(op string) int {
	switch op {
	case "||":
		return 1
	case "&&":
		return 2
	case "==", "!=":
		return 3
	case "<", "<=", ">", ">=":
		return 4
	case "+", "-":
		return 5
	case "*", "/", "%":
		return 6
	}
	return 0
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxExprDepth {
		return fmt.Errorf("the expression nests more than %d deep", maxExprDepth)
	}
	return nil
}

func (p *exprParser) binary(prec int) (exprValue, error) {
	if err := p.enter(); err != nil {
		return exprValue{}, err
	}
	defer func() { p.depth-- }()
	x, err := p.unary()
	if err != nil {
		return x, err
	}
	for {
		op := p.peek()
		oprec := precedence(op)
		if oprec == 0 || oprec < prec {
			return x, nil
		}
		p.pos++
		y, err := p.binary(oprec + 1)
		if err != nil {
			return y, err
		}
		if x, err = apply(op, x, y); err != nil {
			return x, err
		}
	}
}

func (p *exprParser) unary() (exprValue, error) {
	switch op := p.peek(); op {
	case "-", "!":
		if err := p.enter(); err != nil {
			return exprValue{}, err
		}
		defer func() { p.depth-- }()
		p.pos++
		x, err := p.unary()
		if err != nil {
			return x, err
		}
		if op == "-" {
			if x.kind != 'i' {
				return x, fmt.Errorf("- needs an int, not %s", x)
			}
			if x.i == math.MinInt64 {
				return x, fmt.Errorf("-(%d) overflows", x.i)
			}
			return exprValue{kind: 'i', i: -x.i}, nil
		}
		if x.kind != 'b' {
			return x, fmt.Errorf("! needs a bool, not %s", x)
		}
		return exprValue{kind: 'b', b: !x.b}, nil
	}
	return p.primary()
}

func (p *exprParser) primary() (exprValue, error) {
	t := p.peek()
	var v exprValue
	name := "" // the text of a name with constant indexes, for mutex arrays
	switch {
	case t == "":
		return v, fmt.Errorf("the expression ends early")
	case t == "(":
		p.pos++
		var err error
		if v, err = p.binary(1); err != nil {
			return v, err
		}
		if p.peek() != ")" {
			return v, fmt.Errorf("missing )")
		}
		p.pos++
	case t[0] >= '0' && t[0] <= '9':
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return v, fmt.Errorf("%q is not an int", t)
		}
		p.pos++
		v = exprValue{kind: 'i', i: n}
	case t == "true" || t == "false":
		p.pos++
		v = exprValue{kind: 'b', b: t == "true"}
	case t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z':
		p.pos++
		name = t
		if s, ok := p.lookup(t); ok {
			v = shownValue(s)
		} else if p.peek() != "[" {
			return v, errUnknownName{t}
		}
	default:
		return v, fmt.Errorf("unexpected %q", t)
	}
	for p.peek() == "[" {
		p.pos++
		idx, err := p.binary(1)
		if err != nil {
			return idx, err
		}
		if p.peek() != "]" {
			return idx, fmt.Errorf("missing ]")
		}
		p.pos++
		if idx.kind != 'i' {
			return idx, fmt.Errorf("an index must be an int, not %s", idx)
		}
		if v.kind == 0 {
			// No value of that name: perhaps each element has its own
			// (a mutex array's locks are listed one by one).
			name = fmt.Sprintf("%s[%d]", name, idx.i)
			if s, ok := p.lookup(name); ok {
				v = shownValue(s)
				continue
			}
			if p.peek() == "[" {
				continue
			}
			return v, errUnknownName{name}
		}
		if v.kind != 'a' {
			return v, fmt.Errorf("%s is not an array", v)
		}
		if err := v.checkIndex(idx.i); err != nil {
			return v, err
		}
		partial := v.partial || strings.Contains(v.s, "…")
		v = shownValue(v.elems[idx.i])
		v.partial = partial
	}
	return v, nil
}

// checkIndex says whether element i of array v is shown. An array the
// step's state elides (interp's formatNested) shows its elements up to a
// "… K more" that counts every word of the variable left out and ends
// the variable there, at whatever depth it stands: a whole variable's
// length follows from its words and the words of its first element when
// that one is shown whole; an element of an elided variable (partial)
// has at least the elements it shows, the "…" one included.
func (v exprValue) checkIndex(i int64) error {
	n := int64(len(v.elems))
	if i < 0 {
		return fmt.Errorf("index %d out of range", i)
	}
	if !strings.Contains(v.s, "…") {
		if i >= n {
			return fmt.Errorf("index %d out of range [0, %d)", i, n)
		}
		return nil
	}
	if i < n && !strings.HasPrefix(v.elems[i], "…") {
		return nil
	}
	if total, ok := v.elidedLen(); ok {
		if i >= total {
			return fmt.Errorf("index %d out of range [0, %d)", i, total)
		}
		return fmt.Errorf("element %d is not shown (the step's state elides it)", i)
	}
	if i < n {
		return fmt.Errorf("element %d is not shown (the step's state elides it)", i)
	}
	return fmt.Errorf("element %d is past what the step's state shows (it elides the rest of the array)", i)
}

// elidedLen is the number of elements of an elided array that is a
// whole variable, when its first element is shown whole.
func (v exprValue) elidedLen() (int64, bool) {
	if v.partial || len(v.elems) == 0 || strings.Contains(v.elems[0], "…") {
		return 0, false
	}
	all, ok := shownWords(v.s)
	row, ok2 := shownWords(v.elems[0])
	if !ok || !ok2 || row <= 0 || all%row != 0 {
		return 0, false
	}
	return all / row, true
}

// shownWords counts the words a shown value stands for: 1 for a scalar,
// an array's elements' words, K for an elision's "… K more".
func shownWords(s string) (int64, bool) {
	if rest, ok := strings.CutPrefix(s, "…"); ok {
		k, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " more"), 10, 64)
		return k, err == nil && k >= 0
	}
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return 1, true
	}
	var n int64
	for _, e := range splitElems(s[1 : len(s)-1]) {
		k, ok := shownWords(e)
		if !ok || n > math.MaxInt64-k {
			return 0, false
		}
		n += k
	}
	return n, true
}

// errUnknownName is a name no local, shared variable or mutex has.
type errUnknownName struct{ name string }

func (e errUnknownName) Error() string { return fmt.Sprintf("unknown name %q", e.name) }

// apply applies a binary operator; it refuses what would overflow.
func apply(op string, x, y exprValue) (exprValue, error) {
	switch op {
	case "&&", "||":
		if x.kind != 'b' || y.kind != 'b' {
			return x, fmt.Errorf("%s needs bools, not %s and %s", op, x, y)
		}
		if op == "&&" {
			return exprValue{kind: 'b', b: x.b && y.b}, nil
		}
		return exprValue{kind: 'b', b: x.b || y.b}, nil
	case "==", "!=":
		var eq bool
		switch {
		case x.kind == 'i' && y.kind == 'i':
			eq = x.i == y.i
		case x.kind == 'b' && y.kind == 'b':
			eq = x.b == y.b
		case x.kind == 'a' && y.kind == 'a' && (strings.Contains(x.s, "…") || strings.Contains(y.s, "…")):
			return x, fmt.Errorf("cannot compare arrays the step's state elides (their hidden elements may differ)")
		case x.kind == y.kind:
			eq = x.String() == y.String()
		default:
			return x, fmt.Errorf("cannot compare %s and %s", x, y)
		}
		return exprValue{kind: 'b', b: eq == (op == "==")}, nil
	}
	if x.kind != 'i' || y.kind != 'i' {
		return x, fmt.Errorf("%s needs ints, not %s and %s", op, x, y)
	}
	a, b := x.i, y.i
	var r int64
	switch op {
	case "<":
		return exprValue{kind: 'b', b: a < b}, nil
	case "<=":
		return exprValue{kind: 'b', b: a <= b}, nil
	case ">":
		return exprValue{kind: 'b', b: a > b}, nil
	case ">=":
		return exprValue{kind: 'b', b: a >= b}, nil
	case "+":
		r = a + b
		if (r > a) != (b > 0) {
			return x, fmt.Errorf("%d + %d overflows", a, b)
		}
	case "-":
		r = a - b
		if (r < a) != (b > 0) {
			return x, fmt.Errorf("%d - %d overflows", a, b)
		}
	case "*":
		if a != 0 && b != 0 {
			r = a * b
			if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
				return x, fmt.Errorf("%d * %d overflows", a, b)
			}
		}
	case "/", "%":
		if b == 0 {
			return x, fmt.Errorf("division by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return x, fmt.Errorf("%d %s -1 overflows", a, op)
		}
		if op == "/" {
			r = a / b
		} else {
			r = a % b
		}
	}
	return exprValue{kind: 'i', i: r}, nil
}
