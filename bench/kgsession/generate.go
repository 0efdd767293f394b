//go:build unix

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session"
)

// hugeShape is the shape of the synthetic session: turns of steps, each
// step one tool round trip whose result is a large text output or, every
// imageEvery-th step, a screenshot (a media part the records writer moves
// to blobs/). Each turn but the last ends with a full compaction, as a
// long session's turns do once the context fills, so the history a resume
// rebuilds is the last turn's.
type hugeShape struct {
	stepsPerTurn int
	outputBytes  int // text output of a tool result
	imageBytes   int // decoded bytes of a screenshot
	imageEvery   int
}

var defaultShape = hugeShape{stepsPerTurn: 10, outputBytes: 40 << 10, imageBytes: 96 << 10, imageEvery: 4}

// generated is what generateSession wrote.
type generated struct {
	id, dir            string
	turns, steps       int
	logBytes, blobSize int64
}

// generateSession creates a session of workDir under home and writes
// records through the real records writer (records.Log over the file
// persistence) until its log and blobs hold at least size bytes.
func generateSession(ctx context.Context, home, workDir string, size int64, shape hugeShape) (generated, error) {
	store := session.NewStore(session.StoreOptions{Root: home})
	sum, err := store.Create("", workDir, nil)
	if err != nil {
		return generated{}, err
	}
	agentDir := filepath.Join(sum.Dir, "agents", "main")
	p, err := records.OpenFile(records.FileOptions{Dir: agentDir})
	if err != nil {
		return generated{}, err
	}
	g := &generator{log: records.NewLog(records.LogOptions{Persistence: p}), mem: history.New(history.Options{}),
		rnd: rand.New(rand.NewPCG(1, 2)), shape: shape, workDir: workDir}
	out := generated{id: sum.ID, dir: sum.Dir}
	err = g.header()
	for err == nil {
		if err = g.log.Flush(ctx); err != nil {
			break
		}
		var logBytes, blobBytes int64
		if logBytes, blobBytes, err = sizes(agentDir); err != nil {
			break
		}
		last := logBytes+blobBytes+g.turnBytes() >= size
		err = g.turn(out.turns, !last)
		out.turns++
		if last {
			break
		}
	}
	if cerr := g.log.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return out, fmt.Errorf("generate session %s: %w", sum.ID, err)
	}
	out.steps = g.steps
	out.logBytes, out.blobSize, err = sizes(agentDir)
	if err == nil {
		err = store.UpdateState(sum.Dir, func(st *session.State) error {
			st.Title, st.LastPrompt = "a very long session", g.lastPrompt
			return nil
		})
	}
	return out, err
}

// sizes is the size of a log and of its blobs.
func sizes(agentDir string) (logBytes, blobBytes int64, err error) {
	fi, err := os.Stat(filepath.Join(agentDir, records.LogFileName))
	if err != nil {
		return 0, 0, err
	}
	entries, err := os.ReadDir(filepath.Join(agentDir, records.BlobsDirName))
	if err != nil && !os.IsNotExist(err) {
		return 0, 0, err
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			blobBytes += info.Size()
		}
	}
	return fi.Size(), blobBytes, nil
}

type generator struct {
	log        *records.Log
	mem        *history.Memory
	rnd        *rand.Rand
	shape      hugeShape
	workDir    string
	steps      int
	lastPrompt string
}

// turnBytes estimates what one turn adds, so the last turn is the one
// without a compaction.
func (g *generator) turnBytes() int64 {
	s := g.shape
	images := s.stepsPerTurn / s.imageEvery
	return int64(s.stepsPerTurn*s.outputBytes + images*s.imageBytes)
}

func (g *generator) record(typ string, fields any) error {
	rec, err := records.New(records.Type(typ), fields)
	if err != nil {
		return err
	}
	return g.log.Record(rec)
}

// history records a history record and applies it to the memory the
// compactions are computed from.
func (g *generator) history(p history.Payload) error {
	if err := g.record(string(p.RecordType()), p); err != nil {
		return err
	}
	_, err := g.mem.Apply(p)
	return err
}

func (g *generator) event(ev loop.RecordedEvent) error {
	return g.history(history.AppendLoopEventRecord{Event: ev})
}

// header writes what a new session starts with.
func (g *generator) header() error {
	if err := g.record("config.update", map[string]any{"cwd": g.workDir, "modelAlias": "bench-model",
		"profileName": "agent", "systemPrompt": "You are kimigo, working in a synthetic benchmark session."}); err != nil {
		return err
	}
	if err := g.record("tools.set_active_tools", map[string]any{"names": []string{"Read", "Write", "Edit",
		"Grep", "Glob", "Bash", "ReadMediaFile"}}); err != nil {
		return err
	}
	return g.record("permission.set_mode", map[string]any{"mode": "auto"})
}

