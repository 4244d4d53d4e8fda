//go:build !unix

package lsp

// mkfifo cannot make a FIFO here.
func mkfifo(string) error { return errNoFIFO }
