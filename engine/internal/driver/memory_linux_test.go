package driver

import (
	"syscall"
	"testing"
)

// TestDefaultMaxMemory: a quarter of physical memory, or of the address
// space limit (ulimit -v) when that is smaller.
func TestDefaultMaxMemory(t *testing.T) {
	phys := physicalMemory()
	if phys <= 0 {
		t.Fatal("physical memory not read")
	}
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &saved); err != nil {
		t.Fatal(err)
	}
	if got := DefaultMaxMemory(); got <= 0 || got > phys/4 {
		t.Errorf("DefaultMaxMemory() = %d with %d bytes of physical memory", got, phys)
	}
	// An address space limit below physical memory (and far above what
	// the test uses) sets the default.
	limit := uint64(phys / 2)
	if saved.Cur < limit {
		t.Skipf("the address space is already limited to %d bytes", saved.Cur)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: saved.Max}); err != nil {
		t.Skipf("cannot limit the address space: %v", err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &saved); err != nil {
			t.Fatal(err)
		}
	}()
	if got, want := DefaultMaxMemory(), int64(limit)/4; cgroupLimit() <= 0 && got != want {
		t.Errorf("DefaultMaxMemory() = %d under ulimit -v %d, want %d", got, limit, want)
	}
}
