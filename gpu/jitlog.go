package gpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// JITMessage is one message of a PTX JIT (ptxas) log.
type JITMessage struct {
	Line     int    // PTX line the message is about; 0 when none
	Severity string // "error", "fatal", "warning", "info", or "" for other lines
	Code     string // the advisory code, e.g. "C7515"; "" when none
	Text     string // the message without its prefix
	Raw      string // the line as ptxas wrote it
}

var (
	ptxasLine = regexp.MustCompile(`^ptxas\s*(?:application ptx input|[^,;:]*\.ptx)?,?\s*(?:line\s+(\d+);)?\s*(error|fatal|warning|info)\s*:\s?(.*)$`)
	adviceTag = regexp.MustCompile(`\((C\d{4})\)`)
	// aroundLine finds the PTX line an advisory names ("is injected in
	// around line 98 by compiler").
	aroundLine = regexp.MustCompile(`\bline (\d+)\b`)
	// ptxasCont is a continuation line such as
	// "ptxas         .     0 bytes stack frame, ...".
	ptxasCont = regexp.MustCompile(`^ptxas\s+\.?\s*`)
)

// ParseJITLog splits a JIT log into messages. ptxas writes
//
//	ptxas application ptx input, line 12; error   : Unknown symbol 'x'
//	ptxas info    : (C7517) warpgroup.wait is injected in around line 98 ...
//	ptxas         .     0 bytes stack frame, 0 bytes spill stores, ...
//
// An advisory that names a line ("around line 98") gets that Line. Other
// lines are kept as they are.
func ParseJITLog(log string) []JITMessage {
	var out []JITMessage
	for _, raw := range strings.Split(strings.TrimRight(log, "\n\x00"), "\n") {
		raw = strings.TrimRight(raw, "\r")
		if strings.TrimSpace(raw) == "" {
			continue
		}
		m := JITMessage{Raw: raw, Text: strings.TrimSpace(raw)}
		if g := ptxasLine.FindStringSubmatch(raw); g != nil {
			if g[1] != "" {
				m.Line, _ = strconv.Atoi(g[1])
			}
			m.Severity, m.Text = g[2], strings.TrimSpace(g[3])
		} else if loc := ptxasCont.FindStringIndex(raw); loc != nil {
			m.Text = strings.TrimSpace(raw[loc[1]:])
		}
		if c := adviceTag.FindStringSubmatch(m.Text); c != nil {
			m.Code = c[1]
			if l := aroundLine.FindStringSubmatch(m.Text); l != nil && m.Line == 0 {
				m.Line, _ = strconv.Atoi(l[1])
			}
		}
		out = append(out, m)
	}
	return out
}

// FormatJITLog rewrites a JIT log for people: messages about a PTX line
// become "file:line: severity: text" followed by that source line, so that
// editors and terminals can jump to it. name is the PTX file's name and src
// its contents (the line numbers are the JIT's, counted in src).
func FormatJITLog(name string, src []byte, log string) string {
	return FormatJITMessages(name, src, ParseJITLog(log))
}

// FormatJITMessages is FormatJITLog for messages already parsed (and
// perhaps filtered, e.g. to Notable ones).
func FormatJITMessages(name string, src []byte, msgs []JITMessage) string {
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Line > 0:
			fmt.Fprintf(&b, "%s:%d: %s: %s\n", name, m.Line, m.Severity, m.Text)
			if m.Line <= len(lines) {
				fmt.Fprintf(&b, "    %d | %s\n", m.Line, strings.TrimRight(strings.ReplaceAll(lines[m.Line-1], "\t", "    "), " \r"))
			}
		case m.Severity != "":
			fmt.Fprintf(&b, "%s: ptxas %s: %s\n", name, m.Severity, m.Text)
		default:
			fmt.Fprintf(&b, "%s: %s\n", name, m.Text)
		}
	}
	return b.String()
}

// Notable reports whether a message deserves attention on every run: an
// error, a warning, or an advisory with a code.
func (m JITMessage) Notable() bool {
	return m.Code != "" || m.Severity == "warning" || m.Severity == "error" || m.Severity == "fatal"
}

// Advisories returns the ptxas messages that carry an advisory code
// (C7508 setmaxnreg ignored, C7509–C7520 wgmma serialization and injected
// waits, …).
func Advisories(log string) []JITMessage {
	var out []JITMessage
	for _, m := range ParseJITLog(log) {
		if m.Code != "" {
			out = append(out, m)
		}
	}
	return out
}

// JITError is a failed PTX JIT compilation.
type JITError struct {
	Name    string // PTX file name
	Err     *Error // the driver's result (CUDA_ERROR_INVALID_PTX, say)
	Log     string // the error log as the JIT wrote it
	InfoLog string
	src     []byte
}

// Error names the kernel and the CUDA error and lists the JIT's errors.
func (e *JITError) Error() string {
	s := fmt.Sprintf("%s: PTX JIT failed (%s)", e.Name, e.Err.Name)
	if log := strings.TrimSpace(FormatJITLog(e.Name, e.src, e.Log)); log != "" {
		s += ":\n" + log
	}
	return s
}

// Unwrap returns the driver error.
func (e *JITError) Unwrap() error { return e.Err }

// Messages returns the parsed error log.
func (e *JITError) Messages() []JITMessage { return ParseJITLog(e.Log) }
