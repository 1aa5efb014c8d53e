package sfu

import (
	"runtime"
	"sync"
)

// ChunkBits is log2 of the inputs per hashed chunk (fewer for smaller domains).
const ChunkBits = 20

// Elem is the hash of one (input number, result) pair. A chunk's hash is
// the wrapping sum of Elem over its inputs, so it does not depend on the
// order the GPU's threads add them in.
func Elem(i uint32, out uint64) uint64 { return Mix64(out ^ uint64(i)*golden) }

// Chunks is the number of chunks of a domain.
func (d Domain) Chunks() int { return 1 << (d.Bits - d.ChunkBits()) }

// ChunkBits is log2 of the inputs per chunk.
func (d Domain) ChunkBits() int { return min(ChunkBits, d.Bits) }

// ChunkHash computes chunk c of f on d with the model.
func (f *Form) ChunkHash(d Domain, c int) uint64 {
	n := uint32(1) << d.ChunkBits()
	base := uint32(c) << d.ChunkBits()
	var h uint64
	eval := f.Eval
	if d.Name == "all" {
		for k := uint32(0); k < n; k++ {
			i := base + k
			h += Elem(i, eval(uint64(i), 0))
		}
		return h
	}
	for k := uint32(0); k < n; k++ {
		i := base + k
		a, b := d.Input(i)
		h += Elem(i, eval(a, b))
	}
	return h
}

// ChunkHashes computes the listed chunks (all when chunks is nil) on every
// CPU.
func (f *Form) ChunkHashes(d Domain, chunks []int) []uint64 {
	if chunks == nil {
		chunks = make([]int, d.Chunks())
		for i := range chunks {
			chunks[i] = i
		}
	}
	out := make([]uint64, len(chunks))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				out[k] = f.ChunkHash(d, chunks[k])
			}
		}()
	}
	for k := range chunks {
		next <- k
	}
	close(next)
	wg.Wait()
	return out
}
