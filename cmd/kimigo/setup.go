package main

import (
	"fmt"
	"path/filepath"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/osenv"
)

// configure finds the work dir and the data root, makes sure the root and
// its config.toml exist, and loads the configuration with print mode's
// defaults (spec 06 §1.6.1 steps 2–3). Load warnings go to stderr.
func (r *printRun) configure() error {
	wd, err := r.p.getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	r.workDir = wd
	userHome, _ := r.p.userHome() // unknown only matters without KIMIGO_HOME, and HomeDir says so
	home, err := config.HomeDir(r.env, userHome)
	if err != nil {
		return err
	}
	r.home = absolute(wd, home)
	r.logs.switchTo(filepath.Join(r.home, "logs", "kimigo.log"))
	if err := config.EnsureHome(osenv.LocalFS{}, r.home); err != nil {
		return err
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: r.home, Env: r.env, Logger: r.logger})
	for _, w := range warnings {
		r.warn(w.Message, true)
	}
	if err != nil {
		return err
	}
	r.level.Set(logLevel(cfg.Env.LogLevel))
	r.cfg = cfg.WithPrintDefaults()
	return nil
}

// providerHint says what to check when the model service refused the
// run's requests: the key on 401/403, the endpoint and model id on 404.
func providerHint(f *print.Failure, m config.Model, home string) string {
	if m.Alias == "" {
		return ""
	}
	status, _ := f.Details["statusCode"].(int)
	env := m.ProviderName == config.EnvModelProviderID
	where := fmt.Sprintf("of [providers.%s] in %s", m.ProviderName, configPath(home))
	switch {
	case status == 401 || status == 403 || f.Code == "provider.auth_error":
		if env {
			return fmt.Sprintf("the %s service at %s rejected the API key of the KIMI_MODEL_* model; check KIMI_MODEL_API_KEY",
				m.Transport, m.BaseURL)
		}
		return fmt.Sprintf("the %s service at %s rejected the API key of provider %q; check api_key %s",
			m.Transport, m.BaseURL, m.ProviderName, where)
	case status == 404:
		if env {
			return fmt.Sprintf("the %s service at %s has no model %q or no such endpoint; check KIMI_MODEL_BASE_URL and KIMI_MODEL_NAME",
				m.Transport, m.BaseURL, m.ModelID)
		}
		return fmt.Sprintf("the %s service at %s has no model %q or no such endpoint; check base_url %s and the model of [models.%s]",
			m.Transport, m.BaseURL, m.ModelID, where, m.Alias)
	}
	return ""
}

func configPath(home string) string {
	if home == "" {
		return "config.toml"
	}
	return config.ConfigFile(home)
}

// absolute resolves p against dir.
func absolute(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
