package gpuctl

// Needs the server's Prometheus and Pushgateway, as tests/sdk/test_go_sdk.py starts them:
// GPUCTL_PROMETHEUS_URL (serve --prometheus-url), GPUCTL_PUSHGATEWAY_URL (serve
// --pushgateway-url) and GPUCTL_EXPORTER_ADDR, the address where that Prometheus scrapes a
// DCGM exporter, which TestLiveJobsUtilisationAndManifests serves itself.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

type monitoring struct {
	prometheus, pushgateway, exporter string
}

func liveMonitoring(t *testing.T) monitoring {
	t.Helper()
	m := monitoring{
		prometheus:  os.Getenv("GPUCTL_PROMETHEUS_URL"),
		pushgateway: os.Getenv("GPUCTL_PUSHGATEWAY_URL"),
		exporter:    os.Getenv("GPUCTL_EXPORTER_ADDR"),
	}
	if m.prometheus == "" || m.pushgateway == "" || m.exporter == "" {
		t.Skip("needs GPUCTL_PROMETHEUS_URL, GPUCTL_PUSHGATEWAY_URL and GPUCTL_EXPORTER_ADDR (tests/sdk/test_go_sdk.py sets them)")
	}
	return m
}

// inferenceSpec is a service: its pod keeps running until the job is deleted.
func inferenceSpec(name string) string {
	return fmt.Sprintf(`kind: inference
version: v0.1
job:
  name: %s
environment:
  image: busybox:1.36
service:
  replicas: 1
  port: 8000
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
`, name)
}

