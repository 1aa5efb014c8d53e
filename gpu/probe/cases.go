package probe

import (
	"sync"

	"github.com/tcsim/tcsim/isa/desc"
)

var (
	casesOnce sync.Once
	cases     []*Case
)

// Cases returns every probe case, in a fixed order. The cases are built
// once; callers must not modify them.
func Cases() []*Case {
	casesOnce.Do(func() {
		cases = append(cases,
			accCase(elemF32, inF16, false), accCase(elemF32, inF16, true),
			accCase(elemF16, inF16, false), accCase(elemF16, inF16, true),
			accCase(elemS32, inU8, false), accCase(elemS32, inU8, true),
			accCase(elemF32, inTF32, false))
		for _, in := range []wgmmaInput{inF16, inTF32, inU8} {
			cases = append(cases, aRegCase(in))
		}
		for _, in := range []wgmmaInput{inF16, inTF32, inE4M3} {
			cases = append(cases, bSmemCase(in))
		}
		cases = append(cases, smemCase(inF16, desc.MajorK), smemCase(inF16, desc.MajorMN),
			smemCase(inTF32, desc.MajorK), smemCase(inU8, desc.MajorK))
		for _, s := range mmaShapes {
			cases = append(cases, mmaCase(s))
		}
		cases = append(cases, ldmatrixCase(), stmatrixCase())
	})
	return cases
}

// Lookup returns the case named name, or nil.
func Lookup(name string) *Case {
	for _, c := range Cases() {
		if c.Name == name {
			return c
		}
	}
	return nil
}
