package layouts

import (
	"fmt"
	"math/bits"
	"regexp"
	"sort"
	"strings"
)

// Pasted CuTe: the C++ types that compiler messages and demangled kernel
// names print, and the printed forms of CuTe's print() and the CuTe DSL.
//
//	Layout<Shape<_4,_8>,Stride<_1,_4>>             (4,8):(1,4)
//	cute::Layout<cute::tuple<cute::C<4>, int>, ...> (a dynamic int is an error)
//	Layout<Shape<Int<4>,Int<8>>>                   compact column-major
//	ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<...>>
//	GMMA::Layout_K_SW128_Atom<half_t>              CuTe's SMEM atoms
//	Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)  (CuTe's print)
//	S<3,4,3> o 0 o (8,64):(64,1)                    (the CuTe DSL's repr)
//
// A swizzle next to smem_ptr_flag_bits<N> (or smem_ptr[Nb]) acts on byte
// addresses, as in CuTe; tcsim's layouts count elements, so it is moved
// to element offsets of N bits (Sw<3,4,3> on bytes is Sw<3,3,3> on 16-bit
// elements).

// cuteTupleHeads are the CuTe names of integer tuples.
var cuteTupleHeads = map[string]bool{"Shape": true, "Stride": true, "tuple": true, "Coord": true, "Step": true, "Tile": true}

// cuteAtomRE matches CuTe's GMMA shared-memory atoms.
var cuteAtomRE = regexp.MustCompile(`^Layout_(K|MN)_(INTER|SW32|SW64|SW128)_Atom(_Bits)?$`)

// isCuTeHead reports whether the last component of a qualified name
// starts a CuTe type this package reads.
func isCuTeHead(name string) bool {
	last := lastComponent(name)
	return last == "Layout" || last == "ComposedLayout" || cuteTupleHeads[last] || cuteAtomRE.MatchString(last)
}

func lastComponent(q string) string {
	if i := strings.LastIndex(q, "::"); i >= 0 {
		return q[i+2:]
	}
	return q
}

// IsCuTeType reports whether src (after blanks) starts with a CuTe C++
// type that ParseAnyLayout reads: Layout<...>, ComposedLayout<...>, a
// GMMA atom, or Shape/Stride/tuple<...>.
func IsCuTeType(src string) bool {
	s := &Scanner{Src: src}
	return s.atCuTeType()
}

func (s *Scanner) atCuTeType() bool {
	q, _ := s.peekQual()
	return q != "" && isCuTeHead(q)
}

