// The layering rule: the package's non-test files -> their imports, none from rvdyn.

package fpu

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLeaf keeps the package a leaf: the interpreter and the fragment
// compiler's constant folding both import it, so it must import neither.
func TestLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "rvdyn" || strings.HasPrefix(path, "rvdyn/") {
				t.Errorf("%s imports %s: package fpu must not import the project", name, path)
			}
		}
	}
}
