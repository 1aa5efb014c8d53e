package sfu

import (
	"bytes"
	"testing"
)

func TestDumpRoundTrip(t *testing.T) {
	var file bytes.Buffer
	var want [][]uint64
	for _, d := range []Dataset{
		{Op: "ex2.approx.ftz.f32", Gen: "range", Base: 0x3F800000, Count: 5000},
		{Op: "tanh.approx.f16", Gen: "range", Count: 1 << 16},
		{Op: "div.full.f32", Gen: "pairs", Count: 3000, Seed: 7},
		{Op: "div.full.f32", Gen: "edge", Count: 3000},
		{Op: "rcp.approx.ftz.f64", Gen: "sample", Base: 0x3FF0000000000000, Span: 1 << 53, Count: 1000, Seed: 9},
	} {
		a, b, err := d.Inputs()
		if err != nil {
			t.Fatal(err)
		}
		f := MustLookup(d.Op)
		out := make([]uint64, len(a))
		for i := range a {
			var bb uint64
			if b != nil {
				bb = b[i]
			}
			out[i] = f.Eval(a[i], bb) + uint64(Mix64(uint64(i))%3) - 1 // off by up to one
			mask, _ := widthMask(f)
			out[i] &= mask
		}
		m, err := EncodeDump(d, a, b, out)
		if err != nil {
			t.Fatal(err)
		}
		file.Write(m)
		want = append(want, out)
	}
	f := MustLookup("div.full.f32")
	x, y, _ := (&Dataset{Op: f.Op, Gen: "pairs", Count: 100, Seed: 3}).Inputs()
	m, err := EncodeExplicit(f, x, y, x)
	if err != nil {
		t.Fatal(err)
	}
	file.Write(m)
	want = append(want, x)
	ds, err := ReadDumps(&file)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(want) {
		t.Fatalf("%d datasets back, want %d", len(ds), len(want))
	}
	for k, d := range ds {
		for i := range want[k] {
			if d.Out[i] != want[k][i] {
				t.Fatalf("dataset %d (%s %s) result %d: %#x, want %#x", k, d.Op, d.Gen, i, d.Out[i], want[k][i])
			}
		}
	}
	if ds[5].B[7] != y[7] || ds[5].A[7] != x[7] {
		t.Errorf("explicit operands not kept")
	}
}

// TestHalfCodec: the 16-bit forms widen their operands and round their
// float64 references through isa/numfmt; every f16 and bf16 pattern widens
// to the f32 that rounds back to it (NaNs to a NaN, which rounds to the
// canonical 0x7FFF).
func TestHalfCodec(t *testing.T) {
	for _, bf := range []bool{false, true} {
		for h := range 1 << 16 {
			w := halfToF32(uint16(h), bf)
			back := f32ToHalf(w, bf)
			nan := isNaN32(w)
			if isHalfNaN := h&0x7FFF > map[bool]int{false: 0x7C00, true: 0x7F80}[bf]; isHalfNaN != nan {
				t.Fatalf("bf16=%v %#04x widens to %#08x: NaN %v", bf, h, w, nan)
			}
			if !nan && back != uint16(h) || nan && back != nan16 {
				t.Fatalf("bf16=%v %#04x widens to %#08x, which rounds back to %#04x", bf, h, w, back)
			}
		}
	}
}
