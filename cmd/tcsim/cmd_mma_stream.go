package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
)

// operandSource yields the elements of one operand problem by problem.
type operandSource interface {
	next() ([]uint64, error)
}

// mmaSources are the operands of tcsim mma (sfa and sfb only for the
// block-scaled kinds) and the names errors use.
type mmaSources struct {
	a, b, c, sfa, sfb operandSource
	names             [5]string
}

// mmaProblem is one problem of a batch: its operands and, once computed, D.
type mmaProblem struct {
	p                 int
	a, b, c, sfa, sfb []uint64
	d                 []uint64
	err               error
	res               chan *mmaProblem // receives the problem when it is done
}

func (pr *mmaProblem) done() { pr.res <- pr }

// isGenerator reports whether spec names one of launch's buffer
// generators (zero, iota:..., const:..., random:..., int:..., uniform:...)
// rather than a file. A file whose name looks like one can be given as
// ./NAME.
func isGenerator(spec string) bool {
	kind, _, _ := strings.Cut(spec, ":")
	switch kind {
	case "zero", "iota", "const", "random", "int", "uniform":
		return kind == spec || strings.Contains(spec, ":")
	}
	return false
}

// openOperand opens an operand given as a file (raw or .npy) or as a
// generator, for T problems of rows×cols elements of f. The closer, when
// not nil, closes the file.
func openOperand(spec string, f *numfmt.Format, T, rows, cols int) (operandSource, func() error, error) {
	per := rows * cols
	if isGenerator(spec) {
		g, err := newGenSource(spec, f, per)
		return g, nil, err
	}
	file, err := os.Open(spec)
	if err != nil {
		return nil, nil, err
	}
	if st, err := file.Stat(); err == nil && st.IsDir() {
		file.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: spec, Err: syscall.EISDIR}
	}
	r := bufio.NewReaderSize(file, 1<<16)
	if strings.HasSuffix(strings.ToLower(spec), ".npy") {
		h, err := datapath.ReadNpyHeader(r, datapath.MaxNpyElements)
		if err == nil {
			want := max(8, datapath.ElemBits(f))
			if h.Bits != want {
				err = fmt.Errorf("dtype uint%d, but .%s elements need uint%d", h.Bits, f.Name, want)
			} else {
				shape := []int{rows, cols}
				if T > 1 {
					shape = []int{T, rows, cols}
				}
				err = datapath.CheckShape(h.Shape, shape)
			}
		}
		if err != nil {
			file.Close()
			return nil, nil, fmt.Errorf("%s: %w", spec, err)
		}
		return &npySource{name: spec, r: r, bits: h.Bits, per: per, left: T}, file.Close, nil
	}
	need := int64(datapath.FileBytes(f, T*per))
	if st, err := file.Stat(); err == nil && st.Mode().IsRegular() && st.Size() != need {
		file.Close()
		return nil, nil, fmt.Errorf("%s: %d bytes, want %d (%d elements of .%s at %d bits each)", spec, st.Size(), need, T*per, f.Name, datapath.ElemBits(f))
	}
	if T > 1 && per*datapath.ElemBits(f)%8 != 0 {
		file.Close()
		return nil, nil, fmt.Errorf("%s: a problem of %d .%s elements does not end on a byte; use --batch 1", spec, per, f.Name)
	}
	return &rawSource{name: spec, r: r, f: f, per: per, left: T, total: need}, file.Close, nil
}

// rawSource reads raw little-endian element bits, one problem at a time.
type rawSource struct {
	name  string
	r     io.Reader
	f     *numfmt.Format
	per   int
	left  int
	total int64
}

func (s *rawSource) next() ([]uint64, error) {
	buf := make([]byte, datapath.FileBytes(s.f, s.per))
	if n, err := io.ReadFull(s.r, buf); err != nil {
		return nil, fmt.Errorf("%s: the input ends early (%d bytes of a problem of %d; want %d bytes in all)", s.name, n, len(buf), s.total)
	}
	s.left--
	if s.left == 0 {
		// a device or pipe must end here too
		if n, _ := io.Copy(io.Discard, io.LimitReader(s.r, 1)); n > 0 {
			return nil, fmt.Errorf("%s: more than %d bytes, want %d (%d elements of .%s at %d bits each)", s.name, s.total, s.total, int(s.total*8)/datapath.ElemBits(s.f), s.f.Name, datapath.ElemBits(s.f))
		}
	}
	vals, err := datapath.Unpack(s.f, buf, s.per)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return vals, nil
}

