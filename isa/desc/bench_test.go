package desc

import "testing"

// The baseline is decoding alone; the others are what the TUI's
// descriptor view redoes on every edit (render.BenchmarkDrawFootprint64x16
// draws the result). Compare them as ratios.

func BenchmarkDecodeWGMMA(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = DecodeWGMMA(0x4000004000010040 + uint64(i&0x3fff))
	}
}

func BenchmarkExplainSmem(b *testing.B) {
	ctx := Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 16}
	for i := 0; i < b.N; i++ {
		_ = ExplainSmem(0x4000004000010040, ArchUnknown, ctx)
	}
}

func BenchmarkFootprint128x64(b *testing.B) {
	l := DecodeWGMMA(0x4000004000010040).Layout()
	op := Operand{Major: MajorK, ElemBits: 16, MN: 128, K: 64}
	for i := 0; i < b.N; i++ {
		if _, err := Footprint(l, op); err != nil {
			b.Fatal(err)
		}
	}
}
