package ptx

// Module-level checks: the header directives and their targets, .loc
// file indices and debug sections.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// targetMinVersion is the first PTX ISA version (10*major+minor) that
// supports each target (from the PTX ISA's target table; ptxas 13.0 agrees
// for the ones the tests use).
var targetMinVersion = map[string]int{
	"sm_50": 40, "sm_52": 41, "sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50,
	"sm_70": 60, "sm_72": 61, "sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_89": 78,
	"sm_90": 78, "sm_90a": 80, "sm_100": 86, "sm_100a": 86, "sm_100f": 88, "sm_101": 86, "sm_101a": 86,
	"sm_101f": 88, "sm_103": 88, "sm_103a": 88, "sm_103f": 88, "sm_110": 90, "sm_110a": 90, "sm_110f": 90,
	"sm_120": 87, "sm_120a": 87, "sm_120f": 88, "sm_121": 88, "sm_121a": 88, "sm_121f": 88,
}

var targetRE = regexp.MustCompile(`^sm_([0-9]+)([af]?)$`)

// knownTargets lists the architecture targets in order.
func knownTargets() []string {
	ts := make([]string, 0, len(targetMinVersion))
	for t := range targetMinVersion {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		a, b := targetRE.FindStringSubmatch(ts[i]), targetRE.FindStringSubmatch(ts[j])
		na, _ := strconv.Atoi(a[1])
		nb, _ := strconv.Atoi(b[1])
		if na != nb {
			return na < nb
		}
		return a[2] < b[2]
	})
	return ts
}

// targetHint suggests the known targets nearest to t.
func targetHint(t string) string {
	if near := suggest.Closest(t, knownTargets(), 3, 2); len(near) > 0 {
		return "did you mean " + strings.Join(near, " or ") + "? tcsim knows " + knownRange()
	}
	return "tcsim knows " + knownRange()
}

func knownRange() string {
	ts := knownTargets()
	return ts[0] + " to " + ts[len(ts)-1] + " (sm_90a for Hopper wgmma, sm_100a for Blackwell tcgen05)"
}

func (c *checker) checkHeader() {
	var ver *VersionDirective
	var tgt *TargetDirective
	seenOther := false
	for _, d := range c.m.Decls {
		switch d := d.(type) {
		case *VersionDirective:
			if ver != nil {
				c.errorf(d.Pos, "", "duplicate .version directive")
				continue
			}
			ver = d
			if seenOther || tgt != nil {
				c.errorf(d.Pos, "", ".version must be the first directive of the module")
			}
			if d.Major < 1 || d.Major > 9 {
				c.errorf(d.Pos, "nvcc 12.x emits .version 8.x, nvcc 13 emits 9.x", "unknown PTX version %d.%d", d.Major, d.Minor)
			}
			c.version = d.Major*10 + d.Minor
		case *TargetDirective:
			if tgt != nil {
				c.errorf(d.Pos, "", "duplicate .target directive")
				continue
			}
			tgt = d
			for _, t := range d.Targets {
				if mm := targetRE.FindStringSubmatch(t); mm != nil {
					if _, known := targetMinVersion[t]; !known {
						c.errorf(d.Pos, targetHint(t), "unknown target %s", t)
						continue
					}
					if c.arch.name != "" {
						c.errorf(d.Pos, "", ".target names two architectures (%s and %s)", c.arch.name, t)
						continue
					}
					n, _ := strconv.Atoi(mm[1])
					c.arch = archInfo{name: t, sm: n}
					if mm[2] != "" {
						c.arch.suffix = mm[2][0]
					}
					continue
				}
				switch t {
				case "debug", "texmode_unified", "texmode_independent", "map_f64_to_f32":
				default:
					c.errorf(d.Pos, "targets look like sm_90a, sm_100a, or debug", "unknown target %q", t)
				}
			}
		case *AddressSizeDirective:
			if d.Size != 32 && d.Size != 64 {
				c.errorf(d.Pos, "", ".address_size must be 32 or 64, not %d", d.Size)
			}
		case *FileDirective, *Section, *Pragma:
		default:
			seenOther = true
		}
	}
	if ver != nil && c.arch.name != "" {
		if need, ok := targetMinVersion[c.arch.name]; ok && c.version < need {
			c.errorf(ver.Pos, fmt.Sprintf("%s needs .version %d.%d or later", c.arch.name, need/10, need%10), "PTX .version %d.%d does not support .target %s", ver.Major, ver.Minor, c.arch.name)
		}
	}
	if len(c.m.Decls) == 0 {
		c.errorf(Pos{1, 1}, "nvcc -ptx leaves an empty file when compilation fails", "no PTX in the file: it is empty or holds only comments")
		return
	}
	if ver == nil {
		c.errorf(c.m.Decls[0].Position(), "start the module with e.g. .version 8.7", "missing .version directive")
	}
	if tgt == nil {
		c.errorf(c.m.Decls[0].Position(), "e.g. .target sm_90a", "missing .target directive")
	}
	if len(c.m.Functions()) == 0 && !c.m.Truncated {
		last := c.m.Decls[len(c.m.Decls)-1].Position()
		c.errorf(last, "PTX from nvcc -ptx has at least one .entry; did compilation stop early?", "the module declares no function (.entry or .func): nothing to check or run")
	}
}

// cutFunction reports whether the function being checked is the one a
// truncated file ends in: its labels and functions defined further down
// are missing, so undefined names are not reported.
func (c *checker) cutFunction() bool {
	if !c.m.Truncated || c.fn == nil {
		return false
	}
	fs := c.m.Functions()
	return len(fs) > 0 && fs[len(fs)-1] == c.fn
}

// checkLoc reports a .loc whose file index no .file declares: once per
// index, or once in all when the module has no .file at all (a file cut
// before the .file directives that nvcc writes at its end), with the
// number of other .loc lines concerned.
func (c *checker) checkLoc(d *Loc) {
	if c.files[d.File] || c.m.Truncated {
		return
	}
	key := d.File
	if len(c.files) == 0 {
		key = -1
	}
	if c.badLoc == nil {
		c.badLoc = map[int]*Error{}
	}
	if c.badLoc[key] != nil {
		c.badLocMore[key]++
		return
	}
	if key == -1 {
		c.errorf(d.Pos, "nvcc writes the .file directives at the end of the module: is the file cut short?", ".loc refers to file %d, which no .file directive declares (the module has none)", d.File)
	} else {
		c.errorf(d.Pos, "declare it with .file", ".loc refers to file %d, which no .file directive declares", d.File)
	}
	c.badLoc[key] = c.errs[len(c.errs)-1]
}

// finishLocs adds to each undeclared-file .loc error how many other .loc
// lines it stands for.
func (c *checker) finishLocs() {
	for _, key := range sortedKeys(c.badLoc) {
		if n := c.badLocMore[key]; n > 0 {
			c.badLoc[key].Msg += fmt.Sprintf(" (so do %d later .loc lines)", n)
		}
	}
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func (c *checker) checkSection(s *Section) {
	for _, it := range s.Items {
		if dd, ok := it.(*DataDirective); ok {
			switch dd.Type {
			case B8, B16, B32, B64:
			default:
				c.errorf(dd.Pos, "", "section data must be .b8, .b16, .b32 or .b64, not .%s", dd.Type)
			}
		}
	}
}
