package rpa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// mixGuest loops 20 times over a tagged store, a tagged load, a multiply,
// a tagged add, a call and a system call, then exits: every instruction
// class a query can select, with tags 0 to 3.
func mixGuest() []byte {
	const rT2, rA1, rA2, rRA = 7, 11, 12, 1
	text := []uint32{
		I(interp.OpLUI, rS0, 0, 0, rvtest.MakeELFData),
		I(interp.OpADDI, rT0, 0, 0, 20),
		// loop (index 2):
		interp.TagHint(1),
		I(interp.OpSD, 0, rS0, rT0, 0),
		interp.TagHint(2),
		I(interp.OpLD, rT1, rS0, 0, 0),
		I(interp.OpMUL, rT1, rT1, rT0, 0),
		interp.TagHint(3),
		I(interp.OpADD, rA1, rA1, rT1, 0),
		I(interp.OpJAL, rRA, 0, 0, 4*8), // call f (index 17)
		I(interp.OpADDI, rA7, 0, 0, 172),
		I(interp.OpECALL, 0, 0, 0, 0), // getpid
		I(interp.OpADDI, rT0, rT0, 0, -1),
		I(interp.OpBNE, 0, rT0, 0, -4*11),
		I(interp.OpADDI, rA0, 0, 0, 0),
		I(interp.OpADDI, rA7, 0, 0, 93),
		I(interp.OpECALL, 0, 0, 0, 0), // exit(0)
		// f (index 17):
		I(interp.OpADDI, rA2, rA2, 0, 1),
		I(interp.OpXOR, rT2, rA2, rA1, 0),
		I(interp.OpJALR, 0, rRA, 0, 0),
	}
	return rvtest.MakeELF(text, nil, 4096)
}

// FuzzQuery follows the path of run --query's text: assembled and, if it
// assembles, started (queues and service threads) and run on a guest that
// exercises every class and tag. An error is one line (the command line
// prints it as it is and exits 2); a session never panics or hangs, and
// every message the engine sends reaches its queue's service thread.
func FuzzQuery(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.rpa")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(string(b))
	}
	f.Add("for opBRANCH * every 4 collect pc misc; send 1 stop;")
	f.Add("for opLOAD 2 opSTORE 1 always collect op1 op2 op3; if op1 <> 0 then send 3 stop else stop;")
	f.Add("for opSYS * opMULT * opJMP * always collect pc res1; if filter 2 then count else goto x; x: interrupt 3;")
	f.Add("for opALU 3 every 7 collect w0; send 2; for opALU 3 always collect pc; send 2;")
	f.Add("")
	image := mixGuest()
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Assemble(src)
		if err != nil {
			oneLine(t, err)
			return
		}
		s, err := Start(p, Options{Seed: 1}, 64)
		if err != nil {
			oneLine(t, err)
			return
		}
		defer s.Close()
		m, err := interp.Load(image, interp.Config{MemSize: 16 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		s.Attach(m)
		if err := m.Run(1e6); err != nil {
			t.Fatalf("guest: %v", err)
		}
		if m.ExitCode() != 0 {
			t.Fatalf("guest exit %d", m.ExitCode())
		}
		s.Close() // drains the queues
		rep := s.Report()
		var sent uint64
		for _, q := range rep.Queues {
			if q.Sent != q.Received {
				t.Fatalf("queue %d: %d sent, %d received", q.Queue, q.Sent, q.Received)
			}
			sent += q.Sent
		}
		if rep.Records > rep.Events || sent > rep.Records*uint64(MaxInsts) {
			t.Fatalf("report %+v", rep)
		}
	})
}

// oneLine fails unless err has a message of one line.
func oneLine(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error %q is not one line", msg)
	}
}
