package main

// Placeholder until cmd/rvdyn/profile.go exists: DELETE THIS FILE when
// profile.go defines profileCmd.

import (
	"fmt"
	"io"
)

func profileCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rvdyn: profile: not built in")
	return 2
}
