package relational

import (
	"io"
	"path/filepath"
	"testing"

	"rvdyn"
)

// TestRunGC runs the collector experiment on one program in a few
// configurations and checks what it reports, not how fast it was.
func TestRunGC(t *testing.T) {
	r, err := RunGC(GCConfig{Programs: []string{"tak"}, Exec: []rvdyn.Mode{rvdyn.ModeInterp},
		GC: []string{GCNoGC, "guest", "stw", "soft"}, Runs: 1, IntervalKB: 8}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Measurements) != 4 {
		t.Fatalf("%d measurements, want 4", len(r.Measurements))
	}
	for _, m := range r.Measurements {
		if m.Error != "" || m.Wall <= 0 || m.ExitCode != 0 || m.GuestInstructions == 0 {
			t.Errorf("%s: %+v", m.GC, m)
		}
		switch m.GC {
		case GCNoGC:
			if m.Stats == nil || m.Stats.Collections != 0 || m.WallOverhead != 0 {
				t.Errorf("nogc collected or has an overhead: %+v", m)
			}
		case "guest":
			if m.Stats != nil || m.GuestCollections < 10 {
				t.Errorf("guest: %d guest collections, host stats %v", m.GuestCollections, m.Stats)
			}
		default:
			if m.Stats == nil || m.Stats.Collections < 10 || m.Baseline != GCNoGC {
				t.Errorf("%s: %+v", m.GC, m.Stats)
			}
		}
	}
	if _, err := RunGC(GCConfig{GC: []string{"soft+edge8"}}, io.Discard); err == nil {
		t.Error("soft+edge8 accepted")
	}
	path := filepath.Join(t.TempDir(), "gc.json")
	if err := r.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGCJSON(path)
	if err != nil || len(back.Measurements) != 4 || back.Measurements[2].Stats.Mode.String() != "stw" {
		t.Fatalf("read back: %v %+v", err, back)
	}
	if err := PlotGC(back, filepath.Join(t.TempDir(), "gc.svg")); err != nil {
		t.Fatal(err)
	}
}
