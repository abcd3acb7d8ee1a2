""" Contains all the data models used in inputs/outputs """

from .all_labels import AllLabels
from .auth_check import AuthCheck
from .auth_check_action import AuthCheckAction
from .auth_check_resource import AuthCheckResource
from .auth_decision import AuthDecision
from .custom_metrics_push import CustomMetricsPush
from .custom_metrics_push_metrics import CustomMetricsPushMetrics
from .custom_metrics_pushed import CustomMetricsPushed
from .error_body import ErrorBody
from .get_job_metrics_metric import GetJobMetricsMetric
from .get_node_accept import GetNodeAccept
from .item_failure import ItemFailure
from .job_batch import JobBatch
from .job_batch_create import JobBatchCreate
from .job_batch_refused import JobBatchRefused
from .job_create import JobCreate
from .job_created import JobCreated
from .job_deleted import JobDeleted
from .job_deleted_status import JobDeletedStatus
from .job_detail import JobDetail
from .job_item import JobItem
from .job_kind import JobKind
from .job_list import JobList
from .job_logs import JobLogs
from .job_made import JobMade
from .job_manifests import JobManifests
from .job_metrics import JobMetrics
from .job_metrics_custom import JobMetricsCustom
from .job_metrics_now import JobMetricsNow
from .job_resources import JobResources
from .job_status import JobStatus
from .job_utilisation import JobUtilisation
from .jobs_utilisation import JobsUtilisation
from .k8s_resources import K8SResources
from .label import Label
from .label_batch import LabelBatch
from .label_batch_create import LabelBatchCreate
from .label_create import LabelCreate
from .label_deleted import LabelDeleted
from .label_on_node import LabelOnNode
from .label_read import LabelRead
from .label_set import LabelSet
from .label_values import LabelValues
from .list_nodes_accept import ListNodesAccept
from .list_nodes_status import ListNodesStatus
from .node_detail import NodeDetail
from .node_failure import NodeFailure
from .node_item import NodeItem
from .node_labels import NodeLabels
from .node_list import NodeList
from .node_pod import NodePod
from .node_resources import NodeResources
from .node_status import NodeStatus
from .other_work import OtherWork
from .pod_state import PodState
from .point import Point
from .pool_cap_changed import PoolCapChanged
from .pool_cap_changed_gputype import PoolCapChangedGputype
from .pool_cap_set import PoolCapSet
from .pool_changed import PoolChanged
from .pool_create import PoolCreate
from .pool_create_isolation import PoolCreateIsolation
from .pool_detail import PoolDetail
from .pool_detail_gputype import PoolDetailGputype
from .pool_item import PoolItem
from .pool_job import PoolJob
from .pool_list import PoolList
from .pool_nodes_add import PoolNodesAdd
from .pool_nodes_changed import PoolNodesChanged
from .quota_create import QuotaCreate
from .quota_deleted import QuotaDeleted
from .quota_item import QuotaItem
from .quota_list import QuotaList
from .quotas_created import QuotasCreated
from .rendered_manifest import RenderedManifest
from .resource_usage import ResourceUsage
from .usage import Usage
from .webhook_create import WebhookCreate
from .webhook_create_events_item import WebhookCreateEventsItem
from .webhook_created import WebhookCreated
from .webhook_deleted import WebhookDeleted
from .webhook_delivery_record import WebhookDeliveryRecord
from .webhook_detail import WebhookDetail
from .webhook_item import WebhookItem
from .webhook_list import WebhookList
from .webhook_secret_rotated import WebhookSecretRotated
from .webhook_test_queued import WebhookTestQueued
from .workload_item import WorkloadItem
from .workload_list import WorkloadList

__all__ = (
    "AllLabels",
    "AuthCheck",
    "AuthCheckAction",
    "AuthCheckResource",
    "AuthDecision",
    "CustomMetricsPush",
    "CustomMetricsPushed",
    "CustomMetricsPushMetrics",
    "ErrorBody",
    "GetJobMetricsMetric",
    "GetNodeAccept",
    "ItemFailure",
    "JobBatch",
    "JobBatchCreate",
    "JobBatchRefused",
    "JobCreate",
    "JobCreated",
    "JobDeleted",
    "JobDeletedStatus",
    "JobDetail",
    "JobItem",
    "JobKind",
    "JobList",
    "JobLogs",
    "JobMade",
    "JobManifests",
    "JobMetrics",
    "JobMetricsCustom",
    "JobMetricsNow",
    "JobResources",
    "JobStatus",
    "JobsUtilisation",
    "JobUtilisation",
    "K8SResources",
    "Label",
    "LabelBatch",
    "LabelBatchCreate",
    "LabelCreate",
    "LabelDeleted",
    "LabelOnNode",
    "LabelRead",
    "LabelSet",
    "LabelValues",
    "ListNodesAccept",
    "ListNodesStatus",
    "NodeDetail",
    "NodeFailure",
    "NodeItem",
    "NodeLabels",
    "NodeList",
    "NodePod",
    "NodeResources",
    "NodeStatus",
    "OtherWork",
    "PodState",
    "Point",
    "PoolCapChanged",
    "PoolCapChangedGputype",
    "PoolCapSet",
    "PoolChanged",
    "PoolCreate",
    "PoolCreateIsolation",
    "PoolDetail",
    "PoolDetailGputype",
    "PoolItem",
    "PoolJob",
    "PoolList",
    "PoolNodesAdd",
    "PoolNodesChanged",
    "QuotaCreate",
    "QuotaDeleted",
    "QuotaItem",
    "QuotaList",
    "QuotasCreated",
    "RenderedManifest",
    "ResourceUsage",
    "Usage",
    "WebhookCreate",
    "WebhookCreated",
    "WebhookCreateEventsItem",
    "WebhookDeleted",
    "WebhookDeliveryRecord",
    "WebhookDetail",
    "WebhookItem",
    "WebhookList",
    "WebhookSecretRotated",
    "WebhookTestQueued",
    "WorkloadItem",
    "WorkloadList",
)
