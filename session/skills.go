package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/tools"
)

// loadSkills discovers the skills of spec 05 §9.1: the project and user
// roots, or instead of both the --skills-dir directories, then
// extra_skill_dirs, with the built-in skills behind them. A SKILL.md that
// does not parse is a warning naming the file and line.
func loadSkills(o Options, warn func(string)) *skill.Registry {
	merge := o.Config.MergeAllAvailableSkills == nil || *o.Config.MergeAllAvailableSkills
	roots := skill.Roots(o.Env, skill.RootOptions{WorkDir: o.WorkDir, DataHome: o.Home, Dirs: o.SkillsDirs,
		ExtraDirs: o.Config.ExtraSkillDirs, FirstOnly: !merge})
	reg, warnings := skill.Load(o.Env, roots)
	for _, w := range warnings {
		warn(w.Message)
	}
	return reg
}

// skillPrefix starts a prompt that activates a skill: /skill:<name> [args].
const skillPrefix = "/skill:"

// skillPrompt turns a prompt of the form /skill:<name> [args] into the
// skill's activation message, as the Skill tool's but triggered by the
// user (spec 05 §9.5); ok is false for any other prompt. An unknown skill
// is an error naming it.
func (s *Session) skillPrompt(input []llm.ContentPart) ([]llm.ContentPart, *history.Origin, bool, error) {
	if len(input) != 1 || input[0].Type != llm.PartText || !strings.HasPrefix(strings.TrimSpace(input[0].Text), skillPrefix) {
		return nil, nil, false, nil
	}
	rest := strings.TrimPrefix(strings.TrimSpace(input[0].Text), skillPrefix)
	name, args, _ := strings.Cut(rest, " ")
	args = strings.TrimSpace(args)
	sk, ok := s.skills.Lookup(name)
	if name == "" || !ok {
		return nil, nil, true, fmt.Errorf("unknown skill %q: no skill of that name in the skill roots or the built-in skills", name)
	}
	const trigger = history.TriggerUserSlash
	text := tools.SkillMessage(sk, args, string(trigger), s.id)
	origin := &history.Origin{Kind: history.OriginSkillActivation, ActivationID: activationID(), Trigger: trigger,
		SkillName: sk.Name, SkillArgs: args, SkillType: string(sk.Type), SkillPath: sk.Path, SkillSource: string(sk.Source)}
	return []llm.ContentPart{llm.TextPart(text)}, origin, true, nil
}

// activationID is a random id for a user's skill activation.
func activationID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Skills lists the session's skills in precedence order.
func (s *Session) Skills() []skill.Skill { return s.skills.All() }

// promptInput is what Prompt sends for input: a /skill: prompt becomes the
// skill's activation.
func (s *Session) promptInput(_ context.Context, input []llm.ContentPart) ([]llm.ContentPart, *history.Origin, error) {
	parts, origin, ok, err := s.skillPrompt(input)
	if !ok || err != nil {
		return input, nil, err
	}
	return parts, origin, nil
}
