package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/ui/tui"
)

// platform is a Kimi Platform the API-key login sets up (spec 06 §3.3).
type platform struct {
	id, name, base, console string
}

var platforms = []platform{
	{"moonshot-cn", "Kimi Platform (China)", "https://api.moonshot.cn/v1", "https://platform.kimi.com"},
	{"moonshot-ai", "Kimi Platform (international)", "https://api.moonshot.ai/v1", "https://platform.kimi.ai"},
}

const loginUsage = `Usage: kimigo login [--platform <moonshot-cn|moonshot-ai>] [--base-url <url>] [--model <id>]
       kimigo logout [<provider>]

login sets up a Kimi Platform API key: it asks for the platform and the key
(on stderr, reading stdin), lists the platform's models with the key, and
writes the provider, its models and default_model into config.toml.
--base-url replaces the platform's endpoint (a proxy or gateway).
logout removes a provider and its models from config.toml.
`

// platformModel is one entry of a /models listing (spec 06 §3.4).
type platformModel struct {
	ID           string
	Context      int
	DisplayName  string
	Capabilities []string
	Efforts      []string
	Effort       string
}

// runLogin is `kimigo login` (spec 06 §3.5 on a plain terminal): exit 0
// on success, 1 on failure or cancel.
func runLogin(args []string, env config.Env, p proc) int {
	var platformID, baseURL, modelID string
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var ok bool
		switch a {
		case "-h", "--help":
			fmt.Fprint(p.stdout, loginUsage)
			return exitOK
		case "--platform":
			platformID, ok = value()
		case "--base-url":
			baseURL, ok = value()
		case "--model":
			modelID, ok = value()
		default:
			return printUsageError(p.stderr, usagef("unknown argument '%s' for 'kimigo login'", a))
		}
		if !ok {
			return printUsageError(p.stderr, usagef("option '%s' needs a value", a))
		}
	}
	home, err := dataHome(env, p)
	if err != nil {
		return fail(p, err)
	}
	if err := config.EnsureHome(osenv.LocalFS{}, home); err != nil {
		return fail(p, err)
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: home, Env: config.Env{}})
	if err != nil {
		return fail(p, err)
	}
	in := bufio.NewReader(p.stdin)
	plat, err := pickPlatform(p, in, platformID)
	if err != nil {
		return fail(p, err)
	}
	if baseURL != "" {
		plat.base = strings.TrimRight(baseURL, "/")
	}
	fmt.Fprintf(p.stderr, "%s (%s)\n  base_url %s\n  saved to %s\nAPI key: ", plat.name, plat.console, plat.base, cfg.Path)
	key, err := readLine(in)
	if err != nil || key == "" {
		return fail(p, errors.New("login cancelled: no API key given"))
	}
	models, err := listModels(plat.base, key)
	if err != nil {
		msg := "Failed to verify API key: " + err.Error()
		var se statusError
		if errors.As(err, &se) && se.code == http.StatusUnauthorized {
			msg += "\nHint: If your API key was obtained from Kimi Code, please select \"Kimi Code\" instead."
		}
		return fail(p, errors.New(msg))
	}
	if len(models) == 0 {
		//lint:ignore ST1005 the wording is spec 06 §3.5's
		return fail(p, errors.New("No models available for this platform."))
	}
	chosen, err := pickModel(p, in, models, modelID)
	if err != nil {
		return fail(p, err)
	}
	if err := config.Patch(osenv.LocalFS{}, cfg.Path, loginPatch(cfg, plat, key, models, chosen)); err != nil {
		return fail(p, err)
	}
	fmt.Fprintf(p.stdout, "Setup complete: %s · %s\n", plat.name, chosen.ID)
	return exitOK
}

// dataHome is KIMIGO_HOME (else ~/.kimigo), absolute.
func dataHome(env config.Env, p proc) (string, error) {
	wd, err := p.getwd()
	if err != nil {
		return "", fmt.Errorf("find the working directory: %w", err)
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return "", err
	}
	return absolute(wd, home), nil
}

