"""The verbs that change a cluster: plan, create, apply, delete, diff, wait, pause and resume,
pool labels. Each takes rendered manifests (or names) and a cluster, and returns a structured
result; none prints. The CLI, the REST API and the controller call these, never their steps."""
