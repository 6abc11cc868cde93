//go:build !linux

package nixexec

import "syscall"

// sysProcAttr: a process group of its own, which this program kills when
// it is interrupted. (No parent-death signal outside Linux: a supervisor
// kills the group.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
