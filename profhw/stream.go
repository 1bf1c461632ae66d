// Tuple streams: batches of tuples with their instruction counts in, from memory or a recorded file; and batches out to a compact stream file.

package profhw

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A Batch is a run of consecutive tuples of a stream. Retired[i] is the
// number of guest instructions retired up to and including the one that
// produced Tuples[i] (non-decreasing along the stream); the overhead model
// divides by it.
type Batch struct {
	Tuples  []Tuple
	Retired []uint64
}

// A Source produces a tuple stream. Run calls emit with consecutive
// batches; the batch's slices may be reused once emit returns. Run returns
// the guest instructions retired over the whole stream (at least the last
// tuple's Retired) and the first error from the source or from emit.
type Source interface {
	Run(emit func(Batch) error) (retired uint64, err error)
}

// BatchSize is the number of tuples the sources of this package put in a
// batch.
const BatchSize = 4096

// SliceSource is a stream held in memory, for tests and synthetic
// experiments. If Retired is nil, every tuple counts as one instruction.
type SliceSource struct {
	Tuples  []Tuple
	Retired []uint64
}

// Run emits the tuples in batches of BatchSize.
func (s SliceSource) Run(emit func(Batch) error) (uint64, error) {
	ret := make([]uint64, 0, BatchSize)
	for lo := 0; lo < len(s.Tuples); lo += BatchSize {
		hi := min(lo+BatchSize, len(s.Tuples))
		b := Batch{Tuples: s.Tuples[lo:hi]}
		if s.Retired != nil {
			b.Retired = s.Retired[lo:hi]
		} else {
			ret = ret[:0]
			for i := lo; i < hi; i++ {
				ret = append(ret, uint64(i+1))
			}
			b.Retired = ret
		}
		if err := emit(b); err != nil {
			return 0, err
		}
	}
	if len(s.Retired) > 0 {
		return s.Retired[len(s.Retired)-1], nil
	}
	return uint64(len(s.Tuples)), nil
}

// The stream file format. A file is
//
//	magic   "RVDYNTS\x01"
//	meta    uvarint length, then that many bytes (free text: guest, args, profiles)
//	records, each: uvarint(dRetired<<5 | end<<4 | tag)
//	        if end = 0: uvarint(zigzag(addr - prevAddr[tag]))
//	                    uvarint(zigzag(val - ref)), ref = addr for edge and
//	                    call tuples (targets are near the branch), and
//	                    prevVal[tag] otherwise
//	        if end = 1: the record closes the stream; dRetired brings the
//	                    count to the total instructions retired
//
// tag is the tuple's Kind (Tuple.PC bits 60..63), addr the rest of Tuple.PC;
// dRetired is the growth of Retired since the previous record. A value
// profile takes about 5 bytes per tuple, an edge profile about 3.
const streamMagic = "RVDYNTS\x01"

// ErrNotStream is wrapped by StreamReader errors for a file that does not
// start with the stream magic.
var ErrNotStream = errors.New("not an rvdyn tuple stream")