// peekQual returns the qualified identifier (a::b::c) at the current
// position, without consuming it, and its end offset.
func (s *Scanner) peekQual() (string, int) {
	s.SkipSpace()
	i := s.Pos
	j := i
	for {
		k := j
		if k < len(s.Src) && (isLetter(s.Src[k]) || s.Src[k] == '_') {
			for k < len(s.Src) && (isLetter(s.Src[k]) || s.Src[k] == '_' || s.Src[k] >= '0' && s.Src[k] <= '9') {
				k++
			}
		}
		if k == j {
			break
		}
		j = k
		if !strings.HasPrefix(s.Src[j:], "::") {
			break
		}
		j += 2
	}
	return strings.TrimSuffix(s.Src[i:j], "::"), j
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// takeQual consumes a qualified identifier and returns it with its start.
func (s *Scanner) takeQual() (string, int) {
	q, end := s.peekQual()
	start := s.Pos
	s.Pos = end
	return q, start
}

// CuTeType reads a CuTe C++ type naming a layout: Layout<...>,
// ComposedLayout<...> or a GMMA atom, optionally followed by "{}" (a value
// of the type, as pasted from C++ code).
func (s *Scanner) CuTeType() (AnyLayout, error) {
	l, err := s.cuteType(0)
	if err == nil {
		at := s.Pos
		if !s.Accept("{") || !s.Accept("}") {
			s.Pos = at
		}
	}
	return l, err
}

func (s *Scanner) cuteType(depth int) (AnyLayout, error) {
	if depth > maxNesting {
		return AnyLayout{}, s.Errorf(s.Pos, "types nested deeper than %d", maxNesting)
	}
	q, at := s.takeQual()
	last := lastComponent(q)
	switch {
	case last == "Layout":
		l, err := s.cuteLayoutArgs(at)
		return AnyLayout{L: l}, err
	case last == "ComposedLayout":
		return s.cuteComposed(at, depth)
	case cuteAtomRE.MatchString(last):
		return s.cuteAtom(last, at)
	}
	if q == "" {
		return AnyLayout{}, s.Errorf(at, "expected a CuTe layout type, found %s", s.describe())
	}
	return AnyLayout{}, s.Errorf(at, "%s is not a layout type (want Layout<...>, ComposedLayout<...> or a GMMA::Layout_*_Atom<T>)", q)
}

// cuteLayoutArgs reads "<Shape[, Stride]>" after "Layout".
func (s *Scanner) cuteLayoutArgs(at int) (Layout, error) {
	if err := s.Expect("<"); err != nil {
		return Layout{}, err
	}
	shape, err := s.cuteIntTuple(0)
	if err != nil {
		return Layout{}, err
	}
	for _, v := range shape.Leaves() {
		if v < 0 {
			return Layout{}, s.Errorf(at, "shape %v has a negative extent", shape)
		}
	}
	if s.Accept(">") {
		l, err := MakeLayout(shape)
		if err != nil {
			return Layout{}, s.Errorf(at, "%v", err)
		}
		return l, nil
	}
	if err := s.Expect(","); err != nil {
		return Layout{}, err
	}
	s.SkipSpace()
	strideAt := s.Pos
	stride, err := s.cuteIntTuple(0)
	if err != nil {
		return Layout{}, err
	}
	if err := s.Expect(">"); err != nil {
		return Layout{}, err
	}
	if !shape.Congruent(stride) {
		return Layout{}, s.Errorf(strideAt, "stride %v is not congruent with shape %v (they must nest the same way)", stride, shape)
	}
	return Layout{Shape: shape, Stride: stride}, nil
}

// cuteIntTuple reads a static integer or a Shape/Stride/tuple<...>.
func (s *Scanner) cuteIntTuple(depth int) (IntTuple, error) {
	if depth > maxNesting {
		return IntTuple{}, s.Errorf(s.Pos, "tuples nested deeper than %d", maxNesting)
	}
	q, _ := s.peekQual()
	if cuteTupleHeads[lastComponent(q)] {
		s.takeQual()
		if err := s.Expect("<"); err != nil {
			return IntTuple{}, err
		}
		t := IntTuple{modes: []IntTuple{}}
		if s.Accept(">") {
			return t, nil
		}
		for {
			m, err := s.cuteIntTuple(depth + 1)
			if err != nil {
				return IntTuple{}, err
			}
			t.modes = append(t.modes, m)
			if s.Accept(",") {
				continue
			}
			if err := s.Expect(">"); err != nil {
				return IntTuple{}, err
			}
			return t, nil
		}
	}
	v, err := s.cuteInt()
	return Int(v), err
}

// cuteInt reads a static integer: _8, Int<8>, C<8>, cute::_8,
// integral_constant<int, 8>, or a plain 8.
func (s *Scanner) cuteInt() (int, error) {
	s.SkipSpace()
	start := s.Pos
	q, end := s.peekQual()
	last := lastComponent(q)
	switch {
	case q == "" || strings.HasPrefix(last, "_") && len(last) > 1 && (last[1] >= '0' && last[1] <= '9'):
		// A plain integer, or _8 (perhaps as cute::_8).
		if q != "" {
			s.Pos = end - len(last)
		}
		return s.Int()
	case last == "_" && strings.HasPrefix(s.Src[end:], "-"):
		s.Pos = end - 1 // cute::_-1
		return s.Int()
	case last == "Int" || last == "C":
		s.Pos = end
		if err := s.Expect("<"); err != nil {
			return 0, err
		}
		v, err := s.Int()
		if err != nil {
			return 0, err
		}
		return v, s.Expect(">")
	case last == "integral_constant":
		s.Pos = end
		if err := s.Expect("<"); err != nil {
			return 0, err
		}
		s.takeQual() // the value type
		if err := s.Expect(","); err != nil {
			return 0, err
		}
		v, err := s.Int()
		if err != nil {
			return 0, err
		}
		return v, s.Expect(">")
	}
	switch last {
	case "int", "unsigned", "long", "int32_t", "int64_t", "uint32_t", "uint64_t", "size_t":
		return 0, s.Errorf(start, "%s is a dynamic integer: its value is known only at run time; write the value (_N or Int<N>)", q)
	}
	return 0, s.Errorf(start, "expected a static integer (_N, Int<N> or C<N>), found %q", q)
}

// cuteComposed reads "<Swizzle<B,M,S>, offset or smem_ptr_flag, Layout>"
// after "ComposedLayout".
func (s *Scanner) cuteComposed(at, depth int) (AnyLayout, error) {
	if err := s.Expect("<"); err != nil {
		return AnyLayout{}, err
	}
	s.SkipSpace()
	if q, end := s.peekQual(); lastComponent(q) == "Swizzle" {
		s.Pos = end - len("Swizzle")
	}
	sw, err := s.Swizzle()
	if err != nil {
		return AnyLayout{}, err
	}
	if err := s.Expect(","); err != nil {
		return AnyLayout{}, err
	}
	s.SkipSpace()
	flagAt := s.Pos
	flagBits, offset := 0, 0
	switch q, end := s.peekQual(); lastComponent(q) {
	case "smem_ptr_flag":
		s.Pos, flagBits = end, 1
	case "smem_ptr_flag_bits":
		s.Pos = end
		if err := s.Expect("<"); err != nil {
			return AnyLayout{}, err
		}
		if flagBits, err = s.Int(); err != nil {
			return AnyLayout{}, err
		}
		if err := s.Expect(">"); err != nil {
			return AnyLayout{}, err
		}
	default:
		if offset, err = s.cuteInt(); err != nil {
			return AnyLayout{}, err
		}
	}
	if err := s.Expect(","); err != nil {
		return AnyLayout{}, err
	}
	s.SkipSpace()
	innerAt := s.Pos
	inner, err := s.cuteType(depth + 1)
	if err != nil {
		return AnyLayout{}, err
	}
	if inner.Composed {
		return AnyLayout{}, s.Errorf(innerAt, "a ComposedLayout inside a ComposedLayout is not a Sw o offset o layout")
	}
	if err := s.Expect(">"); err != nil {
		return AnyLayout{}, err
	}
	if flagBits == 0 {
		return ComposeSwizzle(sw, offset, inner.L), nil
	}
	a, err := byteSwizzled(sw, flagBits, inner.L)
	if err != nil {
		return AnyLayout{}, s.Errorf(flagAt, "%v", err)
	}
	return a, nil
}

// byteSwizzled is CuTe's Sw o smem_ptr_flag_bits<elemBits> o l, where the
// swizzle acts on byte addresses, as tcsim's Sw' o 0 o l on element
// offsets.
func byteSwizzled(sw Swizzle, elemBits int, l Layout) (AnyLayout, error) {
	if elemBits <= 0 || elemBits&(elemBits-1) != 0 {
		return AnyLayout{}, fmt.Errorf("smem_ptr_flag_bits<%d>: the element width must be a power of two", elemBits)
	}
	k := bits.TrailingZeros(uint(elemBits))
	m := sw.M + 3 - k // byte bit M is element bit M + 3 - log2(bits)
	if sw.B > 0 && m < 0 {
		return AnyLayout{}, fmt.Errorf("%v on byte addresses swizzles inside a %d-bit element; it has no form on element offsets", sw, elemBits)
	}
	nsw, err := NewSwizzle(sw.B, max(m, 0), sw.S)
	if err != nil {
		return AnyLayout{}, err
	}
	return ComposeSwizzle(nsw, 0, l), nil
}

// cuteAtom builds a GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> as
// CuTe defines it (mma_traits_sm90_gmma.hpp): upcast<bits(T)> of the
// atom over bits, a row of 128, 256, 512 or 1024 bits swizzled with
// Sw<0..3,4,3> on byte addresses.
func (s *Scanner) cuteAtom(name string, at int) (AnyLayout, error) {
	m := cuteAtomRE.FindStringSubmatch(name)
	elemBits := 1
	if m[3] == "" {
		if err := s.Expect("<"); err != nil {
			return AnyLayout{}, err
		}
		s.SkipSpace()
		typeAt := s.Pos
		t, _ := s.takeQual()
		b, ok := ElementBits(t)
		if !ok {
			return AnyLayout{}, s.Errorf(typeAt, "unknown element type %q (known: %s)", t, strings.Join(elementTypeNames(), ", "))
		}
		if err := s.Expect(">"); err != nil {
			return AnyLayout{}, err
		}
		elemBits = b
	}
	b := map[string]int{"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}[m[2]]
	row := 128 << b // bits per swizzle row
	var l Layout
	if m[1] == "K" {
		l = MustMake(Ints(8, row), Ints(row, 1))
	} else {
		l = MustMake(Ints(row, 8), Ints(1, row))
	}
	var err error
	if l, err = Upcast(l, elemBits); err != nil {
		return AnyLayout{}, s.Errorf(at, "%s<%d-bit type>: %v", name, elemBits, err)
	}
	a, err := byteSwizzled(Swizzle{B: b, M: 4, S: 3}, elemBits, l)
	if err != nil {
		return AnyLayout{}, s.Errorf(at, "%v", err)
	}
	return a, nil
}

// CuTeAtom describes a GMMA shared-memory atom name such as
// "GMMA::Layout_K_SW128_Atom<bf16>": its major ("K" or "MN"), swizzle
// ("INTER", "SW32", "SW64", "SW128") and element width in bits. ok is
// false for any other text.
func CuTeAtom(src string) (major, swizzle string, elemBits int, ok bool) {
	s := &Scanner{Src: src}
	q, _ := s.takeQual()
	m := cuteAtomRE.FindStringSubmatch(lastComponent(q))
	if m == nil {
		return "", "", 0, false
	}
	elemBits = 1
	if m[3] == "" {
		if !s.Accept("<") {
			return "", "", 0, false
		}
		t, _ := s.takeQual()
		b, known := ElementBits(t)
		if !known || !s.Accept(">") {
			return "", "", 0, false
		}
		elemBits = b
	}
	if !s.AtEnd() {
		return "", "", 0, false
	}
	return m[1], m[2], elemBits, true
}

// smemPtr reads CuTe's printed "smem_ptr[16b](unset)" (the "(unset)" is
// optional) and returns the element width.
func (s *Scanner) smemPtr() (int, error) {
	at := s.Pos
	if !s.Accept("smem_ptr[") {
		return 0, s.Errorf(at, "expected smem_ptr[Nb]")
	}
	n, err := s.Int()
	if err != nil {
		return 0, err
	}
	if err := s.Expect("b]"); err != nil {
		return 0, err
	}
	s.Accept("(unset)")
	return n, nil
}

// elementBits gives the width of element types by CuTe/CUTLASS name, C
// name and PTX name.
var elementBits = map[string]int{
	"bool": 8, "char": 8, "int8_t": 8, "uint8_t": 8, "int16_t": 16, "uint16_t": 16, "int32_t": 32, "uint32_t": 32,
	"int64_t": 64, "uint64_t": 64, "int": 32, "unsigned": 32, "float": 32, "double": 64, "long": 64, "short": 16,
	"half_t": 16, "bfloat16_t": 16, "tfloat32_t": 32, "float_e4m3_t": 8, "float_e5m2_t": 8, "float_ue8m0_t": 8,
	"float_ue4m3_t": 8, "float_e2m1_t": 4, "float_e2m3_t": 6, "float_e3m2_t": 6, "int4b_t": 4, "uint4b_t": 4,
	"int2b_t": 2, "uint2b_t": 2, "uint1b_t": 1, "bin1_t": 1, "uint128_t": 128, "uint256_t": 256,
	"half": 16, "__half": 16, "__nv_bfloat16": 16, "nv_bfloat16": 16,
	"b8": 8, "b16": 16, "b32": 32, "b64": 64, "b128": 128, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
	"s8": 8, "s16": 16, "s32": 32, "s64": 64, "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64,
	"e4m3": 8, "e5m2": 8, "e2m1": 4, "e2m3": 6, "e3m2": 6, "ue8m0": 8, "ue4m3": 8,
}

// ElementBits returns the width in bits of an element type name such as
// "cutlass::half_t", "uint8_t" or "bf16" (namespaces are ignored).
func ElementBits(name string) (int, bool) {
	b, ok := elementBits[lastComponent(name)]
	return b, ok
}

func elementTypeNames() []string {
	var out []string
	for n := range elementBits {
		if strings.HasSuffix(n, "_t") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// CuTeTupleHead reports whether a Shape, Stride or tuple<...> type starts
// at the current position.
func (s *Scanner) CuTeTupleHead() (bool, string) {
	q, _ := s.peekQual()
	return cuteTupleHeads[lastComponent(q)], q
}

// CuTeIntTuple reads a Shape<...>, Stride<...> or tuple<...> type (or a
// static integer) as an IntTuple.
func (s *Scanner) CuTeIntTuple() (IntTuple, error) { return s.cuteIntTuple(0) }
