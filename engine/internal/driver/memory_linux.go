package driver

import "syscall"

// physicalMemory is the machine's physical memory in bytes, or 0 if it
// cannot be read.
func physicalMemory() int64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// addressSpaceLimit is the process's limit on its address space (ulimit
// -v), or 0 if there is none.
func addressSpaceLimit() int64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur > 1<<62 { // unlimited is the largest value
		return 0
	}
	return int64(lim.Cur)
}
