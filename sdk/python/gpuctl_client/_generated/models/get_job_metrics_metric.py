from enum import StrEnum

class GetJobMetricsMetric(StrEnum):
    CUSTOM = "custom"
    GPUUTILIZATION = "gpuUtilization"
    MEMORYUSAGE = "memoryUsage"
    THROUGHPUT = "throughput"

    def __str__(self) -> str:
        return str(self.value)
