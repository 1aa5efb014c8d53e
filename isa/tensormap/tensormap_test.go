package tensormap

import (
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

const fixture = "../../fixtures/tensormaps/campaign_h100.json.gz"

func readFixture(t testing.TB) *Recording {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Attach(Campaign()); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRecordedCampaign replays the H100 campaign both ways: the encoder
// reproduces the driver's bytes, the decoder recovers the arguments, and
// the rules reject exactly what the driver rejected.
func TestRecordedCampaign(t *testing.T) {
	rec := readFixture(t)
	if rec.Provenance.GPU == "" || rec.Provenance.DriverVersion == "" || rec.Provenance.Command == "" {
		t.Errorf("provenance incomplete: %+v", rec.Provenance)
	}
	s := Check(rec.Records)
	for i, p := range s.Problems {
		if i < 20 {
			t.Error(p)
		}
	}
	if s.Accepted < 3000 || s.Rejected < 3000 || s.WithBytes < 1500 {
		t.Errorf("campaign too small: %+v", s)
	}
	if s.Encoded != s.Accepted || s.RejectMatched != s.Rejected || s.Decoded != s.WithBytes || s.Crashed != 0 {
		t.Errorf("summary %+v", s)
	}
}

// TestEveryBitAccountedFor flips each of the 1024 bits of accepted maps of
// every kind: the decoder must either report the flipped bit as unknown,
// or read a map that encodes back to exactly the flipped bytes, or read a
// map that breaks a rule. No bit is silently ignored.
func TestEveryBitAccountedFor(t *testing.T) {
	rec := readFixture(t)
	seen := map[string]bool{}
	for _, r := range rec.Records {
		raw, ok := r.Raw()
		if r.Result != ResultOK || !ok {
			continue
		}
		key := r.Map.Kind.String() + "/" + strings.Repeat("x", r.Map.Rank())
		if seen[key] {
			continue
		}
		seen[key] = true
		for bit := 0; bit < 8*Size; bit++ {
			b := raw
			b[bit/8] ^= 1 << (bit % 8)
			d, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Unknown) > 0 {
				continue
			}
			got, err := Encode(d.Map)
			if err != nil {
				continue // the decoded map breaks a rule: desc reports it
			}
			if got != b {
				t.Errorf("%s: bit %d (w%d[%d]) flipped is neither unknown nor kept: %s", r.Name, bit, bit/64, bit%64, DiffBytes(b, got))
			}
		}
	}
	if len(seen) < 8 {
		t.Errorf("only %d kinds of map checked", len(seen))
	}
}

func TestValidateNamesFieldAndRule(t *testing.T) {
	base := func() *Map {
		return &Map{Kind: Tiled, DType: BF16, Address: 0x7f0000000000, Dims: []uint64{128, 64}, Strides: []uint64{256},
			Box: []uint32{64, 32}, ElemStrides: []uint32{1, 1}, Swizzle: Swizzle128B}
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Map)
		want string
	}{
		{func(m *Map) { m.Box[0] = 128 }, "swizzle: the inner box is 256 bytes, wider than the 128B swizzle span of 128 bytes"},
		{func(m *Map) { m.Box[0] = 60 }, "box[0]: 60 × bf16 = 120 bytes: the inner box must be a multiple of 16 bytes"},
		{func(m *Map) { m.Strides[0] = 264 }, "strides[0]: 264 (the stride of dim 1) is not a multiple of 16 bytes"},
		{func(m *Map) { m.Address = 0x7f0000000008 }, "addr: 0x7f0000000008 is not 16-byte aligned"},
		{func(m *Map) { m.Address = 1 << 57 }, "addr: 0x200000000000000: the driver takes addresses below 2^57"},
		{func(m *Map) { m.Dims[1] = 0 }, "dims[1]: 0: want 1 to 2^32"},
		{func(m *Map) { m.Box[1] = 257 }, "box[1]: 257: want 1 to 256"},
		{func(m *Map) { m.ElemStrides[1] = 9 }, "estrides[1]: 9: want 1 to 8"},
		{func(m *Map) { m.OOB = OOBNaN; m.DType = U16 }, "oob: oob=nan needs a floating-point dtype, have u16"},
		{func(m *Map) { m.DType = U4x16Align8 }, "dtype: 16u4_align8b: the driver rejects the packed 4/6-bit types on an H100 (sm_90)"},
		{func(m *Map) { m.Swizzle = Swizzle128BAtom64B }, "swizzle: 128B_atom_64B: the driver rejects the 128B_atom swizzles on an H100 (sm_90)"},
		{func(m *Map) { m.Interleave = Interleave16B }, "interleave: interleave=16B needs rank 3 or more, have 2"},
		{func(m *Map) { m.Strides = nil }, "strides: 0 entries; a rank-2 map needs 1 (dim 0's stride is the element size)"},
		{func(m *Map) {
			m.Dims = []uint64{256, 256, 256}
			m.Strides = []uint64{512, 131072}
			m.Box = []uint32{64, 256, 8}
			m.ElemStrides = []uint32{1, 1, 1}
		}, "box: one load moves 262144 bytes, more than the 233472 (228 KiB) the driver allows on an H100"},
	} {
		m := base()
		c.edit(m)
		err := m.Validate()
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		if _, ok := err.(*FieldError); !ok {
			t.Errorf("%v is not a *FieldError", err)
		}
	}
}

