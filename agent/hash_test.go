package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// TestHashSummariesIsTheHashOfTheEncoding: the tool table's hash, written
// to the hash a piece at a time, is the SHA-256 of the table's plain JSON
// (what the llm.tools_snapshot hashes of existing logs were computed
// from), also for text JSON escapes, schemas that are not compact and
// tables that do not encode; the system prompt's is the SHA-256 of its
// bytes.
func TestHashSummariesIsTheHashOfTheEncoding(t *testing.T) {
	want := func(v any) string {
		b, _ := plainjson.Marshal(v)
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	var builtin []toolSummary
	for _, tool := range benchRequest().Tools {
		builtin = append(builtin, toolSummary{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters})
	}
	long := strings.Repeat("a < b && c > d; \"quoted\" \\ back\tslash\n", 200)
	for name, tools := range map[string][]toolSummary{
		"builtin": builtin,
		"nil":     nil,
		"empty":   {},
		"escapes": {{Name: "x<y>&\u2028", Description: "line\nbreak \x01 \xff invalid \u2029 <b>&amp;</b> é 𝄞",
			Parameters: json.RawMessage(`{"type":"object","description":"<&>"}`)}},
		"long": {{Name: "a", Description: long, Parameters: json.RawMessage(`{}`)},
			{Name: "b", Description: long + long, Parameters: json.RawMessage(`{}`)}},
		"not compact":  {{Name: "a", Description: "d", Parameters: json.RawMessage(" {\n  \"type\" : \"object\",\n\t\"x\": [1, 2 ]\n} ")}},
		"no schema":    {{Name: "a", Description: "d"}, {Name: "b", Description: "e", Parameters: json.RawMessage(`{}`)}},
		"empty schema": {{Name: "a", Description: "d", Parameters: json.RawMessage{}}},
		"bad schema":   {{Name: "a", Description: "d", Parameters: json.RawMessage(`{"type":`)}},
	} {
		if got, w := hashSummaries(tools), want(tools); got != w {
			t.Errorf("%s: hash %s, want %s", name, got, w)
		}
	}
	for _, s := range []string{"", "x", strings.Repeat("system <prompt> é\n", 1000)} {
		sum := sha256.Sum256([]byte(s))
		if got, w := hashText(s), hex.EncodeToString(sum[:]); got != w {
			t.Errorf("hashText of %d bytes: %s, want %s", len(s), got, w)
		}
	}
}
