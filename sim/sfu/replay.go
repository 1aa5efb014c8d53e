package sfu

import (
	"fmt"
	"hash/fnv"
)

// Status says how far the model of f is verified: "bit-exact" or its
// measured agreement.
func (f *Form) Status() string {
	if f.Exact {
		return "bit-exact"
	}
	if f.Agreement != "" {
		return "not bit-exact: " + f.Agreement
	}
	return "not bit-exact (float64 approximation)"
}

// ReplayResult is a recorded campaign checked against the model.
type ReplayResult struct {
	Form             *Form
	Domain           Domain
	Checked, Matched int
	Differing        []int // chunks where the model differs
}

// SampleChunks picks n chunks of a domain to recompute: pseudo-random ones
// (from seed), and from n = 4 on the first and the last.
func (d Domain) SampleChunks(n int, seed uint64) []int {
	total := d.Chunks()
	if n >= total {
		out := make([]int, total)
		for i := range out {
			out[i] = i
		}
		return out
	}
	seen := map[int]bool{}
	var out []int
	add := func(c int) {
		if !seen[c] && len(out) < n {
			seen[c] = true
			out = append(out, c)
		}
	}
	if n >= 4 {
		add(0)
		add(total - 1)
	}
	for x := seed; len(out) < n; x++ {
		add(int(Mix64(x) % uint64(total)))
	}
	return out
}

// ReplayRecord recomputes chunks of a recorded campaign with the model:
// all of them, or n of them.
func ReplayRecord(rec *HashRecord, all bool, n int, seed uint64) (*ReplayResult, error) {
	f := Lookup(rec.Op)
	if f == nil {
		return nil, fmt.Errorf("recorded form %q is not modelled", rec.Op)
	}
	d, ok := f.DomainNamed(rec.Domain)
	if !ok || d.Bits != rec.Bits || d.ChunkBits() != rec.ChunkBits {
		return nil, fmt.Errorf("%s: recorded domain %q (%d bits in %d-bit chunks) is not the form's", rec.Op, rec.Domain, rec.Bits, rec.ChunkBits)
	}
	var chunks []int
	if !all {
		chunks = d.SampleChunks(n, seed^campaignKey(rec.Op, rec.Domain))
	}
	h := f.ChunkHashes(d, chunks)
	if chunks == nil {
		chunks = make([]int, len(h))
		for i := range chunks {
			chunks[i] = i
		}
	}
	r := &ReplayResult{Form: f, Domain: d, Checked: len(chunks)}
	for k, c := range chunks {
		if h[k] == rec.Hashes[c] {
			r.Matched++
		} else {
			r.Differing = append(r.Differing, c)
		}
	}
	return r, nil
}

// campaignKey is a hash of a campaign's form and domain names: each
// campaign draws its own chunks from a seed.
func campaignKey(op, domain string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(op))
	h.Write([]byte{0})
	h.Write([]byte(domain))
	return Mix64(h.Sum64())
}
