package gpuctl

import (
	"context"
	"encoding/json"
	"net/http"
)

// ListPools is every resource pool with its nodes and GPUs.
func (c *Client) ListPools(ctx context.Context) (*PoolList, error) {
	var out PoolList
	if err := c.get(ctx, "/pools", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreatePool creates a pool of the named nodes (admins).
func (c *Client) CreatePool(ctx context.Context, pool PoolCreate) (*PoolChanged, error) {
	var out PoolChanged
	if err := c.post(ctx, "/pools", pool, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetPool is one pool in detail: its nodes, GPUs and jobs.
func (c *Client) GetPool(ctx context.Context, poolName string) (*PoolDetail, error) {
	if err := need(poolName); err != nil {
		return nil, err
	}
	var out PoolDetail
	if err := c.get(ctx, "/pools/"+segment(poolName), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeletePool deletes a pool (its nodes stay, unbound).
func (c *Client) DeletePool(ctx context.Context, poolName string) (*PoolChanged, error) {
	if err := need(poolName); err != nil {
		return nil, err
	}
	var out PoolChanged
	if err := c.del(ctx, "/pools/"+segment(poolName), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListQuotas is every user's quota with its use.
func (c *Client) ListQuotas(ctx context.Context) (*QuotaList, error) {
	var out QuotaList
	if err := c.get(ctx, "/quotas", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateQuota creates or changes the quotas a quota spec (kind: quota, as YAML) describes.
func (c *Client) CreateQuota(ctx context.Context, yamlSpec string) (*QuotasCreated, error) {
	var out QuotasCreated
	if err := c.post(ctx, "/quotas", QuotaCreate{YamlContent: yamlSpec}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetQuota is one user's quota (404 QuotaNotFound when they have none).
func (c *Client) GetQuota(ctx context.Context, userName string) (*QuotaList, error) {
	if err := need(userName); err != nil {
		return nil, err
	}
	var out QuotaList
	if err := c.get(ctx, "/quotas/"+segment(userName), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteQuota removes one user's quota.
func (c *Client) DeleteQuota(ctx context.Context, userName string) (*QuotaDeleted, error) {
	if err := need(userName); err != nil {
		return nil, err
	}
	var out QuotaDeleted
	if err := c.del(ctx, "/quotas/"+segment(userName), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CheckAccess asks whether a user (the caller when check.User is nil) may do an action.
func (c *Client) CheckAccess(ctx context.Context, check AuthCheck) (*AuthDecision, error) {
	var out AuthDecision
	if err := c.readingPost(ctx, "/auth/check", check, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// readingPost is a POST that changes nothing, so retried like a GET.
func (c *Client) readingPost(ctx context.Context, path string, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, &call{method: http.MethodPost, path: path, body: raw, idempotent: true}, out)
	return err
}
