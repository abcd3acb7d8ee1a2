package gpuctl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
)

// IdempotencyHeader is the header that makes a retried create answer the first one's job.
const IdempotencyHeader = "Idempotency-Key"

// CreateOption changes one CreateJob or CreateJobsBatch call.
type CreateOption func(*createOptions)

type createOptions struct {
	key          string
	allowPending bool
}

// AllowPending creates a job that no node could ever hold as asked (a GPU type no node
// carries, a pod larger than any node, a pool without nodes) anyway, to wait for nodes that
// join; without it such a job is a 422 Unschedulable (IsUnprocessable) and nothing is made.
func AllowPending() CreateOption {
	return func(o *createOptions) { o.allowPending = true }
}

// WithIdempotencyKey sends key instead of a new random one: a key that an earlier call with
// the same spec sent answers that call's job (nothing is created again), with another spec
// it is a 422 (IsUnprocessable). Use it to make a create safe across restarts of the caller.
func WithIdempotencyKey(key string) CreateOption {
	return func(o *createOptions) { o.key = key }
}

// NewIdempotencyKey is a random key, as the creates send when given none.
func NewIdempotencyKey() string {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		panic("gpuctl: no randomness for an Idempotency-Key: " + err.Error())
	}
	return "gpuctl-go-" + hex.EncodeToString(raw)
}

func keyedPost(path string, body any, opts []CreateOption) (*call, error) {
	o := createOptions{key: NewIdempotencyKey()}
	for _, opt := range opts {
		opt(&o)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	header.Set(IdempotencyHeader, o.key)
	var query url.Values
	if o.allowPending {
		query = url.Values{"allowPending": {"true"}}
	}
	return &call{
		method: http.MethodPost, path: path, query: query, body: raw, header: header, idempotent: true,
	}, nil
}

// CreateJob creates the job that the YAML spec describes (one job of kind training,
// inference, notebook or compute); its JobId is what GetJob, DeleteJob and the logs take.
// One Idempotency-Key goes with every attempt of the call, so a retry never makes two jobs.
// An invalid spec is a 400 *APIError whose Field names the first problem's place.
func (c *Client) CreateJob(ctx context.Context, yamlSpec string, opts ...CreateOption) (*JobCreated, error) {
	k, err := keyedPost("/jobs", JobCreate{YamlContent: yamlSpec}, opts)
	if err != nil {
		return nil, err
	}
	var out JobCreated
	if _, err := c.do(ctx, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateJobsBatch creates each spec as its own job (at most 100). The answer lists the jobs
// made in Success and each spec that failed, with its index and error, in Failed: also when
// every spec failed (the server's 422, nothing created), so the error is only for a call that
// failed as a whole (no token, a reused Idempotency-Key, ...).
func (c *Client) CreateJobsBatch(ctx context.Context, yamlSpecs []string, opts ...CreateOption) (*JobBatch, error) {
	k, err := keyedPost("/jobs/batch", JobBatchCreate{YamlContents: yamlSpecs}, opts)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	k.errorBodyOK = func(status int) bool { return status == http.StatusUnprocessableEntity }
	status, err := c.do(ctx, k, &raw)
	if err != nil {
		return nil, err
	}
	// A refusal of the whole batch (a reused Idempotency-Key) carries `error` beside its
	// items: it is an error, not a batch whose every item failed.
	var refused ErrorBody
	if json.Unmarshal(raw, &refused) == nil && refused.Error != "" {
		return nil, errorOfBody(status, raw)
	}
	var out JobBatch
	if json.Unmarshal(raw, &out) == nil && out.Success != nil && out.Failed != nil {
		return &out, nil
	}
	return nil, errorOfBody(status, raw)
}

// errorOfBody is the *APIError of an error answer already read.
func errorOfBody(status int, raw []byte) error {
	var body ErrorBody
	apiErr := &APIError{Status: status, Code: "UnexpectedAnswer", Message: string(raw)}
	if json.Unmarshal(raw, &body) == nil && body.Error != "" {
		apiErr.Code, apiErr.Message = body.Error, body.Message
		if body.Field != nil {
			apiErr.Field = *body.Field
		}
	}
	return apiErr
}

func jobsQuery(params *ListJobsParams) url.Values {
	q := url.Values{}
	if params == nil {
		return q
	}
	if params.Kind != nil {
		q.Set("kind", string(*params.Kind))
	}
	if params.Status != nil {
		q.Set("status", string(*params.Status))
	}
	setString(q, "pool", params.Pool)
	setString(q, "namespace", params.Namespace)
	setInt(q, "page", params.Page)
	setInt(q, "pageSize", params.PageSize)
	return q
}

// ListJobs is one page of the jobs the caller may see (a user's own; an admin's all), with
// the total; Jobs walks every page.
func (c *Client) ListJobs(ctx context.Context, params *ListJobsParams) (*JobList, error) {
	var out JobList
	if err := c.get(ctx, "/jobs", jobsQuery(params), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Jobs walks the jobs ListJobs pages through, from params' page (1 when nil), params'
// pageSize (DefaultPageSize when nil) at a time.
func (c *Client) Jobs(params *ListJobsParams) *Pager[JobItem] {
	var first, size *int
	if params != nil {
		first, size = params.Page, params.PageSize
	}
	return newPager(first, size, func(ctx context.Context, page, size int) ([]JobItem, int, error) {
		var out JobList
		err := c.get(ctx, "/jobs", pageQuery(jobsQuery(params), page, size), &out)
		return out.Items, out.Total, err
	})
}

// GetJob is one job in detail: its status and why, resources, pods, metrics and spec.
func (c *Client) GetJob(ctx context.Context, jobID string) (*JobDetail, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	var out JobDetail
	if err := c.get(ctx, "/jobs/"+segment(jobID), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteJob deletes the job and what was made for it; force skips the graceful stop.
func (c *Client) DeleteJob(ctx context.Context, jobID string, force bool) (*JobDeleted, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	q := url.Values{}
	if force {
		q.Set("force", "true")
	}
	var out JobDeleted
	if err := c.del(ctx, "/jobs/"+segment(jobID), q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// JobMetrics is the job's GPU utilisation, GPU memory and throughput over time (each series
// empty, Source nil, when the server has no Prometheus).
func (c *Client) JobMetrics(ctx context.Context, jobID string, params *GetJobMetricsParams) (*JobMetrics, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	q := url.Values{}
	if params != nil {
		if params.Metric != nil {
			q.Set("metric", string(*params.Metric))
		}
		setString(q, "startTime", params.StartTime)
		setString(q, "endTime", params.EndTime)
	}
	var out JobMetrics
	if err := c.get(ctx, "/jobs/"+segment(jobID)+"/metrics", q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetJobManifests is what the job's spec renders to now (the Job, Deployment, StatefulSet,
// Service, ... as YAML), by the same render as `gpuctl create`. A job whose spec was not kept
// has no manifests, and Message says why.
func (c *Client) GetJobManifests(ctx context.Context, jobID string) (*JobManifests, error) {
	if err := need(jobID); err != nil {
		return nil, err
	}
	var out JobManifests
	if err := c.get(ctx, "/jobs/"+segment(jobID)+"/manifests", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListWorkloads is the GPUWorkload controller's workloads with their phase, node, Job and
// message: a user's own namespace's, an admin's all. Installed is false (Items empty) when
// the cluster has no GPUWorkload CRD.
func (c *Client) ListWorkloads(ctx context.Context) (*WorkloadList, error) {
	var out WorkloadList
	if err := c.get(ctx, "/workloads", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
