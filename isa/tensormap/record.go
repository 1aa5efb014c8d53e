package tensormap

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tcsim/tcsim/internal/provenance"
)

// ResultOK is the result of a call the driver accepted.
const ResultOK = "ok"

// ResultCrash is the result of a call during which the recording process
// died.
const ResultCrash = "crash"

// Record is what the driver did with one probe.
type Record struct {
	Name string `json:"name"`
	Map  *Map   `json:"map"`
	// Result is "ok", the driver's error name (CUDA_ERROR_INVALID_VALUE)
	// or "crash".
	Result string `json:"result"`
	// Bytes is the map the driver wrote into a zeroed buffer, in hex. Probes
	// of the random sweeps keep only Hash, the first 6 bytes of its SHA-256.
	Bytes string `json:"bytes,omitempty"`
	Hash  string `json:"sha256,omitempty"`
	// Untouched marks, one hex byte each, the bytes the driver left as they
	// were: a call into a buffer filled with 0xff gave 0xff where the zeroed
	// one gave 0. Empty when the driver wrote every byte.
	Untouched string `json:"untouched,omitempty"`
}

// Provenance says where a recording came from (the project's one
// provenance record).
type Provenance = provenance.Provenance

// Recording is a recorded campaign. The random probes' maps are not stored:
// they are generated again (Attach), and MapsDigest makes sure that the
// generator still makes the maps the driver was given.
type Recording struct {
	Campaign   string     `json:"campaign"`
	MapsDigest string     `json:"maps_sha256"`
	Provenance Provenance `json:"provenance"`
	Records    []Record   `json:"records"`
}

// hashLen is the number of bytes of SHA-256 a record keeps: enough that a
// wrong encoding matches by chance once in 2^48 maps.
const hashLen = 6

// HashBytes returns the hash a Record stores for b.
func HashBytes(b [Size]byte) string {
	h := sha256.Sum256(b[:])
	return hex.EncodeToString(h[:hashLen])
}

// Digest returns the SHA-256 of the probes' names and maps.
func Digest(probes []Probe) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, p := range probes {
		enc.Encode(p.Name)
		enc.Encode(p.Map)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Attach gives every record without a map the map of the probe of the same
// name, after checking that probes are the ones the recording was made
// from. A recording whose records all carry their maps needs no probes.
func (rec *Recording) Attach(probes []Probe) error {
	complete := true
	for i := range rec.Records {
		complete = complete && rec.Records[i].Map != nil
	}
	if complete {
		return nil // a full dump carries every map
	}
	if rec.MapsDigest != Digest(probes) || len(probes) != len(rec.Records) {
		return fmt.Errorf("the recording was made from other probes than the campaign generator makes now (%s); record it again", rec.Campaign)
	}
	for i := range rec.Records {
		r := &rec.Records[i]
		if r.Name != probes[i].Name {
			return fmt.Errorf("record %d is %s, the campaign's probe %d is %s", i, r.Name, i, probes[i].Name)
		}
		if r.Map == nil {
			r.Map = probes[i].Map
		}
	}
	return nil
}

// Compact returns the recording as a fixture keeps it: the random probes
// without their maps and with a hash of their bytes.
func (rec *Recording) Compact(probes []Probe) *Recording {
	c := *rec
	c.MapsDigest = Digest(probes)
	c.Records = make([]Record, len(rec.Records))
	for i, r := range rec.Records {
		if i < len(probes) && !probes[i].Keep {
			r.Map = nil
			if raw, ok := r.Raw(); ok {
				r.Hash, r.Bytes = HashBytes(raw), ""
			}
		}
		c.Records[i] = r
	}
	return &c
}

// Matches reports whether b is the map the record holds (by bytes or by
// hash).
func (r *Record) Matches(b [Size]byte) bool {
	if r.Bytes != "" {
		return r.Bytes == hex.EncodeToString(b[:])
	}
	return r.Hash == HashBytes(b)
}

// Raw returns the recorded bytes, if the record keeps them.
func (r *Record) Raw() ([Size]byte, bool) {
	var b [Size]byte
	if r.Bytes == "" {
		return b, false
	}
	d, err := hex.DecodeString(r.Bytes)
	if err != nil || len(d) != Size {
		return b, false
	}
	copy(b[:], d)
	return b, true
}

// UntouchedMask returns the bytes the driver did not write, as a mask.
func (r *Record) UntouchedMask() [Size]byte {
	var m [Size]byte
	d, err := hex.DecodeString(r.Untouched)
	if err == nil {
		copy(m[:], d)
	}
	return m
}

// maxRecording bounds the decompressed size of a recording.
const maxRecording = 64 << 20

// WriteRecording writes rec as gzip-compressed JSON.
func WriteRecording(w io.Writer, rec *Recording) error {
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(rec); err != nil {
		return err
	}
	return zw.Close()
}

// ReadRecording reads a recording written by WriteRecording (plain JSON is
// accepted too) and checks every record's shape.
func ReadRecording(r io.Reader) (*Recording, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRecording+1))
	if err != nil {
		return nil, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("tensor-map recording: %w", err)
		}
		if data, err = io.ReadAll(io.LimitReader(zr, maxRecording+1)); err != nil {
			return nil, fmt.Errorf("tensor-map recording: %w", err)
		}
	}
	if len(data) > maxRecording {
		return nil, fmt.Errorf("tensor-map recording: more than %d bytes", maxRecording)
	}
	var rec Recording
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("tensor-map recording: %w", err)
	}
	for i := range rec.Records {
		if err := rec.Records[i].check(); err != nil {
			return nil, fmt.Errorf("tensor-map recording: record %d (%s): %w", i, rec.Records[i].Name, err)
		}
	}
	return &rec, nil
}

func (r *Record) check() error {
	if r.Map != nil && (len(r.Map.Dims) > 16 || len(r.Map.Strides) > 16 || len(r.Map.Box) > 16 || len(r.Map.ElemStrides) > 16 || len(r.Map.Lower) > 16 || len(r.Map.Upper) > 16) {
		return errors.New("more than 16 entries in a list")
	}
	if r.Result == "" {
		return errors.New("no result")
	}
	if r.Result == ResultOK {
		if _, ok := r.Raw(); !ok && len(r.Hash) != 2*hashLen {
			return errors.New("an accepted map with neither 128 bytes nor a hash")
		}
	}
	if r.Untouched != "" {
		if d, err := hex.DecodeString(r.Untouched); err != nil || len(d) != Size {
			return errors.New("untouched is not 128 hex bytes")
		}
	}
	return nil
}
