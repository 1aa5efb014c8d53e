package sfu

import (
	"bytes"
	"compress/gzip"
	"testing"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// FuzzReadDumps: a dump file never panics the reader, whatever its bytes.
func FuzzReadDumps(f *testing.F) {
	m, _ := EncodeDump(Dataset{Op: "rcp.approx.ftz.f32", Gen: "range", Base: 0x3F800000, Count: 16}, make([]uint64, 16), nil, make([]uint64, 16))
	f.Add(m)
	f.Add(gz([]byte("\x05{\"op\"")))
	f.Add(gz([]byte("\x30{\"op\":\"div.full.f32\",\"gen\":\"edge\",\"count\":3}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadDumps(bytes.NewReader(data))
	})
}

// FuzzReadHashRecords: a record file never panics the reader.
func FuzzReadHashRecords(f *testing.F) {
	var buf bytes.Buffer
	WriteHashRecords(&buf, []*HashRecord{{Op: "ex2.approx.f16", Domain: "all", Bits: 16, ChunkBits: 16, Hashes: []uint64{1}}})
	f.Add(buf.Bytes())
	f.Add(gz([]byte(`{"op":"x","bits":40,"chunk_bits":1,"hashes":"AAAA"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadHashRecords(bytes.NewReader(data))
		if err == nil {
			for _, r := range recs {
				if len(r.Hashes) != 1<<(r.Bits-r.ChunkBits) {
					t.Fatalf("%s: %d hashes for %d-bit domain in %d-bit chunks", r.Op, len(r.Hashes), r.Bits, r.ChunkBits)
				}
			}
		}
	})
}
