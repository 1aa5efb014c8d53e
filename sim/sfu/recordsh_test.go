package sfu

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// recordScript is the device step that records fixtures/approx.
const recordScript = fixtureDir + "/record.sh"

// fakeTcsim stands in for the static tcsim on the GPU machine: for
// verify approx --record FILE it writes one campaign line (the form and
// domain its --forms and --domains name) to FILE, except for the
// campaign in $FAKE_SLOW, which outlives its time limit, and the one in
// $FAKE_EMPTY, which exits 1 with a record that holds no campaign (as a
// failed kernel does).
const fakeTcsim = `#!/usr/bin/env bash
[ "$1" = version ] && { echo "tcsim fake"; exit 0; }
forms= domains= record=
while [ $# -gt 0 ]; do
	case $1 in
	--forms) forms=$2; shift ;;
	--domains) domains=$2; shift ;;
	--record) record=$2; shift ;;
	esac
	shift
done
form=${forms#^}; form=${form%$}; form=${form//\\/}
dom=${domains#^}; dom=${dom%$}
echo "FORM DOMAIN"
[ "$form $dom" = "${FAKE_SLOW:-}" ] && exec sleep 30
if [ "$form $dom" = "${FAKE_EMPTY:-}" ]; then
	printf '' | gzip >"$record"
	exit 1
fi
printf '{"op":"%s","domain":"%s","bits":1,"chunk_bits":1,"hashes":"AAAAAAAAAAA="}\n' "$form" "$dom" | gzip >"$record"
echo "$form $dom exact"
`

// runRecordScript runs record.sh STEP... with the stand-in tcsim and
// returns $OUT.
func runRecordScript(t *testing.T, env []string, steps ...string) string {
	t.Helper()
	for _, tool := range []string{"bash", "timeout", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("record.sh needs %s", tool)
		}
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "tcsim")
	if err := os.WriteFile(fake, []byte(fakeTcsim), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(recordScript)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{script}, steps...)...)
	cmd.Dir = "../.." // the repository root
	cmd.Env = append(os.Environ(), append([]string{"OUT=" + out, "TCSIM=" + fake}, env...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("record.sh %v: %v\n%s", steps, err, b)
	}
	return out
}

// f64Campaigns are the f64 edge campaigns, as record.sh must run them:
// every Unary64 form (in Forms order) on each HiWithLow domain, then on
// each LowsOf domain.
func f64Campaigns() (edge, lows []string) {
	for _, f := range Forms() {
		if f.Kind != Unary64 {
			continue
		}
		for _, lo := range F64EdgeLows {
			edge = append(edge, f.Op+" "+HiWithLow(lo).Name)
		}
		for _, hi := range F64EdgeHighs {
			lows = append(lows, f.Op+" "+LowsOf(hi).Name)
		}
	}
	return edge, lows
}

// TestRecordScriptF64: record.sh f64 runs every f64 edge campaign once,
// each selecting exactly its form and domain, and writes only log.txt and
// the two records, whose campaigns are those that finished: the one cut by
// its time limit and the one whose record is empty are left out (and the
// log says so), the others are whole records that LoadHashRecords reads.
func TestRecordScriptF64(t *testing.T) {
	if testing.Short() {
		t.Skip("runs record.sh")
	}
	edge, lows := f64Campaigns()
	slow, empty := lows[4], edge[1]
	out := runRecordScript(t, []string{"F64_LIMIT=2", "FAKE_SLOW=" + slow, "FAKE_EMPTY=" + empty}, "f64")
	names, err := filepath.Glob(filepath.Join(out, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if want := []string{"log.txt", "sm90a_f64edge.jsonl.gz", "sm90a_f64lows.jsonl.gz"}; !slices.Equal(names, want) {
		t.Errorf("$OUT holds %v, want %v", names, want)
	}
	for _, c := range []struct {
		file      string
		campaigns []string
		left      string
	}{{"sm90a_f64edge.jsonl.gz", edge, empty}, {"sm90a_f64lows.jsonl.gz", lows, slow}} {
		recs, err := LoadHashRecords(filepath.Join(out, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, r.Op+" "+r.Domain)
		}
		want := slices.DeleteFunc(slices.Clone(c.campaigns), func(s string) bool { return s == c.left })
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", c.file, got, want)
		}
	}
	log, err := os.ReadFile(filepath.Join(out, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"=== f64-edge: recorded 8 of 9 campaigns in sm90a_f64edge.jsonl.gz",
		"=== f64-lows: recorded 17 of 18 campaigns in sm90a_f64lows.jsonl.gz",
		"=== f64-lows " + slow + ": exit 124 after", "=== f64-edge " + empty + ": exit 1 after", "steps: f64"} {
		if !strings.Contains(string(log), l) {
			t.Errorf("log.txt lacks %q", l)
		}
	}
	// each run selects exactly its campaign
	run := regexp.MustCompile(`^=== f64-\w+ (\S+) (\S+): \S+ verify approx --gpu --forms (\S+) --domains (\S+) --record `)
	ran := 0
	sc := bufio.NewScanner(strings.NewReader(string(log)))
	for sc.Scan() {
		m := run.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ran++
		formRE, domRE := regexp.MustCompile(m[3]), regexp.MustCompile(m[4])
		var sel []string
		for _, f := range Forms() {
			for _, d := range f.Domains() {
				if formRE.MatchString(f.Op) && domRE.MatchString(d.Name) {
					sel = append(sel, f.Op+" "+d.Name)
				}
			}
		}
		if want := m[1] + " " + m[2]; len(sel) != 1 || sel[0] != want {
			t.Errorf("the run for %s selects %v", want, sel)
		}
	}
	if ran != len(edge)+len(lows) {
		t.Errorf("%d campaigns run, want %d", ran, len(edge)+len(lows))
	}
}

// TestRecordScriptBudget: when the f64 budget is spent no campaign is
// started, no record is written, and the log says so; an unknown step is
// refused.
func TestRecordScriptBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs record.sh")
	}
	out := runRecordScript(t, []string{"F64_BUDGET=5"}, "f64")
	if _, err := os.Stat(filepath.Join(out, "sm90a_f64edge.jsonl.gz")); err == nil {
		t.Errorf("a record was written with no campaign run")
	}
	log, err := os.ReadFile(filepath.Join(out, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), ": not run, the f64 budget of 5 s is spent"); n != 27 {
		t.Errorf("%d campaigns not run, want 27:\n%s", n, log)
	}
	if !strings.Contains(string(log), "=== f64-lows: recorded 0 of 18 campaigns") {
		t.Errorf("log.txt does not say no campaign was recorded:\n%s", log)
	}
	cmd := exec.Command("bash", recordScript, "everything")
	cmd.Env = append(os.Environ(), "OUT="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "unknown step everything") {
		t.Errorf("record.sh everything: %v, %s", err, b)
	}
}
