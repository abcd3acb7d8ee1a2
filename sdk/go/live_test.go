package gpuctl

// The SDK against a live `gpuctl serve`: GPUCTL_URL, GPUCTL_TOKEN (a user's token) and
// GPUCTL_ADMIN_TOKEN (an admin's). Without them these tests are skipped; the repository's
// pytest run (tests/sdk/test_go_sdk.py) starts a sandbox and a server and sets them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const quotaSpec = `kind: quota
version: v0.1
metadata:
  name: go-sdk
users:
  alice: {cpu: 10, memory: 20Gi, gpu: 4}
  bob: {cpu: 10, memory: 20Gi, gpu: 4}
`

// trainingSpec is a training job the sandbox runs for a few seconds, logging meanwhile.
func trainingSpec(name string) string {
	return fmt.Sprintf(`kind: training
version: v0.1
job:
  name: %s
environment:
  image: busybox:1.36
  command: ["sh", "-c", "echo hello from %s"]
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
`, name, name)
}

type live struct {
	url, token, adminToken string
	user, admin            *Client
}

func liveServer(t *testing.T) *live {
	t.Helper()
	l := &live{
		url:        os.Getenv("GPUCTL_URL"),
		token:      os.Getenv("GPUCTL_TOKEN"),
		adminToken: os.Getenv("GPUCTL_ADMIN_TOKEN"),
	}
	if l.url == "" || l.token == "" || l.adminToken == "" {
		t.Skip("needs a live server: GPUCTL_URL, GPUCTL_TOKEN and GPUCTL_ADMIN_TOKEN (tests/sdk/test_go_sdk.py sets them)")
	}
	l.user = l.client(t, l.url, l.token)
	l.admin = l.client(t, l.url, l.adminToken)
	if _, err := l.admin.CreateQuota(context.Background(), quotaSpec); err != nil && !IsConflict(err) {
		t.Fatalf("the users' quota: %v", err)
	}
	return l
}

func (l *live) client(t *testing.T, serverURL, token string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(serverURL, token, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

func TestLiveAJobsWholeLife(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)
	name := unique("go-life")
	made, err := l.user.CreateJob(ctx, trainingSpec(name))
	if err != nil {
		t.Fatal(err)
	}
	if made.JobId != "alice."+name || made.Kind != JobKindTraining || made.Status != JobStatusPending {
		t.Fatalf("created %+v", made)
	}
	batch, err := l.user.CreateJobsBatch(ctx, []string{trainingSpec(name + "-b"), trainingSpec(name + "-c")})
	if err != nil || len(batch.Success) != 2 || len(batch.Failed) != 0 {
		t.Fatalf("batch %+v, %v", batch, err)
	}
	ids := []string{made.JobId, batch.Success[0].JobId, batch.Success[1].JobId}

	pager := l.user.Jobs(&ListJobsParams{PageSize: Ptr(1)})
	var walked []string
	for pager.Next(ctx) {
		walked = append(walked, pager.Item().JobId)
	}
	if pager.Err() != nil || pager.Total() != len(walked) || len(walked) < 3 {
		t.Fatalf("walked %v of %d: %v", walked, pager.Total(), pager.Err())
	}
	for _, id := range ids {
		if !slices.Contains(walked, id) {
			t.Fatalf("%s is not among the walked jobs %v", id, walked)
		}
	}
	second, err := l.user.ListJobs(ctx, &ListJobsParams{Page: Ptr(2), PageSize: Ptr(1)})
	if err != nil || len(second.Items) != 1 || second.Items[0].JobId != walked[1] {
		t.Fatalf("page 2: %+v, %v", second, err)
	}

	detail, err := l.user.GetJob(ctx, made.JobId)
	if err != nil || detail.Name != name || detail.Kind != JobKindTraining || detail.Namespace != "alice" {
		t.Fatalf("detail %+v, %v", detail, err)
	}

	followToTheEnd(t, ctx, l.user, ids[0], nil, TransportWebSocket)
	followToTheEnd(t, ctx, l.user, ids[1], &LogOptions{Chunked: true}, TransportChunked)
	noUpgrades := l.client(t, proxy(t, l.url, refuseUpgrades), l.token)
	followToTheEnd(t, ctx, noUpgrades, ids[2], nil, TransportChunked)

	logs, err := l.user.JobLogs(ctx, made.JobId, &LogOptions{Tail: Ptr(5)})
	if err != nil || len(logs.Logs) == 0 {
		t.Fatalf("logs %+v, %v", logs, err)
	}
	checkLimitBytes(t, ctx, l.user, made.JobId)
	metrics, err := l.user.JobMetrics(ctx, made.JobId, nil)
	if prometheus := os.Getenv("GPUCTL_PROMETHEUS_URL"); prometheus != "" {
		if err != nil || metrics.Source == nil || *metrics.Source != prometheus || metrics.GpuUtilization == nil {
			t.Fatalf("metrics %+v, %v (from %s)", metrics, err, prometheus)
		}
	} else if err != nil || metrics.Source != nil || metrics.Message == "" || metrics.GpuUtilization == nil {
		t.Fatalf("metrics %+v, %v (a server without Prometheus)", metrics, err)
	}

	for _, id := range ids {
		gone, err := l.user.DeleteJob(ctx, id, false)
		if err != nil || gone.JobId != id {
			t.Fatalf("delete %s: %+v, %v", id, gone, err)
		}
	}
	waitGone(t, ctx, l.user, made.JobId)
}

// checkLimitBytes reads a finished job's logs with room for exactly its first line (that line
// alone, Truncated when more followed), then one byte less (no line cut in the middle: none,
// and Truncated).
func checkLimitBytes(t *testing.T, ctx context.Context, c *Client, jobID string) {
	t.Helper()
	whole, err := c.JobLogs(ctx, jobID, &LogOptions{Tail: Ptr(1000)})
	if err != nil || whole.Truncated || len(whole.Logs) == 0 {
		t.Fatalf("whole logs %+v, %v", whole, err)
	}
	first := whole.Logs[0] // one pod: the line as the pod wrote it, without a [pod] prefix
	room := len(first) + 1 // with its line end
	fits, err := c.JobLogs(ctx, jobID, &LogOptions{Tail: Ptr(1000), LimitBytes: Ptr(room)})
	more := len(whole.Logs) > 1 // lines after the first were left out
	if err != nil || fits.Truncated != more || !slices.Equal(fits.Logs, []string{first}) {
		t.Fatalf("the first line within %d bytes: %+v, %v", room, fits, err)
	}
	cut, err := c.JobLogs(ctx, jobID, &LogOptions{Tail: Ptr(1000), LimitBytes: Ptr(len(first))})
	if err != nil || !cut.Truncated || len(cut.Logs) != 0 {
		t.Fatalf("logs within %d bytes: %+v, %v", len(first), cut, err)
	}
}

// followToTheEnd follows a job's logs until the stream ends by itself, as the job does.
func followToTheEnd(t *testing.T, ctx context.Context, c *Client, jobID string, opts *LogOptions, via string) {
	t.Helper()
	stream := c.FollowLogs(ctx, jobID, opts)
	var lines []string
	for line := range stream.Lines {
		lines = append(lines, line)
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("following %s over %s: %v after %d lines", jobID, stream.Transport(), err, len(lines))
	}
	if stream.Transport() != via || len(lines) == 0 {
		t.Fatalf("followed %s over %s (want %s): %q", jobID, stream.Transport(), via, lines)
	}
}

func waitGone(t *testing.T, ctx context.Context, c *Client, jobID string) {
	t.Helper()
	for {
		_, err := c.GetJob(ctx, jobID)
		if IsNotFound(err) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s is still there: %v", jobID, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestLiveTheAdminCalls(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)
	nodes, err := l.admin.ListNodes(ctx, nil)
	if err != nil || nodes.Total == 0 {
		t.Fatalf("nodes %+v, %v", nodes, err)
	}
	node := nodes.Items[len(nodes.Items)-1].NodeName
	if detail, err := l.admin.GetNode(ctx, node); err != nil || detail.NodeName != node {
		t.Fatalf("node %+v, %v", detail, err)
	}
	walked := 0
	for pager := l.admin.Nodes(&ListNodesParams{PageSize: Ptr(1)}); pager.Next(ctx); {
		walked++
	}
	if walked != nodes.Total {
		t.Fatalf("walked %d nodes of %d", walked, nodes.Total)
	}

	pool := unique("go-pool")
	if _, err := l.admin.CreatePool(ctx, PoolCreate{Name: pool, Nodes: &[]string{node}}); err != nil {
		t.Fatal(err)
	}
	detail, err := l.admin.GetPool(ctx, pool)
	if err != nil || !slices.Contains(detail.Nodes, node) {
		t.Fatalf("pool %+v, %v", detail, err)
	}
	pools, err := l.admin.ListPools(ctx)
	if err != nil || !containsPool(pools.Items, pool) {
		t.Fatalf("pools %+v, %v", pools, err)
	}
	if _, err := l.user.CreatePool(ctx, PoolCreate{Name: pool + "-x"}); !IsForbidden(err) {
		t.Fatalf("a user made a pool: %v", err)
	}
	poolCapCalls(t, ctx, l, pool)
	poolMembershipCalls(t, ctx, l, pool, node)
	if _, err := l.admin.DeletePool(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := l.admin.GetPool(ctx, pool); !IsNotFound(err) {
		t.Fatalf("the deleted pool: %v", err)
	}

	labelCalls(t, ctx, l.admin, node)
	quotaCalls(t, ctx, l.admin)
}

// poolCapCalls sets the pool's cap, reads it back, and removes it.
func poolCapCalls(t *testing.T, ctx context.Context, l *live, pool string) {
	capped, err := l.admin.SetPoolCap(ctx, pool, Ptr(3))
	if err != nil || capped.GpuCap == nil || *capped.GpuCap != 3 || capped.Name != pool || capped.Message == "" {
		t.Fatalf("capped %+v, %v", capped, err)
	}
	if read, err := l.admin.GetPool(ctx, pool); err != nil || read.GpuCap == nil || *read.GpuCap != 3 {
		t.Fatalf("the capped pool %+v, %v", read, err)
	}
	if _, err := l.user.SetPoolCap(ctx, pool, Ptr(100)); !IsForbidden(err) {
		t.Fatalf("a user set a pool's cap: %v", err)
	}
	if _, err := l.admin.SetPoolCap(ctx, pool+"-none", Ptr(3)); !IsNotFound(err) {
		t.Fatalf("the cap of a pool that does not exist: %v", err)
	}
	uncapped, err := l.admin.SetPoolCap(ctx, pool, nil)
	if err != nil || uncapped.GpuCap != nil {
		t.Fatalf("uncapped %+v, %v", uncapped, err)
	}
	if read, err := l.admin.GetPool(ctx, pool); err != nil || read.GpuCap != nil {
		t.Fatalf("the uncapped pool %+v, %v", read, err)
	}
}

// poolMembershipCalls takes the node out of the pool and puts it back.
func poolMembershipCalls(t *testing.T, ctx context.Context, l *live, pool, node string) {
	removed, err := l.admin.RemovePoolNode(ctx, pool, node)
	if err != nil || removed.Status != "removed" || !slices.Equal(removed.Nodes, []string{node}) {
		t.Fatalf("removed %+v, %v", removed, err)
	}
	if read, err := l.admin.GetPool(ctx, pool); err != nil || slices.Contains(read.Nodes, node) {
		t.Fatalf("the pool without %s: %+v, %v", node, read, err)
	}
	if _, err := l.admin.RemovePoolNode(ctx, pool, node); !IsConflict(err) {
		t.Fatalf("removing %s, no longer in the pool: %v", node, err)
	}
	if _, err := l.user.AddPoolNodes(ctx, pool, PoolNodesAdd{Nodes: []string{node}}); !IsForbidden(err) {
		t.Fatalf("a user added a node: %v", err)
	}
	added, err := l.admin.AddPoolNodes(ctx, pool, PoolNodesAdd{Nodes: []string{node}})
	if err != nil || added.Status != "added" || !slices.Equal(added.Nodes, []string{node}) {
		t.Fatalf("added %+v, %v", added, err)
	}
	if read, err := l.admin.GetPool(ctx, pool); err != nil || !slices.Contains(read.Nodes, node) {
		t.Fatalf("the pool with %s again: %+v, %v", node, read, err)
	}
	if _, err := l.admin.AddPoolNodes(ctx, pool, PoolNodesAdd{Nodes: []string{"no-such-node"}}); !IsConflict(err) {
		t.Fatalf("adding a node that does not exist: %v", err)
	}
}

func labelCalls(t *testing.T, ctx context.Context, admin *Client, node string) {
	const key = "g8s.host/gpu-type"
	set, err := admin.SetNodeLabel(ctx, node, LabelCreate{Key: key, Value: "go-sdk", Overwrite: Ptr(true)})
	if err != nil || set.Label.Value != "go-sdk" {
		t.Fatalf("set %+v, %v", set, err)
	}
	read, err := admin.GetNodeLabel(ctx, node, key)
	if err != nil || read.Label.Key != key || read.Label.Value != "go-sdk" {
		t.Fatalf("read %+v, %v", read, err)
	}
	values, err := admin.ListNodeLabelValues(ctx, ListNodeLabelValuesParams{Key: key})
	if err != nil || !containsLabel(values.Items, node, "go-sdk") {
		t.Fatalf("values %+v, %v", values, err)
	}
	batch, err := admin.SetNodeLabelsBatch(ctx, LabelBatchCreate{
		Key: key, Value: "go-batch", NodeNames: []string{node}, Overwrite: Ptr(true),
	})
	if err != nil || !slices.Contains(batch.Success, node) || len(batch.Failed) != 0 {
		t.Fatalf("batch %+v, %v", batch, err)
	}
	found := false
	for pager := admin.AllNodeLabels(&ListAllNodeLabelsParams{PageSize: Ptr(2)}); pager.Next(ctx); {
		item := pager.Item()
		for _, label := range item.GpuLabels {
			found = found || (item.NodeName == node && label.Key == key && label.Value == "go-batch")
		}
	}
	if !found {
		t.Fatalf("%s=go-batch on %s is not among all the labels", key, node)
	}
	if _, err := admin.DeleteNodeLabel(ctx, node, key); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.GetNodeLabel(ctx, node, key); !IsNotFound(err) {
		t.Fatalf("the deleted label: %v", err)
	}
}

func quotaCalls(t *testing.T, ctx context.Context, admin *Client) {
	carolSpec := "kind: quota\nversion: v0.1\nmetadata:\n  name: go-sdk-carol\nusers:\n  carol: {cpu: 2, gpu: 1}\n"
	made, err := admin.CreateQuota(ctx, carolSpec)
	if err != nil {
		t.Fatalf("carol's quota: %+v, %v", made, err)
	}
	quotas, err := admin.ListQuotas(ctx)
	if err != nil || !containsQuota(quotas.Items, "alice") || !containsQuota(quotas.Items, "carol") {
		t.Fatalf("quotas %+v, %v", quotas, err)
	}
	carol, err := admin.GetQuota(ctx, "carol")
	if err != nil || !containsQuota(carol.Items, "carol") || containsQuota(carol.Items, "alice") {
		t.Fatalf("carol's quota %+v, %v", carol, err)
	}
	if _, err := admin.DeleteQuota(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.GetQuota(ctx, "carol"); !IsNotFound(err) {
		t.Fatalf("carol's deleted quota: %v", err)
	}
}

func TestLiveTypedErrors(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)

	_, err := l.user.GetJob(ctx, "alice.no-such-job")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "JobNotFound" ||
		!errors.Is(err, ErrNotFound) || !IsNotFound(err) {
		t.Fatalf("a missing job: %#v", err)
	}
	stream := l.user.FollowLogs(ctx, "alice.no-such-job", nil)
	for range stream.Lines {
	}
	if !IsNotFound(stream.Err()) {
		t.Fatalf("following a missing job's logs: %v", stream.Err())
	}

	stranger := l.client(t, l.url, "not-a-token")
	_, err = stranger.ListJobs(ctx, nil)
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || !IsUnauthorized(err) {
		t.Fatalf("an unknown token: %#v", err)
	}

	_, err = l.user.CreateJob(ctx, "kind: training\nversion: v0.1\njob: {name: Not_A_Name}\n")
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "InvalidYAML" || apiErr.Field == "" {
		t.Fatalf("an invalid spec: %#v", err)
	}

	key := NewIdempotencyKey()
	name := unique("go-key")
	first, err := l.user.CreateJob(ctx, trainingSpec(name), WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	again, err := l.user.CreateJob(ctx, trainingSpec(name), WithIdempotencyKey(key))
	if err != nil || again.JobId != first.JobId {
		t.Fatalf("the same key and spec again: %+v, %v", again, err)
	}
	_, err = l.user.CreateJob(ctx, trainingSpec(name+"-other"), WithIdempotencyKey(key))
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || apiErr.Code != "IdempotencyKeyReused" ||
		apiErr.Field != IdempotencyHeader || !IsUnprocessable(err) {
		t.Fatalf("the key with another spec: %#v", err)
	}
	if _, err := l.user.DeleteJob(ctx, first.JobId, true); err != nil {
		t.Fatal(err)
	}

	typed := strings.Replace(trainingSpec(unique("go-typed")), "gpu: 1", "gpu: 1\n  gpu-type: H900", 1)
	_, err = l.user.CreateJob(ctx, typed)
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || apiErr.Code != "Unschedulable" ||
		apiErr.Field != "resources.gpu-type" || !IsUnprocessable(err) {
		t.Fatalf("a GPU type no node carries: %#v", err)
	}
	pending, err := l.user.CreateJob(ctx, typed, AllowPending())
	if err != nil || len(pending.Warnings) == 0 {
		t.Fatalf("the same with AllowPending: %+v, %v", pending, err)
	}
	if _, err := l.user.DeleteJob(ctx, pending.JobId, true); err != nil {
		t.Fatal(err)
	}
}

func TestLiveARetriedCreateMakesOneJob(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)
	var mu sync.Mutex
	var keys []string
	// the first POST /jobs reaches the server, which creates the job; its answer is lost and
	// the client gets a 503 instead
	lose := func(w http.ResponseWriter, r *http.Request, forward http.Handler) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/jobs" {
			forward.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		keys = append(keys, r.Header.Get(IdempotencyHeader))
		first := len(keys) == 1
		mu.Unlock()
		if !first {
			forward.ServeHTTP(w, r)
			return
		}
		forward.ServeHTTP(httptest.NewRecorder(), r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":"Injected","message":"the answer was lost"}`)
	}
	flaky := l.client(t, proxy(t, l.url, lose), l.token,
		WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: 50 * time.Millisecond, MaxDelay: time.Second}))
	name := unique("go-retry")
	made, err := flaky.CreateJob(ctx, trainingSpec(name))
	if err != nil {
		t.Fatalf("the retried create: %v", err)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("the attempts' keys %q: want two with one key", keys)
	}
	if made.JobId != "alice."+name || !strings.Contains(made.Message, "earlier request") {
		t.Fatalf("the retry's answer %+v: want the first attempt's job", made)
	}
	named := 0
	for pager := l.user.Jobs(nil); pager.Next(ctx); {
		if pager.Item().Name == name {
			named++
		}
	}
	if named != 1 {
		t.Fatalf("%d jobs named %s, want 1", named, name)
	}
	if _, err := l.user.DeleteJob(ctx, made.JobId, true); err != nil {
		t.Fatal(err)
	}
}

// proxy is a server in front of target whose handler decides what to forward.
func proxy(t *testing.T, target string, handle func(http.ResponseWriter, *http.Request, http.Handler)) string {
	t.Helper()
	upstream, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(upstream)
	forward.FlushInterval = -1 // streams (followed logs) pass line by line
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(w, r, forward)
	}))
	t.Cleanup(server.Close)
	return server.URL
}

// refuseUpgrades is a proxy that does not speak WebSocket.
func refuseUpgrades(w http.ResponseWriter, r *http.Request, forward http.Handler) {
	if r.Header.Get("Upgrade") != "" {
		http.Error(w, "no upgrades here", http.StatusBadRequest)
		return
	}
	forward.ServeHTTP(w, r)
}

func containsPool(items []PoolItem, name string) bool {
	for _, item := range items {
		if item.Name == name {
			return true
		}
	}
	return false
}

func containsLabel(items []LabelOnNode, node, value string) bool {
	for _, item := range items {
		if item.NodeName == node && item.LabelValue == value {
			return true
		}
	}
	return false
}

func containsQuota(items []QuotaItem, user string) bool {
	for _, item := range items {
		if item.UserName == user {
			return true
		}
	}
	return false
}
