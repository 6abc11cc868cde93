package nixexec

import "syscall"

// sysProcAttr: a process group of its own (signalled and killed as one),
// and SIGKILL when this program dies, however it dies. (Pdeathsig is tied
// to the thread that started the child; the Go runtime ends a thread only
// when a goroutine locked to it returns, which no code here does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
