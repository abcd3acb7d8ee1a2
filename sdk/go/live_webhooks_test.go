package gpuctl

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Needs a server that may deliver to loopback (serve --webhook-allow-cidr 127.0.0.0/8), as
// tests/sdk/test_go_sdk.py starts it.
func TestLiveWebhooksAndAccessChecks(t *testing.T) {
	l := liveServer(t)
	ctx := testContext(t)
	decision, err := l.user.CheckAccess(ctx, AuthCheck{Resource: "pools", Action: "create"})
	if err != nil || decision.Allowed || decision.User != "alice" {
		t.Fatalf("may alice create pools? %+v, %v", decision, err)
	}

	delivered := make(chan http.Header, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delivered <- r.Header.Clone()
	}))
	defer receiver.Close()
	hook, err := l.user.CreateWebhook(ctx, WebhookCreate{
		Url: receiver.URL + "/hook", Events: []WebhookCreateEvents{WebhookCreateEventsJobSucceeded},
	})
	if err != nil || hook.Id == "" || hook.Secret == "" {
		t.Fatalf("created %+v, %v", hook, err)
	}
	if _, err := l.user.TestWebhook(ctx, hook.Id); err != nil {
		t.Fatal(err)
	}
	select {
	case header := <-delivered:
		if header.Get("webhook-id") == "" || header.Get("webhook-signature") == "" {
			t.Fatalf("an unsigned delivery: %v", header)
		}
	case <-time.After(time.Minute):
		t.Fatal("the test event never came")
	}
	list, err := l.user.ListWebhooks(ctx)
	if err != nil || list.Total < 1 {
		t.Fatalf("webhooks %+v, %v", list, err)
	}
	if detail, err := l.user.GetWebhook(ctx, hook.Id); err != nil || detail.Url != hook.Url {
		t.Fatalf("detail %+v, %v", detail, err)
	}
	rotated, err := l.user.RotateWebhookSecret(ctx, hook.Id)
	if err != nil || rotated.Secret == "" || rotated.Secret == hook.Secret {
		t.Fatalf("rotated %+v, %v", rotated, err)
	}
	if _, err := l.user.EnableWebhook(ctx, hook.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := l.user.DeleteWebhook(ctx, hook.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := l.user.GetWebhook(ctx, hook.Id); !IsNotFound(err) {
		t.Fatalf("the deleted webhook: %v", err)
	}
}
