"""Where GPU workloads go: pure placement policy shared by create, apply and the controller.

strategies ranks nodes for a request of GPUs (name -> strategy class); affinity reads and
writes the node affinity that pins a pod template to its chosen nodes. Pure: live objects and
gpuctl.placement.capacity (the free-GPU accounting) in, decisions out; no cluster calls.
"""
