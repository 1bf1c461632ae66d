// The real-time interval timer: setitimer and getitimer of ITIMER_REAL -> SIGALRM posted to the guest from a host timer, on time and then at the interval.

package interp

import (
	"sync"
	"time"
)

const sigAlrm = 14

// itimer is ITIMER_REAL: a host timer that posts SIGALRM (Signal, safe
// from the timer's goroutine) and rearms itself at the interval. mu
// guards it against that goroutine.
type itimer struct {
	mu       sync.Mutex
	t        *time.Timer
	next     time.Time     // when it fires next; zero when disarmed
	interval time.Duration // 0: once
	closed   bool
}

// set arms the timer to fire after value and then every interval (value
// 0 disarms it); it returns what was left and the old interval.
func (it *itimer) set(m *Machine, value, interval time.Duration) (left, old time.Duration) {
	it.mu.Lock()
	defer it.mu.Unlock()
	left, old = it.leftLocked(), it.interval
	if it.t != nil {
		it.t.Stop()
		it.t = nil
	}
	it.next, it.interval = time.Time{}, interval
	if value <= 0 || it.closed {
		return left, old
	}
	it.next = time.Now().Add(value)
	var fire func()
	fire = func() {
		it.mu.Lock()
		defer it.mu.Unlock()
		if it.closed || it.next.IsZero() {
			return
		}
		m.Signal(sigAlrm)
		if it.interval <= 0 {
			it.next = time.Time{}
			return
		}
		it.next = it.next.Add(it.interval)
		if d := time.Until(it.next); d > 0 {
			it.t = time.AfterFunc(d, fire)
		} else { // late: one signal stands for the ticks missed, as pending signals merge
			it.next = time.Now().Add(it.interval)
			it.t = time.AfterFunc(it.interval, fire)
		}
	}
	it.t = time.AfterFunc(value, fire)
	return left, old
}

// get returns the time to the next expiry (0 when disarmed) and the
// interval.
func (it *itimer) get() (left, interval time.Duration) {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.leftLocked(), it.interval
}

func (it *itimer) leftLocked() time.Duration {
	if it.next.IsZero() {
		return 0
	}
	// An armed timer reports at least a microsecond, as Linux does.
	return max(time.Until(it.next), time.Microsecond)
}

// stop disarms the timer for good (Close).
func (it *itimer) stop() {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.closed = true
	if it.t != nil {
		it.t.Stop()
	}
}

// putItimerval writes a struct itimerval (interval, then value) at a.
func (m *Machine) putItimerval(a uint64, interval, value time.Duration) {
	for i, d := range []time.Duration{interval, value} {
		m.Mem.store64(a+16*uint64(i), uint64(d/time.Second))
		m.Mem.store64(a+16*uint64(i)+8, uint64(d%time.Second/time.Microsecond))
	}
}

// sysSetitimer arms or disarms ITIMER_REAL (which posts SIGALRM; glibc's
// alarm uses it) and reports the old setting in old (if not NULL). The
// virtual and profiling timers, which count the process's CPU time, are
// not built: -EINVAL.
func (m *Machine) sysSetitimer(which, val, old uint64) uint64 {
	if which != 0 {
		return neg(eINVAL)
	}
	if old != 0 && !m.Mem.CanWrite(old, 32) {
		return neg(eFAULT)
	}
	var interval, value time.Duration
	if val != 0 {
		var e uint64
		if interval, e = m.readTimeval(val); e != 0 {
			return e
		}
		if value, e = m.readTimeval(val + 16); e != 0 {
			return e
		}
	}
	left, oldInterval := m.timer.set(m, value, interval)
	if old != 0 {
		m.putItimerval(old, oldInterval, left)
	}
	return 0
}

// sysGetitimer reports ITIMER_REAL (see sysSetitimer).
func (m *Machine) sysGetitimer(which, cur uint64) uint64 {
	if which != 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(cur, 32) {
		return neg(eFAULT)
	}
	left, interval := m.timer.get()
	m.putItimerval(cur, interval, left)
	return 0
}
