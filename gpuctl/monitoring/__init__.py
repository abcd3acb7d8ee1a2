"""The monitoring layer: GPU metrics from Prometheus (the NVIDIA DCGM exporter's series).

prometheus.py talks to Prometheus' HTTP API; gpu.py turns DCGM series into per-pod, per-job and
per-node figures (data only, nothing printed); manifests.py renders the alert rules and the
Grafana dashboard. Nothing here invents a figure: without Prometheus the commands say so.
"""
