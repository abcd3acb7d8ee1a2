// Package gpuctl is the Go client of gpuctl's REST API (`gpuctl serve`): jobs, their logs and
// metrics, pools, node labels, quotas, webhooks and access checks, each as a typed method.
//
// A Client sends the bearer token on every request, turns every 4xx and 5xx answer into an
// *APIError, and retries what is safe to retry (see RetryPolicy): connection failures and the
// answers 429, 502, 503 and 504, waiting as Retry-After says or else with exponential backoff
// and full jitter, never past the context's deadline. A job created with CreateJob or
// CreateJobsBatch carries one Idempotency-Key for all the attempts of that call, so a retried
// create never makes a second job.
package gpuctl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// APIPrefix is the path of the API's version 1 under the server's URL.
const APIPrefix = "/api/v1"

// maxErrorBody is how much of an error answer is read: the error shape is one short line.
const maxErrorBody = 1 << 20

// Client talks to one gpuctl server as one user. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	token     string
	http      *http.Client
	retry     RetryPolicy
	userAgent string
}

// Option changes a Client made by NewClient.
type Option func(*Client)

// WithHTTPClient sends the requests with h (its transport, TLS settings, proxy and timeout)
// instead of a client of the SDK's own.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.http = h }
}

// WithRetry replaces DefaultRetryPolicy; RetryPolicy{MaxAttempts: 1} turns retries off.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// WithUserAgent names the calling program in the User-Agent header.
func WithUserAgent(agent string) Option {
	return func(c *Client) { c.userAgent = agent }
}

// NewClient is a client of the server at serverURL (e.g. "http://127.0.0.1:8080", with or
// without the "/api/v1" path) that sends token as its bearer token; an empty token sends none
// (a server without a token file).
func NewClient(serverURL, token string, opts ...Option) (*Client, error) {
	base, err := url.Parse(strings.TrimRight(serverURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("gpuctl: server URL %q: %w", serverURL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" {
		return nil, fmt.Errorf("gpuctl: server URL %q: the scheme must be http or https", serverURL)
	}
	base.Path = strings.TrimSuffix(base.Path, APIPrefix)
	base.RawPath, base.RawQuery, base.Fragment = "", "", ""
	c := &Client{
		base:      base,
		token:     token,
		http:      &http.Client{},
		retry:     DefaultRetryPolicy,
		userAgent: "gpuctl-go-sdk",
	}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// call is one logical API call: what is sent on each attempt, and how it may be retried.
type call struct {
	method      string
	path        string // under APIPrefix, escaped
	query       url.Values
	body        []byte // JSON; nil for none
	header      http.Header
	idempotent  bool           // safe to send again even when an attempt may have reached the server
	errorBodyOK func(int) bool // answers >= 400 whose body is still the result (batch 422)
	finalCodes  []string       // error words that no retry can change (a server not set up for the call)
}

func (c *Client) url(path string, query url.Values) string {
	target := c.base.String() + APIPrefix + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	return target
}

func (c *Client) newRequest(ctx context.Context, k *call) (*http.Request, error) {
	var body io.Reader
	if k.body != nil {
		body = bytes.NewReader(k.body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, c.url(k.path, k.query), body)
	if err != nil {
		return nil, fmt.Errorf("gpuctl: %s %s: %w", k.method, k.path, err)
	}
	for key, values := range k.header {
		req.Header[key] = values
	}
	if k.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	c.authorize(req.Header)
	return req, nil
}

func (c *Client) authorize(h http.Header) {
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	h.Set("User-Agent", c.userAgent)
}

// send runs the call with retries and answers its successful response, whose body the
// caller reads and closes; every answer >= 400 (unless errorBodyOK takes it) is an *APIError.
func (c *Client) send(ctx context.Context, k *call) (*http.Response, error) {
	var answer *http.Response
	err := c.retry.run(ctx, k.idempotent, func() (*attempt, error) {
		req, err := c.newRequest(ctx, k)
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return &attempt{err: err, sent: !isDialError(err)}, nil
		}
		if resp.StatusCode >= 400 && (k.errorBodyOK == nil || !k.errorBodyOK(resp.StatusCode)) {
			defer resp.Body.Close()
			apiErr := readAPIError(resp)
			final := slices.Contains(k.finalCodes, apiErr.Code)
			return &attempt{status: resp.StatusCode, header: resp.Header, err: apiErr, final: final}, nil
		}
		answer = resp
		return &attempt{status: resp.StatusCode}, nil
	})
	return answer, err
}

// do runs the call with retries and decodes a successful answer's JSON into out (when not
// nil); it answers the final status code.
func (c *Client) do(ctx context.Context, k *call, out any) (int, error) {
	resp, err := c.send(ctx, k)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("gpuctl: %s %s: the answer (%d) is not the expected JSON: %w",
			k.method, k.path, resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}

// readAPIError is the *APIError of an answer >= 400 (its body in the error shape, or the
// status line when a proxy answered with something else).
func readAPIError(resp *http.Response) *APIError {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	apiErr := &APIError{Status: resp.StatusCode}
	var body ErrorBody
	if json.Unmarshal(raw, &body) == nil && body.Error != "" {
		apiErr.Code = body.Error
		apiErr.Message = body.Message
		if body.Field != nil {
			apiErr.Field = *body.Field
		}
		if body.Problems != nil {
			apiErr.Problems = *body.Problems
		}
		return apiErr
	}
	apiErr.Code = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	apiErr.Message = strings.TrimSpace(string(raw))
	if apiErr.Message == "" {
		apiErr.Message = resp.Status
	}
	return apiErr
}

// get is a GET of path into out.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	_, err := c.do(ctx, &call{method: http.MethodGet, path: path, query: query, idempotent: true}, out)
	return err
}

// del is a DELETE of path into out.
func (c *Client) del(ctx context.Context, path string, query url.Values, out any) error {
	k := &call{method: http.MethodDelete, path: path, query: query, idempotent: true}
	_, err := c.do(ctx, k, out)
	return err
}

// post sends in as JSON to path and decodes the answer into out. Such a POST is sent again
// only when no attempt can have reached the server (see RetryPolicy).
func (c *Client) post(ctx context.Context, path string, in, out any) error {
	k := &call{method: http.MethodPost, path: path}
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("gpuctl: POST %s: %w", path, err)
		}
		k.body = raw
	}
	_, err := c.do(ctx, k, out)
	return err
}

// patch sends in as JSON to path as a PATCH and decodes the answer into out. The API's PATCHes
// set values (a pool's cap) rather than change them by an amount, so one sent twice leaves what
// one leaves: it is retried like a GET.
func (c *Client) patch(ctx context.Context, path string, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("gpuctl: PATCH %s: %w", path, err)
	}
	_, err = c.do(ctx, &call{method: http.MethodPatch, path: path, body: raw, idempotent: true}, out)
	return err
}

// idempotentPost is a POST that leaves the same state however often it arrives (a check that
// changes nothing, nodes added to a pool, values set in the Pushgateway): retried like a GET.
func (c *Client) idempotentPost(ctx context.Context, k *call, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("gpuctl: POST %s: %w", k.path, err)
	}
	k.method, k.body, k.idempotent = http.MethodPost, raw, true
	_, err = c.do(ctx, k, out)
	return err
}

// segment is one path segment, escaped.
func segment(s string) string {
	return url.PathEscape(s)
}

var errEmptyID = errors.New("gpuctl: an empty name or id")

func need(values ...string) error {
	for _, v := range values {
		if v == "" {
			return errEmptyID
		}
	}
	return nil
}
