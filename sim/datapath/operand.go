package datapath

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/fileutil"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// ElemBits is the storage width of one element of f in operand files:
// 1 (b1, packed 8 to a byte, least significant bit first), 4 (e2m1, s4, u4:
// packed 2 to a byte, low nibble first), 8, 16 or 32 (tf32 is stored as the
// 32-bit f32 pattern).
func ElemBits(f *numfmt.Format) int { return f.Container }

// FileBytes is the size in bytes of count elements of f.
func FileBytes(f *numfmt.Format, count int) int { return (count*ElemBits(f) + 7) / 8 }

// Unpack reads count elements of f from raw little-endian bytes.
func Unpack(f *numfmt.Format, data []byte, count int) ([]uint64, error) {
	if need := FileBytes(f, count); len(data) != need {
		return nil, fmt.Errorf("%d bytes, want %d (%d elements of .%s at %d bits each)", len(data), need, count, f.Name, ElemBits(f))
	}
	out := make([]uint64, count)
	w := ElemBits(f)
	for i := range out {
		switch w {
		case 1:
			out[i] = uint64(data[i/8] >> (i % 8) & 1)
		case 4:
			out[i] = uint64(data[i/2] >> (4 * (i % 2)) & 0xf)
		case 8:
			out[i] = uint64(data[i])
		case 16:
			out[i] = uint64(binary.LittleEndian.Uint16(data[2*i:]))
		case 32:
			out[i] = uint64(binary.LittleEndian.Uint32(data[4*i:]))
		default:
			out[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
	}
	return out, nil
}

// Pack writes elements of f as raw little-endian bytes.
func Pack(f *numfmt.Format, vals []uint64) []byte {
	w := ElemBits(f)
	data := make([]byte, FileBytes(f, len(vals)))
	for i, v := range vals {
		switch w {
		case 1:
			data[i/8] |= byte(v&1) << (i % 8)
		case 4:
			data[i/2] |= byte(v&0xf) << (4 * (i % 2))
		case 8:
			data[i] = byte(v)
		case 16:
			binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
		case 32:
			binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
		default:
			binary.LittleEndian.PutUint64(data[8*i:], v)
		}
	}
	return data
}

// npyMagic starts every NumPy .npy file.
var npyMagic = []byte("\x93NUMPY")

var (
	reDescr   = regexp.MustCompile(`'descr'\s*:\s*'([<>|=]?)([a-zA-Z])(\d+)'`)
	reFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	reShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// NpyHeader is what a .npy header says about its array.
type NpyHeader struct {
	Bits  int   // width of the unsigned dtype: 8, 16, 32 or 64
	Shape []int // C order
	Count int   // elements: the product of Shape
}

// ReadNpyHeader reads a .npy header of unsigned integers (u1, u2, u4 or
// u8, little-endian, C order) and leaves r at the first byte of the body.
// The element count is checked against overflow and against maxCount.
func ReadNpyHeader(r io.Reader, maxCount int) (NpyHeader, error) {
	var pre [12]byte
	if _, err := io.ReadFull(r, pre[:10]); err != nil || !bytes.HasPrefix(pre[:], npyMagic) {
		return NpyHeader{}, fmt.Errorf("not a .npy file (missing the \\x93NUMPY magic)")
	}
	var hlen int
	switch major := pre[6]; major {
	case 1:
		hlen = int(binary.LittleEndian.Uint16(pre[8:]))
	case 2, 3:
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return NpyHeader{}, fmt.Errorf(".npy header truncated")
		}
		hlen = int(binary.LittleEndian.Uint32(pre[8:]))
	default:
		return NpyHeader{}, fmt.Errorf(".npy version %d is not supported", major)
	}
	if hlen > 1<<16 {
		return NpyHeader{}, fmt.Errorf(".npy header of %d bytes: too long for an array header", hlen)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return NpyHeader{}, fmt.Errorf(".npy header truncated")
	}
	header := string(hb)
	d := reDescr.FindStringSubmatch(header)
	if d == nil {
		return NpyHeader{}, fmt.Errorf(".npy header has no dtype: %q", clip(header))
	}
	if d[2] != "u" {
		return NpyHeader{}, fmt.Errorf(".npy dtype %s%s%s: tcsim reads bit patterns from unsigned integer arrays (uint8, uint16, uint32, uint64); view your array as one, e.g. a.view(np.uint16)", d[1], d[2], d[3])
	}
	if d[1] == ">" {
		return NpyHeader{}, fmt.Errorf(".npy dtype is big-endian; use little-endian ('<u...')")
	}
	size, _ := strconv.Atoi(d[3])
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return NpyHeader{}, fmt.Errorf(".npy dtype u%d is not supported", size)
	}
	if f := reFortran.FindStringSubmatch(header); f != nil && f[1] == "True" {
		return NpyHeader{}, fmt.Errorf(".npy array is in Fortran order; save a C-contiguous array (np.ascontiguousarray)")
	}
	h := NpyHeader{Bits: 8 * size, Count: 1}
	if sh := reShape.FindStringSubmatch(header); sh != nil {
		for _, part := range strings.Split(sh[1], ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			v, err := strconv.Atoi(part)
			if err != nil || v < 0 {
				return NpyHeader{}, fmt.Errorf(".npy shape (%s) is not a tuple of sizes", clip(sh[1]))
			}
			h.Shape = append(h.Shape, v)
			if v != 0 && h.Count > maxCount/v {
				return NpyHeader{}, fmt.Errorf(".npy shape (%s) has more than %d elements", clip(sh[1]), maxCount)
			}
			h.Count *= v
		}
	}
	if h.Count > maxCount {
		return NpyHeader{}, fmt.Errorf(".npy shape %s has %d elements, more than %d", ShapeString(h.Shape), h.Count, maxCount)
	}
	return h, nil
}

// clip shortens a quoted header part.
func clip(s string) string {
	if len(s) > 80 {
		return s[:60] + "..." + s[len(s)-10:]
	}
	return s
}

// ShapeString prints a shape as Python does: (64, 16) or (8,).
func ShapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.Itoa(s)
	}
	if len(shape) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ReadNpyBody reads count elements of bits each from the body of a .npy
