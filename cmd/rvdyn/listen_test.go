package main

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestListenTCP listens on each kind of address the gdb stub takes,
// connects with package net, and checks the accepted connection carries
// bytes both ways and honours read deadlines (the stub's interrupt
// check).
func TestListenTCP(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", ":0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			l, err := listenTCP(addr)
			if err != nil {
				if addr == "[::1]:0" {
					t.Skipf("no IPv6 loopback: %v", err)
				}
				t.Fatal(err)
			}
			defer l.Close()
			_, port, err := net.SplitHostPort(l.Addr())
			if err != nil || port == "0" {
				t.Fatalf("Addr() = %q: want the bound port", l.Addr())
			}
			dial := "127.0.0.1"
			if strings.HasPrefix(addr, "[") {
				dial = "::1"
			}
			c, err := net.Dial("tcp", net.JoinHostPort(dial, port))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			f, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := c.Write([]byte("$g#67")); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 5)
			if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "$g#67" {
				t.Fatalf("read %q, %v", buf, err)
			}
			if _, err := f.Write([]byte("+")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf[:1]); err != nil || buf[0] != '+' {
				t.Fatalf("the other way: read %q, %v", buf[:1], err)
			}
			if err := f.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
				t.Fatalf("SetReadDeadline: %v", err)
			}
			if _, err := f.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("a read past the deadline: %v, want os.ErrDeadlineExceeded", err)
			}
		})
	}
}

// TestListenTCPErrors checks the refusals: no port, a bad port, an
// unbracketed IPv6 address, a host name that needs a resolver, and an
// address already taken.
func TestListenTCPErrors(t *testing.T) {
	for addr, want := range map[string]string{
		"1234":             "missing port",
		":http":            "want a number",
		":65536":           "want a number",
		"::1:1234":         "in brackets",
		"example.com:1234": "numeric address or localhost",
	} {
		if l, err := listenTCP(addr); err == nil {
			l.Close()
			t.Errorf("%s: listened, want an error", addr)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", addr, err, want)
		}
	}
	l, err := listenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l2, err := listenTCP(l.Addr()); err == nil {
		l2.Close()
		t.Errorf("%s twice: listened, want address in use", l.Addr())
	} else if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("%s twice: %v", l.Addr(), err)
	}
}
