// Package skill owns kimigo's skills (spec 05 §9): Markdown instruction
// bundles the user (/skill:<name>) or the model (the Skill tool) loads
// into the conversation.
//
// It owns:
//   - the skill roots in precedence order: the project's .kimi-code/skills
//     and .agents/skills, the user's <KIMIGO_HOME>/skills and
//     ~/.agents/skills, or instead of both the --skills-dir directories;
//     then extra_skill_dirs (roots.go);
//   - SKILL.md parsing, with errors that name the file and the line
//     (parse.go), and the discovery walk: directory skills, sub-skills,
//     flat files at a root's top level, the first name found winning
//     (discover.go);
//   - the Registry: discovered skills, then the built-in ones whose names
//     are free (builtin/, written for kimigo; their frontmatter is compiled
//     in already decoded, builtin_gen.go by go generate), case-insensitive
//     lookup and the model's listing for the system prompt (registry.go,
//     builtin.go);
//   - placeholder expansion of a skill's body for one activation
//     (render.go: Render, Tokenize).
//
// It does not own: the Skill tool (tools.Skill), the activation message
// and its origin (the agent appends it), where the listing goes in the
// prompt (profile puts PromptContext.Skills into KIMI_SKILLS when the
// profile enables Skill), or reading configuration (the caller passes
// RootOptions). It reads files only through osenv.
//
// Invariants, and the tests that guard them:
//   - A project skill hides a user skill and a built-in of the same name;
//     a SKILL.md without a description is skipped with a warning
//     (TestScenario83).
//   - Every parse error names the file, and the line where there is one
//     (TestParseErrorsNameFileAndLine).
//   - The listing is empty without a model-invocable skill and otherwise
//     groups Project, User, Extra, Built-in (TestListing).
//   - Render substitutes tokens, names and ${KIMI_SKILL_DIR}, escapes
//     tags in arguments, and appends unused arguments (TestScenario84Render,
//     TestRender, FuzzTokenize).
//   - builtin_gen.go is what decoding the built-in frontmatter gives, and
//     Builtin equals Parse on builtin/ (TestBuiltinGenerated).
package skill
