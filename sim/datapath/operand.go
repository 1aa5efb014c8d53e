package datapath

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

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

// ReadNpy reads a .npy file of unsigned integers (u1, u2, u4 or u8,
// little-endian, C order) holding bit patterns. It returns the values and
// the width of the dtype in bits.
func ReadNpy(r io.Reader) (vals []uint64, bits int, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, err
	}
	if len(data) < 10 || !bytes.HasPrefix(data, npyMagic) {
		return nil, 0, fmt.Errorf("not a .npy file (missing the \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, 0, fmt.Errorf(".npy header truncated")
		}
		hlen, off = int(binary.LittleEndian.Uint32(data[8:])), 12
	default:
		return nil, 0, fmt.Errorf(".npy version %d is not supported", major)
	}
	if off+hlen > len(data) {
		return nil, 0, fmt.Errorf(".npy header truncated")
	}
	header := string(data[off : off+hlen])
	body := data[off+hlen:]
	d := reDescr.FindStringSubmatch(header)
	if d == nil {
		return nil, 0, fmt.Errorf(".npy header has no dtype: %q", header)
	}
	if d[2] != "u" {
		return nil, 0, fmt.Errorf(".npy dtype %s%s%s: tcsim reads bit patterns from unsigned integer arrays (uint8, uint16, uint32, uint64); view your array as one, e.g. a.view(np.uint16)", d[1], d[2], d[3])
	}
	if d[1] == ">" {
		return nil, 0, fmt.Errorf(".npy dtype is big-endian; use little-endian ('<u...')")
	}
	size, _ := strconv.Atoi(d[3])
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return nil, 0, fmt.Errorf(".npy dtype u%d is not supported", size)
	}
	if f := reFortran.FindStringSubmatch(header); f != nil && f[1] == "True" {
		return nil, 0, fmt.Errorf(".npy array is in Fortran order; save a C-contiguous array (np.ascontiguousarray)")
	}
	n := 1
	if s := reShape.FindStringSubmatch(header); s != nil {
		for _, part := range strings.Split(s[1], ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			v, err := strconv.Atoi(part)
			if err != nil || v < 0 {
				return nil, 0, fmt.Errorf(".npy shape %q is not a tuple of sizes", s[1])
			}
			n *= v
		}
	}
	if len(body) != n*size {
		return nil, 0, fmt.Errorf(".npy body has %d bytes, the header promises %d", len(body), n*size)
	}
	vals = make([]uint64, n)
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
	return vals, size * 8, nil
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

// ReadOperand reads count elements of f from path: raw bytes, or a .npy
// array of unsigned integers whose width matches the element's container
// (sub-byte formats take one element per uint8).
func ReadOperand(path string, f *numfmt.Format, count int) ([]uint64, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		vals, bits, err := ReadNpy(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		want := max(8, ElemBits(f))
		if bits != want {
			return nil, fmt.Errorf("%s: dtype uint%d, but .%s elements need uint%d", path, bits, f.Name, want)
		}
		if len(vals) != count {
			return nil, fmt.Errorf("%s: %d elements, want %d", path, len(vals), count)
		}
		return vals, nil
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	vals, err := Unpack(f, data, count)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vals, nil
}
