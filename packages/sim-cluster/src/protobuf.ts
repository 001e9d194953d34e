import type { ApiServer } from "@kubekit/generic-controlplane/server";

/**
 * The protobuf messages of the kinds kubectl 1.32 creates with typed clients (`create
 * deployment`, `create service`, `create pdb`), written for this package with the field numbers of upstream's
 * k8s.io/api `generated.proto`. They declare the fields those clients send and the cluster acts
 * on; the codec refuses a body carrying any other field (415) rather than dropping it.
 */
const CORE_V1 = `
syntax = "proto2";
package k8s.io.api.core.v1;

// QuantityEntry (a ResourceList entry) comes with the generic control plane's core/v1 messages.
message ResourceRequirements {
  repeated QuantityEntry limits = 1;
  repeated QuantityEntry requests = 2;
}

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3;
  optional string protocol = 4;
  optional string hostIP = 5;
}

message EnvVar {
  optional string name = 1;
  optional string value = 2;
}

message Container {
  optional string name = 1;
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  optional string terminationMessagePath = 13;
  optional string imagePullPolicy = 14;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
  optional string terminationMessagePolicy = 20;
  optional string restartPolicy = 24;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5;
}

message PodSecurityContext {
  optional int64 runAsUser = 2;
  optional bool runAsNonRoot = 3;
  repeated int64 supplementalGroups = 4;
  optional int64 fsGroup = 5;
  optional int64 runAsGroup = 6;
  optional string fsGroupChangePolicy = 9;
}

message PodSpec {
  repeated Container containers = 2;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4;
  optional int64 activeDeadlineSeconds = 5;
  optional string dnsPolicy = 6;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional PodSecurityContext securityContext = 14;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional string schedulerName = 19;
  repeated Container initContainers = 20;
  optional bool automountServiceAccountToken = 21;
  repeated Toleration tolerations = 22;
  optional string priorityClassName = 24;
  optional int32 priority = 25;
  optional bool shareProcessNamespace = 27;
  optional bool enableServiceLinks = 30;
  optional string preemptionPolicy = 31;
}

message PodTemplateSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional int32 port = 3;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
  optional string appProtocol = 6;
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry selector = 2;
  optional string clusterIP = 3;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional string ipFamilyPolicy = 17;
  repeated string clusterIPs = 18;
  repeated string ipFamilies = 19;
  optional bool allocateLoadBalancerNodePorts = 20;
  optional string loadBalancerClass = 21;
  optional string internalTrafficPolicy = 22;
}

message LoadBalancerStatus {
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
}

message Service {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}
`;

const APPS_V1 = `
syntax = "proto2";
package k8s.io.api.apps.v1;

message RollingUpdateDeployment {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
}

message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2;
}

message DeploymentSpec {
  optional int32 replicas = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6;
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9;
}

message DeploymentCondition {
  optional string type = 1;
  optional string status = 2;
  optional string reason = 4;
  optional string message = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastUpdateTime = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 7;
}

message DeploymentStatus {
  optional int64 observedGeneration = 1;
  optional int32 replicas = 2;
  optional int32 updatedReplicas = 3;
  optional int32 availableReplicas = 4;
  optional int32 unavailableReplicas = 5;
  repeated DeploymentCondition conditions = 6;
  optional int32 readyReplicas = 7;
  optional int32 collisionCount = 8;
}

message Deployment {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
  optional DeploymentStatus status = 3;
}
`;

const POLICY_V1 = `
syntax = "proto2";
package k8s.io.api.policy.v1;

message PodDisruptionBudgetSpec {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString minAvailable = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 3;
  optional string unhealthyPodEvictionPolicy = 4;
}

message PodDisruptionBudgetStatus {
  optional int64 observedGeneration = 1;
  optional int32 disruptionsAllowed = 3;
  optional int32 currentHealthy = 4;
  optional int32 desiredHealthy = 5;
  optional int32 expectedPods = 6;
}

message PodDisruptionBudget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodDisruptionBudgetSpec spec = 2;
  optional PodDisruptionBudgetStatus status = 3;
}
`;