// eventually polls check until it answers true, failing with what it last said at ctx's end.
func eventually(t *testing.T, ctx context.Context, what string, check func() (bool, string)) {
	t.Helper()
	for {
		ok, said := check()
		if ok {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never came: %s", what, said)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func TestLivePushedMetricsAreReadBack(t *testing.T) {
	l := liveServer(t)
	m := liveMonitoring(t)
	ctx := testContext(t)
	made, err := l.user.CreateJob(ctx, trainingSpec(unique("go-push")))
	if err != nil {
		t.Fatal(err)
	}
	defer l.user.DeleteJob(context.Background(), made.JobId, true)

	values := map[string]float64{"loss": 1.75, "progress": 42.5, "tokensPerSecond": 5100}
	pushed, err := l.user.PushCustomMetrics(ctx, made.JobId, values)
	if err != nil || pushed.JobId != made.JobId || pushed.Pushgateway != m.pushgateway ||
		!slices.Equal(pushed.Stored, []string{"loss", "progress", "tokensPerSecond"}) {
		t.Fatalf("pushed %+v, %v", pushed, err)
	}
	var read *JobMetrics
	eventually(t, ctx, "the pushed progress in JobMetrics", func() (bool, string) {
		read, err = l.user.JobMetrics(ctx, made.JobId, nil)
		if err != nil || read.Custom == nil {
			return false, fmt.Sprintf("%+v, %v", read, err)
		}
		return last((*read.Custom)["progress"]) == 42.5, fmt.Sprintf("%+v", *read.Custom)
	})
	custom := *read.Custom
	if last(custom["loss"]) != 1.75 || read.Throughput == nil || last(*read.Throughput) != 5100 ||
		read.Source == nil || *read.Source != m.prometheus {
		t.Fatalf("read back %+v (custom %+v)", read, custom)
	}

	if _, err := l.user.PushCustomMetrics(ctx, "alice.no-such-job", values); !IsNotFound(err) {
		t.Fatalf("a push for a missing job: %v", err)
	}
	_, err = l.user.PushCustomMetrics(ctx, made.JobId, map[string]float64{"not:a:name": 1})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || !strings.HasPrefix(apiErr.Field, "metrics") {
		t.Fatalf("a push with an invalid name: %#v", err)
	}
}

func last(points []Point) float64 {
	if len(points) == 0 {
		return -1
	}
	return points[len(points)-1].Value
}

func TestLiveJobsUtilisationAndManifests(t *testing.T) {
	l := liveServer(t)
	m := liveMonitoring(t)
	ctx := testContext(t)
	name := unique("go-util")
	made, err := l.user.CreateJob(ctx, inferenceSpec(name))
	if err != nil {
		t.Fatal(err)
	}
	defer l.user.DeleteJob(context.Background(), made.JobId, true)

	manifests, err := l.user.GetJobManifests(ctx, made.JobId)
	if err != nil || manifests.JobId != made.JobId || len(manifests.Manifests) == 0 {
		t.Fatalf("manifests %+v, %v", manifests, err)
	}
	var kinds []string
	for _, manifest := range manifests.Manifests {
		kinds = append(kinds, manifest.Kind)
		if !strings.Contains(manifest.Yaml, "kind: "+manifest.Kind) || manifest.Namespace == nil || *manifest.Namespace != "alice" {
			t.Fatalf("the %s manifest %+v", manifest.Kind, manifest)
		}
	}
	if !slices.Contains(kinds, "Deployment") || !slices.Contains(kinds, "Service") {
		t.Fatalf("an inference job renders to %v: want a Deployment and a Service", kinds)
	}
	if _, err := l.user.GetJobManifests(ctx, "alice.no-such-job"); !IsNotFound(err) {
		t.Fatalf("a missing job's manifests: %v", err)
	}

	var pod string
	eventually(t, ctx, "the job's pod", func() (bool, string) {
		detail, err := l.user.GetJob(ctx, made.JobId)
		if err != nil || len(detail.K8sResources.Pods) == 0 {
			return false, fmt.Sprintf("%+v, %v", detail, err)
		}
		pod = detail.K8sResources.Pods[0]
		return true, ""
	})
	serveDCGM(t, m.exporter, "alice", pod) // its two GPUs at 80 % and 60 %

	eventually(t, ctx, "the job's utilisation", func() (bool, string) {
		usage, err := l.user.ListJobsUtilisation(ctx, &ListJobsUtilisationParams{Points: Ptr(5)})
		if err != nil || usage.Source == nil || *usage.Source != m.prometheus {
			return false, fmt.Sprintf("%+v, %v", usage, err)
		}
		for _, item := range usage.Items {
			if item.JobId == made.JobId && len(item.GpuUtilization) > 0 {
				if len(item.GpuUtilization) > 5 || slices.ContainsFunc(item.GpuUtilization, func(v float64) bool { return v != 70 }) {
					t.Fatalf("%s: %v, want at most 5 values, each the mean 70", made.JobId, item.GpuUtilization)
				}
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", usage.Items)
	})
	_, err = l.user.ListJobsUtilisation(ctx, &ListJobsUtilisationParams{Points: Ptr(1000)})
	if !IsBadRequest(err) {
		t.Fatalf("1000 points: %v", err)
	}
}

// serveDCGM serves, at addr, the DCGM exporter's GPU utilisation of two GPUs of pod until the
// test ends.
func serveDCGM(t *testing.T, addr, namespace, pod string) {
	t.Helper()
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the exporter's address %s: %v", addr, err)
	}
	var page strings.Builder
	page.WriteString("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n")
	for gpu, util := range []int{80, 60} {
		fmt.Fprintf(&page, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\",UUID=\"GPU-go-%d\",Hostname=\"go-node\",namespace=%q,pod=%q} %d\n",
			gpu, gpu, namespace, pod, util)
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(page.String()))
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
}

func TestLiveWorkloadsAreListedPerNamespace(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)
	want := os.Getenv("GPUCTL_WORKLOAD") // namespace/name of a GPUWorkload of another user's
	if want == "" {
		t.Skip("needs GPUCTL_WORKLOAD, a GPUWorkload the server's cluster holds (tests/sdk/test_go_sdk.py makes one)")
	}
	all, err := l.admin.ListWorkloads(ctx)
	if err != nil || !all.Installed {
		t.Fatalf("an admin's workloads %+v, %v", all, err)
	}
	var seen []string
	for _, item := range all.Items {
		seen = append(seen, item.Namespace+"/"+item.Name)
		if item.Namespace+"/"+item.Name == want && (item.ModelName == "" || item.GpuCount == 0) {
			t.Fatalf("the workload %+v", item)
		}
	}
	if !slices.Contains(seen, want) {
		t.Fatalf("%s is not among an admin's workloads %v", want, seen)
	}
	own, err := l.user.ListWorkloads(ctx)
	if err != nil || !own.Installed {
		t.Fatalf("alice's workloads %+v, %v", own, err)
	}
	for _, item := range own.Items {
		if item.Namespace != "alice" {
			t.Fatalf("alice sees %s/%s", item.Namespace, item.Name)
		}
	}
}
