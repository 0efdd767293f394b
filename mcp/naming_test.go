package mcp_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/mcp"
)

func TestScenario58QualifiedNames(t *testing.T) {
	for _, tt := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "get.data", "mcp__my_server__get_data"},
		{"a__b", "c", "mcp__a_b__c"},
		{"srv", strings.Repeat("x", 80), "mcp__srv__" + strings.Repeat("x", 45) + "_245dc304"},
		{"averyveryverylongservername", "an_equally_long_tool_name_that_overflows",
			"mcp__averyveryverylongservername__an_equally_long_tool_-1d129755"},
		{"ünï", "tool/ä", "mcp___n___tool_"},
	} {
		got := mcp.QualifiedName(tt.server, tt.tool)
		if got != tt.want {
			t.Errorf("QualifiedName(%q, %q) = %q; want %q", tt.server, tt.tool, got, tt.want)
		}
		if len(got) > 64 {
			t.Errorf("QualifiedName(%q, %q) has %d characters", tt.server, tt.tool, len(got))
		}
	}
}

func FuzzQualifiedName(f *testing.F) {
	f.Add("github", "create_issue")
	f.Add("a__b", strings.Repeat("é", 70))
	f.Fuzz(func(t *testing.T, server, tool string) {
		got := mcp.QualifiedName(server, tool)
		if len(got) > 64 {
			t.Fatalf("%q has %d bytes", got, len(got))
		}
		if !strings.HasPrefix(got, "mcp__") {
			t.Fatalf("%q lacks the prefix", got)
		}
		for _, r := range got {
			if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				t.Fatalf("%q holds %q", got, r)
			}
		}
		if got != mcp.QualifiedName(server, tool) {
			t.Fatal("not deterministic")
		}
	})
}
