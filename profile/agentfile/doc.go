// Package agentfile owns custom agents: Markdown files with YAML
// frontmatter whose body is a system prompt (spec 05 §8.8), selected with
// --agent-file or found in the user, extra, project and plugin agent
// directories, plus <data home>/SYSTEM.md, which replaces only the default
// prompt.
//
// It owns parsing and validation (parse.go, definition.go), discovery of
// roots and files (discover.go), the ${var} renderer that never fails on
// unknown names (render.go), merging with the built-in catalog by source
// priority and override (merge.go), dead tool-pattern warnings (lint.go),
// the Load entry point (load.go) and the session snapshot that lets a
// resumed session keep its agents (snapshot.go).
//
// It does not own the profile types, templates or prompt context (package
// profile), nor storing the snapshot (session). Plugin-provided roots are
// taken as given; refreshing them on resume is the caller's.
//
// Invariants, and the tests that guard them:
//   - A file never replaces a built-in without override, except an
//     explicit file or SYSTEM.md (TestScenario80, TestScenario82).
//   - ${base_prompt} renders the effective default (SYSTEM.md or
//     built-in), never a file's own prompt, so rendering cannot recurse
//     (TestScenario81, TestScenario82).
//   - Only explicit files can make Load fail (TestExplicitFile); directory
//     problems are warnings, and the first definition of a name wins
//     within a source (TestDiscover).
//   - Restore from a snapshot gives the same catalog as Load gave
//     (snapshot_test.go).
package agentfile
