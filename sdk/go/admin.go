package gpuctl

import "context"

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

// SetPoolCap sets a pool's GPU cap (maxGpus), or with nil removes it (admins). Only the cap
// changes (and where Kueue is installed, its ClusterQueue's GPU quota); the answer is the pool
// as GetPool reads it, with what was written in Message. A cap below the GPUs in use stops no
// running job: new ones wait or are refused.
func (c *Client) SetPoolCap(ctx context.Context, poolName string, maxGpus *int) (*PoolCapChanged, error) {
	if err := need(poolName); err != nil {
		return nil, err
	}
	var out PoolCapChanged
	if err := c.patch(ctx, "/pools/"+segment(poolName), PoolCapSet{MaxGpus: maxGpus}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AddPoolNodes puts nodes in an existing pool (admins): each is checked first, and a missing
// node, one of another pool (unless add.Overwrite) or of a GPU model the pool does not allow
// is a 409 *APIError with nothing written. A node already in the pool stays as it is.
func (c *Client) AddPoolNodes(ctx context.Context, poolName string, add PoolNodesAdd) (*PoolNodesChanged, error) {
	if err := need(poolName); err != nil {
		return nil, err
	}
	var out PoolNodesChanged
	k := &call{path: "/pools/" + segment(poolName) + "/nodes"}
	if err := c.idempotentPost(ctx, k, add, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemovePoolNode takes a node out of a pool (admins): its pool label and taint, and its
// entry in the pool's record. A node not in the pool is a 409, a missing pool a 404.
func (c *Client) RemovePoolNode(ctx context.Context, poolName, nodeName string) (*PoolNodesChanged, error) {
	if err := need(poolName, nodeName); err != nil {
		return nil, err
	}
	var out PoolNodesChanged
	if err := c.del(ctx, "/pools/"+segment(poolName)+"/nodes/"+segment(nodeName), nil, &out); err != nil {
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
	if err := c.idempotentPost(ctx, &call{path: "/auth/check"}, check, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
