// GDB remote serial protocol: packets from a debugger over a connection -> register, memory, breakpoint and run requests to a Target, and replies.

// Package gdb implements a GDB remote stub for RISC-V RV64 guests: the
// subset of the remote serial protocol ("RSP", gdb's manual, appendix E)
// that gdb needs to debug a program it cannot run itself, as
// `qemu-riscv64 -g PORT` offers. gdb (gdb-multiarch) connects with
// `target remote HOST:PORT`, reads the target description (riscv:rv64,
// registers x0..x31 and pc), and then reads and writes registers (g, G, p,
// P) and memory (m, M), plants software breakpoints (Z0, z0), single-steps
// (s), continues (c) and kills (k).
//
// The stub knows nothing of rvdyn: it drives a Target, which
// rvdyn.Debugger implements (through an adapter in cmd/rvdyn). There is
// one thread. gdb's interrupt (Ctrl-C, a 0x03 byte while the program
// runs) stops a continue when the Target is an Interrupter and the
// connection has read deadlines (a net.Conn).
package gdb

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A Target is the program being debugged.
type Target interface {
	// Reg returns register n: 0..31 are x0..x31, 32 is pc, RegF0+i is
	// f<i> (64 bits, a single NaN-boxed), RegFflags, RegFrm and RegFcsr
	// the floating-point CSRs.
	Reg(n int) uint64
	// SetReg sets register n (writes to x0 are ignored).
	SetReg(n int, v uint64)
	// ReadMem and WriteMem access guest memory; an error means the
	// range is not accessible.
	ReadMem(addr uint64, b []byte) error
	WriteMem(addr uint64, b []byte) error
	// SetBreakpoint and ClearBreakpoint plant and remove a software
	// breakpoint at pc.
	SetBreakpoint(pc uint64) error
	ClearBreakpoint(pc uint64) error
	// Step executes one instruction; Continue runs until the program
	// exits or stops.
	Step() Stop
	Continue() Stop
}

// A Stop is why the target stopped: it exited with Code, or it stopped
// with Signal (5, SIGTRAP, for a step or a breakpoint).
type Stop struct {
	Exited bool
	Code   int
	Signal int
}

// An Interrupter is a Target whose Continue can be asked, from another
// goroutine, to stop early (it then returns Signal 2, SIGINT).
type Interrupter interface {
	Interrupt()
}

// deadliner is a connection whose blocked reads can be cut short.
type deadliner interface {
	SetReadDeadline(t time.Time) error
}

// Remote register numbers beyond the g packet's, read and written with p
// and P: the f registers and the floating-point CSRs (gdb's numbering).
const (
	RegF0     = 33 // f0..f31 are 33..64
	RegFflags = 66
	RegFrm    = 67
	RegFcsr   = 68
)

// NumRegs is the number of registers in the g packet: x0..x31
// and pc.
const NumRegs = 33

// ErrKilled is returned by Serve when the debugger killed the program.
var ErrKilled = errors.New("killed by the debugger")

// Serve answers the debugger on rw until it detaches (nil error, the
// program left to run by the caller), kills the program (ErrKilled), the
// program exits (nil) or the connection fails. A connection the debugger
// closes, even in the middle of a packet or before acknowledging a
// reply, ends the session as a detach does (nil).
func Serve(rw io.ReadWriter, t Target) error {
	s := &stub{r: bufio.NewReader(rw), w: rw, t: t}
	s.conn, _ = rw.(deadliner)
	err := s.serve()
	switch {
	case s.killed:
		return ErrKilled
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil
	}
	return err
}