// npySource reads the body of a .npy array whose header was checked.
type npySource struct {
	name string
	r    io.Reader
	bits int
	per  int
	left int
}

func (s *npySource) next() ([]uint64, error) {
	vals, err := datapath.ReadNpyBody(s.r, s.bits, s.per)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	s.left--
	if s.left == 0 {
		if n, _ := io.Copy(io.Discard, io.LimitReader(s.r, 1)); n > 0 {
			return nil, fmt.Errorf("%s: .npy body is longer than its header promises", s.name)
		}
	}
	return vals, nil
}

// genSource produces an operand with one of launch's buffer generators:
// problem p is elements [p·per, (p+1)·per) of the generated stream, so a
// batch holds the same values whether it is computed whole or in pieces.
// Typed generators need the operand's own element type (f32 stands for
// tf32, whose values are the f32 values truncated to tf32); formats that
// launch has no type for (tf32 aside: the FP6/FP4 formats, s4/u4, b1 and
// the scale formats) take zero and random:SEED, whose random bits are
// masked to the format's width.
type genSource struct {
	fill launch.Fill
	f    *numfmt.Format
	per  int
	p    int
	typ  launch.ScalarType // InvalidType for zero and random
}

func newGenSource(spec string, f *numfmt.Format, per int) (*genSource, error) {
	want := f.Name // the generator type of the operand's values
	if want == "tf32" {
		want = "f32"
	}
	parts := strings.Split(spec, ":")
	if len(parts) > 1 && parts[1] == "tf32" && f.Name == "tf32" {
		parts[1] = want
	}
	parts = withOperandType(parts, want)
	fill, err := launch.ParseFill(strings.Join(parts, ":"))
	if err != nil {
		return nil, err
	}
	g := &genSource{fill: fill, f: f, per: per}
	if fill.Kind == launch.FillZero || fill.Kind == launch.FillRandom {
		return g, nil
	}
	if fill.Type.String() != want {
		if _, err := launch.ParseScalarType(want); err != nil {
			return nil, fmt.Errorf("generator %s: .%s operands take zero or random:SEED (the typed generators know %s)", spec, f.Name, "u8 s8 u32 s32 f16 bf16 f32 e4m3 e5m2")
		}
		return nil, fmt.Errorf("generator %s makes %s values, but the operand holds .%s: write %s", spec, fill.Type, f.Name, strings.Replace(spec, ":"+parts[1], ":"+f.Name, 1))
	}
	g.typ = fill.Type
	return g, nil
}

// withOperandType completes a typed generator written without its type
// (iota, const:0.5, uniform:7:-1:1) with typ, the generator type of the
// operand's values, which the instruction already names; a generator that
// names a type, or an operand whose format launch has no type for, is left
// as written.
func withOperandType(parts []string, typ string) []string {
	switch parts[0] {
	case "iota", "const", "int", "uniform":
	default:
		return parts
	}
	if len(parts) > 1 {
		if _, err := launch.ParseScalarType(parts[1]); err == nil {
			return parts
		}
	}
	if _, err := launch.ParseScalarType(typ); err != nil {
		return parts
	}
	return append([]string{parts[0], typ}, parts[1:]...)
}

func (g *genSource) next() ([]uint64, error) {
	defer func() { g.p++ }()
	if g.typ == launch.InvalidType {
		n := datapath.FileBytes(g.f, g.per)
		b, err := g.fill.GenerateAt(g.p*n, n)
		if err != nil {
			return nil, err
		}
		vals, err := datapath.Unpack(g.f, b, g.per)
		if err != nil {
			return nil, err
		}
		valid := uint64(1)<<(g.f.Bits+g.f.Shift) - 1
		if g.f.Bits+g.f.Shift >= 64 {
			valid = ^uint64(0)
		}
		valid &^= uint64(1)<<g.f.Shift - 1
		for i := range vals {
			vals[i] &= valid
		}
		return vals, nil
	}
	es := g.typ.Size()
	b, err := g.fill.GenerateAt(g.p*g.per*es, g.per*es)
	if err != nil {
		return nil, err
	}
	vals := make([]uint64, g.per)
	for i := range vals {
		var v uint64
		for k := es - 1; k >= 0; k-- {
			v = v<<8 | uint64(b[i*es+k])
		}
		if g.f.Name == "tf32" {
			v &^= 1<<13 - 1
		}
		vals[i] = v
	}
	return vals, nil
}

