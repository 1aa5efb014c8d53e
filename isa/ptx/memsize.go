package ptx

import "fmt"

// Limits of the state spaces that a declaration can exceed.
const (
	// maxSharedCTA is the most shared memory one CTA can have on any
	// target: 227 KB on sm_90 and sm_100 (228 KB per SM, 1 KB reserved
	// per CTA); earlier targets have less.
	maxSharedCTA = 227 << 10
	// maxStaticShared is the most static (non-.extern) shared memory a
	// kernel may declare: more must be dynamic shared memory.
	maxStaticShared = 48 << 10
	// maxConst is the size of the constant bank that .const variables
	// live in.
	maxConst = 64 << 10
	// sizeCap saturates size arithmetic.
	sizeCap = int64(1) << 62
)

// varBytes is the size of one declared variable in bytes, saturated at
// sizeCap; unsized dimensions count 0.
func varBytes(d *VarDecl, v *Declarator) int64 {
	n := int64(max(d.Type.Bits(), 8) / 8)
	if d.Vec > 0 {
		n = satMul(n, int64(d.Vec))
	}
	for _, dim := range v.Dims {
		n = satMul(n, int64(max(dim, 0)))
	}
	return n
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > sizeCap/b {
		return sizeCap
	}
	return a * b
}

// byteSize prints a size in bytes with a readable unit.
func byteSize(n int64) string {
	switch {
	case n >= sizeCap:
		return "more than 2^62 bytes"
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d bytes (%d GB)", n, n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d bytes (%d MB)", n, n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d bytes (%d KB)", n, n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkVarSize reports a variable larger than its state space can hold.
func (c *checker) checkVarSize(d *VarDecl, v *Declarator) {
	n := varBytes(d, v)
	switch {
	case d.Space == SpaceShared && n > maxSharedCTA:
		c.errorf(v.Pos, "sm_90 and sm_100 have 228 KB of shared memory per SM, 1 KB of it reserved per CTA",
			"%s is %s of .shared memory; a CTA can have at most 227 KB (%d bytes)", v.Name, byteSize(n), maxSharedCTA)
	case d.Space == SpaceConst && n > maxConst:
		c.errorf(v.Pos, "", "%s is %s of .const memory; the constant bank holds 64 KB (%d bytes)", v.Name, byteSize(n), maxConst)
	case n >= sizeCap:
		c.errorf(v.Pos, "", "%s is larger than any memory (%s)", v.Name, byteSize(n))
	}
}

// noteShared adds a static .shared variable to the current kernel's total,
// once per variable.
func (c *checker) noteShared(name string, d *VarDecl, v *Declarator) {
	if c.fn == nil || d == nil || d.Space != SpaceShared || d.Linkage == "extern" || c.sharedSeen[name] {
		return
	}
	if c.sharedSeen == nil {
		c.sharedSeen = map[string]bool{}
	}
	c.sharedSeen[name] = true
	c.staticShared = min(c.staticShared+varBytes(d, v), sizeCap)
}

// checkStaticShared reports a kernel whose static shared memory (its own
// .shared variables and the module's that it uses) exceeds 48 KB.
func (c *checker) checkStaticShared(f *Function) {
	if f.Entry && c.staticShared > maxStaticShared {
		c.errorf(f.NamePos, "declare large buffers .extern .shared (dynamic shared memory, up to 227 KB per CTA on sm_90 and sm_100, set at launch)",
			"kernel %s declares %s of static .shared memory; a kernel may declare at most 48 KB (%d bytes) statically", f.Name, byteSize(c.staticShared), maxStaticShared)
	}
	c.staticShared, c.sharedSeen = 0, nil
}
