package main

import (
	"flag"
	"fmt"
	"github.com/tcsim/tcsim/internal/fileutil"
	"os"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/gpu/descrun"
	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/tensormap"
	"github.com/tcsim/tcsim/render"
)

// descFlags are the flags of `tcsim desc` and `tcsim desc encode`.
type descFlags struct {
	arch, kind, major, swizzle, dtype, tile string
	idesc, draw, ansi, quiet                bool
	ctaGroup                                int
	ws                                      desc.Tri

	// decode: a CUtensorMap
	tmap     bool
	expectTx string
	at       string
	scan     bool

	// encode: shared-memory descriptor
	addr, lbo, sbo, lboMode string
	baseOffset              int
	// encode: instruction descriptor
	atype, btype, scaleType, majorA, majorB string
	m, n, sparseID, maxShift, sfAID, sfBID  int
	sparse, saturate, negA, negB, k96       bool
}

func (o *descFlags) common(fs *flag.FlagSet) {
	fs.StringVar(&o.arch, "arch", "", "descriptor family: sm_90a (wgmma) or sm_100a (tcgen05); decode detects it when omitted")
	fs.BoolVar(&o.idesc, "idesc", false, "a tcgen05 instruction descriptor (32-bit) instead of a shared-memory descriptor")
	fs.StringVar(&o.kind, "kind", "", "tcgen05.mma kind for --idesc: f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4")
	fs.StringVar(&o.major, "major", "", "expected operand major-ness: K or MN")
	fs.StringVar(&o.swizzle, "swizzle", "", "swizzle: none, 32B, 64B, 128B, 128B-32A (decode: the expected one, e.g. the TMA map's)")
	fs.StringVar(&o.dtype, "dtype", "", "element type in shared memory (bf16, f16, tf32, e4m3, s8, e2m1, ...); with --idesc: the D (accumulator) type")
	fs.StringVar(&o.tile, "tile", "", "operand tile MNxK in elements, e.g. 64x16 for A of wgmma m64nNk16 (default: 64 rows x 32 bytes of K)")
	fs.BoolVar(&o.draw, "draw", false, "draw which shared-memory bytes each core matrix reads")
	fs.BoolVar(&o.ansi, "ansi", false, "colour the --draw picture (ANSI; NO_COLOR turns it off)")
	fs.IntVar(&o.ctaGroup, "cta-group", 0, "with --idesc: the cta_group (1 or 2) the MMA uses, to check M and N")
	fs.BoolFunc("ws", "with --idesc: the MMA is tcgen05.mma.ws (--ws=false: it is not)", func(s string) error {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		o.ws = map[bool]desc.Tri{true: desc.Yes, false: desc.No}[b]
		return nil
	})
}

const descHelp = `Decodes a descriptor, explains every field and checks it against the rules
of the PTX ISA and the traps kernel writers hit: offsets written in bytes
where bytes >> 4 belong, a base offset that does not match the start
address's place in the swizzle pattern, sm_90 and sm_100 swizzle codes
confused, the missing tcgen05 version bits, M and N outside the legal set.

Shared-memory descriptors: wgmma (sm_90a) or tcgen05 (sm_100a). Without
--arch the family is detected from bits 46-48 (0b001 = tcgen05). Say what
you expect with --major, --swizzle, --dtype and --tile; with --major the
core matrices are laid out and checked (overlaps, reads past shared
memory), and --draw draws them over the shared-memory bytes.

Instruction descriptors: --idesc --kind KIND (32-bit; a 64-bit value with
the descriptor in its upper half, as CUTLASS's make_runtime_instr_desc
builds it, is accepted).

The value is hex with 0x (underscores allowed) or decimal.

CUtensorMap (the 128 bytes cuTensorMapEncodeTiled/Im2col write, as the CUDA
driver encodes them on an H100; fixtures/tensormaps): 256 hex digits in memory
order, sixteen 0x-words (CUtensorMap's opaque[16]), or a file of 128 bytes
(or of such text). Every field by name and bit, the driver call that makes
the map, the bytes one load moves, and checks: bits the model cannot account
for, arguments the driver rejects, a box wider than the swizzle span, a box
larger than the tensor, overlapping rows, a null address, and with
--expect-tx N the byte count the kernel arms.

Exit status 1 when a check finds an error.

examples:
  tcsim desc 0x4000004000010040 --major K --dtype bf16 --tile 64x16 --draw
  tcsim desc 0x4000404000010040 --major K --swizzle 128B
  tcsim desc --idesc 0x08400490 --kind f16
  tcsim desc params.bin.tmap --expect-tx 16384`