// streamMMA reads the T problems one by one, computes them on workers
// goroutines and hands them to emit in order. At most about 3·workers
// problems are in memory at once.
func streamMMA(in datapath.Inst, T, workers int, s mmaSources, emit func(*mmaProblem) error) error {
	workers = max(1, min(workers, T))
	jobs := make(chan *mmaProblem, workers)
	order := make(chan chan *mmaProblem, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pr := range jobs {
				pr.d = computeMMA(in, pr)
				pr.done()
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for p := 0; p < T; p++ {
			pr := &mmaProblem{p: p, res: make(chan *mmaProblem, 1)}
			pr.err = s.read(in, pr)
			select {
			case order <- pr.res:
			case <-stop:
				return
			}
			if pr.err != nil {
				pr.done()
				return
			}
			select {
			case jobs <- pr:
			case <-stop:
				return
			}
		}
	}()
	var err error
	for res := range order {
		pr := <-res
		if pr.err != nil {
			err = pr.err
			break
		}
		if err = emit(pr); err != nil {
			break
		}
	}
	close(stop)
	go func() { // let the producer and the workers finish
		for range order {
		}
	}()
	wg.Wait()
	return err
}

// read fills pr's operands from the sources and checks tcgen05 elements.
func (s mmaSources) read(in datapath.Inst, pr *mmaProblem) error {
	dst := []*[]uint64{&pr.a, &pr.b, &pr.c, &pr.sfa, &pr.sfb}
	for i, src := range []operandSource{s.a, s.b, s.c, s.sfa, s.sfb} {
		if src == nil {
			continue
		}
		v, err := src.next()
		if err != nil {
			return badInput(err)
		}
		*dst[i] = v
	}
	if in.Family == datapath.FamilyTcgen05 {
		for i, x := range []struct {
			f *numfmt.Format
			v []uint64
		}{{in.A, pr.a}, {in.B, pr.b}, {in.Scale, pr.sfa}, {in.Scale, pr.sfb}} {
			if x.f == nil || x.v == nil {
				continue
			}
			what := s.names[[]int{0, 1, 3, 4}[i]]
			if err := datapath.CheckElems(x.f, x.v, what); err != nil {
				return badInput(err)
			}
		}
	}
	return nil
}

// computeMMA computes one problem's D.
func computeMMA(in datapath.Inst, pr *mmaProblem) []uint64 {
	M, N, K := in.M, in.N, in.K
	switch ev := in.Eval.(type) {
	case nil:
		return in.Block.MatMul(M, N, K, pr.a, pr.b, pr.sfa, pr.sfb, pr.c)
	case interface {
		MatMul(M, N, K int, a, b, c []uint64) []uint64
	}:
		return ev.MatMul(M, N, K, pr.a, pr.b, pr.c)
	default:
		d := make([]uint64, 0, M*N)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				d = append(d, ev.Dot(pr.a[i*K:(i+1)*K], pr.b[j*K:(j+1)*K], pr.c[i*N+j]))
			}
		}
		return d
	}
}

// mmaSink writes D problem by problem to a file or standard output.
type mmaSink struct {
	name string
	f    *os.File // nil for standard output
	w    *bufio.Writer
	in   datapath.Inst
	npy  bool
	n    int64
}

func newMMASink(e *env, name string, in datapath.Inst, T int) (*mmaSink, error) {
	s := &mmaSink{name: name, in: in}
	var w io.Writer
	if name == "-" {
		s.name = "standard output"
		w = e.stdout
	} else {
		f, err := os.Create(name)
		if err != nil {
			return nil, err
		}
		s.f, w = f, f
	}
	s.w = bufio.NewWriterSize(w, 1<<16)
	if strings.HasSuffix(strings.ToLower(name), ".npy") {
		s.npy = true
		shape := []int{in.M, in.N}
		if T > 1 {
			shape = []int{T, in.M, in.N}
		}
		// the header alone: WriteNpy with no values
		var hdr strings.Builder
		if err := datapath.WriteNpy(&hdr, nil, max(8, datapath.ElemBits(in.C)), shape...); err != nil {
			return nil, err
		}
		n, _ := s.w.WriteString(hdr.String())
		s.n += int64(n)
	}
	return s, nil
}

