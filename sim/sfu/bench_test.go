package sfu

import (
	"math"
	"testing"
	"time"
)

// benchBits is 4096 operands of a form spread over its first domain's bit
// patterns (many saturate, are NaN or take a special path).
func benchBits(f *Form) (a, b []uint64) {
	d := f.Domains()[0]
	for k := range 4096 {
		x, y := d.Input(uint32(Mix64(uint64(k)) >> (64 - d.Bits)))
		a, b = append(a, x), append(b, y)
	}
	return a, b
}

// typicalRange is where a kernel's operands of each operation usually lie
// (a softmax's exponents, a normalisation's sums, a GELU's arguments).
func typicalRange(base string) (lo, hi float64) {
	switch base {
	case "ex2":
		return -20, 4
	case "sin", "cos":
		return -8, 8
	case "tanh":
		return -4, 4
	case "div":
		return -100, 100
	}
	return 1.0 / 1024, 1024 // lg2, rcp, rsqrt, sqrt
}

// benchTypical is 4096 operands of a form uniformly in its typical range,
// encoded in the form's operand format (each lane of a packed form).
func benchTypical(f *Form) (a, b []uint64) {
	lo, hi := typicalRange(f.Base())
	val := func(k, lane int) float64 {
		u := float64(Mix64(uint64(k)<<2|uint64(lane))>>11) / (1 << 53)
		return lo + u*(hi-lo)
	}
	for k := range 4096 {
		var x, y uint64
		switch f.Kind {
		case Unary64:
			x = bits64(val(k, 0))
		case Unary16:
			x = uint64(f32ToHalf(bits32(float32(val(k, 0))), f.Half() == "bf16"))
		case Unary16x2:
			bf := f.Half() == "bf16"
			x = uint64(f32ToHalf(bits32(float32(val(k, 0))), bf)) | uint64(f32ToHalf(bits32(float32(val(k, 1))), bf))<<16
		case Binary32:
			x, y = uint64(bits32(float32(val(k, 0)))), uint64(bits32(float32(val(k, 1))))
		default:
			x = uint64(bits32(float32(val(k, 0))))
		}
		a, b = append(a, x), append(b, y)
	}
	return a, b
}

// bareCall is the float64 function alone on the operands already decoded
// to float64 (no format conversion, no rounding): the cheapest float64
// stand-in for the instruction.
func bareCall(f *Form, a, b []uint64) (fn func(i int) float64) {
	x := make([]float64, len(a))
	y := make([]float64, len(a))
	for i := range a {
		switch f.Kind {
		case Unary64:
			x[i] = f64(a[i])
		case Unary16, Unary16x2:
			bf := f.Half() == "bf16"
			x[i] = float64(f32(halfToF32(uint16(a[i]), bf)))
			y[i] = float64(f32(halfToF32(uint16(a[i]>>16), bf)))
		default:
			x[i], y[i] = float64(f32(uint32(a[i]))), float64(f32(uint32(b[i])))
		}
	}
	op := refFunc(f.Base())
	switch f.Kind {
	case Binary32:
		return func(i int) float64 { return x[i] / y[i] }
	case Unary16x2:
		return func(i int) float64 { return op(x[i]) + op(y[i]) }
	}
	return func(i int) float64 { return op(x[i]) }
}

// nsPer times fn over 4096 operands for about d.
func nsPer(fn func(i int) uint64, d time.Duration) float64 {
	var sink uint64
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		for i := range 4096 {
			sink += fn(i)
		}
		n += 4096
	}
	benchSink = sink
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

var benchSink uint64

// ratios measures the model and two baselines in alternating rounds and
// returns the model's cost over each baseline's, from the fastest round
// of each (a shared machine's load slows some rounds, never speeds one up).
func ratios(model, ref, bare func(i int) uint64) (xRef, xBare float64) {
	best := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	for range 7 {
		for k, fn := range []func(int) uint64{model, ref, bare} {
			best[k] = min(best[k], nsPer(fn, 10*time.Millisecond))
		}
	}
	return best[0] / best[1], best[0] / best[2]
}

// BenchmarkModel evaluates every form with the bit-exact model, on
// typical-range operands and on bit patterns spread over its domain. Two
// ratios, measured in the same run, in alternating rounds: x-float64 is
// its cost as a multiple of the float64 approximation it replaces
// (Reference: the operand decoded, the math package's function, the
// result rounded to the format), x-bare as a multiple of the math
// package's function alone on operands already in float64.
func BenchmarkModel(b *testing.B) {
	for _, set := range []struct {
		name string
		gen  func(*Form) (a, b []uint64)
	}{{"typical", benchTypical}, {"bits", benchBits}} {
		for _, f := range Forms() {
			a, c := set.gen(f)
			var xRef, xBare float64
			b.Run(set.name+"/"+f.Op, func(b *testing.B) {
				if xRef == 0 { // once per sub-benchmark, not per b.N
					bare := bareCall(f, a, c)
					xRef, xBare = ratios(func(i int) uint64 { return f.Eval(a[i], c[i]) },
						func(i int) uint64 { return Reference(f, a[i], c[i]) },
						func(i int) uint64 { return math.Float64bits(bare(i)) })
					b.ResetTimer()
				}
				var sink uint64
				for i := 0; b.Loop(); i++ {
					k := i & 4095
					sink += f.Eval(a[k], c[k])
				}
				benchSink = sink
				b.ReportMetric(xRef, "x-float64")
				b.ReportMetric(xBare, "x-bare")
			})
		}
	}
}

// BenchmarkChunk hashes one chunk (2^20 inputs) of a campaign with the model.
func BenchmarkChunk(b *testing.B) {
	for _, op := range []string{"ex2.approx.ftz.f32", "div.full.f32", "ex2.approx.f16x2", "rsqrt.approx.f64"} {
		f := MustLookup(op)
		d := f.Domains()[0]
		b.Run(op, func(b *testing.B) {
			for b.Loop() {
				f.ChunkHash(d, 1000)
			}
		})
	}
}

// TestBenchInputs: the typical operands are finite and in range (a
// benchmark of NaNs would measure a shortcut).
func TestBenchInputs(t *testing.T) {
	for _, f := range Forms() {
		a, b := benchTypical(f)
		lo, hi := typicalRange(f.Base())
		for i := range a {
			var vals []float64
			switch f.Kind {
			case Unary64:
				vals = []float64{f64(a[i])}
			case Unary16, Unary16x2:
				bf := f.Half() == "bf16"
				vals = []float64{float64(f32(halfToF32(uint16(a[i]), bf)))}
				if f.Kind == Unary16x2 {
					vals = append(vals, float64(f32(halfToF32(uint16(a[i]>>16), bf))))
				}
			case Binary32:
				vals = []float64{float64(f32(uint32(a[i]))), float64(f32(uint32(b[i])))}
			default:
				vals = []float64{float64(f32(uint32(a[i])))}
			}
			for _, v := range vals {
				if !(v >= lo*1.01-1e-3 && v <= hi*1.01+1e-3) {
					t.Fatalf("%s operand %d: %g outside [%g, %g]", f.Op, i, v, lo, hi)
				}
			}
		}
	}
}
