package mcp

import (
	"fmt"
	"maps"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/osenv"
)

// remoteTransport builds the transport of an http or sse server: its
// static headers and bearer token go on every request. The token variable
// is read now, at connect time; unset or empty fails the server (spec 06
// §7.1).
func remoteTransport(env osenv.Env, base *http.Client, s Server) (sdk.Transport, error) {
	headers := maps.Clone(s.Headers)
	if s.BearerTokenEnvVar != "" {
		tok := env.Getenv(s.BearerTokenEnvVar)
		if tok == "" {
			kind := "HTTP"
			if s.Transport == TransportSSE {
				kind = "SSE"
			}
			return nil, fmt.Errorf("MCP %s bearer token env var %q is not set or is empty", kind, s.BearerTokenEnvVar)
		}
		for k := range headers {
			if strings.EqualFold(k, "Authorization") {
				delete(headers, k)
			}
		}
		if headers == nil {
			headers = map[string]string{}
		}
		headers["Authorization"] = "Bearer " + tok
	}
	client := base
	if len(headers) > 0 {
		c := *base
		rt := c.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		c.Transport = headerTransport{next: rt, headers: headers}
		client = &c
	}
	if s.Transport == TransportSSE {
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: client}, nil
	}
	return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client}, nil
}

// headerTransport sets fixed headers on every request.
type headerTransport struct {
	next    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.next.RoundTrip(req)
}
