package probe

import (
	"testing"
)

// FuzzChecks feeds corrupted outputs to the decoders of the small probe
// cases: whatever the bytes, a check reports a verdict (an error, a
// mismatch or agreement), never a panic, and a truncated output never
// passes.
func FuzzChecks(f *testing.F) {
	f.Add(uint8(0), uint16(0), []byte{0xff})
	f.Add(uint8(1), uint16(16), []byte{0x00, 0x7c})        // f16 infinity
	f.Add(uint8(2), uint16(100), []byte{0x01, 0x02, 0x03}) // mma
	f.Add(uint8(3), uint16(1000), []byte{0xa5, 0xa5, 0xa5, 0xa5})
	f.Add(uint8(4), uint16(7), []byte{})
	names := []string{"ldmatrix", "stmatrix", "mma_m16n8k32_s32_u8", "wgmma_areg_b8", "wgmma_smem_mn_b16"}
	base := map[string][]byte{}
	for _, n := range names {
		base[n] = catalogHardware.run(Lookup(n))
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint16, patch []byte) {
		c := Lookup(names[int(which)%len(names)])
		out := append([]byte(nil), base[c.Name]...)
		if len(patch) == 0 {
			out = out[:int(at)%len(out)] // truncated
		} else {
			for i, b := range patch {
				out[(int(at)+i)%len(out)] = b
			}
		}
		for _, k := range c.Checks {
			o := k.Run(out)
			_ = o.String()
			if len(patch) == 0 && o.OK() {
				t.Errorf("%s: a truncated output passed", k.Atom)
			}
		}
	})
}