func readLine(in *bufio.Reader) (string, error) {
	line, err := in.ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// choose asks for a number from 1 to n; blank is 1.
func choose(p proc, in *bufio.Reader, prompt string, n int) (int, error) {
	fmt.Fprint(p.stderr, prompt)
	line, err := readLine(in)
	if err != nil {
		return 0, errors.New("login cancelled")
	}
	if line == "" {
		return 0, nil
	}
	k, err := strconv.Atoi(line)
	if err != nil || k < 1 || k > n {
		return 0, fmt.Errorf("invalid choice %q: expected a number from 1 to %d", line, n)
	}
	return k - 1, nil
}

func pickPlatform(p proc, in *bufio.Reader, id string) (platform, error) {
	if id != "" {
		for _, pl := range platforms {
			if pl.id == id {
				return pl, nil
			}
		}
		return platform{}, fmt.Errorf("unknown platform %q: expected moonshot-cn or moonshot-ai", id)
	}
	for i, pl := range platforms {
		fmt.Fprintf(p.stderr, "%d) %s (%s)\n", i+1, pl.name, pl.console)
	}
	k, err := choose(p, in, "Platform [1]: ", len(platforms))
	return platforms[k], err
}

func pickModel(p proc, in *bufio.Reader, models []platformModel, id string) (platformModel, error) {
	if id != "" {
		for _, m := range models {
			if m.ID == id {
				return m, nil
			}
		}
		return platformModel{}, fmt.Errorf("model %q is not offered by this platform", id)
	}
	for i, m := range models {
		fmt.Fprintf(p.stderr, "%d) %s (%d tokens)\n", i+1, m.ID, m.Context)
	}
	k, err := choose(p, in, "Model [1]: ", len(models))
	return models[k], err
}

// statusError is an HTTP status the /models request got.
type statusError struct {
	code int
	body string
}

func (e statusError) Error() string {
	if e.body != "" {
		return fmt.Sprintf("HTTP %d: %s", e.code, e.body)
	}
	return fmt.Sprintf("HTTP %d", e.code)
}

// listModels fetches GET <base>/models with the key and keeps the kimi-k
// models (spec 06 §3.3–3.4).
func listModels(base, key string) ([]platformModel, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		body := strings.TrimSpace(string(data))
		if len(body) > 200 {
			body = body[:200]
		}
		return nil, statusError{code: resp.StatusCode, body: body}
	}
	return parseModels(base, data)
}

// parseModels reads a /models response (spec 06 §3.4).
func parseModels(base string, data []byte) ([]platformModel, error) {
	var doc struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Data == nil {
		//lint:ignore ST1005 the wording is spec 06 §3.4's
		return nil, fmt.Errorf("Unexpected models response for %s.", base)
	}
	var out []platformModel
	for _, item := range doc.Data {
		var id string
		if json.Unmarshal(item["id"], &id) != nil || id == "" {
			continue
		}
		if !strings.HasPrefix(id, "kimi-k") {
			continue
		}
		var ctxLen int
		if json.Unmarshal(item["context_length"], &ctxLen) != nil || ctxLen <= 0 {
			//lint:ignore ST1005 the wording is spec 06 §3.4's
			return nil, fmt.Errorf("Model %q must include a positive context_length.", id)
		}
		m := platformModel{ID: id, Context: ctxLen}
		_ = json.Unmarshal(item["display_name"], &m.DisplayName)
		flag := func(k string, def bool) bool {
			v := def
			if raw, ok := item[k]; ok {
				_ = json.Unmarshal(raw, &v)
			}
			return v
		}
		var thinkingType string
		_ = json.Unmarshal(item["supports_thinking_type"], &thinkingType)
		switch {
		case thinkingType == "only":
			m.Capabilities = append(m.Capabilities, config.CapThinking, config.CapAlwaysThinking)
		case thinkingType == "both":
			m.Capabilities = append(m.Capabilities, config.CapThinking)
		case thinkingType == "" && flag("supports_reasoning", false):
			m.Capabilities = append(m.Capabilities, config.CapThinking)
		}
		if flag("supports_image_in", false) {
			m.Capabilities = append(m.Capabilities, config.CapImageIn)
		}
		if flag("supports_video_in", false) {
			m.Capabilities = append(m.Capabilities, config.CapVideoIn)
		}
		if flag("supports_tool_use", true) {
			m.Capabilities = append(m.Capabilities, config.CapToolUse)
		}
		var efforts struct {
			Support       bool     `json:"support"`
			ValidEfforts  []string `json:"valid_efforts"`
			DefaultEffort string   `json:"default_effort"`
		}
		if json.Unmarshal(item["think_efforts"], &efforts) == nil && efforts.Support {
			m.Efforts, m.Effort = efforts.ValidEfforts, efforts.DefaultEffort
		}
		out = append(out, m)
	}
	return out, nil
}