const descEncodeHelp = `Builds a descriptor from byte values and prints it with the same
explanation and checks as 'tcsim desc'.

Shared-memory descriptor: --arch sm_90a|sm_100a --swizzle MODE --addr BYTES
--lbo BYTES --sbo BYTES [--base-offset N] [--major K|MN --dtype T --tile MNxK].
The offsets are bytes (the encoder stores bytes >> 4). The base offset is
0 unless --base-offset says otherwise: 0 reads the swizzle pattern TMA
writes, which follows the absolute address (measured on the H100); the
ISA's (addr >> 7) & 7 suits a tile whose pattern starts at --addr, and the
checks say when --addr is not on a swizzle boundary.

Instruction descriptor: --idesc --kind KIND --dtype D --atype A --btype B
--m M --n N [--sparse --sparse-id N --saturate --negate-a --negate-b
--major-a MN --major-b MN --max-shift 0|8|16|32] and for block-scaled kinds
[--scale-type ue8m0|ue4m3 --sf-a-id N --sf-b-id N --k96].

--quiet prints only the value. Exit status 1 when a check finds an error.

examples:
  tcsim desc encode --arch sm_90a --swizzle 128B --major K --addr 0x400 --lbo 16 --sbo 1024
  tcsim desc encode --idesc --kind f16 --dtype f32 --atype bf16 --btype bf16 --m 128 --n 256`

func init() {
	register(&command{
		name:    "desc",
		args:    "[flags] VALUE|TENSORMAP",
		summary: "decode, explain and check a wgmma/tcgen05 descriptor or a CUtensorMap",
		help:    descHelp,
		setup: func(fs *flag.FlagSet) any {
			o := &descFlags{}
			o.common(fs)
			fs.BoolVar(&o.tmap, "tmap", false, "the value is a CUtensorMap (detected from 256 hex digits or a 128-byte file)")
			fs.StringVar(&o.expectTx, "expect-tx", "", "CUtensorMap: the bytes the kernel arms on the mbarrier for one load (checked against the map's box)")
			fs.StringVar(&o.at, "at", "", "CUtensorMap in a larger file (a by-value Params struct): the byte `OFFSET` of the map")
			fs.BoolVar(&o.scan, "scan", false, "list every CUtensorMap in a file (a by-value Params struct, a parameter dump): each 128 bytes at a multiple of 16 the driver could have written")
			return o
		},
		run: runDesc,
	})
	register(&command{
		name:    "desc encode",
		args:    "[flags]",
		summary: "build a wgmma/tcgen05 descriptor from byte values",
		help:    descEncodeHelp,
		setup: func(fs *flag.FlagSet) any {
			o := &descFlags{}
			o.common(fs)
			fs.StringVar(&o.addr, "addr", "", "shared-memory start address in bytes (e.g. 0x400)")
			fs.StringVar(&o.lbo, "lbo", "0", "leading dimension byte offset, in bytes")
			fs.StringVar(&o.sbo, "sbo", "0", "stride dimension byte offset, in bytes")
			fs.IntVar(&o.baseOffset, "base-offset", 0, "base offset (0-7): shifts the swizzle pattern by this many 128-byte rows; 0 reads what TMA writes")
			fs.StringVar(&o.lboMode, "lbo-mode", "relative", "sm_100a: relative or absolute (sm_103a) leading-dimension mode")
			fs.BoolVar(&o.quiet, "quiet", false, "print only the value")
			fs.StringVar(&o.atype, "atype", "", "--idesc: A type (f16, bf16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8)")
			fs.StringVar(&o.btype, "btype", "", "--idesc: B type")
			fs.IntVar(&o.m, "m", 0, "--idesc: M")
			fs.IntVar(&o.n, "n", 0, "--idesc: N")
			fs.BoolVar(&o.sparse, "sparse", false, "--idesc: sparse A (tcgen05.mma.sp)")
			fs.IntVar(&o.sparseID, "sparse-id", 0, "--idesc: sparsity selector (0-3)")
			fs.BoolVar(&o.saturate, "saturate", false, "--idesc: saturate (kind::i8)")
			fs.BoolVar(&o.negA, "negate-a", false, "--idesc: negate A")
			fs.BoolVar(&o.negB, "negate-b", false, "--idesc: negate B")
			fs.StringVar(&o.majorA, "major-a", "K", "--idesc: major-ness of A (MN sets transpose A)")
			fs.StringVar(&o.majorB, "major-b", "K", "--idesc: major-ness of B (MN sets transpose B)")
			fs.IntVar(&o.maxShift, "max-shift", 0, "--idesc: .ws maximum shift: 0, 8, 16 or 32")
			fs.StringVar(&o.scaleType, "scale-type", "", "--idesc block-scaled: ue8m0 (default) or ue4m3")
			fs.IntVar(&o.sfAID, "sf-a-id", 0, "--idesc block-scaled: scale factor A id (0-3)")
			fs.IntVar(&o.sfBID, "sf-b-id", 0, "--idesc block-scaled: scale factor B id (0-3)")
			fs.BoolVar(&o.k96, "k96", false, "--idesc mxf4 kinds: dense K = 96 (sm_103a)")
			return o
		},
		run: runDescEncode,
	})
	register(&command{
		name:    "desc probe",
		args:    "[--ptx | --run [--out FILE] | --check FILE]",
		summary: "check the descriptor footprint model on an H100 (wgmma)",
		help:    descProbeHelp,
		setup: func(fs *flag.FlagSet) any {
			o := &descProbeFlags{}
			fs.BoolVar(&o.ptx, "ptx", false, "print the probe's PTX")
			fs.BoolVar(&o.run, "run", false, "run the probe on the GPU and check it")
			fs.IntVar(&o.device, "device", 0, "GPU ordinal for --run")
			fs.StringVar(&o.out, "out", "", "with --run: write the raw output buffer to FILE")
			fs.StringVar(&o.check, "check", "", "check a raw output buffer saved with --out")
			return o
		},
		run: runDescProbe,
	})
}

