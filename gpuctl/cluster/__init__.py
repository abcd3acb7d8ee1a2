"""The cluster layer: the one place that talks to the Kubernetes API."""