// loginPatch is the config.toml change of spec 06 §3.5 step 5: the
// provider replaced whole, every listed model merged field by field, the
// provider's models no longer listed removed, default_model and thinking.
func loginPatch(cfg *config.Config, plat platform, key string, models []platformModel, chosen platformModel) map[string]any {
	provider := map[string]any{"type": "kimi", "base_url": plat.base, "api_key": key,
		"custom_headers": nil, "env": nil, "oauth": nil, "default_model": nil}
	entries := map[string]any{}
	listed := map[string]bool{}
	for _, m := range models {
		alias := plat.id + "/" + m.ID
		listed[alias] = true
		e := map[string]any{"provider": plat.id, "model": m.ID, "max_context_size": m.Context,
			"capabilities": m.Capabilities}
		if m.DisplayName != "" {
			e["display_name"] = m.DisplayName
		}
		if len(m.Efforts) > 0 {
			e["support_efforts"] = m.Efforts
		}
		if m.Effort != "" {
			e["default_effort"] = m.Effort
		}
		entries[alias] = e
	}
	for alias, m := range cfg.Models {
		if m.Provider == plat.id && !listed[alias] {
			entries[alias] = nil
		}
	}
	thinking := map[string]any{"enabled": slices.Contains(chosen.Capabilities, config.CapThinking)}
	return map[string]any{"providers": map[string]any{plat.id: provider}, "models": entries,
		"default_model": plat.id + "/" + chosen.ID, "thinking": thinking}
}

// runLogout is `kimigo logout [<provider>]`: it removes the provider and
// its models from config.toml and clears default_model when it pointed to
// one of them (spec 06 §3.5 "/logout"). Without a name it removes the
// only provider, and asks which when there are several.
func runLogout(args []string, env config.Env, p proc) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(p.stdout, loginUsage)
		return exitOK
	}
	if len(args) > 1 {
		return printUsageError(p.stderr, usagef("'kimigo logout' takes at most one provider name"))
	}
	home, err := dataHome(env, p)
	if err != nil {
		return fail(p, err)
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: home, Env: config.Env{}})
	if err != nil {
		return fail(p, err)
	}
	names := providerNames(cfg)
	var name string
	switch {
	case len(args) == 1:
		name = args[0]
		if !slices.Contains(names, name) {
			return fail(p, fmt.Errorf("no provider %q in %s", name, cfg.Path))
		}
	case len(names) == 0:
		return fail(p, fmt.Errorf("no provider configured in %s", cfg.Path))
	case len(names) == 1:
		name = names[0]
	default:
		for i, n := range names {
			fmt.Fprintf(p.stderr, "%d) %s\n", i+1, n)
		}
		k, err := choose(p, bufio.NewReader(p.stdin), "Provider to remove [1]: ", len(names))
		if err != nil {
			return fail(p, err)
		}
		name = names[k]
	}
	msg, err := removeProvider(cfg, name)
	if err != nil {
		return fail(p, err)
	}
	fmt.Fprintln(p.stdout, msg)
	return exitOK
}