func (s *mmaSink) write(d []uint64) error {
	var b []byte
	if s.npy {
		var buf strings.Builder
		if err := datapath.WriteNpy(&buf, d, max(8, datapath.ElemBits(s.in.C)), len(d)); err != nil {
			return err
		}
		// drop the header WriteNpy put before the values
		full := buf.String()
		h := len(full) - len(d)*npyElemSize(datapath.ElemBits(s.in.C))
		b = []byte(full[h:])
	} else {
		b = datapath.Pack(s.in.C, d)
	}
	n, err := s.w.Write(b)
	s.n += int64(n)
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.name, err)
	}
	return nil
}

// npyElemSize is the byte width WriteNpy uses for elements of bits.
func npyElemSize(bits int) int {
	switch size := max(1, (bits+7)/8); {
	case size == 3:
		return 4
	case size > 4:
		return 8
	default:
		return size
	}
}

func (s *mmaSink) close() error {
	err := s.w.Flush()
	if s.f != nil {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.name, err)
	}
	return nil
}

// printMMAResult prints one problem's D as a matrix of values.
func printMMAResult(e *env, in datapath.Inst, pr *mmaProblem, T int) {
	title := fmt.Sprintf("D: %d×%d .%s, row-major", in.M, in.N, in.C.Name)
	if T > 1 {
		title = fmt.Sprintf("D of problem %d: %d×%d .%s, row-major", pr.p, in.M, in.N, in.C.Name)
	}
	fmt.Fprintln(e.stdout, title)
	printMatrix(e.stdout, in.M, in.N, func(i, j int) string {
		return elemString(in.C, pr.d[i*in.N+j])
	}, e.width, "--out FILE writes all of D")
}

// elemString prints one element of f: integers in decimal, floats as the
// shortest decimal that reads back to the same value.
func elemString(f *numfmt.Format, bits uint64) string {
	v := f.Decode(bits)
	if !f.IsFloat() {
		return v.String()
	}
	if v.IsNaN() {
		return "nan"
	}
	if v.IsInf() {
		if v.Neg {
			return "-inf"
		}
		return "inf"
	}
	if f.Bits <= 32 {
		return strconv.FormatFloat(v.Float64(), 'g', -1, 32)
	}
	return strconv.FormatFloat(v.Float64(), 'g', -1, 64)
}

// printExact prints the operands of one output element, the exact real
// value of A·B + C and how far D lies from it in units in the last place
// of D's format.
func printExact(w io.Writer, in datapath.Inst, a, b, sfa, sfb []uint64, c, d uint64) {
	fmt.Fprintln(w, "operands (k: a_k × b_k):")
	exact := new(big.Rat)
	finite := true
	rat := func(f *numfmt.Format, bits uint64) *big.Rat {
		v := f.Decode(bits)
		if !v.IsFinite() {
			finite = false
			return new(big.Rat)
		}
		return v.Rat()
	}
	var line []string
	flush := func() {
		if len(line) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(line, "   "))
			line = nil
		}
	}
	zeros := -1 // start of a run of 0 × 0 terms
	endZeros := func(k int) {
		if zeros >= 0 {
			if k-1 > zeros {
				line = append(line, fmt.Sprintf("%d..%d: 0 × 0", zeros, k-1))
			} else {
				line = append(line, fmt.Sprintf("%2d: 0 × 0", zeros))
			}
			zeros = -1
			if len(line) >= 4 {
				flush()
			}
		}
	}
	for k := range a {
		ak, bk := rat(in.A, a[k]), rat(in.B, b[k])
		if ak.Sign() == 0 && bk.Sign() == 0 && in.A.Decode(a[k]).IsFinite() && in.B.Decode(b[k]).IsFinite() {
			if zeros < 0 {
				zeros = k
			}
			continue
		}
		endZeros(k)
		p := new(big.Rat).Mul(ak, bk)
		if in.NegA != in.NegB {
			p.Neg(p)
		}
		if in.BlockSize > 0 && len(sfa) > 0 {
			j := k / in.BlockSize
			p.Mul(p, rat(in.Scale, sfa[j]))
			p.Mul(p, rat(in.Scale, sfb[j]))
		}
		exact.Add(exact, p)
		line = append(line, fmt.Sprintf("%2d: %s × %s", k, elemString(in.A, a[k]), elemString(in.B, b[k])))
		if len(line) >= 4 {
			flush()
		}
	}
	endZeros(len(a))
	flush()
	if in.BlockSize > 0 && len(sfa) > 0 {
		var sa, sb []string
		for j := range sfa {
			sa = append(sa, elemString(in.Scale, sfa[j]))
			sb = append(sb, elemString(in.Scale, sfb[j]))
		}
		fmt.Fprintf(w, "  scale factors per %d elements of K: A %s, B %s\n", in.BlockSize, strings.Join(sa, " "), strings.Join(sb, " "))
	}
	cr := rat(in.C, c)
	if in.ScaleD > 0 {
		cr.Mul(cr, new(big.Rat).SetFrac64(1, 1<<in.ScaleD))
	}
	exact.Add(exact, cr)
	fmt.Fprintf(w, "  c = %s\n", elemString(in.C, c))
	if !finite {
		fmt.Fprintln(w, "exact A·B + C: not a finite number (an operand is NaN or infinite)")
		return
	}
	dec, digits := exactDecimal(exact)
	fmt.Fprintf(w, "exact A·B + C = %s\n", dec)
	if digits > 40 {
		// a long expansion: its first digits too
		if ev, ok := numfmt.FromRat(exact); ok {
			fmt.Fprintf(w, "              ≈ %s (%d significant digits)\n", ev.Sci(17), digits)
		} else {
			f, _ := exact.Float64()
			fmt.Fprintf(w, "              ≈ %s (%d significant digits)\n", strconv.FormatFloat(f, 'g', 17, 64), digits)
		}
	}
	dv := in.C.Decode(d)
	if !dv.IsFinite() {
		fmt.Fprintf(w, "D = %s is not finite\n", elemString(in.C, d))
		return
	}
	diff := new(big.Rat).Sub(dv.Rat(), exact)
	if !in.C.IsFloat() {
		fmt.Fprintf(w, "D = %s: %s the exact sum\n", elemString(in.C, d), map[bool]string{true: "equal to", false: "differs from (wrapped or saturated)"}[diff.Sign() == 0])
		return
	}
	ulp := ulpAt(in.C, exact)
	errUlp := new(big.Rat).Quo(diff, ulp)
	f, _ := errUlp.Float64()
	fmt.Fprintf(w, "D = %s: error %s ULP of .%s (ulp here = 2^%d)\n", elemString(in.C, d), strconv.FormatFloat(f, 'g', 6, 64), in.C.Name, ratLog2(ulp))
}