func TestIm2colWideIsIm2col(t *testing.T) {
	w := &Map{Kind: Im2colWide, DType: F16, Address: 0x7f0000000000, Dims: []uint64{64, 30, 28, 4}, Strides: []uint64{128, 3840, 107520},
		ElemStrides: []uint32{1, 1, 1, 1}, Channels: 64, Pixels: 128, LowerW: -2, UpperW: 1, Mode: WideW128}
	i := &Map{Kind: Im2col, DType: F16, Address: 0x7f0000000000, Dims: []uint64{64, 30, 28, 4}, Strides: []uint64{128, 3840, 107520},
		ElemStrides: []uint32{1, 1, 1, 1}, Channels: 64, Pixels: 128, Lower: []int32{-2, 0}, Upper: []int32{1, 0}}
	a, err := Encode(w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(i)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("im2col-wide and the equivalent im2col differ: %s", DiffBytes(a, b))
	}
	d, _ := Decode(a)
	if d.Map.Kind != Im2col || len(d.Notes) == 0 {
		t.Errorf("decoded %v, notes %v", d.Map, d.Notes)
	}
}

func TestDecodeGarbage(t *testing.T) {
	var b [Size]byte
	for i := range b {
		b[i] = 0xff
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Unknown) < 5 {
		t.Errorf("all-ones decoded with only %d unknowns: %v", len(d.Unknown), d.Unknown)
	}
}

func TestRecordingRoundTrip(t *testing.T) {
	rec := &Recording{Campaign: "x", Records: []Record{{Name: "a", Map: &Map{Kind: Tiled, Dims: []uint64{16}}, Result: "CUDA_ERROR_INVALID_VALUE"}}}
	var buf bytes.Buffer
	if err := WriteRecording(&buf, rec); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecording(&buf)
	if err != nil || len(got.Records) != 1 || got.Records[0].Map.Dims[0] != 16 {
		t.Fatalf("%v %+v", err, got)
	}
	for _, bad := range []string{`{"records":[{"name":"a","result":"ok"}]}`, `{"records":[{"name":"a"}]}`, `{"records":[{"name":"a","result":"ok","bytes":"00"}]}`, `[`} {
		if _, err := ReadRecording(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestCampaignDeterministic(t *testing.T) {
	if a, b := Digest(Campaign()), Digest(Campaign()); a != b {
		t.Fatal("the campaign is not deterministic")
	}
	names := map[string]bool{}
	for _, p := range Campaign() {
		if names[p.Name] {
			t.Errorf("probe %s twice", p.Name)
		}
		names[p.Name] = true
	}
}

func FuzzDecode(f *testing.F) {
	rec := readFixture(f)
	n := 0
	for _, r := range rec.Records {
		if raw, ok := r.Raw(); ok && n < 40 {
			f.Add(raw[:])
			n++
		}
	}
	f.Add(make([]byte, Size))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b [Size]byte
		copy(b[:], data)
		d, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Unknown) > 0 {
			return
		}
		if got, err := Encode(d.Map); err == nil && got != b {
			t.Fatalf("decoded %s with nothing unknown, encodes to other bytes: %s (input %s)", d.Map, DiffBytes(b, got), hex.EncodeToString(b[:]))
		}
	})
}

func FuzzReadRecording(f *testing.F) {
	f.Add([]byte(`{"campaign":"x","records":[{"name":"a","map":{"kind":"tiled","dtype":"bf16","dims":[1]},"result":"ok","sha256":"000000000000"}]}`))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ReadRecording(bytes.NewReader(data))
		if err != nil {
			return
		}
		rec.Attach(nil)
		Check(rec.Records)
	})
}
