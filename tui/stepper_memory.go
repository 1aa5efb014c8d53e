package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// The memory panes: the CTA's shared memory and Tensor Memory.

func (v *stepperView) smemRowBytes() int {
	r := v.rectOf(paneSMEM)
	if r.w >= 8+16*3 {
		return 16
	}
	return 8
}

func (v *stepperView) rectOf(p paneKind) paneRect {
	for _, r := range v.layout() {
		if r.kind == p {
			return r
		}
	}
	return paneRect{w: v.w, h: v.h}
}

// renderSMEM draws the selected CTA's shared memory as a hex dump (or as
// bf16 or f32 values, x), with mbarriers marked.
func (v *stepperView) renderSMEM(w, h int) []string {
	size := v.be.smemSize()
	names := []string{"bytes", "bf16", "f32"}
	out := []string{fmt.Sprintf("%d bytes · %s (x) · g: go to offset", size, names[v.smemMode])}
	if size == 0 {
		return append(out, styleDim.Render("the kernel uses no shared memory"))
	}
	per := v.smemRowBytes()
	rows := (size + per - 1) / per
	v.smem.see(h-1, rows)
	mb := map[int]uint32{}
	for _, m := range v.mbarRows {
		mb[int(m.addr)/per] = m.addr
	}
	for r := v.smem.top; r < rows && len(out) < h; r++ {
		off := r * per
		n := min(per, size-off)
		data, err := v.be.shared(v.cta, off, n)
		if err != nil {
			out = append(out, styleErr.Render(err.Error()))
			break
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%05x:", off)
		switch v.smemMode {
		case 0:
			for i, x := range data {
				if i == 8 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, " %02x", x)
			}
		case 1:
			for i := 0; i+1 < len(data); i += 2 {
				fmt.Fprintf(&b, " %7s", shortValue("bf16", uint64(data[i])|uint64(data[i+1])<<8, false))
			}
		case 2:
			for i := 0; i+3 < len(data); i += 4 {
				x := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24
				fmt.Fprintf(&b, " %8s", shortValue("f32", x, false))
			}
		}
		line := b.String()
		if a, ok := mb[r]; ok {
			line += styleWarn.Render(fmt.Sprintf(" mbarrier %#x", a))
		}
		if r == v.smem.cur {
			st := styleUnder
			if v.focus == paneSMEM {
				st = styleSel
			}
			line = st.Render(fitLine(stripANSI(line), w))
		}
		out = append(out, line)
	}
	return out
}

// renderTMEM draws a window of the CTA's Tensor Memory: lanes down,
// columns across, 32-bit cells.
func (v *stepperView) renderTMEM(w, h int) []string {
	if _, err := v.be.tmem(v.cta, 0, 0); err != nil {
		return []string{styleDim.Render("Tensor Memory is not in use in this CTA (tcgen05.alloc has not run, or the kernel is sm_90)")}
	}
	cols := max((w-6)/9, 1)
	rows := max(h-2, 1)
	lane, col := v.tmemCur[0], v.tmemCur[1]
	if lane < v.tmemTop[0] {
		v.tmemTop[0] = lane
	}
	if lane >= v.tmemTop[0]+rows {
		v.tmemTop[0] = lane - rows + 1
	}
	if col < v.tmemTop[1] {
		v.tmemTop[1] = col
	}
	if col >= v.tmemTop[1]+cols {
		v.tmemTop[1] = col - cols + 1
	}
	cur, _ := v.be.tmem(v.cta, lane, col)
	head := fmt.Sprintf("not hardware-verified · lane %d col %d = %08x (%s)", lane, col, cur, shortValue("f32", uint64(cur), false))
	if q := fmt.Sprintf(" · lane quarter %d", lane/32); cellWidth(head+q) <= w {
		head += q
	}
	out := []string{fitLine(head, w)}
	var hb strings.Builder
	hb.WriteString("lane ")
	for c := v.tmemTop[1]; c < v.tmemTop[1]+cols && c < 512; c++ {
		fmt.Fprintf(&hb, " %8s", "c"+strconv.Itoa(c))
	}
	out = append(out, styleDim.Render(hb.String()))
	for l := v.tmemTop[0]; l < v.tmemTop[0]+rows && l < 128; l++ {
		var b strings.Builder
		fmt.Fprintf(&b, "%4d ", l)
		for c := v.tmemTop[1]; c < v.tmemTop[1]+cols && c < 512; c++ {
			x, _ := v.be.tmem(v.cta, l, c)
			cell := fmt.Sprintf("%08x", x)
			if !v.hexVals {
				cell = shortValue("f32", uint64(x), false)
			}
			cell = fmt.Sprintf(" %8s", cell)
			if l == lane && c == col {
				cell = " " + styleSel.Render(cell[1:])
			}
			b.WriteString(cell)
		}
		out = append(out, b.String())
	}
	return out
}
