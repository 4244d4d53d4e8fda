//go:build !linux

package driver

// physicalMemory is the machine's physical memory in bytes, or 0 if it
// cannot be read (DefaultMaxMemory then assumes fallbackMemory).
func physicalMemory() int64 { return 0 }

// addressSpaceLimit is the process's limit on its address space, or 0 if
// there is none or it cannot be read.
func addressSpaceLimit() int64 { return 0 }
