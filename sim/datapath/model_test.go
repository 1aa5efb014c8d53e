package datapath

import (
	"math"
	"testing"
)

func bf(x float32) uint64  { return uint64(math.Float32bits(x) >> 16) }
func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }

func hopperBF16() *Model {
	v := ProbeVariants()[1]
	return &Model{A: v.A, B: v.B, C: v.C, FracBits: 25, ZeroExp: -126, Out: RoundTowardZero, NaN: 0x7fffffff}
}

func TestModelExactSums(t *testing.T) {
	m := hopperBF16()
	k := func(vals ...float32) []uint64 {
		out := make([]uint64, 16)
		for i := range out {
			out[i] = bf(0)
		}
		for i, v := range vals {
			out[i] = bf(v)
		}
		return out
	}
	tests := []struct {
		name string
		a, b []uint64
		c    float32
		want float32
	}{
		{"1+1+0.5", k(1, 1), k(1, 1), 0.5, 2.5},
		{"cancel", k(1, -1), k(1, 1), 0, 0},
		{"small survives", k(1, -1, 0.0078125), k(1, 1, 0.0078125), 0, 0.0078125 * 0.0078125},
		{"2^-26 truncated", k(1, -1, 1.0/8192), k(1, 1, 1.0/8192), 0, 0},
		{"negative c", k(3), k(2), -10, -4},
		{"rz", k(1.0 / 4096), k(1.0 / 4096), 1.0 + 1.0/(1<<22), 1 + 1.0/(1<<22)}, // 1+2^-22+2^-24 -> RZ drops 2^-24
	}
	for _, tt := range tests {
		if got := m.Dot(tt.a, tt.b, f32(tt.c)); got != f32(tt.want) {
			t.Errorf("%s: got %#x (%g), want %g", tt.name, got, math.Float32frombits(uint32(got)), tt.want)
		}
	}
	nan := k(float32(math.NaN()))
	if got := m.Dot(nan, k(1), f32(0)); got != 0x7fffffff {
		t.Errorf("NaN: got %#x", got)
	}
	if got := m.Dot(k(float32(math.Inf(1))), k(0), f32(0)); got != 0x7fffffff {
		t.Errorf("Inf*0: got %#x", got)
	}
	if got := m.Dot(k(float32(math.Inf(-1))), k(2), f32(1)); got != f32(float32(math.Inf(-1))) {
		t.Errorf("-Inf: got %#x", got)
	}
}

func TestExactEncoder(t *testing.T) {
	v := ProbeVariants()
	bf16, e4m3, f16 := v[1].A, v[4].A, v[0].A
	for _, c := range []struct {
		x    float64
		want uint64
		ok   bool
	}{{1, 0x3f80, true}, {-2, 0xc000, true}, {math.Ldexp(1, -133), 0x0001, true}, {1.0 / 3, 0, false}} {
		got, ok := exact(bf16, c.x)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("bf16 %g: %#x %v", c.x, got, ok)
		}
	}
	if got, ok := exact(e4m3, 448); !ok || got != 0x7e {
		t.Errorf("e4m3 448: %#x %v", got, ok)
	}
	if _, ok := exact(e4m3, 480); ok {
		t.Error("e4m3 480 must not encode (0x7f is NaN)")
	}
	if got, ok := exact(f16, math.Ldexp(1, -24)); !ok || got != 1 {
		t.Errorf("f16 2^-24: %#x %v", got, ok)
	}
}