// turn writes one user turn of tool round trips and, when compact is set,
// the full compaction that follows it.
func (g *generator) turn(n int, compact bool) error {
	prompt := fmt.Sprintf("turn %d: look at the build output and fix what fails", n)
	g.lastPrompt = prompt
	turnID := strconv.Itoa(n)
	input := []llm.ContentPart{llm.TextPart(prompt)}
	if err := g.record("turn.prompt", map[string]any{"input": input, "origin": map[string]string{"kind": "user"},
		"turnId": n}); err != nil {
		return err
	}
	user := history.Message{Message: llm.Message{Role: llm.RoleUser, Content: input},
		Origin: history.UserOrigin()}
	if err := g.history(history.AppendMessageRecord{Message: user}); err != nil {
		return err
	}
	for step := 1; step <= g.shape.stepsPerTurn+1; step++ {
		if err := g.step(turnID, step, step > g.shape.stepsPerTurn); err != nil {
			return err
		}
	}
	if !compact {
		return nil
	}
	if err := g.record("full_compaction.begin", map[string]any{"source": "auto"}); err != nil {
		return err
	}
	rec := g.mem.CompactionRecord(history.CompactionInput{
		Summary:        fmt.Sprintf("Turn %d ran %d build commands and fixed what they reported.", n, g.shape.stepsPerTurn),
		CompactedCount: len(g.mem.History()), TokensBefore: g.mem.TokenCount()})
	if err := g.history(rec); err != nil {
		return err
	}
	return g.record("full_compaction.complete", map[string]any{})
}

// step writes one model step: a tool round trip, or the closing answer.
func (g *generator) step(turnID string, step int, final bool) error {
	g.steps++
	stepUUID := fmt.Sprintf("%08x-0000-4000-8000-%012x", g.steps, g.steps)
	if err := g.event(loop.StepBeginEvent{UUID: stepUUID, TurnID: turnID, Step: step}); err != nil {
		return err
	}
	if err := g.record(string(records.TypeLLMRequest), map[string]any{"kind": "loop", "provider": "openai",
		"model": "bench-model", "modelAlias": "bench-model", "maxTokens": 32000, "toolSelect": false,
		"systemPromptHash": strings.Repeat("ab", 32), "toolsHash": strings.Repeat("cd", 32),
		"messageCount": len(g.mem.History()), "turnStep": turnID + "." + strconv.Itoa(step)}); err != nil {
		return err
	}
	usage := &llm.TokenUsage{InputOther: g.mem.TokenCount(), Output: 120}
	if final {
		if err := g.event(loop.ContentPartEvent{UUID: stepUUID + "-text", TurnID: turnID, Step: step, StepUUID: stepUUID,
			Part: llm.TextPart("The build passes now.")}); err != nil {
			return err
		}
		return g.endStep(stepUUID, turnID, step, usage, loop.StopEndTurn)
	}
	callID := fmt.Sprintf("call_%d", g.steps)
	name, args := "Bash", fmt.Sprintf(`{"command":"make -C pkg%d test"}`, g.steps)
	image := g.steps%g.shape.imageEvery == 0
	if image {
		name, args = "ReadMediaFile", fmt.Sprintf(`{"path":"screenshots/%d.png"}`, g.steps)
	}
	if err := g.event(loop.ToolCallEvent{UUID: callID, TurnID: turnID, Step: step, StepUUID: stepUUID,
		ToolCallID: callID, Name: name, Args: json.RawMessage(args)}); err != nil {
		return err
	}
	var result loop.ToolResult
	if image {
		data := make([]byte, g.shape.imageBytes)
		for i := range data {
			data[i] = byte(g.rnd.Uint32())
		}
		result.Output = loop.PartsOutput(llm.TextPart("screenshot of the failing page"),
			llm.ImagePart("data:image/png;base64,"+base64.StdEncoding.EncodeToString(data)))
	} else {
		result.Output = loop.TextOutput(g.output())
		result.Truncated = true
	}
	if err := g.event(loop.ToolResultEvent{ParentUUID: callID, ToolCallID: callID, Result: result}); err != nil {
		return err
	}
	return g.endStep(stepUUID, turnID, step, usage, loop.StopToolUse)
}

func (g *generator) endStep(stepUUID, turnID string, step int, usage *llm.TokenUsage, reason loop.StopReason) error {
	if err := g.event(loop.StepEndEvent{UUID: stepUUID, TurnID: turnID, Step: step, Usage: usage,
		FinishReason: reason}); err != nil {
		return err
	}
	return g.record("usage.record", map[string]any{"model": "bench-model", "usage": usage, "usageScope": "turn"})
}

// words make build logs that differ from step to step.
var words = strings.Fields(`ok FAIL pkg build test vet cannot find module undefined expected got
	warning error line column main.go util.go handler.go --- PASS RUN coverage statements ms s`)

// output is a build log of about outputBytes.
func (g *generator) output() string {
	var b strings.Builder
	b.Grow(g.shape.outputBytes + 64)
	for line := 1; b.Len() < g.shape.outputBytes; line++ {
		fmt.Fprintf(&b, "%05d", line)
		for range 8 + g.rnd.IntN(8) {
			b.WriteByte(' ')
			b.WriteString(words[g.rnd.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
