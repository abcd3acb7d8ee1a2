package gpuctl

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fake is a server that answers each request with the next of its answers (the last one
// again when they run out) and records what it was sent.
type fake struct {
	mu       sync.Mutex
	answers  []answer
	requests []*http.Request
	bodies   []string
	at       []time.Time
}

type answer struct {
	status int
	header map[string]string
	body   string
}

func newFake(t *testing.T, answers ...answer) (*fake, *Client) {
	t.Helper()
	f := &fake{answers: answers}
	server := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(server.Close)
	client, err := NewClient(server.URL, "secret-token", WithRetry(RetryPolicy{
		MaxAttempts: 4, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond,
		MaxRetryAfter: 5 * time.Second,
	}))
	if err != nil {
		t.Fatal(err)
	}
	return f, client
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, r)
	f.bodies = append(f.bodies, string(body))
	f.at = append(f.at, time.Now())
	a := f.answers[min(n, len(f.answers)-1)]
	f.mu.Unlock()
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func unavailable(header map[string]string) answer {
	return answer{503, header, `{"error":"ClusterUnreachable","message":"the cluster does not answer"}`}
}

const jobList = `{"total":1,"items":[{"jobId":"alice.a","name":"a","namespace":"alice","kind":"training",
"pool":"default","status":"running","ready":"1/1","gpu":1,"gpuType":null,"createdAt":null,"startedAt":null}]}`

func TestTheTokenIsSentAsABearerToken(t *testing.T) {
	f, client := newFake(t, answer{200, nil, jobList})
	list, err := client.ListJobs(context.Background(), &ListJobsParams{Status: Ptr(JobStatusRunning)})
	if err != nil {
		t.Fatal(err)
	}
	if list.Items[0].JobId != "alice.a" || list.Items[0].Status != JobStatusRunning {
		t.Fatalf("decoded %+v", list)
	}
	r := f.requests[0]
	if got := r.Header.Get("Authorization"); got != "Bearer secret-token" {
		t.Fatalf("Authorization %q", got)
	}
	if r.URL.Path != "/api/v1/jobs" || r.URL.Query().Get("status") != "running" {
		t.Fatalf("asked %s", r.URL)
	}
}

func TestA503IsRetriedUntilItPasses(t *testing.T) {
	f, client := newFake(t, unavailable(nil), unavailable(nil), answer{200, nil, jobList})
	if _, err := client.ListJobs(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if f.count() != 3 {
		t.Fatalf("%d requests, want 3", f.count())
	}
}

func TestRetriesStopAtMaxAttemptsWithTheLastAnswersError(t *testing.T) {
	f, client := newFake(t, unavailable(nil))
	_, err := client.GetJob(context.Background(), "alice.a")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != "ClusterUnreachable" {
		t.Fatalf("error %v", err)
	}
	if !IsUnavailable(err) || !errors.Is(err, ErrServiceUnavailable) || errors.Is(err, ErrNotFound) {
		t.Fatalf("sentinels disagree with %v", err)
	}
	if f.count() != 4 {
		t.Fatalf("%d requests, want MaxAttempts 4", f.count())
	}
}

func TestRetryAfterIsWaitedFor(t *testing.T) {
	f, client := newFake(t, answer{429, map[string]string{"Retry-After": "1"},
		`{"error":"TooManyRequests","message":"slow down"}`}, answer{200, nil, jobList})
	if _, err := client.ListJobs(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if gap := f.at[1].Sub(f.at[0]); gap < time.Second {
		t.Fatalf("retried after %v, Retry-After said 1s", gap)
	}
}

func TestAWaitPastTheDeadlineEndsTheCallWithTheAnswer(t *testing.T) {
	f, client := newFake(t, unavailable(map[string]string{"Retry-After": "3"}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := client.ListJobs(ctx, nil)
	if !IsUnavailable(err) || ctx.Err() != nil {
		t.Fatalf("error %v (context: %v): want the 503 before the deadline", err, ctx.Err())
	}
	if f.count() != 1 {
		t.Fatalf("%d requests, want 1", f.count())
	}
}

func TestAPlainPostIsNotRepeatedAfterA503(t *testing.T) {
	f, client := newFake(t, unavailable(nil), answer{201, nil, `{}`})
	_, err := client.CreatePool(context.Background(), PoolCreate{Name: "p"})
	if !IsUnavailable(err) || f.count() != 1 {
		t.Fatalf("error %v after %d requests: want the 503 after 1", err, f.count())
	}
}

func TestACreateKeepsOneIdempotencyKeyAcrossRetries(t *testing.T) {
	created := `{"jobId":"alice.a","name":"a","namespace":"alice","kind":"training","status":"pending",
"createdAt":"2026-01-01T00:00:00Z","message":"created","warnings":[]}`
	f, client := newFake(t, unavailable(nil), answer{502, nil, "bad gateway"}, answer{201, nil, created})
	made, err := client.CreateJob(context.Background(), "kind: training")
	if err != nil || made.JobId != "alice.a" {
		t.Fatalf("%+v, %v", made, err)
	}
	keys := map[string]bool{}
	for _, r := range f.requests {
		keys[r.Header.Get(IdempotencyHeader)] = true
	}
	if f.count() != 3 || len(keys) != 1 || keys[""] {
		t.Fatalf("%d requests with keys %v: want 3 with one key", f.count(), keys)
	}
	var body JobCreate
	if err := json.Unmarshal([]byte(f.bodies[2]), &body); err != nil || body.YamlContent != "kind: training" {
		t.Fatalf("body %q", f.bodies[2])
	}
	if _, err := client.CreateJob(context.Background(), "kind: training"); err != nil {
		t.Fatal(err)
	}
	if next := f.requests[3].Header.Get(IdempotencyHeader); keys[next] {
		t.Fatalf("a second logical create reused the key %q", next)
	}
}

func TestAnAnswerNotInTheErrorShapeIsStillAnAPIError(t *testing.T) {
	_, client := newFake(t, answer{502, nil, "<html>bad gateway</html>"})
	_, err := client.ListPools(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Code != "BadGateway" {
		t.Fatalf("error %v", err)
	}
}

func TestTheBackoffIsBoundedAndJittered(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	seen := map[time.Duration]bool{}
	for n := 0; n < 40; n++ {
		wait, ok := p.wait(n%8, http.Header{})
		ceiling := min(p.BaseDelay<<(n%8), p.MaxDelay)
		if !ok || wait < 0 || wait > ceiling {
			t.Fatalf("attempt %d waits %v, ceiling %v", n%8, wait, ceiling)
		}
		seen[wait] = true
	}
	if len(seen) < 2 {
		t.Fatalf("every wait was the same: no jitter")
	}
}

func TestRetryAfterTakesSecondsAndDates(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for value, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		"Thu, 01 Jan 2026 00:00:30 GMT": 30 * time.Second,
		"Wed, 31 Dec 2025 23:00:00 GMT": 0,
	} {
		got, ok := retryAfter(http.Header{"Retry-After": {value}}, now)
		if !ok || got != want {
			t.Errorf("Retry-After %q: %v %v, want %v", value, got, ok, want)
		}
	}
	if _, ok := retryAfter(http.Header{"Retry-After": {"soon"}}, now); ok {
		t.Errorf("Retry-After soon was taken")
	}
}

func TestAPagerFollowsEveryPage(t *testing.T) {
	var asked []int
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		asked = append(asked, page)
		items := []JobItem{{JobId: "j" + strconv.Itoa(page)}}
		if page == 3 {
			items = items[:0]
		}
		_ = json.NewEncoder(w).Encode(JobList{Total: 2, Items: items})
	}))
	defer server.Close()
	client, _ := NewClient(server.URL+"/api/v1/", "")
	pager := client.Jobs(&ListJobsParams{PageSize: Ptr(1)})
	var ids []string
	for pager.Next(context.Background()) {
		ids = append(ids, pager.Item().JobId)
	}
	if pager.Err() != nil || len(ids) != 2 || ids[0] != "j1" || ids[1] != "j2" || len(asked) != 2 {
		t.Fatalf("walked %v asking pages %v: %v", ids, asked, pager.Err())
	}
}

func TestABatchThatFailedWholeIsStillItsItemsAndAReusedKeyAnError(t *testing.T) {
	_, client := newFake(t,
		answer{422, nil, `{"success":[],"failed":[{"index":0,"error":"InvalidYAML","message":"bad","field":"job.name"}]}`},
		answer{422, nil, `{"success":[],"failed":[{"index":0,"error":"IdempotencyKeyReused","message":"another body"}],"error":"IdempotencyKeyReused","message":"another body","field":"Idempotency-Key"}`})
	batch, err := client.CreateJobsBatch(context.Background(), []string{"kind: training"})
	if err != nil || len(batch.Failed) != 1 || *batch.Failed[0].Field != "job.name" {
		t.Fatalf("%+v, %v", batch, err)
	}
	_, err = client.CreateJobsBatch(context.Background(), []string{"kind: training"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "IdempotencyKeyReused" || apiErr.Field != IdempotencyHeader {
		t.Fatalf("a reused key: %v", err)
	}
}
