"""Where GPU workloads go: pure placement policy shared by create, apply and the controller.

strategies ranks nodes for a request of GPUs (name -> strategy class); affinity reads and
writes the node affinity that pins a pod template to its chosen nodes; feasibility says
whether any node could ever hold a request; podsecurity whether a namespace's Pod Security
level admits a pod (the sandbox's admission enforces the same). Pure: live objects and
gpuctl.placement.capacity (the free-GPU accounting) in, decisions out; no cluster calls.
"""
