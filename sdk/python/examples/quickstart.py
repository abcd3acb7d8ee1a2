import os
import sys
from pathlib import Path

from gpuctl_client import Client

with Client(os.environ["GPUCTL_URL"], os.environ.get("GPUCTL_TOKEN")) as client:
    job = client.jobs.create(Path(sys.argv[1]).read_text())  # one job, even if retried
    for line in client.jobs.follow(job.job_id):  # ends when the job's pods stop
        print(line)
    print("finished:", client.jobs.wait(job.job_id, timeout=300).status.value)
    print(client.jobs.delete(job.job_id).message)
