package gpuctl_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	gpuctl "github.com/gpuctl/gpuctl/sdk/go"
)

const spec = `kind: training
version: v0.1
job: {name: qwen2-7b-sft}
environment: {image: "registry.example.com/llama-factory:0.8.0", command: ["llamafactory-cli", "train"]}
resources: {gpu: 1, cpu: 8, memory: 32Gi}
`

// A job's life: create it from its YAML, follow its logs until it ends, delete it.
func Example() {
	ctx := context.Background()
	client, err := gpuctl.NewClient(os.Getenv("GPUCTL_URL"), os.Getenv("GPUCTL_TOKEN"))
	if err != nil {
		log.Fatal(err)
	}
	job, err := client.CreateJob(ctx, spec) // retried safely: one Idempotency-Key per call
	if err != nil {
		log.Fatal(err)
	}
	logs := client.FollowLogs(ctx, job.JobId, nil)
	for line := range logs.Lines {
		fmt.Println(line)
	}
	if err := logs.Err(); err != nil {
		log.Fatal(err)
	}
	if _, err := client.DeleteJob(ctx, job.JobId, false); err != nil {
		log.Fatal(err)
	}
}

// Every page of the running jobs, one job at a time.
func ExampleClient_Jobs() {
	ctx := context.Background()
	client, _ := gpuctl.NewClient(os.Getenv("GPUCTL_URL"), os.Getenv("GPUCTL_TOKEN"))
	pager := client.Jobs(&gpuctl.ListJobsParams{Status: gpuctl.Ptr(gpuctl.JobStatusRunning)})
	for pager.Next(ctx) {
		job := pager.Item()
		fmt.Println(job.JobId, job.Status, job.Gpu)
	}
	if err := pager.Err(); err != nil {
		log.Fatal(err)
	}
}

// The error answers: errors.As for the whole of it, errors.Is or Is... for its status.
func ExampleAPIError() {
	ctx := context.Background()
	client, _ := gpuctl.NewClient(os.Getenv("GPUCTL_URL"), os.Getenv("GPUCTL_TOKEN"))
	_, err := client.CreateJob(ctx, "kind: training\n")
	var apiErr *gpuctl.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == 400:
		fmt.Printf("invalid spec at %s: %s\n", apiErr.Field, apiErr.Message)
	case errors.Is(err, gpuctl.ErrUnauthorized):
		fmt.Println("check GPUCTL_TOKEN")
	case err != nil:
		log.Fatal(err)
	}
}

// A training loop reports its loss, throughput and progress: `gpuctl get jobs` shows the
// progress, JobMetrics and `gpuctl describe job` the curves. GPUCTL_URL, GPUCTL_TOKEN and
// GPUCTL_JOB_ID (the job's id, <namespace>.<name>) come from the job's spec (environment.env).
func ExampleClient_PushCustomMetrics() {
	ctx := context.Background()
	client, _ := gpuctl.NewClient(os.Getenv("GPUCTL_URL"), os.Getenv("GPUCTL_TOKEN"))
	jobID := os.Getenv("GPUCTL_JOB_ID")
	const steps = 1000
	for step := 1; step <= steps; step++ {
		loss, tokensPerSecond := trainStep()
		if step%50 != 0 {
			continue
		}
		_, err := client.PushCustomMetrics(ctx, jobID, map[string]float64{
			"loss":            loss,
			"tokensPerSecond": tokensPerSecond,
			"progress":        100 * float64(step) / steps,
		})
		if err != nil { // a report that failed never stops the training
			log.Printf("metrics not reported: %v", err)
		}
	}
}

// trainStep stands for one step of the training: its loss and tokens per second.
func trainStep() (float64, float64) { return 0.12, 5100 }
