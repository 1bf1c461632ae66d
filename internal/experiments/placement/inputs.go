// Training and test inputs of the corpus guests for the layout experiment: a guest name -> two argument lists.

package placement

// Inputs are the training and test arguments (after the program name) of
// the guests the layout experiment runs by default, different inputs as
// in the paper (section 3.3), sized so that an interpreted run with the
// cache simulators attached takes seconds. The Scheme guest is the main
// workload: its benchmark suite at scale 1 trains, at scale 2 tests.
var Inputs = map[string][2][]string{
	"scheme":   {{"all", "1"}, {"all", "2"}},
	"strings":  {{"4000"}, {"10000"}},
	"phases":   {{"15000"}, {"30000"}},
	"qsort":    {{"4000"}, {"8000"}},
	"bytecode": {{"50"}, {"100"}},
	"bintree":  {{"9"}, {"10"}},
	"nqueens":  {{"7"}, {"8"}}, // tiny: for tests of the pipeline
}

// DefaultGuests are the guests `rvdyn layout` runs with no --guest.
var DefaultGuests = []string{"scheme", "strings", "phases", "qsort", "bytecode"}