// exactDecimal writes x exactly: as a decimal when its denominator is a
// power of two (every sum of binary floating-point values is one), else as
// the fraction p/q. digits is the number of significant decimal digits.
func exactDecimal(x *big.Rat) (s string, digits int) {
	num, den := new(big.Int).Abs(x.Num()), x.Denom()
	k := den.BitLen() - 1
	if den.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(k))) != 0 {
		return x.RatString(), 0
	}
	// x = num / 2^k = num·5^k / 10^k: the digits of num·5^k, the point k
	// places from the right
	t := new(big.Int).Mul(num, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	d := t.String()
	if len(d) <= k {
		d = strings.Repeat("0", k-len(d)+1) + d
	}
	intPart, frac := d[:len(d)-k], strings.TrimRight(d[len(d)-k:], "0")
	s = intPart
	if frac != "" {
		s += "." + frac
	}
	digits = len(strings.TrimLeft(intPart+frac, "0"))
	if x.Sign() < 0 {
		s = "-" + s
	}
	return s, digits
}

// ulpAt is the spacing of format f's values at |x| (its smallest spacing,
// the subnormal one, near zero).
func ulpAt(f *numfmt.Format, x *big.Rat) *big.Rat {
	minExp := 1 - f.Bias // exponent of the smallest normal
	e := minExp
	if x.Sign() != 0 {
		e = max(ratLog2(new(big.Rat).Abs(x)), minExp)
	}
	u := new(big.Rat).SetInt64(1)
	p := e - f.MantBits
	two := new(big.Int).Lsh(big.NewInt(1), uint(abs(p)))
	if p >= 0 {
		u.SetInt(two)
	} else {
		u.SetFrac(big.NewInt(1), two)
	}
	return u
}

// ratLog2 is floor(log2(x)) for x > 0.
func ratLog2(x *big.Rat) int {
	n, d := x.Num(), x.Denom()
	e := n.BitLen() - d.BitLen()
	// adjust: 2^e <= n/d < 2^(e+1)
	t := new(big.Rat).SetFrac(n, d)
	p := new(big.Rat).SetInt64(1)
	if e >= 0 {
		p.SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	} else {
		p.SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
	}
	if t.Cmp(p) < 0 {
		e--
	}
	return e
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
