// Guest selection: command-line program or --guest list -> the programs a command runs.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rvdyn/bench/corpus"
)

// A guestRun is one program to run: a display name, its ELF image, argv.
type guestRun struct {
	name  string
	image []byte
	args  []string
}

// selectGuests returns the programs a command was asked to run: the ELF
// file and arguments given on the command line (files), or the embedded
// guests named in list ("all" for every one, "" for the default guest),
// with their small size argument when small is set. Giving both is an
// error.
func selectGuests(files []string, list string, small bool) ([]guestRun, error) {
	switch {
	case len(files) > 0 && list != "":
		return nil, fmt.Errorf("give either a program file or --guest, not both")
	case len(files) > 0:
		image, err := os.ReadFile(files[0])
		if err != nil {
			return nil, err
		}
		return []guestRun{{filepath.Base(files[0]), image, files}}, nil
	}
	names := []string{corpus.Default}
	if list == "all" {
		names = corpus.Names()
	} else if list != "" {
		names = strings.Split(list, ",")
	}
	size := corpus.Full
	if small {
		size = corpus.Small
	}
	var runs []guestRun
	for _, name := range names {
		image, err := corpus.ELF(name)
		if err != nil {
			return nil, err
		}
		runs = append(runs, guestRun{name, image, corpus.Args(name, size)})
	}
	return runs, nil
}
