package probe

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// wgmma probes. Every kernel keeps its shared-memory operands in a
// 1024-byte-aligned static buffer and reads them through descriptors that
// isa/desc encodes; the start addresses are relative to the buffer and
// the kernel adds the buffer's address.

// wgmmaInput is an operand type of the probes, with its instruction K.
type wgmmaInput struct {
	e      elem
	k      int    // K of one instruction: 32 bytes of elements
	tok    string // the catalog's operand token: b16, tf32, b8
	acc    elem   // the accumulator the probes read it through
	ptx    string // the PTX type
	imms   string // immediates after scale-d with A from shared memory (imm-trans-a is %d)
	immsRA string // with A from registers
}

var (
	inF16  = wgmmaInput{elemF16, 16, "b16", elemF32, "f16", ", 1, 1, %d, 0", ", 1, 1, 0"}
	inTF32 = wgmmaInput{elemTF32, 8, "tf32", elemF32, "tf32", ", 1, 1", ", 1, 1"}
	inU8   = wgmmaInput{elemU8, 32, "b8", elemS32, "u8", "", ""}
	// inE4M3 probes the 8-bit B tiles of the N that .s32 does not allow.
	inE4M3 = wgmmaInput{elemE4M3, 32, "b8", elemF32, "e4m3", ", 1, 1", ", 1, 1"}
)

// op is the instruction for shape n with accumulator acc.
func (in wgmmaInput) op(n int, acc elem) string {
	return fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s", n, in.k, acc, in.ptx, in.ptx)
}

// smemImms is the immediates for A from shared memory.
func (in wgmmaInput) smemImms(transA int) string {
	if in.e == elemF16 {
		return fmt.Sprintf(in.imms, transA)
	}
	return in.imms
}

// image is a shared-memory image under construction.
type image []byte

// set writes value v of type e at byte offset off.
func (im image) set(off int, e elem, v int) {
	bits := e.encode(v)
	for i := 0; i < e.bits()/8; i++ {
		im[off+i] = byte(bits >> (8 * i))
	}
}

// fill writes f(mn, k) for every cell of an rows×cols operand placed by l
// at byte base.
func (im image) fill(l operandLayout, base, rows, cols int, e elem, f func(mn, k int) int) {
	for mn := 0; mn < rows; mn++ {
		for k := 0; k < cols; k++ {
			im.set(base+l.byteOffset(mn, k), e, f(mn, k))
		}
	}
}

// codes writes the element-index codes of a region: element i (byte
// offset i*size) holds digit pass of i (e.g. pass 0: i & 255, pass 1:
// i >> 8).
func (im image) codes(base, bytes int, e elem, pass int) {
	size := e.bits() / 8
	for i := 0; i < bytes/size; i++ {
		im.set(base+i*size, e, codeDigit(i, pass, e.digitBits()))
	}
}

// codeByte is byte pass of code.
func codeByte(code, pass int) int { return codeDigit(code, pass, 8) }

// codeDigit is digit pass of code in base 2^bits.
func codeDigit(code, pass, bits int) int { return code >> (bits * pass) & (1<<bits - 1) }

// regsFromAtom packs, for every thread of a register atom, the values
// f(row, col) of the cells the catalog gives it, four registers per
// thread (unused registers 0).
func regsFromAtom(a catalog.Atom, e elem, f func(row, col int) int) [][4]uint32 {
	regs := make([][4]uint32, a.Threads())
	vals := make([]int, a.ValsPerReg)
	for t := range regs {
		for r := 0; r < a.Values()/a.ValsPerReg; r++ {
			for i := range vals {
				row, col := coord(a, t, r*a.ValsPerReg+i)
				vals[i] = f(row, col)
			}
			regs[t][r] = pack(e, vals)
		}
	}
	return regs
}

// regsFromCodes packs code(t, v) = t*values + v (byte pass of it) into
// the registers of threads threads with values values each, perReg a
// register: no layout involved.
func regsFromCodes(threads, values, perReg int, e elem, pass int) [][4]uint32 {
	regs := make([][4]uint32, threads)
	vals := make([]int, perReg)
	for t := range regs {
		for r := 0; r < values/perReg; r++ {
			for i := range vals {
				vals[i] = codeByte(t*values+r*perReg+i, pass)
			}
			regs[t][r] = pack(e, vals)
		}
	}
	return regs
}

