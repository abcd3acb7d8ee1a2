"""gpuctl.cluster: the client, its list pager and the watch cache (informers)."""
