// Command floor is the smallest agent loop kgbench measures kimigo
// against: it starts, sends the prompt to a Chat Completions service,
// reads the streamed answer, runs one shell command (`bash -c`) for each
// tool call and sends the result back, until the model answers with text.
// It keeps no session, writes no records, gathers no prompt context and
// checks nothing it is not given: what is left is the cost any agent pays
// for a process, a request and a command per step. bench/run.sh builds it
// and runs it beside kimigo, with the same environment
// (KIMI_MODEL_BASE_URL, KIMI_MODEL_NAME, KIMI_MODEL_API_KEY) and the same
// "-p prompt" argument.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// message is one Chat Completions message.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chunk is the part of a chat.completion.chunk event the loop reads.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content   string     `json:"content"`
			ToolCalls []toolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// tools declares the two tools the loop runs, each as one shell command:
// a command, and a file read.
var tools = json.RawMessage(`[{"type":"function","function":{"name":"Bash","description":"Run a shell command.",` +
	`"parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}},` +
	`{"type":"function","function":{"name":"Read","description":"Read a file.",` +
	`"parameters":{"type":"object","properties":{"path":{"type":"string"},"n_lines":{"type":"integer"}},"required":["path"]}}}]`)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "-p" {
		fail(errors.New("usage: floor -p PROMPT"))
	}
	base := strings.TrimSuffix(os.Getenv("KIMI_MODEL_BASE_URL"), "/")
	msgs := []message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: os.Args[2]}}
	for {
		reply, calls, err := step(base, msgs)
		if err != nil {
			fail(err)
		}
		if len(calls) == 0 {
			fmt.Println(reply)
			return
		}
		msgs = append(msgs, message{Role: "assistant", Content: reply, ToolCalls: calls})
		for _, c := range calls {
			msgs = append(msgs, message{Role: "tool", ToolCallID: c.ID, Content: run(c)})
		}
	}
}

// step sends one request and reads its streamed answer: the text and the
// tool calls, their argument fragments joined.
func step(base string, msgs []message) (string, []toolCall, error) {
	body, err := json.Marshal(map[string]any{"model": os.Getenv("KIMI_MODEL_NAME"), "messages": msgs,
		"tools": tools, "stream": true})
	if err != nil {
		return "", nil, err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("KIMI_MODEL_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("model: %s", resp.Status)
	}
	var text strings.Builder
	var calls []toolCall
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		if string(data) == "[DONE]" {
			break
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return "", nil, fmt.Errorf("model event: %w", err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				for len(calls) <= d.Index {
					calls = append(calls, toolCall{Type: "function"})
				}
				tc := &calls[d.Index]
				if d.ID != "" {
					tc.ID = d.ID
				}
				if d.Function.Name != "" {
					tc.Function.Name = d.Function.Name
				}
				tc.Function.Arguments += d.Function.Arguments
			}
		}
	}
	return text.String(), calls, sc.Err()
}

// run runs a call as one shell command and returns what the model sees.
func run(c toolCall) string {
	var args struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		NLines  int    `json:"n_lines"`
	}
	if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
		return "bad arguments: " + err.Error()
	}
	command := args.Command
	if c.Function.Name == "Read" {
		command = "head -n " + strconv.Itoa(max(args.NLines, 1)) + " -- '" + strings.ReplaceAll(args.Path, "'", `'\''`) + "'"
	}
	out, err := exec.Command("bash", "-c", command).CombinedOutput()
	if err != nil {
		return string(out) + err.Error()
	}
	return string(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}