// wgmmaJob is the input of one CTA of a wgmma kernel.
type wgmmaJob struct {
	descs [16]uint64
	regs  [][4]uint32 // with regA
	image image
}

// record lays a job out as the kernel reads it.
func (k *wgmmaKernel) record(j wgmmaJob) []byte {
	rec := make([]byte, k.inRec())
	for i, d := range j.descs {
		put64(rec, 8*i, d)
	}
	if k.regA {
		for t, r := range j.regs {
			for i, v := range r {
				put32(rec, 128+16*t+4*i, v)
			}
		}
	}
	copy(rec[k.imageOffset():], j.image)
	return rec
}

// wgmmaOut reads a wgmma kernel's output.
type wgmmaOut struct {
	k   *wgmmaKernel
	out []byte
}

// reg is accumulator register r of thread t, slice s, for job (a CTA)
// running shape n.
func (o wgmmaOut) reg(job, n, s, t, r int) uint32 {
	return le32(o.out, job*o.k.outRec()+16+s*o.k.sliceBytes(n)+(t*o.k.regs(n)+r)*4)
}

// value decodes value v of thread t of the accumulator atom d (m64nN).
func (o wgmmaOut) value(d catalog.Atom, job, s, t, v int) (int, error) {
	raw := unpack(o.k.acc, o.reg(job, d.Cols, s, t, v/d.ValsPerReg), v%d.ValsPerReg)
	x, err := o.k.acc.decode(raw)
	if err != nil {
		return 0, fmt.Errorf("CTA %d, thread %d, value %d: %w", job, t, v, err)
	}
	return x, nil
}

// checkBase verifies that the shared buffer of every job was
// 1024-byte aligned, which the swizzled layouts assume.
func (o wgmmaOut) checkBase(jobs ...int) error {
	for _, j := range jobs {
		if b := le32(o.out, j*o.k.outRec()); b%1024 != 0 {
			return fmt.Errorf("CTA %d: the shared buffer is at %#x, not 1024-byte aligned (or the kernel did not run)", j, b)
		}
	}
	return nil
}

func (k *wgmmaKernel) checkSize(out []byte) error {
	if want := k.jobs() * k.outRec(); len(out) != want {
		return fmt.Errorf("output has %d bytes, want %d (%d CTAs x %d)", len(out), want, k.jobs(), k.outRec())
	}
	return nil
}

func mustAtom(k catalog.Key) catalog.Atom {
	a, err := catalog.Find(k)
	if err != nil {
		panic("probe: " + err.Error())
	}
	return a
}

// accKey is the catalog key of the wgmma accumulator m64nN of type e.
func accKey(n int, e elem) catalog.Key {
	el := map[elem]catalog.Elem{elemF32: catalog.ElemF32, elemF16: catalog.ElemF16, elemS32: catalog.ElemS32}[e]
	return catalog.Key{Family: catalog.WGMMA, Operand: catalog.OperandD, M: 64, N: n, Elem: el}
}

// accAtom is the catalog's accumulator atom for m64nN of type e.
func accAtom(n int, e elem) catalog.Atom { return mustAtom(accKey(n, e)) }

// aKey is the catalog key of operand A of in, from registers or (smem)
// shared memory.
func (in wgmmaInput) aKey(smem bool) catalog.Key {
	return catalog.Key{Family: catalog.WGMMA, Operand: catalog.OperandA, M: 64, K: in.k, Elem: catalog.OperandElem(in.e.bits()), Smem: smem}
}

// bKey is the catalog key of operand B of in for shape n.
func (in wgmmaInput) bKey(n int) catalog.Key {
	return catalog.Key{Family: catalog.WGMMA, Operand: catalog.OperandB, N: n, K: in.k, Elem: catalog.OperandElem(in.e.bits()), Smem: true}
}

// kInter is the K-major no-swizzle layout every probe uses for its
// identity and constant operands: core matrices 8 rows x 16 bytes, the
// two along K side by side (LBO 128), 8-row groups 256 bytes apart.
var kInter = geometry(desc.MajorK, desc.SwizzleNone)

func mustLayout(g smemGeometry, bits int) operandLayout {
	l, err := layoutFor(g, bits)
	if err != nil {
		panic("probe: " + err.Error())
	}
	return l
}

