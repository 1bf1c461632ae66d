package gdb

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
)

// fakeTarget is a machine with registers, 64 bytes of memory at 0x1000
// and a program that stops after each step or continue.
type fakeTarget struct {
	regs  [RegFcsr + 1]uint64
	mem   [64]byte
	bps   map[uint64]bool
	steps int
}

func (f *fakeTarget) Reg(n int) uint64       { return f.regs[n] }
func (f *fakeTarget) SetReg(n int, v uint64) { f.regs[n] = v }
func (f *fakeTarget) ReadMem(a uint64, b []byte) error {
	if a < 0x1000 || a+uint64(len(b)) > 0x1040 {
		return fmt.Errorf("bad address")
	}
	copy(b, f.mem[a-0x1000:])
	return nil
}
func (f *fakeTarget) WriteMem(a uint64, b []byte) error {
	if a < 0x1000 || a+uint64(len(b)) > 0x1040 {
		return fmt.Errorf("bad address")
	}
	copy(f.mem[a-0x1000:], b)
	return nil
}
func (f *fakeTarget) SetBreakpoint(pc uint64) error   { f.bps[pc] = true; return nil }
func (f *fakeTarget) ClearBreakpoint(pc uint64) error { delete(f.bps, pc); return nil }
func (f *fakeTarget) Step() Stop                      { f.steps++; f.regs[32] += 4; return Stop{Signal: 5} }
func (f *fakeTarget) Continue() Stop                  { return Stop{Exited: true, Code: 3} }

func packet(s string) string { return fmt.Sprintf("$%s#%02x", s, checksum(s)) }

