package analysis

// The codes of the analysis's diagnostics. They are stable: editors, tests
// and scripts may rely on them.
const (
	CodeUndefinedName      = "undefined-name"        // a name that is not declared
	CodeRedeclared         = "redeclared"            // a name declared twice in one scope
	CodeForwardReference   = "forward-reference"     // a constant that uses a later (or its own) constant
	CodeShadowedName       = "shadowed-name"         // warning: a local hides a name of an enclosing scope
	CodeNotAValue          = "not-a-value"           // a proc, function, mutex or condition variable where a value is needed
	CodeTypeMismatch       = "type-mismatch"         // operand, condition, assignment or argument of the wrong type
	CodeNotAssignable      = "not-assignable"        // assignment to a constant, loop variable, thread index, thread, mutex, whole array, …
	CodeNotAnArray         = "not-an-array"          // indexing something that is not an array
	CodeIndexOutOfRange    = "index-out-of-range"    // constant index outside the array (a warning in bodies: it fails at run time)
	CodeNotAMutex          = "not-a-mutex"           // lock or unlock of something that is not a mutex
	CodeNotATid            = "not-a-tid"             // join of something that is not a thread
	CodeAtomicForbidden    = "atomic-forbidden"      // lock, unlock, trylock, spawn, join, return, atomic, choose, wait, signal, broadcast, await inside atomic, or a call of a function that (through its calls) does one of them
	CodeBreakOutsideLoop   = "break-outside-loop"    // break not inside while or for
	CodeContinueOutside    = "continue-outside-loop" // continue not inside while or for
	CodeSpawnArity         = "spawn-arity"           // wrong number of arguments to spawn
	CodeUndefinedProc      = "undefined-proc"        // spawn of something that is not a proc
	CodeSpawnMisplaced     = "spawn-misplaced"       // spawn outside its three forms
	CodeNotAStatement      = "not-a-statement"       // an expression used as a statement (other than a spawn or a call)
	CodeInvalidParamType   = "invalid-param-type"    // a parameter that is not int or bool (proc), or int, bool or tid (func)
	CodeInvalidLocalType   = "invalid-local-type"    // a local containing a mutex or a condition variable
	CodeInitMismatch       = "init-mismatch"         // initialiser of the wrong shape
	CodeNotConstant        = "not-constant"          // a constant expression is required
	CodeConstantOverflow   = "constant-overflow"     // constant arithmetic overflows int64 (a warning in bodies)
	CodeDivisionByZero     = "division-by-zero"      // constant division or modulo by zero (a warning in bodies)
	CodeInvalidArrayLength = "invalid-array-length"  // array length zero or negative
	CodeArrayTooLarge      = "array-too-large"       // an array, shared memory or a frame beyond MaxWords
	CodeNoInstances        = "no-instances"          // warning: a thread array with HI <= LO
	CodeTooManyThreads     = "too-many-threads"      // more than MaxInstances declared thread instances
	CodeUnusedVariable     = "unused-variable"       // warning: a local that is never read
	CodeUnreachableCode    = "unreachable-code"      // warning: a statement after return, break or continue
	CodeInvalidLiteral     = "invalid-literal"       // no longer reported: the lexer reports bad integer literals (invalid-int)
	CodeInternalError      = "internal-error"        // a bug in the checker

	// Language version 2.
	CodeNotACond          = "not-a-cond"          // wait, signal or broadcast of something that is not a condition variable
	CodeChooseRange       = "choose-range"        // choose LO..HI with HI-LO outside 1..MaxChoose
	CodeChooseMisplaced   = "choose-misplaced"    // choose in a while condition (or a call there of a function that chooses)
	CodeAwaitForbidden    = "await-forbidden"     // in an await condition, something other than reading: choose, trylock, a call of a function with other steps
	CodeNotAFunc          = "not-a-func"          // a call of something that is not a function
	CodeCallArity         = "call-arity"          // wrong number of arguments to a function
	CodeNoResult          = "no-result"           // a function without result used as a value
	CodeReturnMismatch    = "return-mismatch"     // return with a value where there is no result, or without one where there is
	CodeMissingReturn     = "missing-return"      // a function with a result whose end is reachable
	CodeInvalidResultType = "invalid-result-type" // a function result that is not int, bool or tid
)
