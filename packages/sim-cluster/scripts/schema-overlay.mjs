/**
 * What the client-node models do not carry and upstream's OpenAPI does: list types, map keys,
 * patch strategies, map types, quantity fields and the descriptions of fields typed by another
 * model. Keyed by component name, then field name; each entry is merged into the generated field.
 */

const atomic = { "x-kubernetes-list-type": "atomic" };
const set = { "x-kubernetes-list-type": "set" };
const atomicMap = { "x-kubernetes-map-type": "atomic" };

/** A list merged by `keys` (strategic merge patch on the first key, server-side apply on all). */
function mapList(keys, strategy = "merge") {
  return {
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": keys,
    "x-kubernetes-patch-merge-key": keys[0],
    "x-kubernetes-patch-strategy": strategy,
  };
}

/** Strategic merge by `key` on a list server-side apply treats as `listType`. */
function mergeBy(key, listType = "atomic") {
  return { "x-kubernetes-list-type": listType, "x-kubernetes-patch-merge-key": key, "x-kubernetes-patch-strategy": "merge" };
}

const conditions = mapList(["type"]);
const core = (name) => `io.k8s.api.core.v1.${name}`;
const apps = (name) => `io.k8s.api.apps.v1.${name}`;
const meta = (name) => `io.k8s.apimachinery.pkg.apis.meta.v1.${name}`;

/** Fields whose type is upstream's resource.Quantity (client-node types them as plain strings). */
export const quantityFields = {
  [core("ResourceRequirements")]: ["limits", "requests"],
  [core("VolumeResourceRequirements")]: ["limits", "requests"],
  [core("EmptyDirVolumeSource")]: ["sizeLimit"],
  [core("NodeStatus")]: ["allocatable", "capacity"],
  [core("PersistentVolumeSpec")]: ["capacity"],
  [core("PersistentVolumeClaimStatus")]: ["allocatedResources", "capacity"],
  [core("ResourceQuotaSpec")]: ["hard"],
  [core("ResourceQuotaStatus")]: ["hard", "used"],
  [core("LimitRangeItem")]: ["default", "defaultRequest", "max", "maxLimitRequestRatio", "min"],
  [core("ContainerStatus")]: ["allocatedResources"],
  [core("PodSpec")]: ["overhead"],
  [core("ResourceFieldSelector")]: ["divisor"],
  ["io.k8s.api.node.v1.Overhead"]: ["podFixed"],
  ["io.k8s.api.autoscaling.v2.MetricTarget"]: ["averageValue", "value"],
  ["io.k8s.api.autoscaling.v2.MetricValueStatus"]: ["averageValue", "value"],
};

/** Models that are meta/v1 or core/v1 although first reached from another group's kind. */
export const packageOf = {
  V1ObjectMeta: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1ListMeta: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1OwnerReference: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1ManagedFieldsEntry: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1LabelSelector: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1LabelSelectorRequirement: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1Condition: "io.k8s.apimachinery.pkg.apis.meta.v1",
  V1TopologySelectorTerm: "io.k8s.api.core.v1",
  V1TopologySelectorLabelRequirement: "io.k8s.api.core.v1",
};