// TestServe plays a session: each request packet and the reply it must get.
func TestServe(t *testing.T) {
	ft := &fakeTarget{bps: map[uint64]bool{}}
	ft.regs[10], ft.regs[32] = 0x1122334455667788, 0x10000
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(a, ft) }()
	r := bufio.NewReader(b)
	ask := func(req string) string {
		t.Helper()
		fmt.Fprint(b, packet(req))
		if c, _ := r.ReadByte(); c != '+' {
			t.Fatalf("%s: no ack (%q)", req, c)
		}
		if c, _ := r.ReadByte(); c != '$' {
			t.Fatalf("%s: reply does not start with $", req)
		}
		body, _ := r.ReadString('#')
		r.Discard(2)
		fmt.Fprint(b, "+")
		return strings.TrimSuffix(body, "#")
	}
	for _, tc := range []struct{ req, want string }{
		{"qSupported:multiprocess+;swbreak+", "PacketSize=1040;qXfer:features:read+;QStartNoAckMode+;vContSupported+"},
		{"?", "S05"},
		{"pa", "8877665544332211"},
		{"p20", "0000010000000000"},
		{"p21", "0000000000000000"},    // f0
		{"P2a=000000000000f83f", "OK"}, // fa0 = 1.5
		{"p2a", "000000000000f83f"},
		{"p41", "E16"},      // 65: no such register
		{"p42", "00000000"}, // fflags: 32 bits
		{"P43=03000000", "OK"},
		{"p43", "03000000"},
		{"P43=0300000000000000", "E16"}, // a 32-bit register takes 4 bytes
		{"p45", "E16"},
		{"P5=0100000000000000", "OK"},
		{"p5", "0100000000000000"},
		{"M1000,4:deadbeef", "OK"},
		{"m1000,4", "deadbeef"},
		{"m10,4", "E0e"},
		{"M1000,4:zz", "E16"},
		{"Z0,10004,4", "OK"},
		{"Z1,10004,4", ""},
		{"z0,10004,4", "OK"},
		{"s", "T05thread:1;"},
		{"vCont?", "vCont;c;C;s;S"},
		{"vCont;s:1", "T05thread:1;"},
		{"qfThreadInfo", "m1"},
		{"bogus", ""},
	} {
		if got := ask(tc.req); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.req, got, tc.want)
		}
	}
	if ft.regs[5] != 1 || ft.steps != 2 || len(ft.bps) != 0 {
		t.Errorf("target state: x5 %d, %d steps, breakpoints %v", ft.regs[5], ft.steps, ft.bps)
	}
	var xml string
	for {
		part := ask(fmt.Sprintf("qXfer:features:read:target.xml:%x,400", len(xml)))
		if part == "" || part[0] != 'm' && part[0] != 'l' {
			t.Fatalf("target description part %q", part)
		}
		xml += part[1:]
		if part[0] == 'l' {
			break
		}
	}
	if !strings.HasPrefix(xml, "<?xml") || !strings.Contains(xml, "riscv:rv64") || strings.Count(xml, "<reg ") != NumRegs+32+3 ||
		!strings.Contains(xml, `name="fa0" bitsize="64" type="riscv_double" regnum="43"`) || !strings.Contains(xml, `name="fcsr" bitsize="32" type="int" regnum="68"`) {
		t.Errorf("target description: %q", xml)
	}
	if got := ask("c"); got != "W03" {
		t.Errorf("continue: %q, want W03", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestBadChecksum: a corrupted packet is answered '-' and not acted on.
func TestBadChecksum(t *testing.T) {
	ft := &fakeTarget{bps: map[uint64]bool{}}
	a, b := net.Pipe()
	go Serve(a, ft)
	fmt.Fprint(b, "$M1000,1:ff#00")
	var c [1]byte
	b.Read(c[:])
	if c[0] != '-' || ft.mem[0] != 0 {
		t.Errorf("got %q, memory %x", c[0], ft.mem[0])
	}
	b.Close()
}

// slowTarget's Continue runs until it is interrupted.
type slowTarget struct {
	fakeTarget
	stop chan struct{}
}

func (s *slowTarget) Continue() Stop { <-s.stop; return Stop{Signal: 2} }
func (s *slowTarget) Interrupt()     { close(s.stop) }

// TestInterrupt: a 0x03 byte while the program runs stops the continue,
// and the session goes on afterwards.
func TestInterrupt(t *testing.T) {
	st := &slowTarget{fakeTarget: fakeTarget{bps: map[uint64]bool{}}, stop: make(chan struct{})}
	a, b := net.Pipe()
	go Serve(a, st)
	r := bufio.NewReader(b)
	reply := func() string {
		if c, _ := r.ReadByte(); c != '$' {
			t.Fatalf("reply does not start with $ (%q)", c)
		}
		body, _ := r.ReadString('#')
		r.Discard(2)
		fmt.Fprint(b, "+")
		return strings.TrimSuffix(body, "#")
	}
	fmt.Fprint(b, packet("c"))
	if c, _ := r.ReadByte(); c != '+' {
		t.Fatal("no ack")
	}
	b.Write([]byte{0x03})
	if got := reply(); got != "T02thread:1;" {
		t.Fatalf("after the interrupt: %q", got)
	}
	fmt.Fprint(b, packet("?"))
	r.ReadByte()
	if got := reply(); got != "S05" {
		t.Errorf("after the interrupt the session answers %q", got)
	}
	b.Close()
}

// session starts Serve on one end of a pipe over target t and returns a
// function that sends a request packet and returns the reply's payload.
func session(t *testing.T, tg Target) (ask func(req string) string, conn net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { b.Close() })
	go Serve(a, tg)
	r := bufio.NewReader(b)
	ask = func(req string) string {
		t.Helper()
		fmt.Fprint(b, packet(req))
		return reply(t, r, b)
	}
	return ask, b
}

// reply reads an acknowledgement and one reply packet, and acknowledges it.
func reply(t *testing.T, r *bufio.Reader, w net.Conn) string {
	t.Helper()
	if c, err := r.ReadByte(); c != '+' {
		t.Fatalf("no ack (%q, %v)", c, err)
	}
	if c, _ := r.ReadByte(); c != '$' {
		t.Fatalf("reply does not start with $")
	}
	body, _ := r.ReadString('#')
	r.Discard(2)
	fmt.Fprint(w, "+")
	return strings.TrimSuffix(body, "#")
}

// TestMalformedVCont: a vCont without an action (which once indexed an
// empty string and ended the process) is an error reply, and the
// session goes on.
func TestMalformedVCont(t *testing.T) {
	for _, req := range []string{"vCont;", "vCont;:1", "vCont;;s", "vCont;x", "vCont;:"} {
		t.Run(req, func(t *testing.T) {
			ft := &fakeTarget{bps: map[uint64]bool{}}
			ask, _ := session(t, ft)
			if got := ask(req); got != "E16" {
				t.Errorf("%s: %q, want E16", req, got)
			}
			if got := ask("?"); got != "S05" || ft.steps != 0 {
				t.Errorf("after %s: %q, %d steps", req, got, ft.steps)
			}
		})
	}
}

// TestPacketTooLong: a packet longer than PacketSize is read to its end
// without being kept and answered E07; what the stub allocates meanwhile
// stays far below the packet's size, and the session goes on.
func TestPacketTooLong(t *testing.T) {
	ft := &fakeTarget{bps: map[uint64]bool{}}
	ask, b := session(t, ft)
	if got := ask("qSupported"); !strings.HasPrefix(got, fmt.Sprintf("PacketSize=%x;", MaxPacket)) {
		t.Fatalf("qSupported: %q", got)
	}
	r := bufio.NewReader(b)
	for _, size := range []int{MaxPacket + 1, 32 << 20} {
		pkt := []byte(packet("M1000,1:" + strings.Repeat("0", size-8)))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		go b.Write(pkt)
		got := reply(t, r, b)
		runtime.ReadMemStats(&after)
		if got != "E07" {
			t.Errorf("%d-byte packet: %q, want E07", size, got)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
			t.Errorf("%d-byte packet: %d bytes allocated while reading it", size, grew)
		}
	}
	if got := ask("M1000,1:ff"); got != "OK" || ft.mem[0] != 0xff {
		t.Errorf("after the long packets: %q, memory %x", got, ft.mem[0])
	}
	body := "M1000,1:" + strings.Repeat("0", MaxPacket-8) // exactly MaxPacket: accepted
	if got := ask(body); got != "E16" {
		t.Errorf("a %d-byte packet: %q, want E16 (a bad length, but read)", len(body), got)
	}
}
