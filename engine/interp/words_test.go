package interp

import (
	"strconv"
	"testing"
)

// TestFormatNestedLimit: long arrays show their first elements and how
// many more there are, at any nesting.
func TestFormatNestedLimit(t *testing.T) {
	words := []int64{1, 2, 3, 4, 5, 6}
	elem := func(_ int, v int64) string { return strconv.FormatInt(v, 10) }
	for _, tc := range []struct {
		dims  []int
		limit int
		want  string
	}{
		{[]int{6}, 0, "{1, 2, 3, 4, 5, 6}"},
		{[]int{6}, 6, "{1, 2, 3, 4, 5, 6}"},
		{[]int{6}, 4, "{1, 2, 3, 4, … 2 more}"},
		{[]int{2, 3}, 0, "{{1, 2, 3}, {4, 5, 6}}"},
		{[]int{2, 3}, 3, "{{1, 2, 3}, … 3 more}"},
		{[]int{2, 3}, 2, "{{1, 2, … 4 more}}"},
		{[]int{3, 2}, 4, "{{1, 2}, {3, 4}, … 2 more}"},
		{nil, 1, "1"},
	} {
		if got := formatNested(words, tc.dims, tc.limit, elem); got != tc.want {
			t.Errorf("dims %v limit %d: got %q, want %q", tc.dims, tc.limit, got, tc.want)
		}
	}
}
