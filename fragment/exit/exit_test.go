package exit

import "testing"

func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for k := range NumKinds {
		if k.String() == "" || k.Text() == "" || seen[k.String()] {
			t.Errorf("kind %d: %q %q", k, k.String(), k.Text())
		}
		seen[k.String()] = true
	}
	if got := NumKinds.String(); got != "exit.Kind(5)" {
		t.Errorf("out of range: %q", got)
	}
}
