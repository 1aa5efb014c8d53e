package bitmath

import (
	"fmt"
	"strings"
)

// String prints the matrix as a table: one row per output bit, one column
// per input bit, "1" where the input bit flips the output bit; field names
// head the columns and rows, and a last line gives the constant.
func (m Matrix) String() string {
	var b strings.Builder
	nin, nout := m.NIn(), m.NOut()
	cw := 2
	for j := range nin {
		cw = max(cw, len(m.InLabel(j))+1)
	}
	lw := 0
	for _, f := range m.Out {
		lw = max(lw, len(f.Name))
	}
	ow := 0
	for o := range nout {
		ow = max(ow, len(m.OutLabel(o)))
	}
	pad := strings.Repeat(" ", lw+1+ow+1)
	// Field names over their first column's label, where they fit.
	head := []byte(pad + strings.Repeat(" ", cw*nin+16))
	col, end := len(pad), 0
	for _, f := range m.In {
		if f.Bits() == 0 {
			continue
		}
		at := col + cw - len(f.Label(0))
		if at >= end {
			copy(head[at:], f.Name)
			end = at + len(f.Name) + 1
		}
		col += cw * f.Bits()
	}
	b.WriteString(strings.TrimRight(string(head), " ") + "\n")
	b.WriteString(pad)
	for j := range nin {
		fmt.Fprintf(&b, "%*s", cw, m.InLabel(j))
	}
	b.WriteByte('\n')
	o := 0
	for _, f := range m.Out {
		for k := 0; k < f.Bits(); k++ {
			name := ""
			if k == 0 {
				name = f.Name
			}
			fmt.Fprintf(&b, "%-*s %-*s ", lw, name, ow, m.OutLabel(o))
			for j := range nin {
				c := "."
				if m.Cols[j]>>o&1 == 1 {
					c = "1"
				}
				fmt.Fprintf(&b, "%*s", cw, c)
			}
			if m.Const>>o&1 == 1 {
				b.WriteString("   ^1")
			}
			b.WriteByte('\n')
			o++
		}
	}
	if m.Const != 0 {
		fmt.Fprintf(&b, "constant: %s (marked ^1: XORed into every output)\n", m.outSet(m.Const))
	}
	return b.String()
}

// Summary describes the matrix in a few lines: rank, kernel (broadcast
// directions), image (which outputs are reached) and which inverse exists.
func (d *Derivation) Summary() []string {
	m := d.Matrix
	inv := d.Inv
	rank := len(m.reduce().pivot)
	var out []string
	out = append(out, fmt.Sprintf("F2 view: %d input bits (%s) -> %d output bits (%s); rank %d; %s",
		m.NIn(), bitGroups(m.In), m.NOut(), bitGroups(m.Out), rank, inv.Kind))
	if len(inv.Kernel) == 0 {
		out = append(out, "kernel: none (every input bit moves the output: no broadcast)")
	} else {
		var ks []string
		for _, k := range inv.Kernel {
			ks = append(ks, m.inSet(k))
		}
		out = append(out, fmt.Sprintf("kernel: %s (flipping these leaves the output unchanged: each output has %d preimages)",
			strings.Join(ks, ", "), 1<<len(inv.Kernel)))
	}
	if len(inv.Constraints) == 0 {
		out = append(out, "image: every output bit pattern (onto)")
	} else {
		out = append(out, fmt.Sprintf("image: %d of %d output bit patterns, those where %s",
			1<<rank, uint64(1)<<m.NOut(), m.constraintText(inv.Constraints)))
	}
	return out
}

// bitGroups prints fields with their bit labels, "tid: l0-l4 w0-w1, v: v0-v6".
func bitGroups(fs []Field) string {
	var parts []string
	for _, f := range fs {
		n := f.Bits()
		switch {
		case n == 0:
			parts = append(parts, f.Name+": none")
		case f.Name == "tid" && n > LaneBits:
			parts = append(parts, fmt.Sprintf("%s: %s-%s %s-%s", f.Name, f.Label(0), f.Label(LaneBits-1), f.Label(LaneBits), f.Label(n-1)))
		case n == 1:
			parts = append(parts, f.Name+": "+f.Label(0))
		default:
			parts = append(parts, fmt.Sprintf("%s: %s-%s", f.Name, f.Label(0), f.Label(n-1)))
		}
	}
	return strings.Join(parts, ", ")
}
