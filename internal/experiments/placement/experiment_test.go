// Tests of the experiment's results: Table 5 rows survive JSON.

package placement

import (
	"encoding/json"
	"math"
	"testing"
)

// TestChiRowJSON: a row of sets without samples survives JSON (which has
// no infinity) as null, and reads back as +Inf, never as a perfect 0.
func TestChiRowJSON(t *testing.T) {
	b, err := json.Marshal([]ChiRow{{Row: "1 sample set", Sets: 1, Chi2: math.Inf(1)}, {Row: "expected", Chi2: 12.5}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"row":"1 sample set","sets":1,"chi2":null},{"row":"expected","chi2":12.5}]`; string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
	var back []ChiRow
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(back[0].Chi2, 1) || back[1].Chi2 != 12.5 {
		t.Errorf("read back %+v", back)
	}
}
