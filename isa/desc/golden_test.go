package desc

import (
	"flag"
	"os"
	"path/filepath"
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
	smem := []struct {
		name string
		v    uint64
		arch Arch
		ctx  Context
	}{
		{"wgmma_sbo_bytes", 0x4000040000010040, SM90, Context{Major: MajorK, DType: "bf16"}},
		{"wgmma_no_context", 0x4000004000010040, ArchUnknown, Context{}},
		{"tcgen05_sw128_kmajor", 0x4000404000010040, ArchUnknown, Context{Major: MajorK, DType: "bf16", TileMN: 128, TileK: 16}},
		{"tcgen05_missing_version", 0x4000004000010040, SM100, Context{Major: MajorK, Swizzle: Swizzle128B}},
		{"tcgen05_sm90_code", 0x2000404000010040, SM100, Context{Major: MajorK, Swizzle: Swizzle128B}},
	}
	// The descriptors whose explanation comes with a footprint picture are
	// render's golden files (render.TestFootprintGolden).
	for _, c := range smem {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, ExplainSmem(c.v, c.arch, c.ctx).String())
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
