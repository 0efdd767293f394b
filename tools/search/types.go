package search

import (
	"maps"
	"slices"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes maps a file-type name (Grep's `type` argument) to base-name
// globs, following ripgrep's names for the common languages so the model's
// habits carry over. The table is built on first use, not at process start.
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"asm":        {"*.S", "*.asm", "*.s"},
		"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
		"clojure":    {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
		"cmake":      {"*.cmake", "CMakeLists.txt"},
		"config":     {"*.cfg", "*.conf", "*.config", "*.ini"},
		"cpp":        {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
		"cs":         {"*.cs"},
		"csharp":     {"*.cs"},
		"css":        {"*.css", "*.scss"},
		"csv":        {"*.csv"},
		"dart":       {"*.dart"},
		"docker":     {"*Dockerfile*"},
		"elixir":     {"*.eex", "*.ex", "*.exs"},
		"erlang":     {"*.erl", "*.hrl"},
		"go":         {"*.go"},
		"graphql":    {"*.graphql", "*.graphqls"},
		"groovy":     {"*.gradle", "*.groovy"},
		"h":          {"*.h", "*.hpp"},
		"haskell":    {"*.hs", "*.lhs", "*.hsc"},
		"html":       {"*.ejs", "*.htm", "*.html"},
		"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":         {"*.js", "*.jsx", "*.vue", "*.mjs", "*.cjs"},
		"json":       {"*.json", "composer.lock"},
		"jsx":        {"*.jsx"},
		"julia":      {"*.jl"},
		"kotlin":     {"*.kt", "*.kts"},
		"less":       {"*.less"},
		"lua":        {"*.lua"},
		"make":       {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
		"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"md":         {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"nix":        {"*.nix"},
		"objc":       {"*.h", "*.m"},
		"ocaml":      {"*.ml", "*.mli", "*.mll", "*.mly"},
		"perl":       {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
		"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"proto":      {"*.proto"},
		"protobuf":   {"*.proto"},
		"ps":         {"*.ps1", "*.psd1", "*.psm1"},
		"py":         {"*.py", "*.pyi"},
		"python":     {"*.py", "*.pyi"},
		"r":          {"*.R", "*.Rmd", "*.r"},
		"rb":         {"*.rb", "*.gemspec", "*.rbw", "Gemfile", "Rakefile", "config.ru"},
		"ruby":       {"*.rb", "*.gemspec", "*.rbw", "Gemfile", "Rakefile", "config.ru"},
		"rst":        {"*.rst"},
		"rust":       {"*.rs"},
		"sass":       {"*.sass", "*.scss"},
		"scala":      {"*.sbt", "*.scala"},
		"sh":         {"*.bash", "*.sh", "*.zsh", "*.ksh", "*.csh", ".bashrc", ".bash_profile", ".zshrc", ".profile"},
		"sql":        {"*.psql", "*.sql"},
		"svelte":     {"*.svelte"},
		"swift":      {"*.swift"},
		"tex":        {"*.bib", "*.cls", "*.sty", "*.tex"},
		"tf":         {"*.tf", "*.tfvars"},
		"toml":       {"*.toml", "Cargo.lock"},
		"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"tsx":        {"*.tsx"},
		"txt":        {"*.txt"},
		"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"vim":        {"*.vim"},
		"vue":        {"*.vue"},
		"xml":        {"*.dtd", "*.xhtml", "*.xml", "*.xsd", "*.xsl", "*.xslt"},
		"yaml":       {"*.yaml", "*.yml"},
		"zig":        {"*.zig"},
	}
})

// FileTypes returns the known file-type names, sorted.
func FileTypes() []string { return slices.Sorted(maps.Keys(fileTypes())) }

// typeGlobs returns the base-name globs of the named type.
func typeGlobs(name string) (globSet, error) {
	patterns, ok := fileTypes()[name]
	if !ok {
		return nil, unknownType(name)
	}
	gs := make(globSet, 0, len(patterns))
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return nil, invalidArg("type", name, errBadGlob) // a broken table entry
		}
		gs = append(gs, pathGlob{pattern: p, base: true})
	}
	return gs, nil
}
