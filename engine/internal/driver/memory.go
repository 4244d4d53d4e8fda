package driver

import (
	"os"
	"strconv"
	"strings"
)

// fallbackMemory is the memory assumed when the machine's cannot be
// read.
const fallbackMemory = 16 << 30

// DefaultMaxMemory is the default of Options.MaxMemory: a quarter of the
// memory this process may use, the machine's physical memory or, if
// smaller, the limit of its cgroup or of its address space (Linux:
// ulimit -v), and a quarter of 16 GiB where none can be read.
func DefaultMaxMemory() int64 {
	total := int64(0)
	for _, limit := range []int64{physicalMemory(), cgroupLimit(), addressSpaceLimit()} {
		if limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	if total == 0 {
		total = fallbackMemory
	}
	return total / 4
}

// cgroupLimit is the memory limit of this process's cgroup (v2), or 0 if
// there is none or it cannot be read.
func cgroupLimit() int64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil { // "max": no limit
		return 0
	}
	return n
}
