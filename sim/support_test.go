package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// refusalNames reads the refusal constants from support.go, in order.
func refusalNames(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("support.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "refIndirectCall refusal = iota")
	j := strings.Index(s, "numRefusals")
	if i < 0 || j < i {
		t.Fatal("support.go: the refusal constants are not where the test looks")
	}
	var names []string
	for _, m := range regexp.MustCompile(`\b(ref[A-Z][A-Za-z0-9]*)\b`).FindAllStringSubmatch(s[i:j], -1) {
		names = append(names, m[1])
	}
	return names
}

// sourceFiles returns the simulator's Go sources (no tests) other than
// skip, by name.
func sourceFiles(t *testing.T, skip ...string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || slices.Contains(skip, p) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}

// TestRefusalSites: every refusal of the table is where the simulator
// refuses something (a decoder, the compiler or a fault says so through
// it), and no message outside the table says "not supported" (the opcode
// table of decoders.go aside), so that Unsupported lists exactly what is
// refused.
func TestRefusalSites(t *testing.T) {
	names := refusalNames(t)
	if len(names) != int(numRefusals) {
		t.Fatalf("support.go declares %d refusals, numRefusals is %d", len(names), numRefusals)
	}
	srcs := sourceFiles(t, "support.go")
	for _, n := range names {
		used := false
		for _, s := range srcs {
			if strings.Contains(s, n+".errorf(") || strings.Contains(s, n+".msg(") {
				used = true
				break
			}
		}
		if !used {
			t.Errorf("%s (%q) is in the table but nothing refuses through it", n, refusalForms[slices.Index(names, n)])
		}
	}
	for i, f := range refusalForms {
		if f == "" {
			t.Errorf("refusal %d (%s) has no form", i, names[i])
		}
	}
	lit := regexp.MustCompile(`"[^"\n]*not (supported|modelled)[^"\n]*"`)
	for p, s := range srcs {
		if p == "decoders.go" {
			continue // unsupportedOpcodes: whole opcodes
		}
		for _, m := range lit.FindAllString(s, -1) {
			t.Errorf("%s: the message %s refuses something outside the refusal table (sim/support.go)", p, m)
		}
	}
}

// TestRefusalMessages runs a few refused forms: each faults where it
// executes with its refusal's message.
func TestRefusalMessages(t *testing.T) {
	for _, c := range []struct {
		body string
		want string
	}{
		{".reg .pred %p<2>; .reg .b32 %r<4>; lop3.or.b32 %r1|%p1, %r2, %r3, %r1, 0xE8, %p0; ret;", refLop3Pred.msg("lop3 with a predicate output")},
		{".reg .b32 %r<4>; .reg .b64 %rd<2>; atom.global.v2.f32.add {%r1, %r2}, [%rd1], {%r2, %r3}; ret;", refVectorAtomic.msg("atom.v2 (a vector atomic)")},
		{".reg .b32 %r<2>; mov.u32 %r1, %pm0; ret;", refSpecialReg.msg("the special register %%pm0")},
	} {
		src := `.visible .entry k(.param .u64 out) { ` + c.body + ` }`
		_, err := runErr(t, src, 1, 32, 4, Options{})
		if err == nil || !strings.Contains(err.Error(), "is not supported by the simulator") {
			t.Errorf("%s: %v, want a refusal", c.body, err)
			continue
		}
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}

// TestReadmeUnsupported: the README's list of what the simulator does not
// run (in its Blackwell section) is Unsupported(): one bullet per refused
// form, in the table's order, and one bullet with the opcodes.
func TestReadmeUnsupported(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "The simulator does not run these forms"
	s := string(b)
	i := strings.Index(s, head)
	if i < 0 {
		t.Fatalf("README.md has no %q list", head)
	}
	var bullets []string
	intro := true // the paragraph that introduces the list
	for _, line := range strings.Split(s[i:], "\n") {
		if intro {
			intro = line != ""
			continue
		}
		if line == "" {
			break
		}
		switch {
		case strings.HasPrefix(line, "- "):
			bullets = append(bullets, strings.TrimPrefix(line, "- "))
		case strings.HasPrefix(line, "  ") && len(bullets) > 0:
			bullets[len(bullets)-1] += " " + strings.TrimSpace(line)
		default:
			t.Fatalf("README.md: %q in the list of what the simulator does not run", line)
		}
	}
	ops, forms := Unsupported()
	want := append([]string(nil), forms...)
	want = append(want, "the opcodes "+backquoted(ops))
	for k := 0; k < max(len(want), len(bullets)); k++ {
		switch {
		case k >= len(bullets):
			t.Errorf("README.md lacks the bullet %q", want[k])
		case k >= len(want):
			t.Errorf("README.md's bullet %q is not in Unsupported()", bullets[k])
		case bullets[k] != want[k]:
			t.Errorf("README.md bullet %d is %q, Unsupported() says %q", k+1, bullets[k], want[k])
		}
	}
}

func backquoted(ops []string) string {
	q := make([]string, len(ops))
	for i, o := range ops {
		q[i] = "`" + o + "`"
	}
	return strings.Join(q, ", ")
}