// accCase probes the accumulators of every N for accumulator type acc,
// with inputs of type in (f16, u8 for s32; tf32 to show that the f32
// layout does not depend on K) and A from shared memory or (regA) from
// registers.
func accCase(acc elem, in wgmmaInput, regA bool) *Case { return accCaseN(acc, in, regA, nil) }

// accCaseN is accCase for the N in only (every N when only is nil).
func accCaseN(acc elem, in wgmmaInput, regA bool, only []int) *Case {
	src := "smem"
	if regA {
		src = "reg"
	}
	name := fmt.Sprintf("wgmma_acc_%s_%s", acc, src)
	if in != inF16 && in != inU8 {
		name = fmt.Sprintf("wgmma_acc_%s_%s_%s", acc, in.ptx, src)
	}
	k := &wgmmaKernel{name: name, input: in, acc: acc, image: 10240, regA: regA, passes: 2}
	var ns []int
	for _, n := range allN(only) {
		if _, err := catalog.Find(accKey(n, acc)); err == nil {
			ns = append(ns, n)
		}
	}
	imms := in.smemImms(0)
	if regA {
		imms = in.immsRA
	}
	for _, n := range ns {
		k.variants = append(k.variants, wgmmaVariant{op: in.op(n, acc), n: n, imms: imms, slices: 1})
	}
	how := "A from shared memory"
	if regA {
		how = "A from registers (loaded with the catalog's A fragment)"
	}
	k.comment = []string{
		fmt.Sprintf("wgmma accumulators (%s, from %s inputs, K = %d) for every N: %s,", acc, in.ptx, in.k, how),
		"B from shared memory,",
		"both K-major without swizzle. CTA 2i runs variant i with A(m,k) = m and B = 1,",
		"CTA 2i+1 with A = 1 and B(n,k) = n, so D(m,n) = K*m, then K*n, exactly.",
		"Each thread stores its raw accumulator registers in (thread, register) order.",
	}
	lay := mustLayout(kInter, in.e.bits())
	aReg := mustAtom(in.aKey(false))
	var recs []byte
	for _, n := range ns {
		for pass := 0; pass < 2; pass++ {
			j := wgmmaJob{image: make(image, k.image)}
			j.descs[0], j.descs[1] = kInter.descriptor(0), kInter.descriptor(2048)
			aVal := func(m, _ int) int { return m }
			bVal := func(int, int) int { return 1 }
			if pass == 1 {
				aVal = func(int, int) int { return 1 }
				bVal = func(n, _ int) int { return n }
			}
			if regA {
				j.regs = regsFromAtom(aReg, in.e, aVal)
			} else {
				j.image.fill(lay, 0, 64, in.k, in.e, aVal)
			}
			j.image.fill(lay, 2048, n, in.k, in.e, bVal)
			recs = append(recs, k.record(j)...)
		}
	}
	c := k.toCase(fmt.Sprintf("wgmma %s accumulators from %s (k%d), every N, A from %s", acc, in.ptx, in.k, src), recs)
	for i, n := range ns {
		d := accAtom(n, acc)
		i := i
		ck := Check{Atom: d.Name, Case: name,
			How: fmt.Sprintf("D = K*m, then K*n (A rows = m, B columns = n, %s, k%d)", how, in.k)}
		if regA {
			ck.Caveat = "assumes the catalog's register A fragment (wgmma_areg_" + in.tok + " checks it)"
		}
		ck.decode = func(out []byte) Outcome {
			o := wgmmaOut{k, out}
			if err := k.checkSize(out); err != nil {
				return failed(err)
			}
			if err := o.checkBase(2*i, 2*i+1); err != nil {
				return failed(err)
			}
			obs := newTV(d)
			for t := 0; t < 128; t++ {
				for v := 0; v < d.Values(); v++ {
					rv, err := o.value(d, 2*i, 0, t, v)
					if err != nil {
						return failed(err)
					}
					cv, err := o.value(d, 2*i+1, 0, t, v)
					if err != nil {
						return failed(err)
					}
					m, n := rv/in.k, cv/in.k
					if rv%in.k != 0 || cv%in.k != 0 || m < 0 || m >= 64 || n < 0 || n >= d.Cols {
						obs.put(t, v, seen{-1, fmt.Sprintf("D = %d and %d, not K*m and K*n of a cell", rv, cv)})
						continue
					}
					obs.put(t, v, seen{m + 64*n, ""})
				}
			}
			return obs.compare()
		}
		c.Checks = append(c.Checks, ck)
	}
	return c
}

