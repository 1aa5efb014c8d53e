package bitmath

import (
	"errors"
	"strings"
	"testing"
)

const seedFormula = "row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"

func TestCheckSeedEveryN(t *testing.T) {
	for n := 8; n <= 256; n += 8 {
		r, err := Check(accMap(t, n), seedFormula, false)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() || r.Checked != 128*n/2 {
			t.Errorf("N=%d: %s", n, r)
		}
	}
}

func TestCheckForward(t *testing.T) {
	m := accMap(t, 64)
	cases := []struct {
		src   string
		ok    bool
		first string // fmtTuple of the first wrong input
		want  string // substring of the report
	}{
		{seedFormula, true, "", "correct (128 threads × 32 values checked)"},
		// The seed written with tid and reg, in several statements, as C.
		{"unsigned w = tid / 32; unsigned l = tid % 32\nrow = 16*w + l/4 + 8*((reg>>1)&1)\ncol := 2*(l%4) + 8*(r>>2) + (r&1)", true, "", "correct"},
		// Column groups 4 wide instead of 8.
		{"row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 4*(v>>2) + (v&1)", false, "tid=0, v=4",
			"the layout gives (row, col) = (0, 8), your formula (row, col) = (0, 4)"},
		// Rows of the second half forgotten.
		{"row = (wid<<4) + (lane>>2); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)", false, "tid=0, v=2", "2048 of the 4096 (tid, v) differ"},
	}
	for _, c := range cases {
		r, err := Check(m, c.src, false)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if r.OK() != c.ok || !strings.Contains(r.String(), c.want) {
			t.Errorf("%q:\n%s", c.src, r)
		}
		if !c.ok && fmtTuple(m.In, r.First.At) != c.first {
			t.Errorf("%q: first wrong at %s, want %s", c.src, fmtTuple(m.In, r.First.At), c.first)
		}
	}
}

func TestCheckHints(t *testing.T) {
	m := accMap(t, 64)
	// Lane bits 0-1 are swapped with lane bits 2-3's role: a classic
	// transposition bug. The hint names the bits that go astray.
	r, err := Check(m, "row = (wid<<4) + (lane&7); col = ((lane>>3)<<1) + 8*(v>>2) + (v&1) + 0*r", false)
	if err != nil {
		t.Fatal(err)
	}
	s := r.String()
	for _, want := range []string{"hint: input bit l0 (lane bit 0), at tid=1, v=0: the layout gives (row, col) = (0, 2), your formula (row, col) = (1, 0)", "hint: input bit v1"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	// Every single bit right, but two terms overlap and carry.
	r, err = Check(m, "row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1) + ((lane&1)&(v&1))", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || !strings.Contains(r.String(), "how the terms combine") {
		t.Errorf("carry report:\n%s", r)
	}
}

func TestCheckInverse(t *testing.T) {
	m := accMap(t, 64)
	for _, src := range []string{
		"wid = row >> 4; lane = ((row & 7) << 2) + ((col >> 1) & 3); v = ((col >> 3) << 2) + ((row & 8) >> 2) + (col & 1)",
		"tid = 32*(row/16) + 4*(row%8) + (col%8)/2; reg = 4*(col/8) + 2*((row/8)%2) + col%2",
	} {
		r, err := Check(m, src, true)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() || !strings.Contains(r.String(), "correct (64 rows × 64 columns checked)") {
			t.Errorf("%q:\n%s", src, r)
		}
	}
	r, err := Check(m, "tid = 32*(row/16) + 4*(row%8) + (col%8)/2; v = 4*(col/8) + (col%2)", true)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || !strings.Contains(r.String(), "(row, col) = (8, 0) is held by (tid, v) = (0, 2)") {
		t.Errorf("wrong inverse:\n%s", r)
	}
	// Broadcast: any owner is accepted, and cells nobody holds are skipped.
	b := layoutMap(t, "bcast", "(8,2):(1,0)", true)
	for _, src := range []string{"row = offset; col = 0", "row = offset; col = 1"} {
		if r, err := Check(b, src, true); err != nil || !r.OK() {
			t.Errorf("%q: %v %v", src, r, err)
		}
	}
	g := layoutMap(t, "gaps", "(4):(2)", false)
	r, err = Check(g, "i = offset / 2", true)
	if err != nil || !r.OK() || r.Skipped != 3 || !strings.Contains(r.String(), "the other 3 have no owner") {
		t.Errorf("gaps: %v %v", r, err)
	}
	r, err = Check(g, "i = offset / 2 + 1", true)
	if err != nil || r.OK() || !strings.Contains(r.String(), "offset = 0 is held by i = 0, your formula gives i = 1, which holds offset = 2") {
		t.Errorf("wrong owner: %v %v", r, err)
	}
	r, err = Check(g, "i = offset + 4", true)
	if err != nil || r.OK() || !strings.Contains(r.String(), "your formula gives i = 4, outside the domain") {
		t.Errorf("out of domain: %v %v", r, err)
	}
}

func TestCheckMalformed(t *testing.T) {
	m := accMap(t, 64)
	cases := []struct {
		src, msg string
		col      int
	}{
		{"row = (wid<<4) + (lane>>2)", "must assign row and col", 27},
		{"row = lanee; col = 0", `unknown name "lanee"`, 7},
		{"row = 1; col = 1 / 0", "division by zero", 18},
		{"row = 1; col = (", "expected a number", 17},
	}
	for _, c := range cases {
		_, err := Check(m, c.src, false)
		var fe *FormulaError
		if !errors.As(err, &fe) || !strings.Contains(fe.Msg, c.msg) || fe.Col != c.col {
			t.Errorf("%q: %v (col %v)", c.src, err, fe)
		}
	}
	// A runtime division by zero is a wrong formula with a position.
	r, err := Check(m, "row = lane / (tid - 5); col = 0", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.EvalErr == nil || r.EvalErr.Col != 12 || !strings.Contains(r.String(), "at tid=5, v=0") {
		t.Errorf("runtime division by zero: %v", r)
	}
	// Inverse formulas use row and col, not tid.
	if _, err := Check(m, "tid = tid; v = 0", true); err == nil {
		t.Error("inverse formula reading tid accepted")
	}
}

// FuzzCheck: checking arbitrary text never panics and either reports a
// FormulaError or a result.
func FuzzCheck(f *testing.F) {
	f.Add(seedFormula, false)
	f.Add("tid = row; v = col / 0", true)
	f.Add("row = 1 << (v - 3); col = tid % (v - 1)", false)
	f.Add("row = ~tid; col = -v", false)
	m := tvMap(f, "m16n8", "((4,8),(2,2)):((32,1),(16,8))", 16, 8)
	f.Fuzz(func(t *testing.T, src string, inverse bool) {
		r, err := Check(m, src, inverse)
		if err != nil {
			var fe *FormulaError
			if !errors.As(err, &fe) {
				t.Fatalf("error is %T: %v", err, err)
			}
			return
		}
		_ = r.String()
		if r.OK() != (r.Wrong == 0 && r.EvalErr == nil) {
			t.Fatalf("inconsistent result %+v", r)
		}
	})
}
