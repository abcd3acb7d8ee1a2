"""gpuctl: GPU work on Kubernetes from a short YAML file."""

__version__ = "0.1.0"
