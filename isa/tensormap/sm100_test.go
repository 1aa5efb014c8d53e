package tensormap

import (
	"strings"
	"testing"
)

// TestSM100Modelled: the sm_100a forms tcsim models (16U4_ALIGN8B,
// 128B_atom_32B) are rejected for the H100 and accepted for sm_100a, encode
// to the modelled bytes and decode back to the same map with Target SM100;
// the forms it does not model stay rejected for sm_100a too.
func TestSM100Modelled(t *testing.T) {
	base := func() *Map {
		return &Map{Kind: Tiled, DType: U8, Address: 0x7000_0000_0000, Dims: []uint64{512, 256}, Strides: []uint64{256},
			Box: []uint32{128, 64}, ElemStrides: []uint32{1, 1}, Swizzle: Swizzle128B}
	}
	for _, c := range []struct {
		name  string
		edit  func(m *Map)
		bytes uint64 // the bytes one load moves
		align uint64 // w9
	}{
		{"16u4_align8b", func(m *Map) { m.DType, m.Dims[0], m.Box[0] = U4x16Align8, 1024, 256 }, 128 * 64, 1024},
		{"128B_atom_32B", func(m *Map) { m.DType, m.Swizzle = BF16, Swizzle128BAtom32B; m.Dims[0], m.Box[0] = 128, 64 }, 64 * 64 * 2, 512},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			c.edit(m)
			if !m.Modelled() {
				t.Fatal("Modelled() is false")
			}
			if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "H100") {
				t.Errorf("for the H100: %v, want the H100 driver's rejection", err)
			}
			if _, err := Encode(m); err == nil {
				t.Error("encoded for the H100")
			}
			m.Target = SM100
			if err := m.Validate(); err != nil {
				t.Fatalf("for sm_100a: %v", err)
			}
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decode(b)
			if err != nil || len(d.Unknown) > 0 {
				t.Fatalf("decode: %v %v", err, d.Unknown)
			}
			if d.Words[8] != c.bytes || d.Words[9] != c.align {
				t.Errorf("w8 = %d, w9 = %d, want %d and %d", d.Words[8], d.Words[9], c.bytes, c.align)
			}
			if d.Map.String() != m.String() || d.Map.Target != SM100 {
				t.Errorf("decoded %s (target %s), want %s (sm_100a)", d.Map, d.Map.Target, m)
			}
			if len(d.Notes) == 0 || !strings.Contains(strings.Join(d.Notes, " "), "not hardware-verified") {
				t.Errorf("the decode does not say the encoding is modelled: %v", d.Notes)
			}
		})
	}
	for _, edit := range []func(m *Map){
		func(m *Map) { m.DType = U4x16Align16 },
		func(m *Map) { m.DType = U6x16Align16 },
		func(m *Map) { m.Swizzle = Swizzle128BAtom64B },
		func(m *Map) { m.Swizzle = Swizzle128BAtom32BF8 },
	} {
		m := base()
		edit(m)
		m.Target = SM100
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "tcsim models") {
			t.Errorf("%s for sm_100a: %v, want the not-modelled rejection", m, err)
		}
	}
	// an H100 map's bytes decode as before, with Target SM90
	m := base()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := Decode(b); d.Map.Target != SM90 || len(d.Notes) != 0 {
		t.Errorf("an H100 map decodes with target %s, notes %v", d.Map.Target, d.Notes)
	}
}