// toCase wraps a wgmma kernel and its input records.
func (k *wgmmaKernel) toCase(title string, recs []byte) *Case {
	if len(recs) != k.jobs()*k.inRec() {
		panic(fmt.Sprintf("probe %s: %d input bytes for %d jobs of %d", k.name, len(recs), k.jobs(), k.inRec()))
	}
	return &Case{Name: k.name, Title: title, Arch: "sm_90a", PTX: k.ptx(), Threads: 128, Jobs: k.jobs(),
		InRec: k.inRec(), OutRec: k.outRec(), In: recs, spec: k}
}

// aRegCase probes the register A fragment of one input type: A register
// values are codes of (thread, value), B is the identity.
func aRegCase(in wgmmaInput) *Case {
	n := in.k
	name := "wgmma_areg_" + in.tok
	k := &wgmmaKernel{name: name, input: in, acc: in.acc, image: 2048, regA: true, passes: 2,
		variants: []wgmmaVariant{{op: in.op(n, in.acc), n: n, imms: in.immsRA, slices: 1}}}
	a := mustAtom(in.aKey(false))
	d := accAtom(n, in.acc)
	k.comment = []string{
		fmt.Sprintf("wgmma register A fragment (%s): value v of thread t holds code(t,v) = t*%d + v,", in.ptx, a.Values()),
		"its low byte in CTA 0 and its high byte in CTA 1 (exact in every type);",
		fmt.Sprintf("B (%dx%d, shared memory, K-major, no swizzle) is the identity, so D(m,n) = A(m,n).", n, in.k),
	}
	lay := mustLayout(kInter, in.e.bits())
	var recs []byte
	for pass := 0; pass < 2; pass++ {
		j := wgmmaJob{image: make(image, k.image), regs: regsFromCodes(128, a.Values(), a.ValsPerReg, in.e, pass)}
		j.descs[1] = kInter.descriptor(0)
		j.image.fill(lay, 0, n, in.k, in.e, func(n, k int) int { return b2i(n == k) })
		recs = append(recs, k.record(j)...)
	}
	c := k.toCase(fmt.Sprintf("wgmma register A fragment, %s", in.ptx), recs)
	c.Checks = []Check{{Atom: a.Name, Case: name,
		How:    "A registers hold code(thread, value), B = identity: D(m, k) names the (thread, value) at (m, k)",
		Caveat: "D is read through the catalog's accumulator layout (" + d.Name + ", checked by wgmma_acc_" + in.acc.String() + "_smem)",
		decode: func(out []byte) Outcome {
			o := wgmmaOut{k, out}
			if err := k.checkSize(out); err != nil {
				return failed(err)
			}
			obs := newTV(a)
			for t := 0; t < 128; t++ {
				for v := 0; v < d.Values(); v++ {
					code, err := readCode(o, d, []int{0, 1}, 8, 0, t, v)
					if err != nil {
						return failed(err)
					}
					m, col := coord(d, t, v)
					if code < 0 || code >= 128*a.Values() {
						return failed(fmt.Errorf("D(%d,%d) = %d is not a code", m, col, code))
					}
					obs.put(code/a.Values(), code%a.Values(), seen{m + 64*col, ""})
				}
			}
			return obs.compare()
		}}}
	return c
}

// readCode reads the code whose digits (of bits bits, low digit first)
// jobs hold at value v of thread t, slice s; -1 when a digit is out of
// range.
func readCode(o wgmmaOut, d catalog.Atom, jobs []int, bits, s, t, v int) (int, error) {
	code := 0
	for i, j := range jobs {
		x, err := o.value(d, j, s, t, v)
		if err != nil {
			return 0, err
		}
		if x < 0 || x >= 1<<bits {
			return -1, nil
		}
		code |= x << (bits * i)
	}
	return code, nil
}

// passJobs lists the jobs of variant i of a kernel with passes jobs per
// variant.
func passJobs(i, passes int) []int {
	out := make([]int, passes)
	for p := range out {
		out[p] = passes*i + p
	}
	return out
}