// serve is Serve's loop; nil means the session is over.
func (s *stub) serve() error {
	for {
		pkt, err := s.read()
		if errors.Is(err, errTooLong) {
			if err := s.send("E07"); err != nil { // E2BIG
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		reply, done, err := s.handle(pkt)
		if err != nil {
			return err
		}
		if pkt != "k" { // k has no reply
			if err := s.send(reply); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
	}
}

type stub struct {
	conn   deadliner // nil: no interrupts while the program runs
	r      *bufio.Reader
	w      io.Writer
	t      Target
	noAck  bool
	killed bool
}

// MaxPacket is the longest packet payload the stub accepts, in bytes
// (between '$' and '#', escapes included), as qSupported's PacketSize
// tells gdb: room for a memory write of maxMem bytes in hex, which is
// the largest request gdb then sends.
const MaxPacket = 2*maxMem + 64

// errTooLong is read's answer to a packet longer than MaxPacket.
var errTooLong = errors.New("packet longer than PacketSize")

// read returns the next packet's payload ("$payload#cs"), acknowledging
// it; a bad checksum is answered '-' and the packet read again. A payload
// longer than MaxPacket is read to its end without being kept (memory
// stays bounded whatever the client sends), acknowledged, and returned as
// errTooLong, for an error reply.
func (s *stub) read() (string, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", err
		}
		switch c {
		case '$':
		case 0x03: // interrupt while stopped: nothing runs
			continue
		default: // '+', '-' and noise between packets
			continue
		}
		var body []byte
		var sum byte
		long := false
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return "", err
			}
			if c == '#' {
				break
			}
			sum += c
			if len(body) == MaxPacket {
				long = true
				continue
			}
			body = append(body, c)
		}
		var cs [2]byte
		if _, err := io.ReadFull(s.r, cs[:]); err != nil {
			return "", err
		}
		want, err := strconv.ParseUint(string(cs[:]), 16, 8)
		if !s.noAck {
			if err != nil || byte(want) != sum {
				s.w.Write([]byte("-"))
				continue
			}
			if _, err := s.w.Write([]byte("+")); err != nil {
				return "", err
			}
		}
		if long {
			return "", errTooLong
		}
		return unescape(string(body)), nil
	}
}

func checksum(s string) byte {
	var c byte
	for i := 0; i < len(s); i++ {
		c += s[i]
	}
	return c
}

// unescape undoes the binary escape ('}' then the byte xor 0x20).
func unescape(s string) string {
	if !strings.Contains(s, "}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '}' && i+1 < len(s) {
			i++
			b.WriteByte(s[i] ^ 0x20)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// send writes one packet and, unless acks are off, waits for its '+'.
func (s *stub) send(payload string) error {
	var b strings.Builder
	b.WriteByte('$')
	for i := 0; i < len(payload); i++ {
		switch c := payload[i]; c {
		case '$', '#', '}', '*':
			b.WriteByte('}')
			b.WriteByte(c ^ 0x20)
		default:
			b.WriteByte(c)
		}
	}
	body := b.String()[1:]
	fmt.Fprintf(&b, "#%02x", checksum(body))
	for tries := 0; ; tries++ {
		if _, err := io.WriteString(s.w, b.String()); err != nil {
			return err
		}
		if s.noAck {
			return nil
		}
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		if c != '-' || tries == 3 {
			return nil // '+' (or something else: carry on)
		}
	}
}

// cont continues the target; while it runs, a goroutine watches the
// connection for gdb's interrupt byte.
func (s *stub) cont() Stop {
	in, ok := s.t.(Interrupter)
	if !ok || s.conn == nil {
		return s.t.Continue()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return // the deadline below, or the connection is gone
			}
			if c == 0x03 {
				in.Interrupt()
			}
		}
	}()
	st := s.t.Continue()
	s.conn.SetReadDeadline(time.Unix(1, 0)) // unblock the reader
	<-done
	s.conn.SetReadDeadline(time.Time{})
	return st
}

// stopReply renders a stop: "W<code>" for an exit, "T<sig>" otherwise.
func stopReply(st Stop) string {
	if st.Exited {
		return fmt.Sprintf("W%02x", st.Code&0xff)
	}
	return fmt.Sprintf("T%02xthread:1;", st.Signal&0xff)
}

// reg64 renders a register value as gdb wants it: 8 bytes, little-endian hex.
func reg64(v uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return hex.EncodeToString(b[:])
}

func reg32(v uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return hex.EncodeToString(b[:])
}

func parseReg32(s string) (uint32, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

func parseReg(s string) (uint64, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

// addrLen parses "ADDR,LEN" (hex).
func addrLen(s string) (uint64, uint64, bool) {
	a, l, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, false
	}
	addr, err1 := strconv.ParseUint(a, 16, 64)
	n, err2 := strconv.ParseUint(l, 16, 64)
	return addr, n, err1 == nil && err2 == nil
}
