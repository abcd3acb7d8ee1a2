package gpuctl

import (
	"context"
	"net/url"
	"strings"
)

func nodesQuery(params *ListNodesParams) url.Values {
	q := url.Values{}
	if params == nil {
		return q
	}
	setString(q, "pool", params.Pool)
	setString(q, "gpuType", params.GpuType)
	if params.Status != nil {
		q.Set("status", string(*params.Status))
	}
	setInt(q, "page", params.Page)
	setInt(q, "pageSize", params.PageSize)
	return q // Accept: the SDK reads JSON only
}

// ListNodes is one page of the cluster's nodes with their GPUs and pools (admins).
func (c *Client) ListNodes(ctx context.Context, params *ListNodesParams) (*NodeList, error) {
	var out NodeList
	if err := c.get(ctx, "/nodes", nodesQuery(params), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Nodes walks every page of ListNodes.
func (c *Client) Nodes(params *ListNodesParams) *Pager[NodeItem] {
	var first, size *int
	if params != nil {
		first, size = params.Page, params.PageSize
	}
	return newPager(first, size, func(ctx context.Context, page, size int) ([]NodeItem, int, error) {
		var out NodeList
		err := c.get(ctx, "/nodes", pageQuery(nodesQuery(params), page, size), &out)
		return out.Items, out.Total, err
	})
}

// GetNode is one node in detail: labels, pools, resources and the pods on it.
func (c *Client) GetNode(ctx context.Context, nodeName string) (*NodeDetail, error) {
	if err := need(nodeName); err != nil {
		return nil, err
	}
	var out NodeDetail
	if err := c.get(ctx, "/nodes/"+segment(nodeName), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func labelValuesQuery(params ListNodeLabelValuesParams) url.Values {
	q := url.Values{}
	q.Set("key", params.Key)
	setInt(q, "page", params.Page)
	setInt(q, "pageSize", params.PageSize)
	return q
}

// ListNodeLabelValues is one page of the nodes that carry the label key, with its values.
func (c *Client) ListNodeLabelValues(ctx context.Context, params ListNodeLabelValuesParams) (*LabelValues, error) {
	var out LabelValues
	if err := c.get(ctx, "/nodes/labels", labelValuesQuery(params), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NodeLabelValues walks every page of ListNodeLabelValues.
func (c *Client) NodeLabelValues(params ListNodeLabelValuesParams) *Pager[LabelOnNode] {
	return newPager(params.Page, params.PageSize, func(ctx context.Context, page, size int) ([]LabelOnNode, int, error) {
		var out LabelValues
		err := c.get(ctx, "/nodes/labels", pageQuery(labelValuesQuery(params), page, size), &out)
		return out.Items, out.Total, err
	})
}

func allLabelsQuery(params *ListAllNodeLabelsParams) url.Values {
	q := url.Values{}
	if params != nil {
		setInt(q, "page", params.Page)
		setInt(q, "pageSize", params.PageSize)
	}
	return q
}

// ListAllNodeLabels is one page of the nodes with their GPU labels and pools.
func (c *Client) ListAllNodeLabels(ctx context.Context, params *ListAllNodeLabelsParams) (*AllLabels, error) {
	var out AllLabels
	if err := c.get(ctx, "/nodes/labels/all", allLabelsQuery(params), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllNodeLabels walks every page of ListAllNodeLabels.
func (c *Client) AllNodeLabels(params *ListAllNodeLabelsParams) *Pager[NodeLabels] {
	var first, size *int
	if params != nil {
		first, size = params.Page, params.PageSize
	}
	return newPager(first, size, func(ctx context.Context, page, size int) ([]NodeLabels, int, error) {
		var out AllLabels
		err := c.get(ctx, "/nodes/labels/all", pageQuery(allLabelsQuery(params), page, size), &out)
		return out.Items, out.Total, err
	})
}

// SetNodeLabel sets one label on a node (Overwrite to change an existing value; else 409).
func (c *Client) SetNodeLabel(ctx context.Context, nodeName string, label LabelCreate) (*LabelSet, error) {
	if err := need(nodeName); err != nil {
		return nil, err
	}
	var out LabelSet
	if err := c.post(ctx, "/nodes/"+segment(nodeName)+"/labels", label, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetNodeLabelsBatch sets one label on several nodes; each node that failed is in Failed.
func (c *Client) SetNodeLabelsBatch(ctx context.Context, batch LabelBatchCreate) (*LabelBatch, error) {
	var out LabelBatch
	if err := c.post(ctx, "/nodes/labels/batch", batch, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// labelPath is a node's label's path: a key's slash (gpuctl.io/pool) stays a slash.
func labelPath(nodeName, key string) string {
	parts := strings.Split(key, "/")
	for i, part := range parts {
		parts[i] = segment(part)
	}
	return "/nodes/" + segment(nodeName) + "/labels/" + strings.Join(parts, "/")
}

// GetNodeLabel is one label of a node (404 LabelNotFound when the node has none by that key).
func (c *Client) GetNodeLabel(ctx context.Context, nodeName, key string) (*LabelRead, error) {
	if err := need(nodeName, key); err != nil {
		return nil, err
	}
	var out LabelRead
	if err := c.get(ctx, labelPath(nodeName, key), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteNodeLabel removes one label from a node.
func (c *Client) DeleteNodeLabel(ctx context.Context, nodeName, key string) (*LabelDeleted, error) {
	if err := need(nodeName, key); err != nil {
		return nil, err
	}
	var out LabelDeleted
	if err := c.del(ctx, labelPath(nodeName, key), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
