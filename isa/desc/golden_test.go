package desc

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", path, got)
	}
}

func TestGoldenExplanations(t *testing.T) {
	kbf := Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 16}
	smem := []struct {
		name string
		v    uint64
		arch Arch
		ctx  Context
		draw bool
	}{
		{"wgmma_sw128_kmajor", 0x4000004000010040, ArchUnknown, kbf, true},
		{"wgmma_none_kmajor", 0x0000001000080000, SM90, kbf, true},
		{"wgmma_base_offset", 0x4002004000010048, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 8, TileK: 16}, true},
		{"wgmma_sbo_bytes", 0x4000040000010040, SM90, Context{Major: MajorK, DType: "bf16"}, false},
		{"wgmma_no_context", 0x4000004000010040, ArchUnknown, Context{}, false},
		{"tcgen05_sw128_kmajor", 0x4000404000010040, ArchUnknown, Context{Major: MajorK, DType: "bf16", TileMN: 128, TileK: 16}, false},
		{"tcgen05_missing_version", 0x4000004000010040, SM100, Context{Major: MajorK, Swizzle: Swizzle128B}, false},
		{"tcgen05_sm90_code", 0x2000404000010040, SM100, Context{Major: MajorK, Swizzle: Swizzle128B}, false},
		{"tcgen05_mn_sw128", 0x4000408000400040, SM100, Context{Major: MajorMN, DType: "bf16", TileMN: 128, TileK: 16}, true},
		{"tcgen05_mn_sw128_32a_tf32", 0x2000402000400040, SM100, Context{Major: MajorMN, DType: "tf32", TileMN: 64, TileK: 8}, true},
		{"tcgen05_mn_sw128_32a_overlap", 0x2000402000200040, SM100, Context{Major: MajorMN, DType: "tf32", TileMN: 64, TileK: 8}, true},
	}
	for _, c := range smem {
		t.Run(c.name, func(t *testing.T) {
			r := ExplainSmem(c.v, c.arch, c.ctx)
			var b strings.Builder
			b.WriteString(r.String())
			if c.draw {
				fr, err := r.WithFootprint()
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("\n")
				if err := DrawFootprint(&b, fr.Footprint, fr.Operand, DrawOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			golden(t, c.name, b.String())
		})
	}
	idescs := []struct {
		name string
		v    uint32
		k    Kind
		ctx  IDescContext
	}{
		{"idesc_f16_bf16_128x256", 0x08400490, KindF16, IDescContext{}},
		{"idesc_mxf4nvf4_128x256", 0x08400480, KindMXF4NVF4, IDescContext{CTAGroup: 1}},
		{"idesc_i8_errors", 0x0261e488, KindI8, IDescContext{CTAGroup: 1}},
		{"idesc_mxf8f6f4_m64", 0x04408000 | 1<<23, KindMXF8F6F4, IDescContext{}},
	}
	for _, c := range idescs {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, ExplainIDesc(c.v, c.k, c.ctx).String())
		})
	}
}

func TestDrawANSI(t *testing.T) {
	r, err := ExplainSmem(0x4000004000010040, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 8, TileK: 16}).WithFootprint()
	if err != nil {
		t.Fatal(err)
	}
	var plain, ansi strings.Builder
	DrawFootprint(&plain, r.Footprint, r.Operand, DrawOptions{})
	DrawFootprint(&ansi, r.Footprint, r.Operand, DrawOptions{ANSI: true})
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
