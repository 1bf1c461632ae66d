// Tests of the stream file format: round trip, compactness, malformed files.

package profhw

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// collect runs src and returns its tuples and retired counts.
func collect(t *testing.T, src Source) ([]Tuple, []uint64, uint64, error) {
	t.Helper()
	var ts []Tuple
	var rs []uint64
	retired, err := src.Run(func(b Batch) error {
		ts = append(ts, b.Tuples...)
		rs = append(rs, b.Retired...)
		return nil
	})
	return ts, rs, retired, err
}

func mixedStream(n int) ([]Tuple, []uint64) {
	r := rng{17}
	ts := make([]Tuple, n)
	rs := make([]uint64, n)
	var ret uint64
	for i := range ts {
		ret += 1 + r.below(7)
		pc := 0x10000 + 4*r.below(1000)
		switch r.below(4) {
		case 0:
			ts[i] = MakeTuple(KindValue, pc, r.next())
		case 1:
			ts[i] = MakeTuple(KindEdge, pc, pc+4)
		case 2:
			ts[i] = MakeTuple(KindCall, pc, pc-4096)
		default:
			ts[i] = Tuple{PC: r.next(), Val: r.next()} // any 64-bit words
		}
		rs[i] = ret
	}
	return ts, rs
}

func TestStreamRoundTrip(t *testing.T) {
	ts, rs := mixedStream(20000)
	var buf bytes.Buffer
	src := Record(SliceSource{Tuples: ts, Retired: rs}, &buf, "test stream")
	got1, _, ret1, err := collect(t, src)
	if err != nil || len(got1) != len(ts) {
		t.Fatalf("recording pass: %d tuples, %v", len(got1), err)
	}
	size := buf.Len()
	r, err := NewStreamReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Meta() != "test stream" {
		t.Errorf("meta %q", r.Meta())
	}
	got, gotR, ret, err := collect(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if ret != ret1 || ret != rs[len(rs)-1] {
		t.Errorf("retired %d, want %d", ret, rs[len(rs)-1])
	}
	if len(got) != len(ts) {
		t.Fatalf("replayed %d tuples, want %d", len(got), len(ts))
	}
	for i := range ts {
		if got[i] != ts[i] || gotR[i] != rs[i] {
			t.Fatalf("tuple %d: %v @%d, want %v @%d", i, got[i], gotR[i], ts[i], rs[i])
		}
	}
	t.Logf("%d tuples in %d bytes (%.1f bytes/tuple)", len(ts), size, float64(size)/float64(len(ts)))
}

func TestStreamCompactForEdges(t *testing.T) {
	var ts []Tuple
	var rs []uint64
	for i := 0; i < 10000; i++ {
		pc := uint64(0x10000 + 4*(i%50))
		ts = append(ts, MakeTuple(KindEdge, pc, pc+8))
		rs = append(rs, uint64(3*i+3))
	}
	var buf bytes.Buffer
	rec, _ := NewRecorder(&buf, "")
	rec.Write(Batch{ts, rs})
	rec.Close(rs[len(rs)-1] + 10)
	if per := float64(buf.Len()) / float64(len(ts)); per > 4 {
		t.Errorf("edge stream takes %.1f bytes per tuple, want at most 4", per)
	}
	r, _ := NewStreamReader(&buf)
	_, _, ret, err := collect(t, r)
	if err != nil || ret != rs[len(rs)-1]+10 {
		t.Errorf("total retired %d, %v; want %d", ret, err, rs[len(rs)-1]+10)
	}
}

func TestStreamErrors(t *testing.T) {
	if _, err := NewStreamReader(bytes.NewReader([]byte("ELF\x7f...."))); !errors.Is(err, ErrNotStream) {
		t.Errorf("bad magic: %v", err)
	}
	ts, rs := mixedStream(100)
	var buf bytes.Buffer
	rec, _ := NewRecorder(&buf, "x")
	rec.Write(Batch{ts, rs})
	rec.Close(0)
	full := buf.Bytes()
	r, _ := NewStreamReader(bytes.NewReader(full[:len(full)-5]))
	got, _, _, err := collect(t, r)
	var se *StreamError
	if !errors.As(err, &se) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated stream: %v", err)
	}
	if len(got) == 0 || len(got) >= 100 {
		t.Errorf("truncated stream gave %d tuples, want the complete records before the cut", len(got))
	}
	rec2, _ := NewRecorder(io.Discard, "")
	if err := rec2.Write(Batch{[]Tuple{{}, {}}, []uint64{5, 4}}); err == nil {
		t.Errorf("decreasing retired count accepted")
	}
}

func TestSliceSourceDefaultsRetired(t *testing.T) {
	_, rs, ret, _ := collect(t, SliceSource{Tuples: make([]Tuple, 5000)})
	if ret != 5000 || rs[4999] != 5000 || rs[0] != 1 {
		t.Errorf("retired %d, first %d, last %d", ret, rs[0], rs[4999])
	}
}
