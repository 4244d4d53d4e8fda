package analysis

import "strconv"

// Type is the type of a variable or an expression: a Basic type or an
// *Array. Basic types compare with ==; use Identical for any two types.
type Type interface {
	String() string
	isType()
}

// Basic is one of the five scalar types of Weft. Each takes one word.
type Basic int

// The basic types.
const (
	Int   Basic = 1 + iota // 64-bit signed integer
	Bool                   // true or false, stored as 1 or 0
	Mutex                  // a lock
	Tid                    // a thread handle
	Cond                   // a condition variable (shared only); its word counts the threads waiting on it
)

func (Basic) isType() {}

func (b Basic) String() string {
	switch b {
	case Int:
		return "int"
	case Bool:
		return "bool"
	case Mutex:
		return "mutex"
	case Tid:
		return "tid"
	case Cond:
		return "cond"
	}
	return "invalid"
}

// Array is the type [Len]Elem. Len is at least 1 for variables; the type
// of a thread array without instances has Len 0.
type Array struct {
	Len  int64
	Elem Type
}

func (*Array) isType() {}

func (a *Array) String() string {
	return "[" + strconv.FormatInt(a.Len, 10) + "]" + typeString(a.Elem)
}

func typeString(t Type) string {
	if t == nil {
		return "invalid"
	}
	return t.String()
}

// SizeOf returns the number of int64 words a value of type t occupies in
// shared memory or in a frame: 1 for a basic type, Len*SizeOf(Elem) for an
// array (flattened row-major: [2][3]int takes 6 words, a[i][j] is word
// i*3+j). SizeOf(nil) is 0. The checker bounds every array it accepts
// (MaxWords), so the product does not overflow.
func SizeOf(t Type) int64 {
	switch t := t.(type) {
	case Basic:
		return 1
	case *Array:
		return t.Len * SizeOf(t.Elem)
	}
	return 0
}

// Identical reports whether a and b are the same type. nil is identical
// to nothing, not even to nil.
func Identical(a, b Type) bool {
	switch a := a.(type) {
	case Basic:
		return a == b
	case *Array:
		b, ok := b.(*Array)
		return ok && a.Len == b.Len && Identical(a.Elem, b.Elem)
	}
	return false
}

// ScalarOf returns the basic type at the bottom of t: t itself for a
// basic type, the innermost element type for an array, 0 for nil.
func ScalarOf(t Type) Basic {
	for {
		switch u := t.(type) {
		case Basic:
			return u
		case *Array:
			t = u.Elem
		default:
			return 0
		}
	}
}

// IsArray reports whether t is an array type.
func IsArray(t Type) bool {
	_, ok := t.(*Array)
	return ok
}
