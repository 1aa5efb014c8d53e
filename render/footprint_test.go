package render

import (
	"io"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
)

// TestFootprintGolden checks `tcsim desc --draw`'s text: a descriptor's
// explanation followed by its footprint picture.
func TestFootprintGolden(t *testing.T) {
	kbf := desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 64, TileK: 16}
	for _, c := range []struct {
		name string
		v    uint64
		arch desc.Arch
		ctx  desc.Context
	}{
		{"wgmma_sw128_kmajor", 0x4000004000010040, desc.ArchUnknown, kbf},
		{"wgmma_none_kmajor", 0x0000001000080000, desc.SM90, kbf},
		{"wgmma_base_offset", 0x4002004000010048, desc.SM90, desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 8, TileK: 16}},
		{"tcgen05_mn_sw128", 0x4000408000400040, desc.SM100, desc.Context{Major: desc.MajorMN, DType: "bf16", TileMN: 128, TileK: 16}},
		{"tcgen05_mn_sw128_32a_tf32", 0x2000402000400040, desc.SM100, desc.Context{Major: desc.MajorMN, DType: "tf32", TileMN: 64, TileK: 8}},
		{"tcgen05_mn_sw128_32a_overlap", 0x2000402000200040, desc.SM100, desc.Context{Major: desc.MajorMN, DType: "tf32", TileMN: 64, TileK: 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := desc.ExplainSmem(c.v, c.arch, c.ctx)
			var b strings.Builder
			b.WriteString(r.String())
			fr, err := r.WithFootprint()
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n")
			if err := DrawFootprint(&b, fr.Footprint, fr.Operand, FootprintOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, "footprint/"+c.name+".golden", []byte(b.String()))
		})
	}
}

func TestDrawFootprintANSI(t *testing.T) {
	r, err := desc.ExplainSmem(0x4000004000010040, desc.SM90, desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 8, TileK: 16}).WithFootprint()
	if err != nil {
		t.Fatal(err)
	}
	var plain, ansi strings.Builder
	DrawFootprint(&plain, r.Footprint, r.Operand, FootprintOptions{})
	DrawFootprint(&ansi, r.Footprint, r.Operand, FootprintOptions{ANSI: true})
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("plain picture has escape codes")
	}
	if n := strings.Count(ansi.String(), "\x1b[30;48;5;"); n != 16 {
		t.Errorf("ANSI picture colours %d cells, want 16 (2 core matrices x 8 rows)", n)
	}
	// Core 0 and core 1 get different colours.
	if !strings.Contains(ansi.String(), "48;5;217m0.0") || !strings.Contains(ansi.String(), "48;5;159m1.0") {
		t.Errorf("core colours missing:\n%q", ansi.String())
	}
}

// FuzzDrawFootprint draws the footprint of any descriptor under any
// context that has one (the inputs of desc.FuzzSmemDescriptor), as text
// and as both grids.
func FuzzDrawFootprint(f *testing.F) {
	for _, v := range []uint64{0, 0x4000004000010040, 0x4000404000010040, 0x0000001000080000, 0x2000402000400040,
		0xffffffffffffffff, 0x6000004000010040, 0x40003c0000010040, 0x4000004000010048} {
		f.Add(v, uint8(0), uint8(0), uint8(0), uint16(0))
		f.Add(v, uint8(1), uint8(1), uint8(3), uint16(64<<8|16))
	}
	f.Fuzz(func(t *testing.T, v uint64, arch, major, dt uint8, tile uint16) {
		ctx := desc.Context{Major: desc.Major(major % 3), Swizzle: desc.Swizzle(dt / 8 % 6), TileMN: int(tile>>8) * 8, TileK: int(tile & 0xff)}
		ctx.DType = []string{"", "bf16", "tf32", "e4m3", "e2m1", "s8"}[int(dt)%6]
		fr, err := desc.ExplainSmem(v, desc.Arch(arch%3), ctx).WithFootprint()
		if err != nil {
			return
		}
		var b strings.Builder
		if err := DrawFootprint(&b, fr.Footprint, fr.Operand, FootprintOptions{MaxLines: 64}); err != nil {
			t.Fatal(err)
		}
		if _, err := FootprintTileGrid(fr.Footprint, fr.Operand); err != nil {
			t.Fatal(err)
		}
		if _, err := FootprintMemoryGrid(fr.Footprint); err != nil && !strings.Contains(err.Error(), "too many to draw") {
			t.Fatal(err)
		}
	})
}

func BenchmarkDrawFootprint64x16(b *testing.B) {
	r, err := desc.ExplainSmem(0x4000004000010040, desc.SM90, desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 64, TileK: 16}).WithFootprint()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if err := DrawFootprint(io.Discard, r.Footprint, r.Operand, FootprintOptions{ANSI: true}); err != nil {
			b.Fatal(err)
		}
	}
}
