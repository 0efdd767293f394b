package history

import "strings"

// xmlEscaper and attrEscaper are immutable after construction.
var (
	xmlEscaper  = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	attrEscaper = strings.NewReplacer("&", "&amp;", `"`, "&quot;")
)

// EscapeXML escapes &, <, > and " for text placed inside an XML-like block
// such as <bash-input>.
func EscapeXML(s string) string { return xmlEscaper.Replace(s) }

// EscapeXMLAttr escapes only & and ", for a double-quoted attribute value.
func EscapeXMLAttr(s string) string { return attrEscaper.Replace(s) }
