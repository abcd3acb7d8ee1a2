"""Signed webhooks: job events delivered at least once to subscribers' URLs (Standard
Webhooks signing), kept in the cluster (gpuctl.server.webhooks.store), delivered by the one
`gpuctl serve` replica that holds a Lease (gpuctl.server.webhooks.worker)."""
