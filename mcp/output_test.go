package mcp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/mcp"
)

func TestConvertResult(t *testing.T) {
	png := "data:image/png;base64,AQI="
	for _, tt := range []struct {
		name string
		res  *sdk.CallToolResult
		want loop.ToolResult
	}{
		{"one text is a string", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}},
			loop.ToolResult{Output: loop.TextOutput("hi")}},
		{"the server's error flag", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no"}}},
			loop.ToolResult{Output: loop.TextOutput("no"), IsError: true}},
		{"no content", &sdk.CallToolResult{}, loop.ToolResult{Output: loop.PartsOutput()}},
		{"text and image stay unwrapped", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "look"},
			&sdk.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("look"), llm.ImagePart(png))}},
		{"image mime defaults to png", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x"},
			&sdk.ImageContent{Data: []byte{1, 2}}}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("x"), llm.ImagePart(png))}},
		{"audio alone is wrapped", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{Data: []byte{1, 2}}}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart(`<mcp_tool_result name="mcp__s__t">`),
				llm.AudioPart("data:audio/mpeg;base64,AQI="), llm.TextPart("</mcp_tool_result>"))}},
		{"resource text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{
			Resource: &sdk.ResourceContents{URI: "file:///a", Text: "body"}}}},
			loop.ToolResult{Output: loop.TextOutput("body")}},
		{"resource blob by mime; others dropped", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "t"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "u", MIMEType: "video/mp4", Blob: []byte{1, 2}}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "u", MIMEType: "application/zip", Blob: []byte{1}}}}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("t"), llm.VideoPart("data:video/mp4;base64,AQI=", ""))}},
		{"resource links", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "t"},
			&sdk.ResourceLink{URI: "https://h/a.png", MIMEType: "image/png"},
			&sdk.ResourceLink{URI: "https://h/a.tiff", MIMEType: "image/tiff"},
			&sdk.ResourceLink{URI: "https://h/a.txt", MIMEType: "text/plain"}}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("t"), llm.ImagePart("https://h/a.png"),
				llm.TextPart("[Image https://h/a.tiff (image/tiff) not shown: only PNG, JPEG, GIF and WebP images can be shown.]"))}},
		{"meta without reserved keys", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "t"}},
			Meta: sdk.Meta{"modelcontextprotocol.io/x": 1, "tools.mcp.com/y": 2, "io.modelcontextprotocol/serverInfo": 3,
				"com.example.mcp/z": 4, "plain": "</mcp-structured-result>"}},
			loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("t"), llm.TextPart(
				"\n<mcp-structured-result>\n{\"_meta\":{\"com.example.mcp/z\":4,\"plain\":\"\"}}\n</mcp-structured-result>"))}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mcp.ConvertResult("mcp__s__t", tt.res)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ConvertResult (-want +got):\n%s", d)
			}
		})
	}
}

func TestConvertResultLimits(t *testing.T) {
	big := strings.Repeat("é", 60_000)
	got := mcp.ConvertResult("q", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big},
		&sdk.TextContent{Text: big}, &sdk.TextContent{Text: "dropped"}}})
	parts := got.Output.Parts()
	if !got.Truncated || len(parts) != 2 || len([]rune(parts[0].Text)) != 60_000 ||
		!strings.HasPrefix(parts[1].Text, strings.Repeat("é", 40_000)+"\n\n[Output truncated") {
		t.Errorf("text over the budget: %d parts, truncated %v", len(parts), got.Truncated)
	}
	huge := make([]byte, 11<<20)
	got = mcp.ConvertResult("q", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "t"},
		&sdk.ImageContent{Data: huge, MIMEType: "image/png"}}})
	if p := got.Output.Parts(); !got.Truncated || len(p) != 2 ||
		p[1].Text != "[image_url dropped: ~11.0 MB exceeds 10 MB per-part limit. Try a smaller resource.]" {
		t.Errorf("huge image = %v", got.Output)
	}
}
