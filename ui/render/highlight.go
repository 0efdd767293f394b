package render

import (
	"strings"
	"sync"
)

// languages knows, for code blocks, each language's comment markers and
// keywords. Code in other languages is shown without colours.
// languages is built on first use.
var languages = sync.OnceValue(buildLanguages)

type language struct {
	line     []string // line comment markers
	keywords map[string]bool
}

func buildLanguages() map[string]language {
	languages := map[string]language{}
	add := func(names []string, line []string, kw string) {
		set := map[string]bool{}
		for _, k := range strings.Fields(kw) {
			set[k] = true
		}
		for _, n := range names {
			languages[n] = language{line, set}
		}
	}
	add([]string{"go", "golang"}, []string{"//"}, `break case chan const continue default defer else fallthrough for func go goto
		if import interface map package range return select struct switch type var nil true false iota`)
	add([]string{"python", "py"}, []string{"#"}, `and as assert async await break class continue def del elif else except False finally
		for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self`)
	add([]string{"javascript", "js", "typescript", "ts", "tsx", "jsx"}, []string{"//"}, `async await break case catch class const
		continue default delete do else export extends false finally for from function if import in instanceof interface let new null
		return super switch this throw true try type typeof undefined var void while yield`)
	add([]string{"sh", "bash", "shell", "zsh", "console"}, []string{"#"}, `if then else elif fi for while do done case esac in function
		return export local echo cd exit set`)
	add([]string{"rust", "rs"}, []string{"//"}, `as async await break const continue crate else enum extern false fn for if impl in let loop
		match mod move mut pub ref return self Self static struct super trait true type unsafe use where while`)
	add([]string{"java", "kotlin", "c", "cpp", "c++", "h", "cs", "csharp"}, []string{"//"}, `abstract break case catch char class
		const continue default do double else enum extends false final float for if implements import int long namespace new null
		package private protected public return short static struct switch this throw true try typedef unsigned void while`)
	add([]string{"toml", "yaml", "yml", "ini"}, []string{"#"}, `true false`)
	add([]string{"sql"}, []string{"--"}, `select from where insert into values update set delete create table drop alter and or not
		null join left right inner on group by order having limit SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE
		DROP ALTER AND OR NOT NULL JOIN LEFT RIGHT INNER ON GROUP BY ORDER HAVING LIMIT`)
	return languages
}

// highlight colours one line of code: comments, strings, numbers and
// keywords of lang. Unknown languages keep the code's own colour.
func highlight(t Theme, lang, line string) string {
	l, ok := languages()[lang]
	if !ok {
		return t.Text.Render(line)
	}
	var b strings.Builder
	word := func(w string) {
		switch {
		case l.keywords[w]:
			b.WriteString(t.Primary.Render(w))
		case w != "" && w[0] >= '0' && w[0] <= '9':
			b.WriteString(t.Warning.Render(w))
		default:
			b.WriteString(t.Text.Render(w))
		}
	}
	for i := 0; i < len(line); {
		c := line[i]
		comment := false
		for _, m := range l.line {
			if strings.HasPrefix(line[i:], m) {
				comment = true
			}
		}
		switch {
		case comment:
			b.WriteString(t.Dim.Render(line[i:]))
			return b.String()
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(line) && line[j] != c {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			b.WriteString(t.Success.Render(line[i:j]))
			i = j
		case isIdent(c):
			j := i
			for j < len(line) && isIdent(line[j]) {
				j++
			}
			word(line[i:j])
			i = j
		default:
			j := i
			for j < len(line) && !isIdent(line[j]) && line[j] != '"' && line[j] != '\'' && line[j] != '`' {
				stop := false
				for _, m := range l.line {
					if strings.HasPrefix(line[j:], m) {
						stop = true
					}
				}
				if stop {
					break
				}
				j++
			}
			if j == i {
				j++
			}
			b.WriteString(t.Text.Render(line[i:j]))
			i = j
		}
	}
	return b.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
