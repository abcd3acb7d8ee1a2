package gpuctl

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
)

// contract is the API's committed contract, which the server's own suite keeps equal to the
// document it serves.
const contract = "../../docs/openapi.json"

// methodOf names the *Client method of each operation of the contract. An operation added to
// the contract fails TestEveryOperationIsAMethod until it is a method and named here.
var methodOf = map[string]string{
	"createJob":           "CreateJob",
	"listJobs":            "ListJobs",
	"createJobsBatch":     "CreateJobsBatch",
	"getJob":              "GetJob",
	"deleteJob":           "DeleteJob",
	"getJobManifests":     "GetJobManifests",
	"getJobLogs":          "JobLogs", // and FollowLogs, its ?follow=true
	"getJobMetrics":       "JobMetrics",
	"pushCustomMetrics":   "PushCustomMetrics",
	"listJobsUtilisation": "ListJobsUtilisation",
	"listPools":           "ListPools",
	"createPool":          "CreatePool",
	"getPool":             "GetPool",
	"setPoolCap":          "SetPoolCap",
	"deletePool":          "DeletePool",
	"addPoolNodes":        "AddPoolNodes",
	"removePoolNode":      "RemovePoolNode",
	"listNodes":           "ListNodes",
	"listNodeLabelValues": "ListNodeLabelValues",
	"listAllNodeLabels":   "ListAllNodeLabels",
	"setNodeLabelsBatch":  "SetNodeLabelsBatch",
	"getNode":             "GetNode",
	"setNodeLabel":        "SetNodeLabel",
	"getNodeLabel":        "GetNodeLabel",
	"deleteNodeLabel":     "DeleteNodeLabel",
	"listQuotas":          "ListQuotas",
	"createQuota":         "CreateQuota",
	"getQuota":            "GetQuota",
	"deleteQuota":         "DeleteQuota",
	"checkAccess":         "CheckAccess",
	"listWebhooks":        "ListWebhooks",
	"createWebhook":       "CreateWebhook",
	"getWebhook":          "GetWebhook",
	"deleteWebhook":       "DeleteWebhook",
	"testWebhook":         "TestWebhook",
	"rotateWebhookSecret": "RotateWebhookSecret",
	"enableWebhook":       "EnableWebhook",
	"listWorkloads":       "ListWorkloads",
}

// httpMethods are the keys of a path item that are operations.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// contractOperations is every operationId of the contract.
func contractOperations(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(contract)
	if err != nil {
		t.Fatalf("the contract: %v", err)
	}
	var document struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &document); err != nil {
		t.Fatalf("%s: %v", contract, err)
	}
	var ids []string
	for path, item := range document.Paths {
		for method, raw := range item {
			if !slices.Contains(httpMethods, method) {
				continue // the path's own parameters, summary, ...
			}
			var operation struct {
				OperationID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &operation); err != nil || operation.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
				continue
			}
			ids = append(ids, operation.OperationID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestEveryOperationIsAMethod(t *testing.T) {
	ids := contractOperations(t)
	if len(ids) == 0 {
		t.Fatalf("%s has no operations", contract)
	}
	client := reflect.TypeOf(&Client{})
	var missing, unnamed []string
	for _, id := range ids {
		name, named := methodOf[id]
		switch {
		case !named:
			unnamed = append(unnamed, id)
		case func() bool { _, ok := client.MethodByName(name); return !ok }():
			missing = append(missing, id+" ("+name+")")
		}
	}
	if len(unnamed) > 0 {
		t.Errorf("operations of the contract that no *Client method offers (add one, and name it in methodOf): %v", unnamed)
	}
	if len(missing) > 0 {
		t.Errorf("methods named in methodOf that *Client does not have: %v", missing)
	}
	for id := range methodOf {
		if !slices.Contains(ids, id) {
			t.Errorf("methodOf names %s, which the contract no longer has", id)
		}
	}
}
