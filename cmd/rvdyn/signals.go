// Host signals for the guest, and the timeout's backstop: SIGUSR1 and SIGUSR2 sent to rvdyn -> posted to the guest; a run that outlives --timeout -> exit status 124.

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"rvdyn"
)

// forwarded are the host signals rvdyn passes on to its guest, as
// qemu-riscv64 does: the guest acts on them with its own signal actions,
// so with the default action (terminate) the guest ends, killed by the
// signal (status 128+signal), and rvdyn prints its statistics as for any
// other end. Other signals keep Go's default: SIGINT, SIGTERM and SIGHUP
// end rvdyn itself.
var forwarded = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2}

// forwardSignals posts the forwarded signals rvdyn receives to vm's guest
// until the returned stop is called; afterwards they get Go's default
// again (for these two: caught and ignored).
func forwardSignals(vm *rvdyn.VM) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, forwarded...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range ch {
			vm.Signal(int(s.(syscall.Signal)))
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
