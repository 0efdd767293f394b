package permission

import "context"

// fetchURLHostAsk asks before a fetch in manual mode (issue 16 item 5):
// FetchURL is in the default-approve list, but a page the model picks can
// carry what it read out of the workspace in its URL. The approval rule of
// a fetch is its host's, FetchURL(scheme://host[:port]/*), so "approve for
// this session" answers once per host and session approval history (7)
// approves the host's later fetches. Auto and yolo mode approve above.
type fetchURLHostAsk struct{}

func (fetchURLHostAsk) Name() string { return "fetch-url-host-ask" }

func (fetchURLHostAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode != ModeManual || c.Name() != "FetchURL" {
		return Verdict{}, nil
	}
	return Verdict{Kind: Ask, Reason: map[string]any{"fetch": "host"}}, nil
}
