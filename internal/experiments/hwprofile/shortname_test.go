// Tests of the short names the report and the plots give configurations.

package hwprofile

import "testing"

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"multihash:tables=4":                                 "MH4 C1R0",
		"multihash:tables=8,cu=0,reset=1,retain=0":           "MH8 C0R1 P0",
		"multihash:tables=2,interval=1000000,threshold=0.1%": "MH2 C1R0 1000000/0.1%",
		"H[P256]2048":                     "H[P256]2048",
		"multihash:tables=1,entries=1024": "MH1 C1R0 Z1024",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%s) = %q, want %q", in, got, want)
		}
	}
}