const BATCH_V1 = `
syntax = "proto2";
package k8s.io.api.batch.v1;

message PodFailurePolicyOnExitCodesRequirement {
  optional string containerName = 1;
  optional string operator = 2;
  repeated int32 values = 3;
}

message PodFailurePolicyOnPodConditionsPattern {
  optional string type = 1;
  optional string status = 2;
}

message PodFailurePolicyRule {
  optional string action = 1;
  optional PodFailurePolicyOnExitCodesRequirement onExitCodes = 2;
  repeated PodFailurePolicyOnPodConditionsPattern onPodConditions = 3;
}

message PodFailurePolicy {
  repeated PodFailurePolicyRule rules = 1;
}

message SuccessPolicyRule {
  optional string succeededIndexes = 1;
  optional int32 succeededCount = 2;
}

message SuccessPolicy {
  repeated SuccessPolicyRule rules = 1;
}

message JobSpec {
  optional int32 parallelism = 1;
  optional int32 completions = 2;
  optional int64 activeDeadlineSeconds = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 4;
  optional bool manualSelector = 5;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 6;
  optional int32 backoffLimit = 7;
  optional int32 ttlSecondsAfterFinished = 8;
  optional string completionMode = 9;
  optional bool suspend = 10;
  optional PodFailurePolicy podFailurePolicy = 11;
  optional int32 backoffLimitPerIndex = 12;
  optional int32 maxFailedIndexes = 13;
  optional string podReplacementPolicy = 14;
  optional string managedBy = 15;
  optional SuccessPolicy successPolicy = 16;
}

message JobCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message JobStatus {
  repeated JobCondition conditions = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time completionTime = 3;
  optional int32 active = 4;
  optional int32 succeeded = 5;
  optional int32 failed = 6;
  optional string completedIndexes = 7;
  optional int32 ready = 9;
  optional string failedIndexes = 10;
  optional int32 terminating = 11;
}

message Job {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
  optional JobStatus status = 3;
}

message JobTemplateSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
}

message CronJobSpec {
  optional string schedule = 1;
  optional int64 startingDeadlineSeconds = 2;
  optional string concurrencyPolicy = 3;
  optional bool suspend = 4;
  optional JobTemplateSpec jobTemplate = 5;
  optional int32 successfulJobsHistoryLimit = 6;
  optional int32 failedJobsHistoryLimit = 7;
  optional string timeZone = 8;
}

message CronJobStatus {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastScheduleTime = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastSuccessfulTime = 5;
}

message CronJob {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CronJobSpec spec = 2;
  optional CronJobStatus status = 3;
}
`;

const NETWORKING_V1 = `
syntax = "proto2";
package k8s.io.api.networking.v1;

message TypedLocalObjectReference {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
}

message ServiceBackendPort {
  optional string name = 1;
  optional int32 number = 2;
}

message IngressServiceBackend {
  optional string name = 1;
  optional ServiceBackendPort port = 2;
}

message IngressBackend {
  optional TypedLocalObjectReference resource = 3;
  optional IngressServiceBackend service = 4;
}

message HTTPIngressPath {
  optional string path = 1;
  optional IngressBackend backend = 2;
  optional string pathType = 3;
}

message HTTPIngressRuleValue {
  repeated HTTPIngressPath paths = 1;
}

message IngressRuleValue {
  optional HTTPIngressRuleValue http = 1;
}

message IngressRule {
  optional string host = 1;
  optional IngressRuleValue ingressRuleValue = 2;
}

message IngressTLS {
  repeated string hosts = 1;
  optional string secretName = 2;
}

message IngressSpec {
  optional IngressBackend defaultBackend = 1;
  repeated IngressTLS tls = 2;
  repeated IngressRule rules = 3;
  optional string ingressClassName = 4;
}

message IngressPortStatus {
  optional int32 port = 1;
  optional string protocol = 2;
  optional string error = 3;
}

message IngressLoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  repeated IngressPortStatus ports = 4;
}

message IngressLoadBalancerStatus {
  repeated IngressLoadBalancerIngress ingress = 1;
}

message IngressStatus {
  optional IngressLoadBalancerStatus loadBalancer = 1;
}

message Ingress {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional IngressSpec spec = 2;
  optional IngressStatus status = 3;
}
`;

const AUTOSCALING_V1 = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;

message CrossVersionObjectReference {
  optional string kind = 1;
  optional string name = 2;
  optional string apiVersion = 3;
}

message HorizontalPodAutoscalerSpec {
  optional CrossVersionObjectReference scaleTargetRef = 1;
  optional int32 minReplicas = 2;
  optional int32 maxReplicas = 3;
  optional int32 targetCPUUtilizationPercentage = 4;
}

message HorizontalPodAutoscalerStatus {
  optional int64 observedGeneration = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastScaleTime = 2;
  optional int32 currentReplicas = 3;
  optional int32 desiredReplicas = 4;
  optional int32 currentCPUUtilizationPercentage = 5;
}

