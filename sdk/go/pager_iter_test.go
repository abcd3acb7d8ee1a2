//go:build go1.23

package gpuctl

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestAllWalksEveryPageInARangeLoop(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page > 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"ClusterUnreachable","message":"gone"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(NodeList{Total: 3, Items: []NodeItem{{NodeName: "n" + strconv.Itoa(page)}}})
	}))
	defer server.Close()
	client, _ := NewClient(server.URL, "", WithRetry(RetryPolicy{MaxAttempts: 1}))
	var names []string
	var last error
	for node, err := range client.Nodes(&ListNodesParams{PageSize: Ptr(1)}).All(context.Background()) {
		if err != nil {
			last = err
			break
		}
		names = append(names, node.NodeName)
	}
	if len(names) != 2 || names[1] != "n2" || !IsUnavailable(last) {
		t.Fatalf("walked %v, then %v: want n1, n2 and the third page's 503", names, last)
	}
}
