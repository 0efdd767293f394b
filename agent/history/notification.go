package history

import "strings"

// RenderNotificationXML renders a notification as the block the model sees
// (spec 02 §4.2):
//
//	<notification id="…" category="…" type="…" source_kind="…" source_id="…"[ agent_id="…"]>
//	Title: …
//	Severity: …
//	body
//	child blocks
//	</notification>
//
// Attributes are escaped with EscapeXMLAttr and read "unknown" when not a
// non-empty string; agent_id appears only when set. Title, severity, body
// and the child blocks (data["children"], else data["extraBlocks"]: a
// string or a list of strings) are written verbatim when non-empty. No
// other key is rendered. Consumers detect injected notifications by the
// "<notification " prefix.
func RenderNotificationXML(data map[string]any) string {
	var b strings.Builder
	b.WriteString("<notification")
	for _, key := range []string{"id", "category", "type", "source_kind", "source_id"} {
		v := stringField(data, key)
		if v == "" {
			v = "unknown"
		} else {
			v = EscapeXMLAttr(v)
		}
		b.WriteString(" " + key + `="` + v + `"`)
	}
	if v := stringField(data, "agent_id"); v != "" {
		b.WriteString(` agent_id="` + EscapeXMLAttr(v) + `"`)
	}
	b.WriteString(">")
	if v := stringField(data, "title"); v != "" {
		b.WriteString("\nTitle: " + v)
	}
	if v := stringField(data, "severity"); v != "" {
		b.WriteString("\nSeverity: " + v)
	}
	if v := stringField(data, "body"); v != "" {
		b.WriteString("\n" + v)
	}
	children, ok := data["children"]
	if !ok || children == nil {
		children = data["extraBlocks"]
	}
	for _, c := range childBlocks(children) {
		b.WriteString("\n" + c)
	}
	b.WriteString("\n</notification>")
	return b.String()
}

func stringField(data map[string]any, key string) string {
	s, _ := data[key].(string)
	return s
}

// childBlocks reads a string or a list of strings; empty strings and
// other values are skipped.
func childBlocks(v any) []string {
	switch c := v.(type) {
	case string:
		if c != "" {
			return []string{c}
		}
	case []string:
		var out []string
		for _, s := range c {
			if s != "" {
				out = append(out, s)
			}
		}
		return out
	case []any:
		var out []string
		for _, e := range c {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
