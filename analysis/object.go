package analysis

import "weft/grammar"

// ObjKind says what a name stands for.
type ObjKind int

// The kinds of objects.
const (
	BadObj      ObjKind = iota
	Const               // const N = 3: Value
	SharedVar           // a top-level var: Type, Atomic, Offset, Init
	LocalVar            // a var inside a thread or proc body: Type, Slot, Owner
	Param               // a proc or func parameter: Type, Slot (params take slots 0, 1, … in order), Owner
	LoopVar             // the variable of `for i in …`: int, read-only, Slot (and Slot+1 for the bound), Owner
	ThreadIndex         // the w of `thread writer[w in 0..N]`: int, read-only, the instance's Index; no slot
	Thread              // a declared thread or thread array: Type tid or [N]tid, Body, Instances
	Proc                // a proc: Params, Body, FrameSize
	Func                // a function: Params, Result, Body, FrameSize
)

var objKindNames = [...]string{
	BadObj:      "bad object",
	Const:       "constant",
	SharedVar:   "shared variable",
	LocalVar:    "local variable",
	Param:       "parameter",
	LoopVar:     "loop variable",
	ThreadIndex: "thread index",
	Thread:      "thread",
	Proc:        "proc",
	Func:        "function",
}

func (k ObjKind) String() string {
	if k >= 0 && int(k) < len(objKindNames) {
		return objKindNames[k]
	}
	return "object"
}

// Object is a named entity of the program. Which fields are meaningful
// depends on Kind; the others are zero (Slot and Offset are -1 where they
// do not apply).
type Object struct {
	Kind  ObjKind
	Name  string
	Ident *grammar.Ident // the declaring identifier
	// Decl is the declaring node: *grammar.ConstDecl (Const), *grammar.VarDecl
	// (SharedVar, LocalVar), *grammar.Param, *grammar.ForStmt (LoopVar),
	// *grammar.ThreadDecl (Thread, ThreadIndex), *grammar.ProcDecl (Proc),
	// *grammar.FuncDecl (Func).
	Decl grammar.Node
	// Type is the object's type; nil when its declaration is invalid (uses
	// of such an object are not reported again). Thread: Tid for a single
	// thread, [HI-LO]tid for a thread array (indexed by instance index:
	// worker[LO] is the first element). Proc, Func: nil (a function's
	// result type is Result).
	Type Type

	// Const: the constant's value (the zero Value if it could not be
	// evaluated).
	Value Value

	// SharedVar.
	Atomic bool    // declared `var x atomic T`: accesses never race
	Offset int     // first word in shared memory; -1 if the type is invalid
	Init   []int64 // initial words, row-major, when an initialiser is given (nil: all zero)

	// LocalVar, Param, LoopVar: first slot in the owner's frame; -1
	// otherwise. A LoopVar takes two slots: Slot holds the variable and
	// Slot+1 the loop's upper bound, evaluated once. Variables of disjoint
	// scopes may share slots, so a declaration must (re)initialise its
	// slots: zero, or its initialiser.
	Slot int
	// LocalVar, Param, LoopVar, ThreadIndex: the Thread, Proc or Func
	// whose body declares the object.
	Owner *Object

	// Thread, Proc, Func.
	Body      *grammar.Block
	FrameSize int // slots needed by the body's params, locals and loops

	// Thread.
	IsArray   bool              // declared as NAME[I in LO..HI]
	Index     *Object           // the ThreadIndex object of a thread array
	Lo, Hi    int64             // bounds of a thread array: instances Lo … Hi-1
	Instances []*ThreadInstance // the instances, in index order

	// Proc, Func.
	Params []*Object

	// Func: the result type; nil when the function has none (see
	// HasResult) or when the declared one is invalid.
	Result Type

	used  bool // a LocalVar was read
	state int8 // Const: 0 not yet evaluated, 1 evaluating, 2 done
}

// HasResult reports whether a function is declared with a result type
// (valid or not).
func (o *Object) HasResult() bool {
	d, ok := o.Decl.(*grammar.FuncDecl)
	return ok && o.Kind == Func && d.Result != nil
}

// IsReadOnly reports whether the object can never be assigned.
func (o *Object) IsReadOnly() bool {
	switch o.Kind {
	case SharedVar, LocalVar, Param:
		return false
	}
	return true
}

// ThreadInstance is one thread that starts with the program: a single
// thread, or one instance of a thread array.
type ThreadInstance struct {
	Decl   *grammar.ThreadDecl
	Name   string // "master", "writer[0]"
	Index  int64  // the value of the thread index; 0 if not an array
	Object *Object
}
