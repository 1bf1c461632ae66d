// The gdb stub's TCP listener: "HOST:PORT" -> a listening socket -> one accepted connection as an *os.File, through golang.org/x/sys/unix.

package main

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The listener is written on system calls rather than package net
// because importing net links the C resolver (cgo) into rvdyn: the
// binary becomes dynamically linked, and every run pays for the dynamic
// loader and cgo's thread start-up, about a millisecond per process on
// this machine (a 7.5 ms "return 0" guest took 8.6 ms that way), which
// is a visible share of the shorter guests' runs. The gdb stub needs one
// TCP connection; a numeric address or localhost names it.

// A tcpListener is a listening TCP socket.
type tcpListener struct {
	fd   int
	addr string // the bound address, as HOST:PORT with the port the kernel chose for 0
}

// listenTCP listens on addr, "HOST:PORT": HOST is empty (every
// interface, IPv6 and IPv4 where the kernel has both), "localhost", or
// a numeric IPv4 or IPv6 address ("[::1]:1234"); PORT is a decimal
// port, 0 for one the kernel picks. Host names other than localhost are
// refused with an error that says so (no resolver).
func listenTCP(addr string) (*tcpListener, error) {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	switch host {
	case "":
		ips = []netip.Addr{netip.IPv6Unspecified(), netip.IPv4Unspecified()}
	case "localhost":
		ips = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})}
	default:
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return nil, fmt.Errorf("listen tcp %s: host %q: give a numeric address or localhost", addr, host)
		}
		ips = []netip.Addr{ip.Unmap()}
	}
	var first error
	for _, ip := range ips {
		l, err := listenOn(ip, port)
		if err == nil {
			return l, nil
		}
		if first == nil {
			first = err
		}
		if host != "" || !errors.Is(err, unix.EAFNOSUPPORT) {
			break // an IPv4 fallback only for a kernel without IPv6
		}
	}
	return nil, fmt.Errorf("listen tcp %s: %w", addr, first)
}

// splitHostPort splits "HOST:PORT" or "[HOST]:PORT".
func splitHostPort(addr string) (string, uint16, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("listen tcp %s: missing port (HOST:PORT, e.g. :1234)", addr)
	}
	host, ps := addr[:i], addr[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	} else if strings.ContainsAny(host, ":[]") {
		return "", 0, fmt.Errorf("listen tcp %s: an IPv6 address goes in brackets, [::1]:PORT", addr)
	}
	p, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("listen tcp %s: port %q: want a number from 0 to 65535", addr, ps)
	}
	return host, uint16(p), nil
}

// listenOn binds a stream socket to ip:port and listens (backlog 1: one
// debugger). An IPv6 wildcard also takes IPv4 connections.
func listenOn(ip netip.Addr, port uint16) (*tcpListener, error) {
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip.Is4() {
		sa = &unix.SockaddrInet4{Port: int(port), Addr: ip.As4()}
	} else {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(port), Addr: ip.As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := setupListener(fd, family, ip, sa); err != nil {
		unix.Close(fd)
		return nil, err
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("getsockname", err)
	}
	return &tcpListener{fd: fd, addr: sockaddrString(bound)}, nil
}

// setupListener sets the options net.Listen sets (SO_REUSEADDR, so a
// restarted stub can take its port back from a connection in
// TIME_WAIT; dual stack for the IPv6 wildcard), binds and listens.
func setupListener(fd, family int, ip netip.Addr, sa unix.Sockaddr) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	if family == unix.AF_INET6 && ip.IsUnspecified() {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	if err := unix.Listen(fd, 1); err != nil {
		return os.NewSyscallError("listen", err)
	}
	return nil
}

// sockaddrString formats a bound address as HOST:PORT (IPv6 in
// brackets).
func sockaddrString(sa unix.Sockaddr) string {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)).String()
	}
	return "?"
}

// Addr returns the address the listener is bound to.
func (l *tcpListener) Addr() string { return l.addr }

// Accept waits for one connection and returns it as a file in
// non-blocking mode, which the runtime's poller serves: reads block the
// goroutine, not the thread, and SetReadDeadline works (the gdb stub's
// interrupt check needs it). A signal that interrupts the wait retries.
func (l *tcpListener) Accept() (*os.File, error) {
	for {
		nfd, _, err := unix.Accept4(l.fd, unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
		if err == unix.EINTR || err == unix.ECONNABORTED {
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("accept", err)
		}
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // gdb's packets are small and acknowledged one by one
		return os.NewFile(uintptr(nfd), "gdb connection"), nil
	}
}

// Close closes the listening socket.
func (l *tcpListener) Close() error { return unix.Close(l.fd) }
