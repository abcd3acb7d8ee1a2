"""The render layer: checked specs in, Kubernetes objects out. Pure: it never imports the
Kubernetes client and never contacts a cluster."""