func runDescProbe(e *env, opts any, args []string) error {
	o := opts.(*descProbeFlags)
	if len(args) > 0 {
		return usagef("desc probe takes flags only")
	}
	p, err := desc.NewProbe(desc.DefaultProbeCases())
	if err != nil {
		return err
	}
	var out []byte
	switch {
	case o.ptx:
		fmt.Fprint(e.stdout, p.PTX)
		return nil
	case o.run:
		dev, err := gpu.Open(o.device)
		if err != nil {
			return err
		}
		defer dev.Close()
		i := dev.Info
		fmt.Fprintf(e.stdout, "device %s (%s), driver %s, CUDA %s\n", i.Name, i.Arch(), i.DriverVersion, i.CUDA())
		var runErr error
		if out, runErr = descrun.Run(dev, p); runErr != nil {
			fmt.Fprintf(e.stdout, "run stopped: %v\n", runErr)
		}
		if o.out != "" {
			if err := os.WriteFile(o.out, out, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote the raw output (%d bytes) to %s\n", len(out), o.out)
		}
	case o.check != "":
		if out, err = fileutil.ReadFile(o.check, 0); err != nil {
			return err
		}
	default:
		fmt.Fprintf(e.stdout, "%d descriptor probe cases (A of wgmma m64n16k16, f16; start relative to a 1024-aligned buffer):\n", len(p.Cases))
		for _, c := range p.Cases {
			v, _ := c.Desc.Encode()
			alts := ""
			for i, a := range c.Alternatives {
				if i == 0 {
					alts += "; against: "
				} else {
					alts += " / "
				}
				alts += a.String()
			}
			fmt.Fprintf(e.stdout, "  %-22s 0x%016x %s-major %s%s\n", c.Name, v, c.Major, c.Desc.Swizzle(), alts)
		}
		fmt.Fprintln(e.stdout, "run on an H100: tcsim desc probe --run")
		return nil
	}
	res, err := p.Check(out)
	if err != nil {
		if o.check != "" {
			return badInput(fmt.Errorf("%s: %w", o.check, err)) // not a probe's output
		}
		return err
	}
	bad := 0
	for _, r := range res {
		if !r.OK() {
			bad++
		}
		fmt.Fprintln(e.stdout, r)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d cases disagree with the footprint model", bad, len(res))
	}
	fmt.Fprintf(e.stdout, "all %d cases agree with the footprint model\n", len(res))
	return nil
}

type descProbeFlags struct {
	ptx, run   bool
	device     int
	out, check string
}

const descProbeHelp = `Asks an H100 which shared-memory bytes wgmma reads through a set of
descriptors, and compares the answer with tcsim's footprint model (the one
'tcsim desc --draw' draws). Each case runs wgmma m64n16k16 f16 with A read
through the descriptor under test and B the identity, so D = A shows where
every element of A came from. The cases cover every swizzle in both
major-nesses, K advances inside a swizzle row, and base offsets 0 and
nonzero at starts on and off the swizzle boundary (where the checker also
says whether the hardware matched another reading: the base offset
ignored, or the phase counted from the start address). The H100's answer
is recorded in fixtures/desc: the phase of each row is ((addr >> 7) -
base offset), as the footprint model has it.

Without flags it lists the cases. --ptx prints the kernel. --run runs it on
GPU --device (an sm_90 GPU is needed) and checks the result; --out saves
the raw output, which --check reads back later without a GPU.
Exit status 1 when a case disagrees with the model.`

// parseDescValue reads a descriptor value with package input, as the
// TUI's descriptor view does: 0x hex, 0b binary, 0o octal or decimal
// (underscores and apostrophes allowed); bare digits with a-f letters are
// read as hex with a note.
func parseDescValue(s string) (v uint64, note string, err error) { return input.ParseValue(s) }

// context turns the shared flags into a checking context.
func (o *descFlags) context() (desc.Context, error) {
	var ctx desc.Context
	var err error
	if o.major != "" {
		if ctx.Major, err = desc.ParseMajor(o.major); err != nil {
			return ctx, usagef("--major: %v", err)
		}
	}
	if o.swizzle != "" {
		if ctx.Swizzle, err = desc.ParseSwizzle(o.swizzle); err != nil {
			return ctx, usagef("--swizzle: %v", err)
		}
	}
	if o.dtype != "" && !o.idesc {
		if _, err := desc.ElemBits(o.dtype); err != nil {
			return ctx, usagef("--dtype: %v", err)
		}
		ctx.DType = strings.ToLower(strings.TrimPrefix(o.dtype, "."))
	}
	if o.tile != "" {
		if ctx.TileMN, ctx.TileK, err = desc.ParseTile(o.tile); err != nil {
			return ctx, usagef("--tile: %v", err)
		}
	}
	return ctx, nil
}

// smemArch is the --arch of a shared-memory descriptor to decode:
// ArchUnknown (detect it) when the flag is empty.
func (o *descFlags) smemArch() (desc.Arch, error) {
	if o.arch == "" {
		return desc.ArchUnknown, nil
	}
	arch, err := desc.ParseArch(o.arch)
	if err != nil {
		return arch, usagef("--arch: %v", err)
	}
	return arch, nil
}

// idescContext checks the flags of an instruction descriptor and turns
// them into a checking context and the kind.
func (o *descFlags) idescContext() (desc.IDescContext, desc.Kind, error) {
	ctx := desc.IDescContext{CTAGroup: o.ctaGroup, WS: o.ws}
	if o.draw {
		return ctx, 0, usagef("--draw applies to shared-memory descriptors, not --idesc")
	}
	if o.ctaGroup != 0 && o.ctaGroup != 1 && o.ctaGroup != 2 {
		return ctx, 0, usagef("--cta-group: %d is not 1 or 2", o.ctaGroup)
	}
	if o.swizzle != "" {
		s, err := desc.ParseSwizzle(o.swizzle)
		if err != nil {
			return ctx, 0, usagef("--swizzle: %v", err)
		}
		ctx.Swizzle = s
	}
	if o.kind == "" {
		return ctx, 0, usagef("--idesc needs --kind (the layout depends on it): f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4")
	}
	k, err := desc.ParseKind(o.kind)
	if err != nil {
		return ctx, 0, usagef("--kind: %v", err)
	}
	return ctx, k, nil
}

func (o *descFlags) colour(e *env) bool { return o.ansi && e.getenv("NO_COLOR") == "" }

func runDesc(e *env, opts any, args []string) error {
	o := opts.(*descFlags)
	if len(args) != 1 {
		return usagef("want one descriptor value, got %d arguments (see 'tcsim desc --help')", len(args))
	}
	if o.scan || o.at != "" {
		return runDescTensorMapFile(e, o, args[0])
	}
	if tm, ok, err := readTensorMapArg(args[0], o.tmap); err != nil {
		return err
	} else if ok {
		return runDescTensorMap(e, o, tm)
	}
	if o.expectTx != "" {
		return usagef("--expect-tx applies to a CUtensorMap")
	}
	v, note, err := parseDescValue(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	var r desc.Report
	if o.idesc {
		ictx, k, err := o.idescContext()
		if err != nil {
			return err
		}
		v32, vnote, err := idescWord(v)
		if err != nil {
			return usagef("%v", err)
		}
		r = desc.ExplainIDesc(v32, k, ictx)
		if vnote != "" {
			r.Notes = append([]string{vnote}, r.Notes...)
		}
	} else {
		ctx, err := o.context()
		if err != nil {
			return err
		}
		arch, err := o.smemArch()
		if err != nil {
			return err
		}
		r = desc.ExplainSmem(v, arch, ctx)
	}
	if note != "" {
		r.Notes = append([]string{note}, r.Notes...)
	}
	return finishReport(e, o, r)
}

// idescWord extracts the 32-bit instruction descriptor from v.
func idescWord(v uint64) (uint32, string, error) {
	hi, lo := uint32(v>>32), uint32(v)
	switch {
	case hi == 0:
		return lo, "", nil
	case lo == 0:
		return hi, "the value has the descriptor in its upper 32 bits, as CUTLASS's make_runtime_instr_desc returns it (the lower half is the sparse-metadata TMEM address); decoding the upper half", nil
	}
	return hi, fmt.Sprintf("64-bit value: decoding the upper 32 bits as the descriptor (CUTLASS's runtime layout); the lower half %#x would be the sparse-metadata TMEM address", lo), nil
}

func finishReport(e *env, o *descFlags, r desc.Report) error {
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if o.draw {
		fr, err := r.WithFootprint()
		if err != nil {
			return usagef("--draw: %v", err)
		}
		fmt.Fprintln(e.stdout)
		fmt.Fprintf(e.stdout, "core-matrix footprint of a %dx%d tile (%s-major, %s swizzle)\n", fr.Operand.MN, fr.Operand.K, fr.Operand.Major, fr.Layout.Swizzle)
		if fr.Layout.Swizzle.Repeat() > 0 && fr.Layout.BaseOffset != 0 {
			fmt.Fprintf(e.stdout, "base offset %d: each row's XOR phase is ((addr >> 7) - %d), as the H100 reads it (tcsim desc probe)\n", fr.Layout.BaseOffset, fr.Layout.BaseOffset)
		}
		if err := render.DrawFootprint(e.stdout, fr.Footprint, fr.Operand, render.FootprintOptions{ANSI: o.colour(e)}); err != nil {
			return err
		}
	}
	if n := r.Findings.Count(desc.Error); n > 0 {
		return fmt.Errorf("%d error(s) in the descriptor", n)
	}
	return nil
}

// parseBytes reads a byte count or address flag (hex with 0x, or decimal).
func parseBytes(flagName, s string) (uint32, error) {
	v, _, err := parseDescValue(s)
	if err != nil {
		return 0, usagef("--%s: %v", flagName, err)
	}
	if v > 1<<32-1 {
		return 0, usagef("--%s: %s does not fit 32 bits", flagName, s)
	}
	return uint32(v), nil
}

func runDescEncode(e *env, opts any, args []string) error {
	o := opts.(*descFlags)
	if len(args) != 0 {
		return usagef("unexpected arguments %q (everything is a flag; see 'tcsim desc encode --help')", args)
	}
	if o.idesc {
		return runEncodeIDesc(e, o)
	}
	if o.arch == "" {
		return usagef("--arch is required: sm_90a (wgmma) or sm_100a (tcgen05)")
	}
	arch, err := desc.ParseArch(o.arch)
	if err != nil {
		return usagef("--arch: %v", err)
	}
	if o.swizzle == "" {
		return usagef("--swizzle is required: none, 32B, 64B, 128B or 128B-32A")
	}
	if o.addr == "" {
		return usagef("--addr is required: the operand's shared-memory byte address")
	}
	ctx, err := o.context()
	if err != nil {
		return err
	}
	swz := ctx.Swizzle
	ctx.Swizzle = desc.SwizzleUnknown // the encoder uses it; nothing to compare against
	addr, err := parseBytes("addr", o.addr)
	if err != nil {
		return err
	}
	lbo, err := parseBytes("lbo", o.lbo)
	if err != nil {
		return err
	}
	sbo, err := parseBytes("sbo", o.sbo)
	if err != nil {
		return err
	}
	if o.baseOffset > 7 || o.baseOffset < 0 {
		return usagef("--base-offset: %d is not 0-7", o.baseOffset)
	}
	var v uint64
	var encErr error
	if arch == desc.SM90 {
		if o.lboMode != "relative" {
			return usagef("--lbo-mode is an sm_100a field")
		}
		d, err := desc.NewWGMMA(addr, lbo, sbo, swz, o.baseOffset)
		if err != nil {
			return fmt.Errorf("cannot encode: %w", err)
		}
		v, encErr = d.Encode()
	} else {
		d, err := desc.NewTCGen05Smem(addr, lbo, sbo, swz, o.baseOffset)
		if err != nil {
			return fmt.Errorf("cannot encode: %w", err)
		}
		switch o.lboMode {
		case "relative":
		case "absolute":
			d.LBOMode = 1
		default:
			return usagef("--lbo-mode: %q is not relative or absolute", o.lboMode)
		}
		v, encErr = d.Encode()
	}
	if encErr != nil {
		return encErr
	}
	if o.quiet {
		fmt.Fprintf(e.stdout, "0x%016x\n", v)
		return nil
	}
	r := desc.ExplainSmem(v, arch, ctx)
	in := fmt.Sprintf("from --addr %#x --lbo %d --sbo %d --swizzle %s", addr, lbo, sbo, swz)
	if addr >= 1<<18 {
		in += fmt.Sprintf("; the address was reduced to its low 18 bits (%#x), as matrix-descriptor-encode does", addr&0x3FFFF)
	}
	r.Notes = append([]string{in}, r.Notes...)
	r.Findings = append(desc.CheckByteInputs(addr, lbo, sbo, swz, ctx), r.Findings...)
	return finishReport(e, o, r)
}

func runEncodeIDesc(e *env, o *descFlags) error {
	ictx, k, err := o.idescContext()
	if err != nil {
		return err
	}
	spec := desc.IDescSpec{Kind: k, D: o.dtype, A: o.atype, B: o.btype, M: o.m, N: o.n,
		Sparse: o.sparse, SparseSelector: o.sparseID, Saturate: o.saturate, NegateA: o.negA, NegateB: o.negB,
		MaxShift: o.maxShift, ScaleType: o.scaleType, ScaleAID: o.sfAID, ScaleBID: o.sfBID, K96: o.k96}
	if k.BlockScaled() && o.dtype != "" && !strings.EqualFold(o.dtype, "f32") {
		return usagef("--dtype: block-scaled kinds accumulate in f32 and have no D field")
	}
	if !k.BlockScaled() && o.dtype == "" {
		return usagef("--dtype (the D type) is required for kind::%s", k)
	}
	if o.atype == "" || o.btype == "" || o.m == 0 || o.n == 0 {
		return usagef("--atype, --btype, --m and --n are required")
	}
	if spec.MajorA, err = desc.ParseMajor(o.majorA); err != nil {
		return usagef("--major-a: %v", err)
	}
	if spec.MajorB, err = desc.ParseMajor(o.majorB); err != nil {
		return usagef("--major-b: %v", err)
	}
	d, err := desc.NewIDesc(spec)
	if err != nil {
		return fmt.Errorf("cannot encode: %w", err)
	}
	v, err := d.Encode()
	if err != nil {
		return err
	}
	if o.quiet {
		fmt.Fprintf(e.stdout, "0x%08x\n", v)
		return nil
	}
	r := desc.ExplainIDesc(v, k, ictx)
	return finishReport(e, o, r)
}

// readTensorMapArg reads a CUtensorMap argument: 256 hex digits, sixteen
// 0x-words, or a file holding 128 bytes or such text. ok is false when the
// argument is not one (and force is off): it is then a 64-bit descriptor.
func readTensorMapArg(arg string, force bool) (tm [tensormap.Size]byte, ok bool, err error) {
	if st, serr := os.Stat(arg); serr == nil && st.Mode().IsRegular() {
		if st.Size() > 1<<16 {
			return tm, false, badInput(fmt.Errorf("%s: %d bytes; a CUtensorMap is 128 (or 256 hex digits)%s", arg, st.Size(), scanHint(arg, st.Size())))
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return tm, false, err
		}
		if len(data) == tensormap.Size {
			copy(tm[:], data)
			return tm, true, nil
		}
		if !isText(data) {
			return tm, false, badInput(fmt.Errorf("%s: %d bytes of binary data, not the 128 bytes of a CUtensorMap%s", arg, len(data), scanHint(arg, int64(len(data)))))
		}
		if tm, err = tensormap.ParseHex(string(data)); err != nil {
			return tm, false, badInput(fmt.Errorf("%s: %d bytes of text, not the hex of a CUtensorMap (%v)", arg, len(data), err))
		}
		return tm, true, nil
	}
	// The text: package input tells a map from a value, as the TUI does.
	if !force && !input.IsTensorMapText(arg) {
		return tm, false, nil
	}
	if tm, err = tensormap.ParseHex(arg); err != nil {
		return tm, false, usagef("%v", err)
	}
	return tm, true, nil
}

// scanHint suggests --scan for a file larger than one CUtensorMap (a
// by-value Params struct, a parameter dump), which may hold several.
func scanHint(path string, size int64) string {
	if size <= tensormap.Size || size > 1<<20 {
		return ""
	}
	return fmt.Sprintf("; to find the maps inside a larger file (a by-value Params struct), run tcsim desc --scan %s, or --at OFFSET for one", path)
}

// isText reports whether data is printable ASCII and white space, as the
// hex text of a CUtensorMap is.
func isText(data []byte) bool {
	for _, c := range data {
		if (c < ' ' || c > '~') && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// runDescTensorMapFile decodes the map at --at, or lists the maps of the
// file with --scan.
func runDescTensorMapFile(e *env, o *descFlags, path string) error {
	if o.scan && o.at != "" {
		return usagef("--scan lists every map; --at picks one: give one of them")
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() > 1<<20 {
		return badInput(fmt.Errorf("%s: %d bytes; --at and --scan read files of at most 1 MiB (kernel parameters are at most 32,764 bytes)", path, st.Size()))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if o.at != "" {
		off, _, err := parseDescValue(o.at)
		if err != nil {
			return usagef("--at: %v", err)
		}
		if off+tensormap.Size > uint64(len(data)) {
			return usagef("--at %d: %s has %d bytes; a CUtensorMap at %d needs %d", off, path, len(data), off, off+tensormap.Size)
		}
		if off%16 != 0 {
			fmt.Fprintf(e.stdout, "note: offset %d is not a multiple of 16; a CUtensorMap is 64-byte aligned in memory\n", off)
		}
		var tm [tensormap.Size]byte
		copy(tm[:], data[off:])
		return runDescTensorMap(e, o, tm)
	}
	found := tensormap.Scan(data)
	fmt.Fprintf(e.stdout, "%s: %d bytes, %d CUtensorMap(s)\n", path, len(data), len(found))
	for _, f := range found {
		fmt.Fprintf(e.stdout, "  %5d  %s\n", f.Offset, f.Map)
	}
	if len(found) > 0 {
		fmt.Fprintf(e.stdout, "decode one with: tcsim desc %s --at OFFSET\n", path)
	}
	return nil
}

func runDescTensorMap(e *env, o *descFlags, tm [tensormap.Size]byte) error {
	if o.idesc || o.draw || o.arch != "" || o.major != "" || o.tile != "" || o.kind != "" {
		return usagef("--idesc, --draw, --arch, --major, --tile and --kind apply to wgmma/tcgen05 descriptors, not to a CUtensorMap")
	}
	var ctx tensormap.Context
	if o.expectTx != "" {
		v, _, err := parseDescValue(o.expectTx)
		if err != nil || v == 0 {
			return usagef("--expect-tx %q: want a positive byte count", o.expectTx)
		}
		ctx.ExpectTx = v
	}
	r := tensormap.Explain(tm, ctx)
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if n := r.Findings.Count(desc.Error); n > 0 {
		return fmt.Errorf("%d error(s) in the tensor map", n)
	}
	return nil
}
