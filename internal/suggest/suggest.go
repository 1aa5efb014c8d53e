// Package suggest finds the names nearest to a misspelt one, for "did you
// mean" hints in tcsim's error messages (commands, atoms, instructions).
package suggest

import (
	"sort"
	"strings"
)

// Distance is the Levenshtein edit distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest returns up to n of the candidates closest to name, nearest first
// (ties keep the candidates' order), leaving out any farther than maxDist.
// A negative maxDist means no limit.
func Nearest(name string, candidates []string, n, maxDist int) []string {
	type cand struct {
		s string
		d int
	}
	cs := make([]cand, 0, len(candidates))
	for _, c := range candidates {
		if d := Distance(name, c); maxDist < 0 || d <= maxDist {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]string, 0, n)
	for i := 0; i < len(cs) && len(out) < n; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

// Closest returns the candidates nearest to name that all share the
// smallest distance, at most n of them in the candidates' order, or none
// when that distance exceeds maxDist. Case is ignored.
func Closest(name string, candidates []string, n, maxDist int) []string {
	best := maxDist + 1
	var out []string
	lname := strings.ToLower(name)
	for _, c := range candidates {
		d := Distance(lname, strings.ToLower(c))
		switch {
		case d > maxDist:
		case d < best:
			best, out = d, append(out[:0], c)
		case d == best && len(out) < n:
			out = append(out, c)
		}
	}
	return out
}

// Hint phrases the closest candidates (within max(2, len(name)/3) edits)
// for an error message: "did you mean e4m3?", "did you mean f16 or
// bf16?", or "" when none is near.
func Hint(name string, candidates []string) string {
	near := Closest(name, candidates, 3, max(2, len(name)/3))
	switch len(near) {
	case 0:
		return ""
	case 1:
		return "did you mean " + near[0] + "?"
	}
	return "did you mean " + strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1] + "?"
}

// HintSuffix is Hint as the end of a message: "; did you mean e4m3?", or
// "" when no candidate is near.
func HintSuffix(name string, candidates []string) string {
	if h := Hint(name, candidates); h != "" {
		return "; " + h
	}
	return ""
}
