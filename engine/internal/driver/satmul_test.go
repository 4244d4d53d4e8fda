package driver

import (
	"math"
	"testing"
)

// TestSatMul: a bound times a factor saturates instead of wrapping to a
// negative bound (Long's length cap: MaxSteps times up to 8).
func TestSatMul(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{0, 8, 0},
		{3, 0, 0},
		{100_000, 3, 300_000},
		{1 << 30, lengthCapThreads, (1 << 30) * lengthCapThreads},
		{4611686018427387904, 3, math.MaxInt64},
		{math.MaxInt64, 2, math.MaxInt64},
		{math.MaxInt64 / 8, 8, math.MaxInt64 / 8 * 8},
		{math.MaxInt64/8 + 1, 8, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := SatMul(tt.a, tt.b); got != tt.want {
			t.Errorf("SatMul(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
