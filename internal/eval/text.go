package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// clip shortens s to at most n bytes (not splitting a UTF-8 sequence),
// saying how much was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d of %d bytes shown]", cut, len(s))
}

func compact(b json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
