package nixexec

import "syscall"

// kernelArgLimit is what Linux lets a new program's arguments and
// environment take together (strings and pointers): a quarter of the
// stack's soft limit, at least 128 KiB and at most 6 MiB (fs/exec.c). It
// is the limit of the process that calls exec, this one: a run under
// `ulimit -s 256` has 128 KiB, not ARG_MAX's 2 MiB.
func kernelArgLimit() int {
	const floor, ceiling = 128 << 10, 6 << 20
	var st syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &st); err != nil {
		return floor
	}
	if st.Cur/4 >= ceiling {
		return ceiling
	}
	return max(int(st.Cur/4), floor)
}
