package interp

import (
	"errors"
	"testing"
)

// TestNewMachineStops: Config.Stopped is asked between the threads, and
// when it says to give up the machine is not made (ErrStopped): 100
// threads with a frame of 8 MB each took seconds to copy past a deadline
// of one.
func TestNewMachineStops(t *testing.T) {
	prog := loadSrc(t, "big", "var c atomic int\nthread t[i in 0..100] {\n    var a [1024]int\n    a[i] = 1\n    c = c + a[i]\n}\n")
	calls := 0
	m, err := NewMachineConfig(prog, Config{Stopped: func() bool { calls++; return calls > 3 }})
	if !errors.Is(err, ErrStopped) || m != nil {
		t.Fatalf("NewMachineConfig = %v, %v; want no machine and ErrStopped", m, err)
	}
	if calls != 4 {
		t.Errorf("Stopped asked %d times, want 4 (once per thread until it says stop)", calls)
	}
	if _, err := NewMachineConfig(prog, Config{Stopped: func() bool { return false }}); err != nil {
		t.Errorf("never stopped: %v", err)
	}
}
