package gpuctl

import "context"

// ListWebhooks is the caller's webhook subscriptions (an admin's: all).
func (c *Client) ListWebhooks(ctx context.Context) (*WebhookList, error) {
	var out WebhookList
	if err := c.get(ctx, "/webhooks", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateWebhook subscribes a URL to job events; the answer's Secret is shown this once.
func (c *Client) CreateWebhook(ctx context.Context, hook WebhookCreate) (*WebhookCreated, error) {
	var out WebhookCreated
	if err := c.post(ctx, "/webhooks", hook, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetWebhook is one subscription with its recent deliveries.
func (c *Client) GetWebhook(ctx context.Context, webhookID string) (*WebhookDetail, error) {
	if err := need(webhookID); err != nil {
		return nil, err
	}
	var out WebhookDetail
	if err := c.get(ctx, "/webhooks/"+segment(webhookID), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteWebhook ends a subscription.
func (c *Client) DeleteWebhook(ctx context.Context, webhookID string) (*WebhookDeleted, error) {
	if err := need(webhookID); err != nil {
		return nil, err
	}
	var out WebhookDeleted
	if err := c.del(ctx, "/webhooks/"+segment(webhookID), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TestWebhook queues a test event to the subscription's URL.
func (c *Client) TestWebhook(ctx context.Context, webhookID string) (*WebhookTestQueued, error) {
	return webhookAction[WebhookTestQueued](ctx, c, webhookID, "test")
}

// RotateWebhookSecret gives the subscription a new secret (shown this once); the old one
// still signs until PreviousValidUntil.
func (c *Client) RotateWebhookSecret(ctx context.Context, webhookID string) (*WebhookSecretRotated, error) {
	return webhookAction[WebhookSecretRotated](ctx, c, webhookID, "rotate")
}

// EnableWebhook turns a subscription that was disabled after failed deliveries on again.
func (c *Client) EnableWebhook(ctx context.Context, webhookID string) (*WebhookDetail, error) {
	return webhookAction[WebhookDetail](ctx, c, webhookID, "enable")
}

func webhookAction[T any](ctx context.Context, c *Client, webhookID, action string) (*T, error) {
	if err := need(webhookID); err != nil {
		return nil, err
	}
	var out T
	if err := c.post(ctx, "/webhooks/"+segment(webhookID)+"/"+action, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
