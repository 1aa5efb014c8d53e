package sim

import (
	"fmt"
	"sort"
)

// Buffer is one allocation of global memory.
type Buffer struct {
	Name string
	Base uint64
	Data []byte
	Slot int // launch slot (-1 for module .global variables)
}

// GlobalMemory holds the launch's buffers.
type GlobalMemory struct {
	bufs []*Buffer // sorted by Base
	next uint64
}

// allocGap is the alignment of the buffers the simulator places itself and
// the unmapped gap it leaves after each, so that an out-of-bounds access
// never lands in a neighbour.
const allocGap = 1 << 20

// Alloc adds a buffer of data (not copied) at an address of the
// simulator's choosing: 1 MiB aligned, after the last one, clear of
// placed buffers by at least 1 MiB.
func (g *GlobalMemory) Alloc(name string, data []byte, slot int) *Buffer {
	if g.next == 0 {
		g.next = GlobalBase
	}
	size := uint64(len(data))
	base := g.next
	for moved := true; moved; {
		moved = false
		for _, b := range g.bufs {
			lo, hi := b.Base, b.Base+uint64(len(b.Data))
			if base < hi+allocGap && base+size+allocGap > lo {
				base = (hi + 2*allocGap - 1) &^ (allocGap - 1)
				moved = true
			}
		}
	}
	b := &Buffer{Name: name, Base: base, Data: data, Slot: slot}
	g.next = base + (size+2*allocGap-1)&^(allocGap-1)
	g.insert(b)
	return b
}

// AllocAt adds a buffer of data (not copied) at address base, where the
// launch placed it (addr=). It fails when the range overlaps another
// buffer or one of the simulator's windows for generic addresses of
// shared, local, parameter and constant memory.
func (g *GlobalMemory) AllocAt(name string, base uint64, data []byte, slot int) (*Buffer, error) {
	end := base + uint64(len(data))
	for _, w := range []struct {
		name string
		lo   uint64
	}{{"shared", SharedWindow}, {"local", LocalWindow}, {"parameter", ParamWindow}, {"constant", ConstWindow}} {
		if base < w.lo+windowSize && end > w.lo {
			return nil, fmt.Errorf("buffer %s at [%#x, %#x) overlaps [%#x, %#x), where the simulator keeps generic addresses of %s memory: place it elsewhere", name, base, end, w.lo, w.lo+windowSize, w.name)
		}
	}
	for _, b := range g.bufs {
		if base < b.Base+uint64(len(b.Data)) && end > b.Base {
			return nil, fmt.Errorf("buffer %s at [%#x, %#x) overlaps buffer %s at [%#x, %#x)", name, base, end, b.Name, b.Base, b.Base+uint64(len(b.Data)))
		}
	}
	b := &Buffer{Name: name, Base: base, Data: data, Slot: slot}
	g.insert(b)
	return b, nil
}

// insert keeps bufs sorted by Base.
func (g *GlobalMemory) insert(b *Buffer) {
	i := sort.Search(len(g.bufs), func(i int) bool { return g.bufs[i].Base > b.Base })
	g.bufs = append(g.bufs, nil)
	copy(g.bufs[i+1:], g.bufs[i:])
	g.bufs[i] = b
}

// Find returns the buffer holding [addr, addr+n).
func (g *GlobalMemory) Find(addr uint64, n int) (*Buffer, bool) {
	i := sort.Search(len(g.bufs), func(i int) bool { return g.bufs[i].Base > addr }) - 1
	if i < 0 {
		return nil, false
	}
	b := g.bufs[i]
	if addr+uint64(n) <= b.Base+uint64(len(b.Data)) {
		return b, true
	}
	return b, false
}

// Nearest describes where addr is relative to the closest buffer.
func (g *GlobalMemory) Nearest(addr uint64) string {
	var best *Buffer
	var dist uint64 = ^uint64(0)
	for _, b := range g.bufs {
		var d uint64
		switch {
		case addr < b.Base:
			d = b.Base - addr
		case addr >= b.Base+uint64(len(b.Data)):
			d = addr - (b.Base + uint64(len(b.Data)) - 1)
		}
		if d < dist {
			best, dist = b, d
		}
	}
	if best == nil {
		return "no buffer is allocated"
	}
	if addr < best.Base {
		return fmt.Sprintf("%d bytes before buffer %s [%#x, %#x)", best.Base-addr, best.Name, best.Base, best.Base+uint64(len(best.Data)))
	}
	end := best.Base + uint64(len(best.Data))
	if addr >= end {
		return fmt.Sprintf("%d bytes past the end of buffer %s [%#x, %#x), which has %d bytes", addr-end, best.Name, best.Base, end, len(best.Data))
	}
	return fmt.Sprintf("byte %d of buffer %s (%d bytes), running past its end", addr-best.Base, best.Name, len(best.Data))
}

// nullWindow is how far from 0 an address counts as a null pointer plus an
// offset.
const nullWindow = 1 << 20

// describeGlobal says where a global address that is in no buffer is: near
// a null pointer (naming the launch's null parameters), else relative to
// the closest buffer.
func (m *Machine) describeGlobal(addr uint64) string { return m.describeGlobalAt(addr, nil) }

// Buffers returns every buffer.
func (g *GlobalMemory) Buffers() []*Buffer { return g.bufs }
