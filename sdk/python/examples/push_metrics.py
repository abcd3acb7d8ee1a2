import os

from gpuctl_client import Client, GpuctlClientError, RetryPolicy

job_id, steps = os.environ["GPUCTL_JOB_ID"], 100  # the job's id: <namespace>.<name>
patience = RetryPolicy(deadline=5)  # with timeout=2: a push never holds the training long
with Client(os.environ["GPUCTL_URL"], os.environ["GPUCTL_TOKEN"], timeout=2, retry=patience) as c:
    for step in range(1, steps + 1):
        loss = 2.0 / step  # one step of your training here
        if step % 10 == 0:  # every few steps: a push is one HTTP request
            try:
                c.metrics.push(job_id, loss=loss, progress=100 * step / steps)
            except GpuctlClientError as exc:  # the training goes on without its metrics
                print(f"step {step}: metrics not pushed: {exc}")
