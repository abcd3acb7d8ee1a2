package gpuctl

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// sent is the method, path with query, and body of the fake's request n.
func (f *fake) sent(n int) (string, string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.requests[n]
	return r.Method, r.URL.RequestURI(), f.bodies[n]
}

func TestSetPoolCapIsAPatchRetriedLikeAGetAndNilRemovesTheCap(t *testing.T) {
	capped := `{"name":"p","gpuCap":null,"message":"configmap/pool-p configured"}`
	f, client := newFake(t, unavailable(nil), answer{200, nil, capped})
	pool, err := client.SetPoolCap(context.Background(), "p", nil)
	if err != nil || pool.GpuCap != nil || pool.Message == "" {
		t.Fatalf("%+v, %v", pool, err)
	}
	method, path, body := f.sent(1)
	if f.count() != 2 || method != "PATCH" || path != "/api/v1/pools/p" || body != `{"maxGpus":null}` {
		t.Fatalf("%d requests, the last %s %s %s", f.count(), method, path, body)
	}
	if _, err := client.SetPoolCap(context.Background(), "p", Ptr(12)); err != nil {
		t.Fatal(err)
	}
	if _, _, body := f.sent(2); body != `{"maxGpus":12}` {
		t.Fatalf("sent %s", body)
	}
}

func TestPoolMembershipCallsSendTheirNodes(t *testing.T) {
	changed := `{"name":"p","nodes":["n 1"],"status":"added","message":"node/n 1 added to pool p"}`
	f, client := newFake(t, unavailable(nil), answer{200, nil, changed})
	added, err := client.AddPoolNodes(context.Background(), "p", PoolNodesAdd{Nodes: []string{"n 1"}})
	if err != nil || added.Status != "added" || added.Nodes[0] != "n 1" {
		t.Fatalf("%+v, %v", added, err)
	}
	method, path, body := f.sent(1) // adding nodes twice leaves them added: retried
	if f.count() != 2 || method != "POST" || path != "/api/v1/pools/p/nodes" || body != `{"nodes":["n 1"]}` {
		t.Fatalf("%d requests, the last %s %s %s", f.count(), method, path, body)
	}
	if _, err := client.RemovePoolNode(context.Background(), "p", "n 1"); err != nil {
		t.Fatal(err)
	}
	if method, path, _ := f.sent(2); method != "DELETE" || path != "/api/v1/pools/p/nodes/n%201" {
		t.Fatalf("sent %s %s", method, path)
	}
	if _, err := client.RemovePoolNode(context.Background(), "p", ""); !errors.Is(err, errEmptyID) {
		t.Fatalf("an empty node name: %v", err)
	}
}

func TestAPushSendsFloat64ValuesAndIsRetriedWhenThePushgatewayDoesNotAnswer(t *testing.T) {
	down := answer{503, nil, `{"error":"PushgatewayUnavailable","message":"the Pushgateway is unreachable"}`}
	pushed := `{"jobId":"alice.a","stored":["loss","progress"],"pushgateway":"http://pg:9091"}`
	f, client := newFake(t, down, answer{200, nil, pushed})
	out, err := client.PushCustomMetrics(context.Background(), "alice.a", map[string]float64{"loss": 0.1, "progress": 42.5})
	if err != nil || len(out.Stored) != 2 || out.Pushgateway != "http://pg:9091" {
		t.Fatalf("%+v, %v", out, err)
	}
	method, path, body := f.sent(1)
	var sent struct {
		JobID   string             `json:"jobId"`
		Metrics map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(body), &sent); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 || method != "POST" || path != "/api/v1/metrics/custom" ||
		sent.JobID != "alice.a" || sent.Metrics["loss"] != 0.1 || sent.Metrics["progress"] != 42.5 {
		t.Fatalf("%d requests, the last %s %s %s", f.count(), method, path, body)
	}
}

func TestAPushToAServerWithoutAPushgatewayIsNotRetried(t *testing.T) {
	none := answer{503, nil, `{"error":"PushgatewayNotConfigured","message":"this server has no Pushgateway"}`}
	f, client := newFake(t, none, answer{200, nil, `{}`})
	_, err := client.PushCustomMetrics(context.Background(), "alice.a", map[string]float64{"loss": 1})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != PushgatewayNotConfigured || !IsUnavailable(err) || f.count() != 1 {
		t.Fatalf("error %#v after %d requests: want the 503 after 1", err, f.count())
	}
}

func TestTheReadsAskForTheirPaths(t *testing.T) {
	f, client := newFake(t,
		answer{200, nil, `{"items":[{"jobId":"alice.a","gpuUtilization":[70,70]}],"source":"http://prom","message":""}`},
		answer{200, nil, `{"jobId":"alice.a","manifests":[{"kind":"Job","name":"a","namespace":"alice","yaml":"kind: Job\n"}],"message":""}`},
		answer{200, nil, `{"installed":false,"items":[],"message":"no CRD"}`},
	)
	ctx := context.Background()
	usage, err := client.ListJobsUtilisation(ctx, &ListJobsUtilisationParams{Points: Ptr(5)})
	if err != nil || usage.Items[0].GpuUtilization[1] != 70 {
		t.Fatalf("%+v, %v", usage, err)
	}
	manifests, err := client.GetJobManifests(ctx, "alice.a")
	if err != nil || manifests.Manifests[0].Kind != "Job" {
		t.Fatalf("%+v, %v", manifests, err)
	}
	workloads, err := client.ListWorkloads(ctx)
	if err != nil || workloads.Installed {
		t.Fatalf("%+v, %v", workloads, err)
	}
	want := []string{"/api/v1/metrics/jobs?points=5", "/api/v1/jobs/alice.a/manifests", "/api/v1/workloads"}
	for n, path := range want {
		if method, got, _ := f.sent(n); method != "GET" || got != path {
			t.Fatalf("request %d: %s %s, want GET %s", n, method, got, path)
		}
	}
}

func TestANaNIsRefusedBeforeAnythingIsSent(t *testing.T) {
	f, client := newFake(t, answer{200, nil, `{}`})
	_, err := client.PushCustomMetrics(context.Background(), "alice.a", map[string]float64{"loss": math.NaN()})
	if err == nil || f.count() != 0 {
		t.Fatalf("error %v after %d requests: want an error and none sent", err, f.count())
	}
}
