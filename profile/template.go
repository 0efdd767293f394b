package profile

import (
	"fmt"
	"maps"
	"strings"
	"text/template"
	"text/template/parse"
)

// templatePrompt renders a profile's system prompt from a text/template
// over the variables of spec 05 §8.4, written {{.KIMI_OS}}, {{if
// .KIMI_SKILLS}} or {{if eq .KIMI_OS "Windows"}}. Nothing is HTML-escaped.
type templatePrompt struct {
	tmpl *template.Template // executed concurrently, never changed
	vars map[string]string  // the merged promptVars; never changed
}

// Render implements Prompt. Context variables win over promptVars of the
// same name (spec 05 §8.4).
func (t *templatePrompt) Render(p *Profile, pc PromptContext) (string, error) {
	vars := maps.Clone(t.vars)
	if vars == nil {
		vars = map[string]string{}
	}
	maps.Copy(vars, pc.Vars(p))
	vars[VarRoleAdditional] = roleAdditional(pc, t.vars)
	var b strings.Builder
	if err := t.tmpl.Execute(&b, vars); err != nil {
		return "", fmt.Errorf("render system prompt for agent profile %q: %w", p.Name, err)
	}
	return b.String(), nil
}

// roleAdditional is the context's role text, else promptVars
// ROLE_ADDITIONAL, else promptVars roleAdditional, else "".
func roleAdditional(pc PromptContext, vars map[string]string) string {
	if pc.RoleAdditional != "" {
		return pc.RoleAdditional
	}
	if v, ok := vars[VarRoleAdditional]; ok {
		return v
	}
	return vars["roleAdditional"]
}

// parseTemplate parses src. Errors name the template file, line and
// column, as text/template does.
func parseTemplate(src templateSource) (*template.Template, error) {
	return template.New(src.name).Option("missingkey=error").Parse(src.text)
}

// checkNames checks that every variable t names is one the renderer will
// define: a context variable or one of vars. Errors name the template
// file, line and column.
func checkNames(t *template.Template, vars map[string]string) error {
	known := map[string]bool{VarRoleAdditional: true}
	for _, n := range contextVarNames() {
		known[n] = true
	}
	for n := range vars {
		known[n] = true
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		c := nameCheck{t: tt, known: known}
		c.walk(tt.Tree.Root, true)
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// nameCheck walks a parse tree for references to undefined variables.
// Inside range and with the dot is no longer the variable map, so field
// references there are not checked ($.NAME still is).
type nameCheck struct {
	t     *template.Template
	known map[string]bool
	err   error // the first undefined reference
}

func (c *nameCheck) walk(n parse.Node, rootDot bool) {
	if c.err != nil || n == nil {
		return
	}
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, e := range n.Nodes {
			c.walk(e, rootDot)
		}
	case *parse.ActionNode:
		c.walk(n.Pipe, rootDot)
	case *parse.IfNode:
		c.branch(&n.BranchNode, rootDot, rootDot)
	case *parse.RangeNode:
		c.branch(&n.BranchNode, rootDot, false)
	case *parse.WithNode:
		c.branch(&n.BranchNode, rootDot, false)
	case *parse.TemplateNode:
		c.walk(n.Pipe, rootDot)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, cmd := range n.Cmds {
			c.walk(cmd, rootDot)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			c.walk(a, rootDot)
		}
	case *parse.ChainNode:
		c.walk(n.Node, rootDot)
	case *parse.FieldNode:
		if rootDot {
			c.check(n, n.Ident[0])
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			c.check(n, n.Ident[1])
		}
	}
}

func (c *nameCheck) branch(b *parse.BranchNode, rootDot, bodyRootDot bool) {
	c.walk(b.Pipe, rootDot)
	c.walk(b.List, bodyRootDot)
	c.walk(b.ElseList, rootDot)
}

func (c *nameCheck) check(n parse.Node, name string) {
	if c.known[name] {
		return
	}
	loc, _ := c.t.ErrorContext(n)
	c.err = fmt.Errorf("template: %s: unknown variable %q", loc, name)
}