// providerNames are the providers config.toml has, sorted.
func providerNames(cfg *config.Config) []string {
	var names []string
	for name := range cfg.Providers {
		if name != config.EnvModelProviderID {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// removeProvider removes provider name and its models from config.toml
// and clears default_model when it pointed to one of them; it says what
// it did.
func removeProvider(cfg *config.Config, name string) (string, error) {
	models := map[string]any{}
	patch := map[string]any{"providers": map[string]any{name: nil}}
	for alias, m := range cfg.Models {
		if m.Provider == name {
			models[alias] = nil
			if cfg.DefaultModel == alias {
				patch["default_model"] = nil
			}
		}
	}
	if len(models) > 0 {
		patch["models"] = models
	}
	if err := config.Patch(osenv.LocalFS{}, cfg.Path, patch); err != nil {
		return "", err
	}
	return fmt.Sprintf("Logged out of %s: removed the provider and %d models from %s", name, len(models), cfg.Path), nil
}

// logoutIn is /logout [<provider>] in the interface: as `kimigo logout`,
// but a choice among several providers is the user's to name.
func logoutIn(home, name string) (string, error) {
	cfg, _, err := config.Load(config.LoadOptions{Home: home, Env: config.Env{}})
	if err != nil {
		return "", err
	}
	names := providerNames(cfg)
	switch {
	case name != "" && !slices.Contains(names, name):
		return "", fmt.Errorf("no provider %q in %s", name, cfg.Path)
	case name != "":
	case len(names) == 0:
		return "", fmt.Errorf("no provider configured in %s", cfg.Path)
	case len(names) == 1:
		name = names[0]
	default:
		return "", fmt.Errorf("several providers are configured (%s): name one, /logout <provider>", strings.Join(names, ", "))
	}
	return removeProvider(cfg, name)
}

// loginIn is /login in the interface: the steps of `kimigo login`, the
// key typed into a masked prompt (spec 06 §3.5).
func loginIn(home string) *tui.Login {
	var mu sync.Mutex
	listed := map[string][]platformModel{} // by platform and key
	l := &tui.Login{}
	for _, pl := range platforms {
		l.Platforms = append(l.Platforms, fmt.Sprintf("%s (%s)", pl.name, pl.console))
	}
	l.Models = func(_ context.Context, i int, key string) ([]string, error) {
		models, err := listModels(platforms[i].base, key)
		if err != nil {
			var se statusError
			if errors.As(err, &se) && se.code == http.StatusUnauthorized {
				err = fmt.Errorf("%w (if the key is from Kimi Code, it does not work with the Kimi Platform)", err)
			}
			return nil, err
		}
		mu.Lock()
		listed[platforms[i].id+"\x00"+key] = models
		mu.Unlock()
		ids := make([]string, len(models))
		for j, m := range models {
			ids[j] = m.ID
		}
		return ids, nil
	}
	l.Save = func(i int, key, model string) (string, error) {
		plat := platforms[i]
		mu.Lock()
		models := listed[plat.id+"\x00"+key]
		mu.Unlock()
		k := slices.IndexFunc(models, func(m platformModel) bool { return m.ID == model })
		if k < 0 {
			return "", fmt.Errorf("model %q is not offered by %s", model, plat.name)
		}
		if err := config.EnsureHome(osenv.LocalFS{}, home); err != nil {
			return "", err
		}
		cfg, _, err := config.Load(config.LoadOptions{Home: home, Env: config.Env{}})
		if err != nil {
			return "", err
		}
		if err := config.Patch(osenv.LocalFS{}, cfg.Path, loginPatch(cfg, plat, key, models, models[k])); err != nil {
			return "", err
		}
		return fmt.Sprintf("Setup complete: %s · %s (saved to %s)", plat.name, model, cfg.Path), nil
	}
	return l
}
