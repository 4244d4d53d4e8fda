package analysis

import "strconv"

// Value is the value of a constant expression: an int64 or a bool. The
// zero Value is "no value" (the expression is not constant).
type Value struct {
	kind Basic // Int, Bool, or 0 for no value
	n    int64 // the integer, or 1/0 for true/false
}

// IntValue returns the constant integer n.
func IntValue(n int64) Value { return Value{kind: Int, n: n} }

// BoolValue returns the constant boolean b.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, n: 1}
	}
	return Value{kind: Bool}
}

// IsValid reports whether v is a value (not the zero Value).
func (v Value) IsValid() bool { return v.kind != 0 }

// IsInt reports whether v is an integer.
func (v Value) IsInt() bool { return v.kind == Int }

// IsBool reports whether v is a boolean.
func (v Value) IsBool() bool { return v.kind == Bool }

// Type returns Int or Bool, or nil for the zero Value.
func (v Value) Type() Type {
	if v.kind == 0 {
		return nil
	}
	return v.kind
}

// Int returns the integer value (1 or 0 for a boolean).
func (v Value) Int() int64 { return v.n }

// Bool returns the boolean value (for an integer: whether it is non-zero).
func (v Value) Bool() bool { return v.n != 0 }

// Word returns v as it is stored in memory: the integer, or 1/0 for
// true/false.
func (v Value) Word() int64 { return v.n }

func (v Value) String() string {
	switch v.kind {
	case Int:
		return strconv.FormatInt(v.n, 10)
	case Bool:
		if v.n != 0 {
			return "true"
		}
		return "false"
	}
	return "<no value>"
}
