package layouts

import (
	"errors"
	"testing"
)

func TestParsePrintRoundTrip(t *testing.T) {
	for _, src := range []string{
		"8:1", "(4,2):(1,4)", "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))",
		"(8,64):(64,1)", "():()", "((2,2),(3,(4,5))):((1,2),(0,(6,-24)))", "(4):(2)",
	} {
		l, err := ParseLayout(src)
		if err != nil {
			t.Fatalf("ParseLayout(%q): %v", src, err)
		}
		if got := l.String(); got != src {
			t.Errorf("ParseLayout(%q).String() = %q", src, got)
		}
	}
	a, err := ParseAnyLayout("Sw<3,4,3> o 0 o (8,64):(64,1)")
	if err != nil || a.String() != "Sw<3,4,3> o 0 o (8,64):(64,1)" {
		t.Errorf("composed: %v %v", a, err)
	}
	a, err = ParseAnyLayout("Sw<2,4,3> o (8,32):(32,1)")
	if err != nil || a.String() != "Sw<2,4,3> o 0 o (8,32):(32,1)" {
		t.Errorf("composed without offset: %v %v", a, err)
	}
	l, err := ParseLayout("(_4,_8):(_1,_4)")
	if err != nil || l.String() != "(4,8):(1,4)" {
		t.Errorf("static ints: %v %v", l, err)
	}
	if l, err := ParseLayout("(4,(2,3))"); err != nil || l.String() != "(4,(2,3)):(1,(4,8))" {
		t.Errorf("shape only: %v %v", l, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src string
		col int
	}{
		{"(4,2):(1,4", 7},
		{"(4,2):(1,(4,2))", 7},
		{"(4,,2):(1,2)", 4},
		{"(4,2):(1,4) x", 13},
		{"Sw<3,4,2> o 8:1", 1},
		{"(4x2)", 3},
		{"", 1},
		{"(-4):(1)", 1},
	} {
		_, err := ParseAnyLayout(c.src)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: want *ParseError, got %v", c.src, err)
			continue
		}
		if pe.Col != c.col {
			t.Errorf("%q: col %d, want %d (%v)", c.src, pe.Col, c.col, err)
		}
	}
}

// The wgmma f32 accumulator from the issue, checked against the seed's
// bitmath for every thread and value.
func TestAccumulatorMatchesSeedBitmath(t *testing.T) {
	for n := 8; n <= 256; n += 8 {
		l := MustMake(Tuple(Ints(4, 8, 4), Ints(2, 2, n/8)), Tuple(Ints(128, 1, 16), Ints(64, 8, 512)))
		tv, err := NewTV(l, 64, n)
		if err != nil {
			t.Fatal(err)
		}
		for tid := 0; tid < 128; tid++ {
			wid, lane := tid>>5, tid&31
			fr, fc := (wid<<4)+(lane>>2), (lane&3)<<1
			for v := 0; v < n/2; v++ {
				g, i := v/4, v%4
				wr, wc := fr+8*(i>>1), fc+8*g+(i&1)
				if r, c := tv.Coord(tid, v); r != wr || c != wc {
					t.Fatalf("N=%d tid %d v %d: (%d,%d) want (%d,%d)", n, tid, v, r, c, wr, wc)
				}
			}
		}
		if e, s := tv.Coverage(); e != 0 || s != 0 {
			t.Errorf("N=%d: %d empty, %d shared cells", n, e, s)
		}
	}
}

func TestCrd2IdxIdx2Crd(t *testing.T) {
	l := MustParse("((2,3),(4,5)):((1,2),(6,24))")
	for i := 0; i < l.Size(); i++ {
		c := Idx2Crd(i, l.Shape)
		got, err := l.Crd2Idx(c)
		if err != nil || got != l.Eval(i) {
			t.Fatalf("i=%d crd %v: %d, %v; want %d", i, c, got, err, l.Eval(i))
		}
	}
	// The last mode is not reduced (CuTe's crd2idx with an integral coordinate).
	if got := MustParse("(4,2):(1,4)").Eval(9); got != 9 {
		t.Errorf("(4,2):(1,4)(9) = %d, want 9", got)
	}
	// As CuTe's idx2crd(idx, shape): the last mode is not reduced either.
	if got := Idx2Crd(9, Ints(4, 2)).String(); got != "(1,2)" {
		t.Errorf("idx2crd(9,(4,2)) = %s, want (1,2)", got)
	}
	if _, err := l.Crd2Idx(Ints(1, 2, 3)); err == nil {
		t.Error("rank-3 coordinate into rank-2 shape: want error")
	}
}

func TestSwizzle(t *testing.T) {
	sw := Swizzle{3, 4, 3}
	// 128B swizzle: 16-byte chunk index (bits 4..6) ^= row index bits 7..9.
	for off := 0; off < 1024; off++ {
		want := off ^ (((off >> 7) & 7) << 4)
		if got := sw.Apply(off); got != want {
			t.Fatalf("Sw<3,4,3>(%d)=%d want %d", off, got, want)
		}
		if sw.Apply(sw.Apply(off)) != off {
			t.Fatalf("swizzle is not an involution at %d", off)
		}
	}
	if _, err := NewSwizzle(3, 4, 2); err == nil {
		t.Error("Sw<3,4,2>: want error (|S| < B)")
	}
	if got := (Swizzle{2, 0, -3}).Apply(0b11); got != 0b11011 {
		t.Errorf("negative shift: %b", got)
	}
}

func TestSizeCosizeRankDepth(t *testing.T) {
	l := MustParse("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))")
	if l.Size() != 4096 || l.Cosize() != 4096 || l.Rank() != 2 || l.Depth() != 2 {
		t.Errorf("size %d cosize %d rank %d depth %d", l.Size(), l.Cosize(), l.Rank(), l.Depth())
	}
	if d := Int(3).Depth(); d != 0 {
		t.Errorf("depth of leaf = %d", d)
	}
	if d := (IntTuple{}).Depth(); d != 1 {
		t.Errorf("depth of () = %d", d)
	}
}