// file. A short body is an error.
func ReadNpyBody(r io.Reader, bits, count int) ([]uint64, error) {
	size := bits / 8
	body := make([]byte, count*size)
	if n, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf(".npy body has %d bytes, the header promises %d", n, len(body))
	}
	vals := make([]uint64, count)
	for i := range vals {
		switch size {
		case 1:
			vals[i] = uint64(body[i])
		case 2:
			vals[i] = uint64(binary.LittleEndian.Uint16(body[2*i:]))
		case 4:
			vals[i] = uint64(binary.LittleEndian.Uint32(body[4*i:]))
		case 8:
			vals[i] = binary.LittleEndian.Uint64(body[8*i:])
		}
	}
	return vals, nil
}

// MaxNpyElements bounds the elements ReadNpy reads (2^28: 2 GiB of
// uint64 values).
const MaxNpyElements = 1 << 28

// ReadNpy reads a .npy file of unsigned integers (u1, u2, u4 or u8,
// little-endian, C order) holding bit patterns. It returns the values and
// the width of the dtype in bits.
func ReadNpy(r io.Reader) (vals []uint64, bits int, err error) {
	vals, h, err := ReadNpyShape(r, MaxNpyElements)
	return vals, h.Bits, err
}

// ReadNpyShape reads a whole .npy file of at most maxCount elements, and
// checks that nothing follows the body.
func ReadNpyShape(r io.Reader, maxCount int) ([]uint64, NpyHeader, error) {
	h, err := ReadNpyHeader(r, maxCount)
	if err != nil {
		return nil, h, err
	}
	vals, err := ReadNpyBody(r, h.Bits, h.Count)
	if err != nil {
		return nil, h, err
	}
	if n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<20)); n > 0 {
		return nil, h, fmt.Errorf(".npy body is longer than the %d bytes the header promises", h.Count*h.Bits/8)
	}
	return vals, h, nil
}

