package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"kernel": "k", "grid": [1], "block": [1],}`, "f.json:1:44: invalid character '}' looking for beginning of object key string"},
		{"[1, 2]", "f.json:1:1: a test file is a JSON object, not array"},
		{"{\n  \"a\": 1,\n  \"b\": x}", "f.json:3:"},
	} {
		var v map[string]int
		err := json.Unmarshal([]byte(c.data), &v)
		if got := Wrap("f.json", []byte(c.data), err, "a test file"); got == nil || !strings.HasPrefix(got.Error(), c.want) {
			t.Errorf("Wrap(%q) = %v, want %s", c.data, got, c.want)
		}
	}
	other := errors.New("no such thing")
	if got := Wrap("f.json", nil, other, "a test file"); !errors.Is(got, other) || got.Error() != "f.json: no such thing" {
		t.Errorf("other error: %v", got)
	}
	if l, c := LineCol([]byte("ab\ncd"), 99); l != 2 || c != 3 {
		t.Errorf("LineCol past the end = %d:%d", l, c)
	}
}