// allN is only, or every wgmma N (8, 16, ..., 256) when only is nil.
func allN(only []int) []int {
	if only != nil {
		return only
	}
	var ns []int
	for n := 8; n <= 256; n += 8 {
		ns = append(ns, n)
	}
	return ns
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bSmemCase probes the N×K B tile for every N: B in shared memory holds
// element-index codes, A is the identity.
func bSmemCase(in wgmmaInput) *Case { return bSmemCaseN(in, nil) }

// bSmemCaseN is bSmemCase for the N in only (every N when only is nil).
func bSmemCaseN(in wgmmaInput, only []int) *Case {
	name := "wgmma_b_" + in.tok
	// Codes up to 8191 (8 KB of 8-bit elements): 13 bits.
	passes := (13 + in.e.digitBits() - 1) / in.e.digitBits()
	k := &wgmmaKernel{name: name, input: in, acc: in.acc, image: 10240, passes: passes}
	for _, n := range allN(only) {
		k.variants = append(k.variants, wgmmaVariant{op: in.op(n, in.acc), n: n, imms: in.smemImms(0), slices: 1})
	}
	k.comment = []string{
		fmt.Sprintf("wgmma B tiles (%s) for every N: B (N x %d, shared memory, K-major, no swizzle)", in.ptx, in.k),
		fmt.Sprintf("holds element-index codes in %d-bit digits (digit p in CTA %di+p), A is the", in.e.digitBits(), passes),
		"identity, so D(m,n) = B(n, k=m) names the element the hardware read for (n, k).",
	}
	lay := mustLayout(kInter, in.e.bits())
	var recs []byte
	for _, v := range k.variants {
		for pass := 0; pass < passes; pass++ {
			j := wgmmaJob{image: make(image, k.image)}
			j.descs[0], j.descs[1] = kInter.descriptor(0), kInter.descriptor(2048)
			j.image.fill(lay, 0, 64, in.k, in.e, func(m, k int) int { return b2i(m == k) })
			j.image.codes(2048, v.n*32, in.e, pass)
			recs = append(recs, k.record(j)...)
		}
	}
	c := k.toCase(fmt.Sprintf("wgmma B tiles in shared memory, %s, every N", in.ptx), recs)
	for i, v := range k.variants {
		i, n := i, v.n
		b := mustAtom(in.bKey(n))
		d := accAtom(n, in.acc)
		c.Checks = append(c.Checks, Check{Atom: b.Name, Case: name,
			How:    "B holds the codes of its shared-memory elements, A = identity: D(k, n) names the element read for B(n, k)",
			Caveat: "the element of (n, k) is predicted with the no-swizzle K-major layout (smem.k.inter." + in.tok + ", checked by wgmma_smem_k_" + in.tok + ")",
			decode: func(out []byte) Outcome {
				return decodeOperand(wgmmaOut{k, out}, d, b, n, in, lay, passJobs(i, passes), 1, false)
			}})
	}
	return c
}

// decodeOperand reads a probe whose operand under test (rows×K, or
// rows×(slices*K) over several K slices) holds element-index codes and
// whose other operand is the identity. With the operand as B (aIsCodes
// false) D(m, n) is B(n, k=m); as A, D(m, n) is A(m, k=n). It compares the
// element read for each cell with lay's prediction.
func decodeOperand(o wgmmaOut, d, tile catalog.Atom, rows int, in wgmmaInput, lay operandLayout, jobs []int, slices int, aIsCodes bool) Outcome {
	if err := o.k.checkSize(o.out); err != nil {
		return failed(err)
	}
	if err := o.checkBase(jobs...); err != nil {
		return failed(err)
	}
	cols := slices * in.k
	got := make([]int, rows*cols)
	want := make([]int, rows*cols)
	for i := range got {
		got[i] = -1
		want[i] = lay.byteOffset(i%rows, i/rows) / lay.elemBytes()
	}
	for s := 0; s < slices; s++ {
		for t := 0; t < 128; t++ {
			for v := 0; v < d.Values(); v++ {
				m, n := coord(d, t, v)
				code, err := readCode(o, d, jobs, in.e.digitBits(), s, t, v)
				if err != nil {
					return failed(err)
				}
				var row, k int
				if aIsCodes {
					row, k = m, n
				} else {
					row, k = n, m
					if m >= in.k {
						if code != 0 {
							return failed(fmt.Errorf("D(%d,%d) = %d: rows of D past K must be 0 (A is the identity)", m, n, code))
						}
						continue
					}
				}
				if code < 0 {
					return failed(fmt.Errorf("D(%d,%d) in slice %d is not a code: the other operand was not the identity", m, n, s))
				}
				got[row+rows*(s*in.k+k)] = code
			}
		}
	}
	return compareCells(tile, rows, cols, got, want, "element")
}

// smemCase probes the shared-memory atoms of one element width and
// major-ness: A (64 x K) is read through descriptors in every swizzle
// mode, holding element-index codes; B is the identity.
func smemCase(in wgmmaInput, major desc.Major) *Case {
	mj := map[desc.Major]string{desc.MajorK: "k", desc.MajorMN: "mn"}[major]
	name := fmt.Sprintf("wgmma_smem_%s_%s", mj, in.tok)
	k := &wgmmaKernel{name: name, input: in, acc: in.acc, image: 10240, passes: 2}
	swizzles := []desc.Swizzle{desc.SwizzleNone, desc.Swizzle32B, desc.Swizzle64B, desc.Swizzle128B}
	trans := b2i(major == desc.MajorMN)
	for _, s := range swizzles {
		g := geometry(major, s)
		k.variants = append(k.variants, wgmmaVariant{op: in.op(in.k, in.acc), n: in.k, imms: in.smemImms(trans), slices: g.slices, transA: trans == 1})
	}
	k.comment = []string{
		fmt.Sprintf("wgmma shared-memory layouts, %s-major %s: A (64 x %d) is read through a", mj, in.ptx, in.k),
		"descriptor in each swizzle mode (CTAs 0-1 none, 2-3 32B, 4-5 64B, 6-7 128B); every",
		"element of A's region holds its element index (low byte in even CTAs, high byte in",
		"odd ones); B is the identity, so D(m,n) = A(m, k=n) names the element read.",
		"K-major 64B and 128B atoms are wider than one instruction: slice j advances the",
		"start address by 32 bytes.",
	}
	ident := mustLayout(kInter, in.e.bits())
	var recs []byte
	for _, s := range swizzles {
		g := geometry(major, s)
		for pass := 0; pass < 2; pass++ {
			j := wgmmaJob{image: make(image, k.image)}
			for sl := 0; sl < g.slices; sl++ {
				j.descs[2*sl], j.descs[2*sl+1] = g.descriptor(32*sl), kInter.descriptor(8192)
			}
			j.image.codes(0, 8192, in.e, pass)
			j.image.fill(ident, 8192, in.k, in.k, in.e, func(n, k int) int { return b2i(n == k) })
			recs = append(recs, k.record(j)...)
		}
	}
	c := k.toCase(fmt.Sprintf("wgmma shared-memory atoms, %s-major, %s, every swizzle", mj, in.ptx), recs)
	d := accAtom(in.k, in.acc)
	for i, s := range swizzles {
		i, g := i, geometry(major, s)
		lay := mustLayout(g, in.e.bits())
		how := fmt.Sprintf("A in shared memory holds element-index codes, read through a descriptor (LBO %d, SBO %d", g.lbo, g.sbo)
		if g.slices > 1 {
			how += fmt.Sprintf(", %d K slices 32 bytes apart", g.slices)
		}
		how += "), B = identity: D(m, k) names the element read for A(m, k)"
		caveat := "the atoms are tiled by the descriptor's LBO and SBO as the ISA's canonical layouts say; D is read through " + d.Name
		c.Checks = append(c.Checks, Check{Atom: lay.atom.Name, Case: name, How: how, Caveat: caveat,
			decode: func(out []byte) Outcome {
				return decodeOperand(wgmmaOut{k, out}, d, lay.atom, 64, in, lay, passJobs(i, 2), g.slices, true)
			}})
		if s == desc.SwizzleNone && major == desc.MajorK {
			a := mustAtom(in.aKey(true))
			c.Checks = append(c.Checks, Check{Atom: a.Name, Case: name,
				How:    "the 64 x K A tile read through a no-swizzle K-major descriptor: every (m, k) from its canonical element",
				Caveat: caveat,
				decode: func(out []byte) Outcome {
					return decodeOperand(wgmmaOut{k, out}, d, a, 64, in, lay, passJobs(i, 2), 1, true)
				}})
		}
	}
	return c
}