// WriteNpy writes vals as a .npy array of the given shape with dtype
// uint8/16/32/64 chosen from bits.
func WriteNpy(w io.Writer, vals []uint64, bits int, shape ...int) error {
	size := max(1, (bits+7)/8)
	if size == 3 {
		size = 4
	}
	if size > 4 {
		size = 8
	}
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.Itoa(s)
	}
	sh := strings.Join(parts, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	header := fmt.Sprintf("{'descr': '%su%d', 'fortran_order': False, 'shape': (%s), }", map[bool]string{true: "|", false: "<"}[size == 1], size, sh)
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var buf bytes.Buffer
	buf.Write(npyMagic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	for _, v := range vals {
		switch size {
		case 1:
			buf.WriteByte(byte(v))
		case 2:
			binary.Write(&buf, binary.LittleEndian, uint16(v))
		case 4:
			binary.Write(&buf, binary.LittleEndian, uint32(v))
		default:
			binary.Write(&buf, binary.LittleEndian, v)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ReadOperand reads the elements of f in an array of the given shape
// (rows × columns, or problems × rows × columns) from path: raw bytes, or
// a .npy array of unsigned integers whose width matches the element's
// container (sub-byte formats take one element per uint8). A .npy array
// must have that shape, or be flat with as many elements: a transposed
// array is an error, not a silent wrong answer. Nothing beyond the
// operand's size is read.
func ReadOperand(path string, f *numfmt.Format, shape ...int) ([]uint64, error) {
	count := 1
	for _, s := range shape {
		count *= s
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		r := bufio.NewReader(file)
		h, err := ReadNpyHeader(r, count)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		want := max(8, ElemBits(f))
		if h.Bits != want {
			return nil, fmt.Errorf("%s: dtype uint%d, but .%s elements need uint%d", path, h.Bits, f.Name, want)
		}
		if err := CheckShape(h.Shape, shape); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		vals, err := ReadNpyBody(r, h.Bits, h.Count)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if n, _ := io.Copy(io.Discard, io.LimitReader(r, 1)); n > 0 {
			return nil, fmt.Errorf("%s: .npy body is longer than the %d bytes the header promises", path, h.Count*h.Bits/8)
		}
		return vals, nil
	}
	need := FileBytes(f, count)
	data, err := fileutil.ReadFile(path, int64(need))
	if err != nil {
		var big *fileutil.TooLargeError
		if errors.As(err, &big) {
			size := "more"
			if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
				size = strconv.FormatInt(st.Size(), 10)
			}
			return nil, fmt.Errorf("%s: %s bytes, want %d (%d elements of .%s at %d bits each)", path, size, need, count, f.Name, ElemBits(f))
		}
		return nil, err
	}
	vals, err := Unpack(f, data, count)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vals, nil
}

// CheckShape accepts a .npy shape equal to want, or flat with as many
// elements, or with leading dimensions of 1 added or dropped; a problem
// count of 1 may be left out. A transposed shape is named as such.
func CheckShape(got, want []int) error {
	trim := func(s []int) []int {
		for len(s) > 1 && s[0] == 1 {
			s = s[1:]
		}
		return s
	}
	g, w := trim(got), trim(want)
	count := 1
	for _, s := range want {
		count *= s
	}
	if len(g) == 1 && g[0] == count || slices.Equal(g, w) {
		return nil
	}
	n := 1
	for _, s := range got {
		n *= s
	}
	if n != count {
		return fmt.Errorf("shape %s has %d elements, want %d (shape %s)", ShapeString(got), n, count, ShapeString(want))
	}
	if len(g) == len(w) && len(w) >= 2 {
		t := slices.Clone(w)
		t[len(t)-1], t[len(t)-2] = t[len(t)-2], t[len(t)-1]
		if slices.Equal(g, t) {
			return fmt.Errorf("shape %s is the transpose of %s: save the array in the layout the operand needs (np.ascontiguousarray(a.T) if it is stored the other way round)", ShapeString(got), ShapeString(want))
		}
	}
	return fmt.Errorf("shape %s, want %s (or a flat array of %d elements)", ShapeString(got), ShapeString(want), count)
}
