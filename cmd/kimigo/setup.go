package main

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/osenv"
)

// configure finds the work dir and the data root, makes sure the root and
// its config.toml exist, and loads the configuration with print mode's
// defaults (spec 06 §1.6.1 steps 2–3). Load warnings go to stderr.
func (r *printRun) configure() error {
	st, err := loadSetup(r.p, r.env, r.logs, r.level, r.logger, func(msg string) { r.warn(msg, true) })
	r.workDir, r.home = st.workDir, st.home
	if err != nil {
		return err
	}
	r.cfg = st.cfg.WithPrintDefaults()
	return nil
}

// setup is what every run finds before it opens a session: the work dir,
// the data root and the loaded configuration.
type setup struct {
	workDir, home string
	cfg           *config.Config
}

// loadSetup finds the work dir and the data root, makes sure the root and
// its config.toml exist, points the log at <root>/logs/kimigo.log, loads
// the configuration and sets the log level from it. Load warnings go to
// warn. What was found is returned with the error.
func loadSetup(p proc, env config.Env, logs *logFile, level *slog.LevelVar, logger *slog.Logger, warn func(string)) (setup, error) {
	var st setup
	wd, err := p.getwd()
	if err != nil {
		return st, fmt.Errorf("find the working directory: %w", err)
	}
	st.workDir = wd
	userHome, _ := p.userHome() // unknown only matters without KIMIGO_HOME, and HomeDir says so
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return st, err
	}
	st.home = absolute(wd, home)
	logs.switchTo(filepath.Join(st.home, "logs", "kimigo.log"))
	if err := config.EnsureHome(osenv.LocalFS{}, st.home); err != nil {
		return st, err
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: st.home, Env: env, Logger: logger})
	for _, w := range warnings {
		warn(w.Message)
	}
	if err != nil {
		return st, err
	}
	level.Set(logLevel(cfg.Env.LogLevel))
	st.cfg = cfg
	return st, nil
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
