package source

import "testing"

func TestPosAndOffset(t *testing.T) {
	// "é" is 2 bytes and 1 UTF-16 unit; "😀" is 4 bytes and 2 units.
	f := NewFile("x.weft", []byte("ab\né😀c\n\nz"))
	tests := []struct {
		offset    int
		line, col int
	}{
		{0, 0, 0}, {2, 0, 2}, {3, 1, 0}, {5, 1, 1}, {9, 1, 3}, {10, 1, 4}, {11, 2, 0}, {12, 3, 0}, {13, 3, 1},
		{-5, 0, 0}, {99, 3, 1}, // clamped
	}
	for _, tc := range tests {
		p := f.Pos(tc.offset)
		if p.Line != tc.line || p.Col != tc.col {
			t.Errorf("Pos(%d) = %d:%d, want %d:%d", tc.offset, p.Line, p.Col, tc.line, tc.col)
		}
		if tc.offset >= 0 && tc.offset <= len(f.Text) {
			if back := f.Offset(p.Line, p.Col); back != tc.offset {
				t.Errorf("Offset(%d, %d) = %d, want %d", p.Line, p.Col, back, tc.offset)
			}
		}
	}
	if n := f.LineCount(); n != 4 {
		t.Errorf("LineCount = %d, want 4", n)
	}
	if got := f.Offset(1, 100); got != 10 {
		t.Errorf("Offset past the line's end = %d, want 10 (the newline)", got)
	}
	if got := UTF16Len([]byte("a😀\xff")); got != 4 {
		t.Errorf("UTF16Len = %d, want 4", got)
	}
}

func TestDiagnostics(t *testing.T) {
	ds := []Diagnostic{{Severity: Warning}, {Severity: Info}}
	if HasErrors(ds) {
		t.Error("warnings are not errors")
	}
	if !HasErrors(append(ds, Diagnostic{Severity: Error})) {
		t.Error("an error is an error")
	}
	if Error.String() != "error" || Warning.String() != "warning" {
		t.Error("severity names")
	}
	if NoPos.IsValid() || NoPos.String() != "-" {
		t.Error("NoPos")
	}
	r := Range{Start: Pos{Offset: 2}, End: Pos{Offset: 5}}
	if !r.Contains(Pos{Offset: 2}) || r.Contains(Pos{Offset: 5}) {
		t.Error("Contains is half-open")
	}
}
