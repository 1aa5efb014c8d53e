package bitmath

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

func TestAnalyzeAccumulatorMatrix(t *testing.T) {
	m, err := Analyze(accMap(t, 256))
	if err != nil {
		t.Fatal(err)
	}
	// The seed's picture, bit by bit: lane bits 2-4 pick the row within
	// the warp's 8, the warp picks 16-row blocks, v1 adds 8 rows; v0 and
	// lane bits 0-1 pick the column within an 8-wide group, v2.. the group.
	want := map[string]string{
		"l0": "c1", "l1": "c2", "l2": "r0", "l3": "r1", "l4": "r2", "w0": "r4", "w1": "r5",
		"v0": "c0", "v1": "r3", "v2": "c3", "v3": "c4", "v4": "c5", "v5": "c6", "v6": "c7",
	}
	if m.NIn() != 14 || m.NOut() != 14 || m.Const != 0 {
		t.Fatalf("%d inputs, %d outputs, const %b", m.NIn(), m.NOut(), m.Const)
	}
	for j := range m.Cols {
		if got := m.bitSet(m.Cols[j]); got != want[m.InLabel(j)] {
			t.Errorf("input bit %s -> %s, want %s", m.InLabel(j), got, want[m.InLabel(j)])
		}
	}
	if r := m.Rank(); r != 14 {
		t.Errorf("rank %d, want 14", r)
	}
	if k := m.Invert().Kind; k != Bijective {
		t.Errorf("inverse kind %v", k)
	}
}

func TestAnalyzeAllAccumulators(t *testing.T) {
	for n := 8; n <= 256; n += 8 {
		m := accMap(t, n)
		mat, err := Analyze(m)
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		// Power-of-two N tiles are bijections; the others still map
		// one-to-one into the padded column range.
		inv := mat.Invert()
		if n&(n-1) == 0 && inv.Kind != Bijective {
			t.Errorf("N=%d: %v", n, inv.Kind)
		}
		if len(inv.Kernel) != 0 {
			t.Errorf("N=%d: kernel %v, want none", n, inv.Kernel)
		}
	}
}

