// Generated parts of the documentation: a file, where the part lies and the text the code gives in; the test's verdict, or the part rewritten with -update-docs, out.

// Package doccheck keeps the parts of the documentation that are
// generated from the code (the statistics reference, the README's table
// of mechanisms, the internals guide's list of files) equal to it: a test
// finds the part, compares it with what the code gives, and rewrites it
// instead when its -update-docs flag is set. Only tests import it.
package doccheck

import (
	"os"
	"strings"
	"testing"
)

// Table checks the markdown table of the file at path whose first line
// begins with header, up to the blank line after it, against want (which
// includes the header line). With update it rewrites the table instead;
// rerun says how to do that, for the error.
func Table(t testing.TB, path, header, want string, update bool, rerun string) {
	t.Helper()
	check(t, path, func(s string) (i, j int, ok bool) {
		i = strings.Index(s, header)
		if i < 0 {
			return 0, 0, false
		}
		end := strings.Index(s[i:], "\n\n")
		if end < 0 {
			return i, len(s), true
		}
		return i, i + end + 1, true
	}, header, want, update, rerun)
}

// Between checks the text of the file at path between the lines begin and
// end against want, as Table does.
func Between(t testing.TB, path, begin, end, want string, update bool, rerun string) {
	t.Helper()
	check(t, path, func(s string) (i, j int, ok bool) {
		i, j = strings.Index(s, begin), strings.Index(s, end)
		return i + len(begin), j, i >= 0 && j >= i+len(begin)
	}, begin, want, update, rerun)
}

// check compares the part of the file at path that find locates with
// want, or rewrites it with update; what names the part for errors.
func check(t testing.TB, path string, find func(s string) (i, j int, ok bool), what, want string, update bool, rerun string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j, ok := find(s)
	if !ok {
		t.Fatalf("%s has no generated part %q", path, what)
	}
	if s[i:j] == want {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(s[:i]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, exp := firstDiff(s[i:j], want)
	t.Errorf("%s: the part %q differs from what the code gives (%s rewrites it): first difference\n got: %q\nwant: %q", path, what, rerun, got, exp)
}

// firstDiff returns the first line where a and b differ ("" past the end
// of either).
func firstDiff(a, b string) (string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for k := range max(len(al), len(bl)) {
		var x, y string
		if k < len(al) {
			x = al[k]
		}
		if k < len(bl) {
			y = bl[k]
		}
		if x != y {
			return x, y
		}
	}
	return "", ""
}
