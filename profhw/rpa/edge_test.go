package rpa

import (
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
)

// TestEdgeProfileAlwaysIsExact: with "always" the service thread's table
// equals the hook's exact profile, message for message (nothing lost or
// duplicated through the queue), and the error is zero.
func TestEdgeProfileAlwaysIsExact(t *testing.T) {
	img, err := corpus.ELF("bintree")
	if err != nil {
		t.Fatal(err)
	}
	args := corpus.Args("bintree", corpus.Small)
	r, err := RunEdgeProfile(img, interp.Config{Args: args}, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.Branches == 0 {
		t.Fatalf("exit %d, %d branches", r.ExitCode, r.Branches)
	}
	if len(r.Sampled) != len(r.Exact) {
		t.Fatalf("%d pcs sampled, %d exact", len(r.Sampled), len(r.Exact))
	}
	for pc, e := range r.Exact {
		if r.Sampled[pc] != e {
			t.Fatalf("pc %#x: sampled %+v, exact %+v", pc, r.Sampled[pc], e)
		}
	}
	if r.Error.Error != 0 || r.Error.Selected == 0 {
		t.Errorf("error %+v, want 0 over some outcomes", r.Error)
	}
	if q := r.Report.Queues[0]; q.Sent != r.Branches || q.Received != r.Branches {
		t.Errorf("queue %+v, want %d sent and received", q, r.Branches)
	}
}

// TestEdgeProfileSampled: at 1/64 about 1/64 of the branches are sent and
// the error is small.
func TestEdgeProfileSampled(t *testing.T) {
	img, err := corpus.ELF("crc32")
	if err != nil {
		t.Fatal(err)
	}
	args := corpus.Args("crc32", corpus.Small)
	r, err := RunEdgeProfile(img, interp.Config{Args: args}, 64, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	sent := r.Report.Queues[0].Sent
	if want := float64(r.Branches) / 64; float64(sent) < 0.9*want || float64(sent) > 1.1*want {
		t.Errorf("%d of %d branches sent, want about %.0f", sent, r.Branches, want)
	}
	if r.Error.Error > 0.05 {
		t.Errorf("error %.4f at 1/64", r.Error.Error)
	}
	t.Logf("crc32 1/64: %d branches, %d sent, error %.4f over %d outcomes", r.Branches, sent, r.Error.Error, r.Error.Selected)
}