func TestNonLinear(t *testing.T) {
	cases := []struct {
		m      Map
		reason string
		input  string
	}{
		{layoutMap(t, "carry", "(4,4):(1,3)", true), "overlap", "row=1, col=1"},
		{layoutMap(t, "carry1d", "(2,2):(3,1)", false), "overlap", "i=3"},
		// Rows that are not a power of two: idx % 6 mixes the bits.
		{tvMap(t, "rows6", "(8,3):(3,1)", 6, 4), "", ""},
		{layoutMap(t, "offset carry", "Sw<3,4,3> o 8 o (8,64):(64,1)", true), "overlap", ""},
	}
	for _, c := range cases {
		_, err := Analyze(c.m)
		var nl *NonLinearError
		if !errors.As(err, &nl) {
			t.Errorf("%s: want *NonLinearError, got %v", c.m.Name, err)
			continue
		}
		if !strings.Contains(nl.Reason, c.reason) || !strings.Contains(fmtTuple(nl.In, nl.Input), c.input) {
			t.Errorf("%s: %v", c.m.Name, err)
		}
		// The counterexample is real: the map and the prediction differ.
		if equalInts(nl.Want, nl.Predicted) {
			t.Errorf("%s: counterexample agrees: %v", c.m.Name, err)
		}
		if _, err := Derive(c.m); !errors.As(err, &nl) {
			t.Errorf("%s: Derive: %v", c.m.Name, err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKernelImageInverse(t *testing.T) {
	cases := []struct {
		m           Map
		kind        InverseKind
		kernel      []string
		constraints []string
	}{
		{accMap(t, 64), Bijective, nil, nil},
		{layoutMap(t, "bcast", "(8,2):(1,0)", true), RightInverse, []string{"c0"}, nil},
		{layoutMap(t, "gaps", "(4):(2)", false), LeftInverse, nil, []string{"o0"}},
		{layoutMap(t, "both", "(2,2,2):(4,0,1)", false), Generalized, []string{"i1"}, []string{"o1"}},
		// Warps 2 and 3 repeat warps 0 and 1: a broadcast over w1.
		{tvMap(t, "dup warps", "((32,2,2),4):((4,128,0),1)", 256, 1), RightInverse, []string{"w1"}, nil},
	}
	for _, c := range cases {
		mat, err := Analyze(c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Name, err)
		}
		inv := mat.Invert()
		if inv.Kind != c.kind {
			t.Errorf("%s: kind %v, want %v", c.m.Name, inv.Kind, c.kind)
		}
		var ks, cs []string
		for _, k := range inv.Kernel {
			ks = append(ks, mat.inSet(k))
		}
		for _, x := range inv.Constraints {
			cs = append(cs, mat.outSet(x))
		}
		if strings.Join(ks, ",") != strings.Join(c.kernel, ",") || strings.Join(cs, ",") != strings.Join(c.constraints, ",") {
			t.Errorf("%s: kernel %v constraints %v, want %v %v", c.m.Name, ks, cs, c.kernel, c.constraints)
		}
		checkInverseLaws(t, c.m.Name, mat, inv)
	}
}

// checkInverseLaws checks M·G·M = M on every basis vector (G is a
// generalized inverse), plus G·M = I when one-to-one and M·G = I when onto,
// and that kernel vectors map to zero.
func checkInverseLaws(t *testing.T, name string, m Matrix, inv Inverse) {
	t.Helper()
	lin := func(mm Matrix, x uint64) uint64 { return mm.Apply(x) ^ mm.Const }
	g := inv.M
	for j := range m.NIn() {
		x := uint64(1) << j
		if got := lin(m, lin(g, lin(m, x))); got != lin(m, x) {
			t.Errorf("%s: M·G·M ≠ M on input bit %s", name, m.InLabel(j))
		}
		if inv.Kind == Bijective || inv.Kind == LeftInverse {
			if got := lin(g, lin(m, x)); got != x {
				t.Errorf("%s: G·M ≠ I on input bit %s", name, m.InLabel(j))
			}
		}
	}
	if inv.Kind == Bijective || inv.Kind == RightInverse {
		for o := range m.NOut() {
			if got := lin(m, lin(g, 1<<o)); got != 1<<o {
				t.Errorf("%s: M·G ≠ I on output bit %s", name, m.OutLabel(o))
			}
		}
	}
	for _, k := range inv.Kernel {
		if lin(m, k) != 0 {
			t.Errorf("%s: kernel vector %s is not in the kernel", name, m.inSet(k))
		}
	}
	for _, c := range inv.Constraints {
		for j := range m.NIn() {
			if bits.OnesCount64(lin(m, 1<<j)&c)&1 != 0 {
				t.Errorf("%s: constraint %s fails on the image of %s", name, m.outSet(c), m.InLabel(j))
			}
		}
	}
}

// TestRandomLayouts builds random layouts with power-of-two extents and
// strides that are 0 or powers of two (some overlapping, some swizzled),
// and checks: Analyze agrees with brute-force linearity, the inverse laws
// hold, and Derive's programs reproduce the layout (Derive verifies them on
// every input and fails otherwise).
func TestRandomLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	linear, nonlinear := 0, 0
	for iter := 0; iter < 400; iter++ {
		rank := 1 + rng.IntN(4)
		var shape, stride []int
		for range rank {
			shape = append(shape, 1<<rng.IntN(4))
			s := 0
			if rng.IntN(6) > 0 {
				s = 1 << rng.IntN(8)
			}
			stride = append(stride, s)
		}
		l := layouts.MustMake(layouts.Ints(shape...), layouts.Ints(stride...))
		a := layouts.AnyLayout{L: l}
		if rng.IntN(3) == 0 {
			b, mm := 1+rng.IntN(3), rng.IntN(4)
			sw, err := layouts.NewSwizzle(b, mm, b+rng.IntN(3))
			if err != nil {
				t.Fatal(err)
			}
			a = layouts.AnyLayout{Composed: true, C: layouts.ComposedLayout{Swizzle: sw, Layout: l}}
		}
		m, err := FromLayout(a.String(), a, false)
		if err != nil {
			t.Fatal(err)
		}
		// Brute force: linear iff f(x) = f(0) ^ XOR of f(bit) for all x.
		n := m.Size()
		f := func(x int) int { out := []int{0}; m.F([]int{x}, out); return out[0] }
		want := true
		for x := 0; x < n; x++ {
			y := f(0)
			for b := 0; 1<<b < n; b++ {
				if x>>b&1 == 1 {
					y ^= f(1<<b) ^ f(0)
				}
			}
			if y != f(x) {
				want = false
				break
			}
		}
		mat, err := Analyze(m)
		if (err == nil) != want {
			t.Fatalf("%s: Analyze error %v, brute force linear=%v", a, err, want)
		}
		if err != nil {
			nonlinear++
			continue
		}
		linear++
		checkInverseLaws(t, a.String(), mat, mat.Invert())
		if _, err := Derive(m); err != nil {
			t.Fatalf("%s: Derive: %v", a, err)
		}
	}
	if linear < 100 || nonlinear < 20 {
		t.Errorf("sample too lopsided: %d linear, %d not", linear, nonlinear)
	}
}

func TestMapErrors(t *testing.T) {
	if _, err := FromLayout("neg", layouts.AnyLayout{L: layouts.MustParse("(4):(-1)")}, false); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative stride: %v", err)
	}
	if _, err := Analyze(Map{Name: "big", In: []Field{{"i", 1 << 25}}, Out: []Field{{"o", 1}}, F: func(in, out []int) {}}); err == nil {
		t.Error("oversized domain accepted")
	}
	// A map whose outputs leave their declared range.
	bad := Map{Name: "escape", In: []Field{{"i", 4}}, Out: []Field{{"offset", 2}}, F: func(in, out []int) { out[0] = in[0] }}
	if _, err := Analyze(bad); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("escaping output: %v", err)
	}
}

func TestMatrixString(t *testing.T) {
	mat, err := Analyze(layoutMap(t, "sw", "Sw<3,3,3> o 0 o (8,64):(64,1)", true))
	if err != nil {
		t.Fatal(err)
	}
	s := mat.String()
	// Offset bit 3 is col bit 3 XOR row bit 0.
	for _, want := range []string{"row", "col", "r0 r1 r2 c0", "o3   1  .  .  .  .  .  1"} {
		if !strings.Contains(s, want) {
			t.Errorf("matrix lacks %q:\n%s", want, s)
		}
	}
}