// A StreamError reports a malformed stream file, with the byte offset at
// which decoding failed.
type StreamError struct {
	Offset int64
	Err    error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("profhw: tuple stream: at byte %d: %v", e.Offset, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

type streamState struct {
	retired uint64
	addr    [16]uint64
	val     [16]uint64
}

func zigzag(d uint64) uint64   { return d<<1 ^ uint64(int64(d)>>63) }
func unzigzag(u uint64) uint64 { return u>>1 ^ -(u & 1) }

// A Recorder writes a tuple stream file. Use NewRecorder, Write each batch,
// then Close with the total instructions retired.
type Recorder struct {
	w   *bufio.Writer
	st  streamState
	buf [3 * binary.MaxVarintLen64]byte
	err error
}

// NewRecorder writes the file header, with meta as its description, to w.
func NewRecorder(w io.Writer, meta string) (*Recorder, error) {
	r := &Recorder{w: bufio.NewWriterSize(w, 1<<16)}
	r.w.WriteString(streamMagic)
	r.put(uint64(len(meta)))
	r.w.WriteString(meta)
	return r, r.err
}

func (r *Recorder) put(u uint64) {
	n := binary.PutUvarint(r.buf[:], u)
	if _, err := r.w.Write(r.buf[:n]); err != nil && r.err == nil {
		r.err = err
	}
}

// Write appends a batch. Retired must not decrease along the stream.
func (r *Recorder) Write(b Batch) error {
	for i, t := range b.Tuples {
		ret := b.Retired[i]
		if ret < r.st.retired {
			return fmt.Errorf("profhw: recording: retired count goes back from %d to %d", r.st.retired, ret)
		}
		tag := t.PC >> kindShift
		addr := t.PC & pcMask
		r.put((ret-r.st.retired)<<5 | tag)
		r.put(zigzag(addr - r.st.addr[tag]))
		ref := r.st.val[tag]
		if k := Kind(tag); k == KindEdge || k == KindCall {
			ref = addr
		}
		r.put(zigzag(t.Val - ref))
		r.st.retired, r.st.addr[tag], r.st.val[tag] = ret, addr, t.Val
	}
	return r.err
}

// Close writes the end record with the total retired count and flushes. It
// does not close the underlying writer.
func (r *Recorder) Close(retired uint64) error {
	retired = max(retired, r.st.retired)
	r.put((retired-r.st.retired)<<5 | 1<<4)
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

// Record returns a Source that runs src and records every batch to w
// before passing it on.
func Record(src Source, w io.Writer, meta string) Source {
	return recording{src, w, meta}
}

type recording struct {
	src  Source
	w    io.Writer
	meta string
}

func (s recording) Run(emit func(Batch) error) (uint64, error) {
	rec, err := NewRecorder(s.w, s.meta)
	if err != nil {
		return 0, err
	}
	retired, err := s.src.Run(func(b Batch) error {
		if err := rec.Write(b); err != nil {
			return err
		}
		return emit(b)
	})
	if cerr := rec.Close(retired); err == nil {
		err = cerr
	}
	return retired, err
}

// A StreamReader replays a recorded tuple stream; it is a Source.
type StreamReader struct {
	r    *bufio.Reader
	off  int64
	meta string
}

// NewStreamReader reads the header of a stream file from r. The error
// wraps ErrNotStream if r is not a stream file.
func NewStreamReader(r io.Reader) (*StreamReader, error) {
	s := &StreamReader{r: bufio.NewReaderSize(r, 1<<16)}
	magic := make([]byte, len(streamMagic))
	if _, err := io.ReadFull(s.r, magic); err != nil || string(magic) != streamMagic {
		return nil, &StreamError{0, ErrNotStream}
	}
	s.off = int64(len(magic))
	n, err := s.uvarint()
	if err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, &StreamError{s.off, fmt.Errorf("description of %d bytes is too long", n)}
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(s.r, meta); err != nil {
		return nil, &StreamError{s.off, io.ErrUnexpectedEOF}
	}
	s.off += int64(n)
	s.meta = string(meta)
	return s, nil
}

// Meta returns the description recorded in the header.
func (s *StreamReader) Meta() string { return s.meta }

func (s *StreamReader) uvarint() (uint64, error) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		b, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, &StreamError{s.off, err}
		}
		s.off++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return u, nil
		}
	}
	return 0, &StreamError{s.off, errors.New("varint too long")}
}

// Run decodes the stream and emits it in batches of BatchSize. A file that
// ends without its end record is an error (*StreamError wrapping
// io.ErrUnexpectedEOF), after the complete records were emitted.
func (s *StreamReader) Run(emit func(Batch) error) (uint64, error) {
	var st streamState
	ts := make([]Tuple, 0, BatchSize)
	rs := make([]uint64, 0, BatchSize)
	flush := func() error {
		if len(ts) == 0 {
			return nil
		}
		err := emit(Batch{Tuples: ts, Retired: rs})
		ts, rs = ts[:0], rs[:0]
		return err
	}
	for {
		head, err := s.uvarint()
		if err != nil {
			if ferr := flush(); ferr != nil {
				return st.retired, ferr
			}
			return st.retired, err
		}
		st.retired += head >> 5
		if head&(1<<4) != 0 {
			return st.retired, flush()
		}
		tag := head & 15
		da, err := s.uvarint()
		if err != nil {
			flush()
			return st.retired, err
		}
		dv, err := s.uvarint()
		if err != nil {
			flush()
			return st.retired, err
		}
		addr := (st.addr[tag] + unzigzag(da)) & pcMask
		ref := st.val[tag]
		if k := Kind(tag); k == KindEdge || k == KindCall {
			ref = addr
		}
		val := ref + unzigzag(dv)
		st.addr[tag], st.val[tag] = addr, val
		ts = append(ts, Tuple{PC: addr | tag<<kindShift, Val: val})
		rs = append(rs, st.retired)
		if len(ts) == BatchSize {
			if err := flush(); err != nil {
				return st.retired, err
			}
		}
	}
}
