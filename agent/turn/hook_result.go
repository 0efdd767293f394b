package turn

import "strings"

// hookResultBlock wraps what a hook said for the model (spec 06 §6.5):
// <hook_result hook_event="<Event>">, the text, </hook_result>.
func hookResultBlock(event HookEvent, text string) string {
	return `<hook_result hook_event="` + string(event) + `">` + "\n" + text + "\n</hook_result>"
}

// hookResultBlocks wraps each text and joins the blocks with a newline.
func hookResultBlocks(event HookEvent, texts []string) string {
	blocks := make([]string, len(texts))
	for i, t := range texts {
		blocks[i] = hookResultBlock(event, t)
	}
	return strings.Join(blocks, "\n")
}
