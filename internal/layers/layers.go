// Package layers states tcsim's layer rule as data: which groups of
// packages may import which. Its test lists every package of the module
// with `go list` and fails on any import (of a package or of its tests)
// that the table does not allow. There are no exceptions: a new package
// must be placed in a group, and a new edge either fits the table or the
// code moves.
//
// The groups, lowest first:
//
//	internal/*     helpers with no tcsim imports (suggest, layers)
//	layouts/*      CuTe algebra, atoms (catalog), F2 bitmath, expressions
//	isa/*          PTX front end, number formats, descriptors
//	launch         the launch model: grid, block, parameters, bindings
//	fixtures       recorded cases: storage, loading, verification, provenance
//	sim/datapath   the tensor-core arithmetic
//	sim/banks      the shared-memory bank model (the simulator's conflict
//	               report and the TUI's swizzle view share it)
//	sim/trace      the trace format: typed records, writer and reader (the
//	               simulator writes it, the TUI's stepper replays it)
//	sim            machine state, semantics, hazards, stepping
//	gpu, gpu/*     the CUDA driver and hardware probes, beside sim: never sim
//	capture        recording launches from real programs (driver interposer,
//	               Triton hooks) into fixture cases, beside sim and gpu
//	input          what a user typed: layout texts and descriptor values,
//	               read the same way by the command line and the TUI
//	render         pictures (text, ANSI, SVG, PNG, HTML)
//	tui            the Bubble Tea explorer
//	cmd/*          the tcsim binary
package layers

import "strings"

// Allowed maps each group to the groups its packages may import, itself
// included. The table is transitive: a group may import everything the
// groups below it may.
var Allowed = map[string][]string{
	"internal":     {"internal"},
	"layouts":      {"internal", "layouts"},
	"isa":          {"internal", "layouts", "isa"},
	"launch":       {"internal", "layouts", "isa", "launch"},
	"fixtures":     {"internal", "layouts", "isa", "launch", "fixtures"},
	"sim/datapath": {"internal", "layouts", "isa", "sim/datapath"},
	"sim/banks":    {"internal", "sim/banks"},
	"sim/trace":    {"internal", "sim/trace"},
	"sim":          {"internal", "layouts", "isa", "launch", "fixtures", "sim/datapath", "sim/banks", "sim/trace", "sim"},
	"gpu":          {"internal", "layouts", "isa", "launch", "fixtures", "gpu"},
	"capture":      {"internal", "layouts", "isa", "launch", "fixtures", "capture"},
	"input":        {"internal", "layouts", "isa", "input"},
	"render":       {"internal", "layouts", "isa", "launch", "fixtures", "sim/datapath", "sim/banks", "sim/trace", "sim", "render"},
	"tui":          {"internal", "layouts", "isa", "launch", "fixtures", "sim/datapath", "sim/banks", "sim/trace", "sim", "input", "render", "tui"},
	"cmd":          {"internal", "layouts", "isa", "launch", "fixtures", "sim/datapath", "sim/banks", "sim/trace", "sim", "input", "gpu", "capture", "render", "tui", "cmd"},
}

// Module is the module path; packages outside it are not in any group.
const Module = "github.com/tcsim/tcsim"

// Group returns the group of a package of the module ("sim/datapath" for
// github.com/tcsim/tcsim/sim/datapath, "isa" for .../isa/ptx), or "" for
// a package outside the module or in no group.
func Group(importPath string) string {
	rel, ok := strings.CutPrefix(importPath, Module+"/")
	if !ok {
		return ""
	}
	best := ""
	for g := range Allowed {
		if (rel == g || strings.HasPrefix(rel, g+"/")) && len(g) > len(best) {
			best = g
		}
	}
	return best
}