message HorizontalPodAutoscaler {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional HorizontalPodAutoscalerSpec spec = 2;
  optional HorizontalPodAutoscalerStatus status = 3;
}
`;

/** Go pointer fields of these messages: a zero on the wire was set on purpose. */
const POINTER_FIELDS = [
  "k8s.io.api.apps.v1.DeploymentSpec.replicas",
  "k8s.io.api.apps.v1.DeploymentSpec.revisionHistoryLimit",
  "k8s.io.api.apps.v1.DeploymentSpec.progressDeadlineSeconds",
  "k8s.io.api.apps.v1.RollingUpdateDeployment.maxUnavailable",
  "k8s.io.api.apps.v1.RollingUpdateDeployment.maxSurge",
  "k8s.io.api.apps.v1.DeploymentStatus.collisionCount",
  "k8s.io.api.core.v1.PodSpec.terminationGracePeriodSeconds",
  "k8s.io.api.core.v1.PodSpec.activeDeadlineSeconds",
  "k8s.io.api.core.v1.PodSpec.automountServiceAccountToken",
  "k8s.io.api.core.v1.PodSpec.priority",
  "k8s.io.api.core.v1.PodSpec.shareProcessNamespace",
  "k8s.io.api.core.v1.PodSpec.enableServiceLinks",
  "k8s.io.api.core.v1.PodSpec.preemptionPolicy",
  "k8s.io.api.core.v1.Container.restartPolicy",
  "k8s.io.api.core.v1.Toleration.tolerationSeconds",
  ...["runAsUser", "runAsNonRoot", "fsGroup", "runAsGroup", "fsGroupChangePolicy"].map((f) => `k8s.io.api.core.v1.PodSecurityContext.${f}`),
  "k8s.io.api.core.v1.ServiceSpec.ipFamilyPolicy",
  "k8s.io.api.core.v1.ServiceSpec.allocateLoadBalancerNodePorts",
  "k8s.io.api.core.v1.ServiceSpec.loadBalancerClass",
  "k8s.io.api.core.v1.ServiceSpec.internalTrafficPolicy",
  "k8s.io.api.policy.v1.PodDisruptionBudgetSpec.minAvailable",
  "k8s.io.api.policy.v1.PodDisruptionBudgetSpec.maxUnavailable",
  "k8s.io.api.policy.v1.PodDisruptionBudgetSpec.unhealthyPodEvictionPolicy",
  ...["parallelism", "completions", "activeDeadlineSeconds", "manualSelector", "backoffLimit", "ttlSecondsAfterFinished", "completionMode", "suspend", "backoffLimitPerIndex", "maxFailedIndexes", "podReplacementPolicy", "managedBy"].map((f) => `k8s.io.api.batch.v1.JobSpec.${f}`),
  "k8s.io.api.batch.v1.JobStatus.ready",
  "k8s.io.api.batch.v1.JobStatus.failedIndexes",
  "k8s.io.api.batch.v1.JobStatus.terminating",
  "k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement.containerName",
  "k8s.io.api.batch.v1.SuccessPolicyRule.succeededIndexes",
  "k8s.io.api.batch.v1.SuccessPolicyRule.succeededCount",
  ...["startingDeadlineSeconds", "suspend", "successfulJobsHistoryLimit", "failedJobsHistoryLimit", "timeZone"].map((f) => `k8s.io.api.batch.v1.CronJobSpec.${f}`),
  "k8s.io.api.networking.v1.IngressSpec.ingressClassName",
  "k8s.io.api.networking.v1.HTTPIngressPath.pathType",
  "k8s.io.api.networking.v1.TypedLocalObjectReference.apiGroup",
  ...["minReplicas", "targetCPUUtilizationPercentage"].map((f) => `k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec.${f}`),
  ...["observedGeneration", "currentCPUUtilizationPercentage"].map((f) => `k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus.${f}`),
];

/** Go fields without `omitempty`. */
const ALWAYS_PRESENT_FIELDS = [
  "k8s.io.api.autoscaling.v1.CrossVersionObjectReference.kind",
  "k8s.io.api.autoscaling.v1.CrossVersionObjectReference.name",
  "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec.maxReplicas",
  "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus.currentReplicas",
  "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus.desiredReplicas",
];

/** Makes the control plane's protobuf codec read and write Deployments, Services, PodDisruptionBudgets (`kubectl create pdb`), Jobs and CronJobs (`kubectl create job`, `create cronjob`), Ingresses (`create ingress`) and autoscaling/v1 HorizontalPodAutoscalers (`autoscale`). */
export function registerWorkloadProtobuf(server: Pick<ApiServer, "registerProtobufKinds">): void {
  server.registerProtobufKinds({
    sources: [CORE_V1, APPS_V1, POLICY_V1, BATCH_V1, NETWORKING_V1, AUTOSCALING_V1],
    kinds: {
      "apps/v1/Deployment": "k8s.io.api.apps.v1.Deployment",
      "v1/Service": "k8s.io.api.core.v1.Service",
      "policy/v1/PodDisruptionBudget": "k8s.io.api.policy.v1.PodDisruptionBudget",
      "batch/v1/Job": "k8s.io.api.batch.v1.Job",
      "batch/v1/CronJob": "k8s.io.api.batch.v1.CronJob",
      "networking.k8s.io/v1/Ingress": "k8s.io.api.networking.v1.Ingress",
      "autoscaling/v1/HorizontalPodAutoscaler": "k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler",
    },
    keepZeroFields: POINTER_FIELDS,
    alwaysPresentFields: ALWAYS_PRESENT_FIELDS,
    inlineFields: ["k8s.io.api.networking.v1.IngressRule.ingressRuleValue"],
  });
}
