// Host signals for the guest, and the timeout's backstop: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1 and SIGUSR2 sent to rvdyn -> posted to the guest; a run that outlives --timeout -> exit status 124.

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"rvdyn"
)

// forwarded are the host signals rvdyn passes on to its guest, as
// qemu-riscv64 does: the guest acts on them with its own signal actions
// (a handler runs; with the default action, terminate, the guest ends,
// killed by the signal, status 128+signal, and rvdyn prints its
// statistics as for any other end). So Ctrl-C reaches a guest's SIGINT
// handler. A second SIGINT, SIGTERM, SIGHUP or SIGQUIT that arrives
// while the guest has not yet acted on the first (it blocks the signal,
// or waits in a host call no signal ends) ends rvdyn at once (see
// forwardSignals).
var forwarded = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM,
	syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGALRM}

// insistent are the forwarded signals a user sends to stop a program: a
// second one before the guest acted on the first ends rvdyn itself.
var insistent = map[syscall.Signal]bool{syscall.SIGINT: true, syscall.SIGTERM: true, syscall.SIGHUP: true, syscall.SIGQUIT: true}

// forwardSignals posts the forwarded signals rvdyn receives to vm's guest
// until the returned stop is called; afterwards they get Go's default
// again. An insistent signal that finds the last one of its kind still
// pending prints one line and exits with 128+signal, without statistics.
func forwardSignals(vm *rvdyn.VM, stderr io.Writer) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, forwarded...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range ch {
			sig := s.(syscall.Signal)
			if insistent[sig] && vm.SignalPending(int(sig)) {
				fmt.Fprintf(stderr, "rvdyn: %s again before the guest acted on the first; exiting\n", unix.SignalName(sig))
				exitProcess(128 + int(sig))
			}
			vm.Signal(int(sig))
		}
	}()
	return func() {
		signal.Stop(ch)
		close(ch)
		<-done
	}
}

// exitProcess ends rvdyn (a variable for the test of the backstop).
var exitProcess = os.Exit

// backstopGrace is how long after the --timeout deadline the backstop
// waits for the run to end by itself.
const backstopGrace = time.Second

// timeoutBackstop makes sure rvdyn ends soon after the --timeout deadline
// even when its guest is blocked in a host call that no signal can cut
// short (open(2) of a FIFO that has no writer): if the run has not
// returned backstopGrace after the deadline, it prints one line and exits
// with status 124 at once, without the statistics. Stop it when the run
// returns.
func timeoutBackstop(timeout time.Duration, stderr io.Writer) *time.Timer {
	return time.AfterFunc(timeout+backstopGrace, func() {
		fmt.Fprintf(stderr, "rvdyn: %v (--timeout %v): the guest is blocked in the host and did not stop; exiting\n", rvdyn.ErrTimeout, timeout)
		exitProcess(exitLimit)
	})
}
