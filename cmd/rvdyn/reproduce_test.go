package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "nosuch"}, "unknown paper"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"--bogus"}, "bogus"},
	} {
		var out, errb strings.Builder
		if code := reproduceCmd(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), exitUsage, tc.want)
		}
	}
}

// TestReproduceQuick runs one paper's experiments at quick sizes and
// checks the page, the tables, the JSON and the figures it names.
func TestReproduceQuick(t *testing.T) {
	dir := t.TempDir()
	var out, errb strings.Builder
	if code := reproduceCmd([]string{"--quick", "--only", "stratified", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	if n := strings.Count(errb.String(), "\n"); n != 3 || !strings.Contains(errb.String(), "[3/3] stratified") {
		t.Errorf("want one progress line per experiment, got:\n%s", errb.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "stratified.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Sastry", "## Figure 4", "## Figure 9", "**The paper:**", "**Why they differ:**", "H[P256]2048", "stay below", "![stratified-fig7.svg]"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, f := range []string{"stratified-fig4.json", "stratified-fig4.svg", "stratified-fig7.json", "stratified-fig7.svg", "stratified-fig9.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "net.md")); err == nil {
		t.Error("--only stratified wrote the net page")
	}
}