export const overlay = {
  [meta("LabelSelector")]: { $self: atomicMap, matchExpressions: atomic },
  [meta("LabelSelectorRequirement")]: { values: atomic },
  [core("PodSpec")]: {
    containers: mapList(["name"]),
    initContainers: mapList(["name"]),
    ephemeralContainers: mapList(["name"]),
    volumes: mapList(["name"], "merge,retainKeys"),
    imagePullSecrets: mapList(["name"]),
    hostAliases: mapList(["ip"]),
    resourceClaims: mapList(["name"], "merge,retainKeys"),
    schedulingGates: mapList(["name"]),
    topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"]),
    tolerations: atomic,
    readinessGates: atomic,
    nodeSelector: atomicMap,
  },
  [core("Container")]: {
    ports: mapList(["containerPort", "protocol"]),
    env: mapList(["name"]),
    envFrom: atomic,
    volumeMounts: mapList(["mountPath"]),
    volumeDevices: mapList(["devicePath"]),
    command: atomic,
    args: atomic,
    resizePolicy: atomic,
    restartPolicyRules: atomic,
  },
  [core("EphemeralContainer")]: {
    ports: mapList(["containerPort", "protocol"]),
    env: mapList(["name"]),
    envFrom: atomic,
    volumeMounts: mapList(["mountPath"]),
    volumeDevices: mapList(["devicePath"]),
    command: atomic,
    args: atomic,
    resizePolicy: atomic,
    restartPolicyRules: atomic,
  },
  [core("ContainerPort")]: { protocol: { default: "TCP" } },
  [core("ServicePort")]: { protocol: { default: "TCP" } },
  [core("PodStatus")]: {
    conditions,
    podIPs: mapList(["ip"]),
    hostIPs: mergeBy("ip"),
    containerStatuses: atomic,
    initContainerStatuses: atomic,
    ephemeralContainerStatuses: atomic,
    resourceClaimStatuses: mapList(["name"], "merge,retainKeys"),
  },
  [core("ServiceSpec")]: {
    ports: mapList(["port", "protocol"]),
    clusterIPs: atomic,
    externalIPs: atomic,
    ipFamilies: atomic,
    loadBalancerSourceRanges: atomic,
    selector: atomicMap,
  },
  [core("ServiceStatus")]: { conditions },
  [core("LoadBalancerStatus")]: { ingress: atomic },
  [core("LoadBalancerIngress")]: { ports: atomic },
  [core("NodeSpec")]: { podCIDRs: { ...set, "x-kubernetes-patch-strategy": "merge" }, taints: atomic },
  // Upstream declares a merge key but no list type: a dual-stack node has two InternalIPs, so the list is atomic.
  [core("NodeStatus")]: { conditions, addresses: mergeBy("type"), images: atomic, volumesInUse: atomic, volumesAttached: atomic },
  [core("NodeSelector")]: { $self: atomicMap, nodeSelectorTerms: atomic },
  [core("NodeSelectorTerm")]: { $self: atomicMap, matchExpressions: atomic, matchFields: atomic },
  [core("NodeSelectorRequirement")]: { values: atomic },
  [core("NodeAffinity")]: { preferredDuringSchedulingIgnoredDuringExecution: atomic },
  [core("PodAffinity")]: {
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [core("PodAntiAffinity")]: {
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [core("PodAffinityTerm")]: { namespaces: atomic, matchLabelKeys: atomic, mismatchLabelKeys: atomic },
  [core("TopologySpreadConstraint")]: { matchLabelKeys: atomic },
  [core("ObjectReference")]: { $self: atomicMap },
  [core("LocalObjectReference")]: { $self: atomicMap },
  [core("TypedLocalObjectReference")]: { $self: atomicMap },
  [core("ReplicationControllerSpec")]: { selector: atomicMap },
  [core("ReplicationControllerStatus")]: { conditions },
  [core("EndpointSubset")]: { addresses: atomic, notReadyAddresses: atomic, ports: atomic },
  [core("Endpoints")]: { subsets: atomic },
  [core("PersistentVolumeSpec")]: { accessModes: atomic, mountOptions: atomic },
  [core("PersistentVolumeClaimSpec")]: { accessModes: atomic },
  [core("PersistentVolumeClaimStatus")]: { accessModes: atomic, conditions },
  [core("ResourceQuotaSpec")]: { scopes: atomic },
  [core("ScopeSelector")]: { $self: atomicMap, matchExpressions: atomic },
  [core("ScopedResourceSelectorRequirement")]: { values: atomic },
  [core("LimitRangeSpec")]: { limits: atomic },
  [core("PodDNSConfig")]: { nameservers: atomic, options: atomic, searches: atomic },
  [core("Capabilities")]: { add: atomic, drop: atomic },
  [core("PodSecurityContext")]: { supplementalGroups: atomic, sysctls: atomic },
  [core("ResourceRequirements")]: { claims: mapList(["name"]) },
  [core("HTTPGetAction")]: { httpHeaders: atomic },
  [core("ExecAction")]: { command: atomic },
  [apps("DeploymentStatus")]: { conditions },
  [apps("ReplicaSetStatus")]: { conditions },
  [apps("DaemonSetStatus")]: { conditions },
  [apps("StatefulSetStatus")]: { conditions },
  [apps("StatefulSetSpec")]: { volumeClaimTemplates: atomic },
  ["io.k8s.api.batch.v1.JobStatus"]: { conditions: mergeBy("type") },
  ["io.k8s.api.batch.v1.CronJobStatus"]: { active: atomic },
  ["io.k8s.api.batch.v1.PodFailurePolicy"]: { rules: atomic },
  ["io.k8s.api.batch.v1.PodFailurePolicyRule"]: { onPodConditions: atomic },
  ["io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement"]: { values: set },
  ["io.k8s.api.batch.v1.SuccessPolicy"]: { rules: atomic },
  ["io.k8s.api.batch.v1.UncountedTerminatedPods"]: { failed: set, succeeded: set },
  ["io.k8s.api.discovery.v1.EndpointSlice"]: { endpoints: atomic, ports: atomic },
  ["io.k8s.api.discovery.v1.Endpoint"]: { addresses: set },
  ["io.k8s.api.discovery.v1.EndpointHints"]: { forZones: atomic, forNodes: atomic },
  ["io.k8s.api.policy.v1.PodDisruptionBudgetStatus"]: { conditions },
  ["io.k8s.api.networking.v1.IngressSpec"]: { rules: atomic, tls: atomic },
  ["io.k8s.api.networking.v1.IngressTLS"]: { hosts: atomic },
  ["io.k8s.api.networking.v1.HTTPIngressRuleValue"]: { paths: atomic },
  ["io.k8s.api.networking.v1.NetworkPolicySpec"]: { ingress: atomic, egress: atomic, policyTypes: atomic },
  ["io.k8s.api.storage.v1.StorageClass"]: { allowedTopologies: atomic, mountOptions: atomic },
  ["io.k8s.api.storage.v1.CSINodeSpec"]: { drivers: mapList(["name"]) },
  ["io.k8s.api.storage.v1.CSIDriverSpec"]: { tokenRequests: atomic, volumeLifecycleModes: set },
  ["io.k8s.api.node.v1.Scheduling"]: { tolerations: atomic, nodeSelector: atomicMap },
  ["io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec"]: { metrics: atomic },
  ["io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus"]: { conditions, currentMetrics: atomic },
  ["io.k8s.api.autoscaling.v2.HPAScalingRules"]: { policies: atomic },
};
