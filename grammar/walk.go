package grammar

// Inspect traverses the tree rooted at node in depth-first order, children
// in source order, as go/ast.Inspect does: it calls f(node); if that
// returns true, it inspects each non-nil child of node, then calls f(nil).
//
// Missing optional children (a nil Init, Else, Index or Message, nil
// interfaces and typed nil pointers alike) are skipped, so f never sees a
// nil node except as the end-of-children signal. File.Comments are not
// visited (comments are not attached to nodes); range over them directly.
func Inspect(node Node, f func(Node) bool) {
	inspectNode(node, f)
}

func inspectNode(n Node, f func(Node) bool) {
	if nodeIsNil(n) || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, d := range n.Decls {
			inspectNode(d, f)
		}
	case *ConstDecl:
		inspectNode(n.Name, f)
		inspectNode(n.Value, f)
	case *VarDecl:
		inspectNode(n.Name, f)
		inspectNode(n.Type, f)
		inspectNode(n.Init, f)
	case *ThreadDecl:
		inspectNode(n.Name, f)
		inspectNode(n.Index, f)
		inspectNode(n.Lo, f)
		inspectNode(n.Hi, f)
		inspectNode(n.Body, f)
	case *ProcDecl:
		inspectNode(n.Name, f)
		for _, prm := range n.Params {
			inspectNode(prm, f)
		}
		inspectNode(n.Body, f)
	case *FuncDecl:
		inspectNode(n.Name, f)
		for _, prm := range n.Params {
			inspectNode(prm, f)
		}
		inspectNode(n.Result, f)
		inspectNode(n.Body, f)
	case *Param:
		inspectNode(n.Name, f)
		inspectNode(n.Type, f)
	case *ArrayType:
		inspectNode(n.Len, f)
		inspectNode(n.Elem, f)
	case *Block:
		for _, s := range n.Stmts {
			inspectNode(s, f)
		}
	case *DeclStmt:
		inspectNode(n.Decl, f)
	case *AssignStmt:
		inspectNode(n.LHS, f)
		inspectNode(n.RHS, f)
	case *IncDecStmt:
		inspectNode(n.X, f)
	case *LockStmt:
		inspectNode(n.Mutex, f)
	case *SpawnStmt:
		inspectNode(n.Call, f)
	case *JoinStmt:
		inspectNode(n.Thread, f)
	case *ReturnStmt:
		inspectNode(n.Result, f)
	case *WaitStmt:
		inspectNode(n.Cond, f)
		inspectNode(n.Mutex, f)
	case *SignalStmt:
		inspectNode(n.Cond, f)
	case *AwaitStmt:
		inspectNode(n.Cond, f)
	case *AssertStmt:
		inspectNode(n.Cond, f)
		inspectNode(n.Message, f)
	case *AssumeStmt:
		inspectNode(n.Cond, f)
	case *IfStmt:
		inspectIf(n, f)
		return // inspectIf has called f(nil)
	case *WhileStmt:
		inspectNode(n.Cond, f)
		inspectNode(n.Body, f)
	case *ForStmt:
		inspectNode(n.Var, f)
		inspectNode(n.Lo, f)
		inspectNode(n.Hi, f)
		inspectNode(n.Body, f)
	case *AtomicStmt:
		inspectNode(n.Body, f)
	case *ExprStmt:
		inspectNode(n.X, f)
	case *IndexExpr:
		inspectNode(n.X, f)
		inspectNode(n.Index, f)
	case *ParenExpr:
		inspectNode(n.X, f)
	case *UnaryExpr:
		inspectNode(n.X, f)
	case *BinaryExpr:
		inspectNode(n.X, f)
		inspectNode(n.Y, f)
	case *InitList:
		for _, e := range n.Elems {
			inspectNode(e, f)
		}
	case *SpawnExpr:
		inspectNode(n.Proc, f)
		for _, a := range n.Args {
			inspectNode(a, f)
		}
	case *CallExpr:
		inspectNode(n.Func, f)
		for _, a := range n.Args {
			inspectNode(a, f)
		}
	case *TrylockExpr:
		inspectNode(n.Mutex, f)
	case *ChooseExpr:
		inspectNode(n.Lo, f)
		inspectNode(n.Hi, f)
		// Leaves: *Comment, *NamedType, *BranchStmt,
		// *BadDecl, *BadStmt, *BadExpr, *Ident, *IntLit, *BoolLit,
		// *StringLit.
	}
	f(nil)
}

// inspectIf inspects the children of an if statement whose f(n) returned
// true, then calls f(nil), following an else-if chain in a loop rather
// than by recursion (it has no length limit). The calls to f are those
// the recursive walk would make.
func inspectIf(n *IfStmt, f func(Node) bool) {
	open := 1 // ifs of the chain whose f(nil) is still due
	for {
		inspectNode(n.Cond, f)
		inspectNode(n.Then, f)
		next, ok := n.Else.(*IfStmt)
		if !ok || next == nil {
			inspectNode(n.Else, f)
			break
		}
		if !f(next) {
			break
		}
		open++
		n = next
	}
	for range open {
		f(nil)
	}
}

// nodeIsNil reports whether n is a nil interface or a typed nil pointer.
func nodeIsNil(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *File:
		return n == nil
	case *Comment:
		return n == nil
	case *ConstDecl:
		return n == nil
	case *VarDecl:
		return n == nil
	case *ThreadDecl:
		return n == nil
	case *ProcDecl:
		return n == nil
	case *FuncDecl:
		return n == nil
	case *Param:
		return n == nil
	case *BadDecl:
		return n == nil
	case *NamedType:
		return n == nil
	case *ArrayType:
		return n == nil
	case *Block:
		return n == nil
	case *DeclStmt:
		return n == nil
	case *AssignStmt:
		return n == nil
	case *IncDecStmt:
		return n == nil
	case *LockStmt:
		return n == nil
	case *SpawnStmt:
		return n == nil
	case *JoinStmt:
		return n == nil
	case *ReturnStmt:
		return n == nil
	case *WaitStmt:
		return n == nil
	case *SignalStmt:
		return n == nil
	case *AwaitStmt:
		return n == nil
	case *AssertStmt:
		return n == nil
	case *AssumeStmt:
		return n == nil
	case *IfStmt:
		return n == nil
	case *WhileStmt:
		return n == nil
	case *ForStmt:
		return n == nil
	case *BranchStmt:
		return n == nil
	case *AtomicStmt:
		return n == nil
	case *ExprStmt:
		return n == nil
	case *BadStmt:
		return n == nil
	case *Ident:
		return n == nil
	case *IntLit:
		return n == nil
	case *BoolLit:
		return n == nil
	case *StringLit:
		return n == nil
	case *IndexExpr:
		return n == nil
	case *ParenExpr:
		return n == nil
	case *UnaryExpr:
		return n == nil
	case *BinaryExpr:
		return n == nil
	case *InitList:
		return n == nil
	case *SpawnExpr:
		return n == nil
	case *CallExpr:
		return n == nil
	case *TrylockExpr:
		return n == nil
	case *ChooseExpr:
		return n == nil
	case *BadExpr:
		return n == nil
	}
	return false
}
