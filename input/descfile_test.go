package input

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// driverMap is a CUtensorMap the H100's driver encoded (the tensor-map
// campaign's tiled/swizzle/128B/box0=64 probe).
const driverMap = "005634124a7f0000c0600000800000000000010000008001000000e000100000ff030000ff0100007f0100003f0100000f0100000000003f0f0703010000000000000200000000000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"

// ReadDescriptor reads what tcsim desc and tcsim tui --desc take: a file
// of 128 bytes, a file of hex, or the text itself.
func TestReadDescriptor(t *testing.T) {
	dir := t.TempDir()
	raw, err := hex.DecodeString(driverMap)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bin := write("good.bin", raw)
	txt := write("map.txt", []byte(driverMap[:128]+"\n"+driverMap[128:]+"\n"))
	val := write("value.txt", []byte("0x4000004000010040\n"))
	short := write("short.bin", raw[:100])
	for _, tc := range []struct {
		arg   string
		tmap  bool
		value uint64
		err   string
	}{
		{arg: bin, tmap: true},
		{arg: " " + bin + " ", tmap: true},
		{arg: txt, tmap: true},
		{arg: val, value: 0x4000004000010040},
		{arg: "0x4000004000010040", value: 0x4000004000010040},
		{arg: driverMap, tmap: true},
		{arg: short, err: "100 bytes: neither the 128 bytes of a CUtensorMap nor a descriptor in hex"},
		{arg: filepath.Join(dir, "missing.bin"), err: "is neither a descriptor value nor a file that can be read"},
		{arg: "good.bin", err: "is neither a descriptor value nor a file that can be read"},
		{arg: "zz", err: "is not a number"},
	} {
		d, err := ReadDescriptor(tc.arg)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.arg, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.arg, err)
		case tc.tmap:
			if d.TensorMap == nil || hex.EncodeToString(d.TensorMap[:]) != driverMap {
				t.Errorf("%q: not the driver's map: %+v", tc.arg, d)
			}
		case d.TensorMap != nil || d.Value != tc.value:
			t.Errorf("%q: %+v, want value %#x", tc.arg, d, tc.value)
		}
	}
}
