// Package nixexec is the one way this program runs Nix's commands
// (nix, nix-store, nix-instantiate): every spawn goes through Cmd.Run.
//
// A command runs in a process group of its own, and on Linux it gets
// SIGKILL when this program dies, even by kill -9 (Pdeathsig): Nix in
// turn kills its builders when it dies, so nothing of a run outlives it.
// When the run's context ends, the group gets SIGINT, Nix's own
// interruption (it stops its builds and removes their directories);
// Grace (half a second) later, or at the user's second signal, the group
// is killed: an evaluation that checks for no interruption stops too. A passed deadline (a time bound)
// kills at once.
//
// What is bounded: the bytes of one command line (ArgBudget: the
// kernel's limit for this process, which follows its stack limit, less
// the environment; paths go in batches, see Batches) and of one argument
// (MaxArgLen), the output captured in memory (MaxOutput), and, when
// asked, the address space of the command (Cmd.MaxMemory).
//
// tests/layout holds every other package of the program (tests aside) to
// not importing os/exec.
package nixexec
