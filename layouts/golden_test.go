package layouts_test

import (
	"bufio"
	"errors"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/expr"
)

// cuteConditions maps the static_assert messages CuTe stops with to the
// ConditionError.Condition tcsim reports for the same input.
var cuteConditions = map[string]string{
	"Stride Divisibility Condition":                                layouts.CondStrideDivisibility,
	"Shape Divisibility Condition":                                 layouts.CondShapeDivisibility,
	"Non-injective Layout detected in complement.":                 layouts.CondNonInjective,
	"Left inverse divisibility condition":                          layouts.CondLeftInverse,
	"abs(SShift) must be more than BBits.":                         layouts.CondSwizzle,
	"Number of bits in Y and Z don't match":                        layouts.CondSwizzle,
	"Something went wrong.":                                        layouts.CondSwizzle,
	"MBase must be positive.":                                      layouts.CondSwizzle,
	"Require offset == 0.":                                         layouts.CondOffset,
	"tile_to_shape: block shape does not divide the target shape.": layouts.CondDivisibility,
	"Rank of layout must be <= rank of target shape.":              layouts.CondRank,
	"Mismatched ranks":                                             layouts.CondRank,
	"Mismatched Ranks":                                             layouts.CondRank,
	"Divisibility condition":                                       layouts.CondDivisibility,
	"Downcast requires adjacent elements":                          layouts.CondAdjacent,
	"Static safe_div requires t % u == 0":                          layouts.CondDivisibility,
}

// TestCuTeOracle replays testdata/cute_oracle.txt: expressions evaluated by
// CuTe itself (C++ headers, static integers; see testdata/README.md) and
// CuTe's answers. tcsim must print the same layout, or reject the same
// inputs, naming the same condition where CuTe's message names one.
func TestCuTeOracle(t *testing.T) {
	if total := replayOracle(t, "testdata/cute_oracle.txt"); total < 1000 {
		t.Errorf("only %d oracle cases; the file is truncated", total)
	}
}

// TestCuTeRecastOracle replays testdata/cute_recast_oracle.txt, CuTe's
// answers for upcast, downcast and recast_layout (same method).
func TestCuTeRecastOracle(t *testing.T) {
	if total := replayOracle(t, "testdata/cute_recast_oracle.txt"); total < 40 {
		t.Errorf("only %d oracle cases; the file is truncated", total)
	}
}

// replayOracle checks every case of an oracle file and returns how many
// there were.
func replayOracle(t *testing.T, name string) int {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perOp := map[string]int{}
	bad := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		src, want, ok := strings.Cut(text, "\t")
		if !ok {
			t.Fatalf("%s:%d: no tab", name, line)
		}
		op := src
		if i := strings.IndexAny(src, "(<"); i > 0 {
			op = src[:i]
		}
		if strings.HasPrefix(src, "Sw<") {
			op = "swizzled layout"
		}
		perOp[op]++
		got, err := expr.Eval(src)
		fail := func(format string, args ...any) {
			bad++
			if bad <= 20 {
				t.Errorf("%s:%d: %s\n\t"+format, append([]any{name, line, src}, args...)...)
			}
		}
		if msgs, isErr := strings.CutPrefix(want, "error: "); isErr {
			if err == nil {
				fail("CuTe rejects it (%s); tcsim gives %v", msgs, got)
				continue
			}
			// g++ reports every failed static_assert of the call (and
			// follow-on errors, which are not mapped); when several modes
			// break different conditions, tcsim names one of them.
			conds := map[string]bool{}
			for _, msg := range strings.Split(msgs, " | ") {
				cond, known := cuteConditions[msg]
				if strings.Contains(msg, "incomplete type") && strings.Contains(msg, "tuple_size") {
					// CuTe asked for the modes of an integer: a rank mismatch.
					cond, known = layouts.CondRank, true
				}
				if known {
					conds[cond] = true
				}
			}
			if len(conds) == 0 {
				fail("none of CuTe's messages (%s) is mapped to a tcsim condition", msgs)
				continue
			}
			var ce *layouts.ConditionError
			if !errors.As(err, &ce) || !conds[ce.Condition] {
				fail("CuTe: %s; tcsim: %v", msgs, err)
			}
			continue
		}
		if err != nil {
			fail("CuTe gives %s; tcsim: %v", want, err)
			continue
		}
		if got.String() != want {
			fail("CuTe gives %s; tcsim gives %s", want, got)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	total := 0
	ops := make([]string, 0, len(perOp))
	for op, n := range perOp {
		ops = append(ops, op)
		total += n
	}
	sort.Strings(ops)
	for _, op := range ops {
		t.Logf("%-18s %5d cases", op, perOp[op])
	}
	t.Logf("%d cases, %d mismatches", total, bad)
	return total
}
