package gpuctl

import (
	"context"
	"net/url"
)

// PushgatewayNotConfigured is the error word of a push to a server that has no Pushgateway
// (started without --pushgateway-url): a 503 that no retry changes.
const PushgatewayNotConfigured = "PushgatewayNotConfigured"

// PushCustomMetrics reports values of the job's own (its training loop's): "progress"
// (percent, shown by `gpuctl get jobs`), "loss", "tokensPerSecond" or "samplesPerSecond" (the
// job's throughput), or any other name. The server relays them to its Pushgateway, where each
// replaces the name's earlier value (the names not pushed keep theirs), and JobMetrics reads
// them back in Custom once Prometheus has scraped them. At most 32 names a push; names as
// Prometheus metric names without ':', values finite. A push carries absolute values, so it
// is retried like a GET; a server without a Pushgateway is a 503 whose Code is
// PushgatewayNotConfigured (not retried), one whose Pushgateway does not answer a 503
// PushgatewayUnavailable, one it refuses a 502.
func (c *Client) PushCustomMetrics(ctx context.Context, jobID string, metrics map[string]float64) (*CustomMetricsPushed, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	var out CustomMetricsPushed
	k := &call{path: "/metrics/custom", finalCodes: []string{PushgatewayNotConfigured}}
	if err := c.idempotentPost(ctx, k, CustomMetricsPush{JobId: jobID, Metrics: metrics}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListJobsUtilisation is the recent GPU utilisation of every job the caller may see (a user's
// own, an admin's all), in one request: per job the last params.Points (2 to 60; 20 when nil)
// values in percent over the last 30 minutes, oldest first. Jobs with no GPU figure are left
// out; without a Prometheus Items is empty and Source nil.
func (c *Client) ListJobsUtilisation(ctx context.Context, params *ListJobsUtilisationParams) (*JobsUtilisation, error) {
	q := url.Values{}
	if params != nil {
		setInt(q, "points", params.Points)
	}
	var out JobsUtilisation
	if err := c.get(ctx, "/metrics/jobs", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
