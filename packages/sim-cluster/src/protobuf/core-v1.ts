import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.core.v1";

/** core/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.core.v1;

message AWSElasticBlockStoreVolumeSource {
  optional string volumeID = 1;
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message Affinity {
  optional NodeAffinity nodeAffinity = 1;
  optional PodAffinity podAffinity = 2;
  optional PodAntiAffinity podAntiAffinity = 3;
}

message AppArmorProfile {
  optional string type = 1;
  optional string localhostProfile = 2;
}

message AttachedVolume {
  optional string name = 1;
  optional string devicePath = 2;
}

message AzureDiskVolumeSource {
  optional string diskName = 1;
  optional string diskURI = 2;
  optional string cachingMode = 3;
  optional string fsType = 4;
  optional bool readOnly = 5;
  optional string kind = 6;
}

message AzureFilePersistentVolumeSource {
  optional string secretName = 1;
  optional string shareName = 2;
  optional bool readOnly = 3;
  optional string secretNamespace = 4;
}

message AzureFileVolumeSource {
  optional string secretName = 1;
  optional string shareName = 2;
  optional bool readOnly = 3;
}

message CSIPersistentVolumeSource {
  optional string driver = 1;
  optional string volumeHandle = 2;
  optional bool readOnly = 3;
  optional string fsType = 4;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry volumeAttributes = 5;
  optional SecretReference controllerPublishSecretRef = 6;
  optional SecretReference nodeStageSecretRef = 7;
  optional SecretReference nodePublishSecretRef = 8;
  optional SecretReference controllerExpandSecretRef = 9;
  optional SecretReference nodeExpandSecretRef = 10;
}

message CSIVolumeSource {
  optional string driver = 1;
  optional bool readOnly = 2;
  optional string fsType = 3;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry volumeAttributes = 4;
  optional LocalObjectReference nodePublishSecretRef = 5;
}

message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}

message CephFSPersistentVolumeSource {
  repeated string monitors = 1;
  optional string path = 2;
  optional string user = 3;
  optional string secretFile = 4;
  optional SecretReference secretRef = 5;
  optional bool readOnly = 6;
}

message CephFSVolumeSource {
  repeated string monitors = 1;
  optional string path = 2;
  optional string user = 3;
  optional string secretFile = 4;
  optional LocalObjectReference secretRef = 5;
  optional bool readOnly = 6;
}

message CinderPersistentVolumeSource {
  optional string volumeID = 1;
  optional string fsType = 2;
  optional bool readOnly = 3;
  optional SecretReference secretRef = 4;
}

message CinderVolumeSource {
  optional string volumeID = 1;
  optional string fsType = 2;
  optional bool readOnly = 3;
  optional LocalObjectReference secretRef = 4;
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1;
}

message ClusterTrustBundleProjection {
  optional string name = 1;
  optional string signerName = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 3;
  optional bool optional = 5;
  optional string path = 4;
}

message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1;
  optional bool optional = 2;
}

message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1;
  optional string key = 2;
  optional bool optional = 3;
}

message ConfigMapNodeConfigSource {
  optional string namespace = 1;
  optional string name = 2;
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5;
}

message ConfigMapProjection {
  optional LocalObjectReference localObjectReference = 1;
  repeated KeyToPath items = 2;
  optional bool optional = 4;
}

message ConfigMapVolumeSource {
  optional LocalObjectReference localObjectReference = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3;
  optional bool optional = 4;
}

message Container {
  optional string name = 1;
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24;
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3;
  optional string protocol = 4;
  optional string hostIP = 5;
}

message ContainerResizePolicy {
  optional string resourceName = 1;
  optional string restartPolicy = 2;
}

message ContainerState {
  optional ContainerStateWaiting waiting = 1;
  optional ContainerStateRunning running = 2;
  optional ContainerStateTerminated terminated = 3;
}

message ContainerStateRunning {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 1;
}

message ContainerStateTerminated {
  optional int32 exitCode = 1;
  optional int32 signal = 2;
  optional string reason = 3;
  optional string message = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time finishedAt = 6;
  optional string containerID = 7;
}

message ContainerStateWaiting {
  optional string reason = 1;
  optional string message = 2;
}

message ContainerStatus {
  optional string name = 1;
  optional ContainerState state = 2;
  optional ContainerState lastState = 3;
  optional bool ready = 4;
  optional int32 restartCount = 5;
  optional string image = 6;
  optional string imageID = 7;
  optional string containerID = 8;
  optional bool started = 9;
  repeated .k8s.io.api.core.v1.QuantityEntry allocatedResources = 10;
  optional ResourceRequirements resources = 11;
  repeated VolumeMountStatus volumeMounts = 12;
  optional ContainerUser user = 13;
  repeated ResourceStatus allocatedResourcesStatus = 14;
}

message ContainerUser {
  optional LinuxContainerUser linux = 1;
}

message DaemonEndpoint {
  optional int32 Port = 1;
}

message DownwardAPIProjection {
  repeated DownwardAPIVolumeFile items = 1;
}

message DownwardAPIVolumeFile {
  optional string path = 1;
  optional ObjectFieldSelector fieldRef = 2;
  optional ResourceFieldSelector resourceFieldRef = 3;
  optional int32 mode = 4;
}

message DownwardAPIVolumeSource {
  repeated DownwardAPIVolumeFile items = 1;
  optional int32 defaultMode = 2;
}

message EmptyDirVolumeSource {
  optional string medium = 1;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity sizeLimit = 2;
}

message EndpointAddress {
  optional string ip = 1;
  optional string hostname = 3;
  optional string nodeName = 4;
  optional ObjectReference targetRef = 2;
}

message EndpointPort {
  optional string name = 1;
  optional int32 port = 2;
  optional string protocol = 3;
  optional string appProtocol = 4;
}

message EndpointSubset {
  repeated EndpointAddress addresses = 1;
  repeated EndpointAddress notReadyAddresses = 2;
  repeated EndpointPort ports = 3;
}

message Endpoints {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated EndpointSubset subsets = 2;
}

message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2;
  optional SecretEnvSource secretRef = 3;
}

message EnvVar {
  optional string name = 1;
  optional string value = 2;
  optional EnvVarSource valueFrom = 3;
}

message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1;
  optional ResourceFieldSelector resourceFieldRef = 2;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
}

message EphemeralContainer {
  optional EphemeralContainerCommon ephemeralContainerCommon = 1;
  optional string targetContainerName = 2;
}

message EphemeralContainerCommon {
  optional string name = 1;
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24;
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message EphemeralVolumeSource {
  optional PersistentVolumeClaimTemplate volumeClaimTemplate = 1;
}

message ExecAction {
  repeated string command = 1;
}

message FCVolumeSource {
  repeated string targetWWNs = 1;
  optional int32 lun = 2;
  optional string fsType = 3;
  optional bool readOnly = 4;
  repeated string wwids = 5;
}

message FlexPersistentVolumeSource {
  optional string driver = 1;
  optional string fsType = 2;
  optional SecretReference secretRef = 3;
  optional bool readOnly = 4;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry options = 5;
}

message FlexVolumeSource {
  optional string driver = 1;
  optional string fsType = 2;
  optional LocalObjectReference secretRef = 3;
  optional bool readOnly = 4;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry options = 5;
}

message FlockerVolumeSource {
  optional string datasetName = 1;
  optional string datasetUUID = 2;
}

message GCEPersistentDiskVolumeSource {
  optional string pdName = 1;
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message GRPCAction {
  optional int32 port = 1;
  optional string service = 2;
}

message GitRepoVolumeSource {
  optional string repository = 1;
  optional string revision = 2;
  optional string directory = 3;
}

message GlusterfsPersistentVolumeSource {
  optional string endpoints = 1;
  optional string path = 2;
  optional bool readOnly = 3;
  optional string endpointsNamespace = 4;
}

message GlusterfsVolumeSource {
  optional string endpoints = 1;
  optional string path = 2;
  optional bool readOnly = 3;
}

message HTTPGetAction {
  optional string path = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
}

message HTTPHeader {
  optional string name = 1;
  optional string value = 2;
}

message HostAlias {
  optional string ip = 1;
  repeated string hostnames = 2;
}

message HostIP {
  optional string ip = 1;
}

message HostPathVolumeSource {
  optional string path = 1;
  optional string type = 2;
}

message ISCSIPersistentVolumeSource {
  optional string targetPortal = 1;
  optional string iqn = 2;
  optional int32 lun = 3;
  optional string iscsiInterface = 4;
  optional string fsType = 5;
  optional bool readOnly = 6;
  repeated string portals = 7;
  optional bool chapAuthDiscovery = 8;
  optional bool chapAuthSession = 11;
  optional SecretReference secretRef = 10;
  optional string initiatorName = 12;
}

message ISCSIVolumeSource {
  optional string targetPortal = 1;
  optional string iqn = 2;
  optional int32 lun = 3;
  optional string iscsiInterface = 4;
  optional string fsType = 5;
  optional bool readOnly = 6;
  repeated string portals = 7;
  optional bool chapAuthDiscovery = 8;
  optional bool chapAuthSession = 11;
  optional LocalObjectReference secretRef = 10;
  optional string initiatorName = 12;
}

message ImageVolumeSource {
  optional string reference = 1;
  optional string pullPolicy = 2;
}

message KeyToPath {
  optional string key = 1;
  optional string path = 2;
  optional int32 mode = 3;
}

message Lifecycle {
  optional LifecycleHandler postStart = 1;
  optional LifecycleHandler preStop = 2;
}

message LifecycleHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional SleepAction sleep = 4;
}

message LinuxContainerUser {
  optional int64 uid = 1;
  optional int64 gid = 2;
  repeated int64 supplementalGroups = 3;
}

message LoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  optional string ipMode = 3;
  repeated PortStatus ports = 4;
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1;
}

message LocalVolumeSource {
  optional string path = 1;
  optional string fsType = 2;
}

message ModifyVolumeStatus {
  optional string targetVolumeAttributesClassName = 1;
  optional string status = 2;
}

message NFSVolumeSource {
  optional string server = 1;
  optional string path = 2;
  optional bool readOnly = 3;
}

message Node {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}

message NodeAddress {
  optional string type = 1;
  optional string address = 2;
}

message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message NodeCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastHeartbeatTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}

message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}

message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}

message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1;
}

message NodeRuntimeHandler {
  optional string name = 1;
  optional NodeRuntimeHandlerFeatures features = 2;
}

message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1;
  optional bool userNamespaces = 2;
}

message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}

message NodeSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3;
}

message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}

message NodeSpec {
  optional string podCIDR = 1;
  repeated string podCIDRs = 7;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  optional string externalID = 2;
}

message NodeStatus {
  repeated .k8s.io.api.core.v1.QuantityEntry capacity = 1;
  repeated .k8s.io.api.core.v1.QuantityEntry allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
}

message NodeSystemInfo {
  optional string machineID = 1;
  optional string systemUUID = 2;
  optional string bootID = 3;
  optional string kernelVersion = 4;
  optional string osImage = 5;
  optional string containerRuntimeVersion = 6;
  optional string kubeletVersion = 7;
  optional string kubeProxyVersion = 8;
  optional string operatingSystem = 9;
  optional string architecture = 10;
}

message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2;
}

message PersistentVolume {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PersistentVolumeSpec spec = 2;
  optional PersistentVolumeStatus status = 3;
}

message PersistentVolumeClaim {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PersistentVolumeClaimSpec spec = 2;
  optional PersistentVolumeClaimStatus status = 3;
}

message PersistentVolumeClaimCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message PersistentVolumeClaimSpec {
  repeated string accessModes = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 4;
  optional VolumeResourceRequirements resources = 2;
  optional string volumeName = 3;
  optional string storageClassName = 5;
  optional string volumeMode = 6;
  optional TypedLocalObjectReference dataSource = 7;
  optional TypedObjectReference dataSourceRef = 8;
  optional string volumeAttributesClassName = 9;
}

message PersistentVolumeClaimStatus {
  optional string phase = 1;
  repeated string accessModes = 2;
  repeated .k8s.io.api.core.v1.QuantityEntry capacity = 3;
  repeated PersistentVolumeClaimCondition conditions = 4;
  repeated .k8s.io.api.core.v1.QuantityEntry allocatedResources = 5;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry allocatedResourceStatuses = 7;
  optional string currentVolumeAttributesClassName = 8;
  optional ModifyVolumeStatus modifyVolumeStatus = 9;
}

message PersistentVolumeClaimTemplate {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PersistentVolumeClaimSpec spec = 2;
}

message PersistentVolumeClaimVolumeSource {
  optional string claimName = 1;
  optional bool readOnly = 2;
}

message PersistentVolumeSource {
  optional GCEPersistentDiskVolumeSource gcePersistentDisk = 1;
  optional AWSElasticBlockStoreVolumeSource awsElasticBlockStore = 2;
  optional HostPathVolumeSource hostPath = 3;
  optional GlusterfsPersistentVolumeSource glusterfs = 4;
  optional NFSVolumeSource nfs = 5;
  optional RBDPersistentVolumeSource rbd = 6;
  optional ISCSIPersistentVolumeSource iscsi = 7;
  optional CinderPersistentVolumeSource cinder = 8;
  optional CephFSPersistentVolumeSource cephfs = 9;
  optional FCVolumeSource fc = 10;
  optional FlockerVolumeSource flocker = 11;
  optional FlexPersistentVolumeSource flexVolume = 12;
  optional AzureFilePersistentVolumeSource azureFile = 13;
  optional VsphereVirtualDiskVolumeSource vsphereVolume = 14;
  optional QuobyteVolumeSource quobyte = 15;
  optional AzureDiskVolumeSource azureDisk = 16;
  optional PhotonPersistentDiskVolumeSource photonPersistentDisk = 17;
  optional PortworxVolumeSource portworxVolume = 18;
  optional ScaleIOPersistentVolumeSource scaleIO = 19;
  optional LocalVolumeSource local = 20;
  optional StorageOSPersistentVolumeSource storageos = 21;
  optional CSIPersistentVolumeSource csi = 22;
}

message PersistentVolumeSpec {
  repeated .k8s.io.api.core.v1.QuantityEntry capacity = 1;
  optional PersistentVolumeSource persistentVolumeSource = 2;
  repeated string accessModes = 3;
  optional ObjectReference claimRef = 4;
  optional string persistentVolumeReclaimPolicy = 5;
  optional string storageClassName = 6;
  repeated string mountOptions = 7;
  optional string volumeMode = 8;
  optional VolumeNodeAffinity nodeAffinity = 9;
  optional string volumeAttributesClassName = 10;
}

message PersistentVolumeStatus {
  optional string phase = 1;
  optional string message = 2;
  optional string reason = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastPhaseTransitionTime = 4;
}

message PhotonPersistentDiskVolumeSource {
  optional string pdID = 1;
  optional string fsType = 2;
}

message Pod {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
  optional PodStatus status = 3;
}

message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAffinityTerm {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 1;
  repeated string namespaces = 2;
  optional string topologyKey = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 4;
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}

message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}

message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2;
}

message PodIP {
  optional string ip = 1;
}

message PodOS {
  optional string name = 1;
}

message PodReadinessGate {
  optional string conditionType = 1;
}

message PodResourceClaim {
  optional string name = 1;
  optional string resourceClaimName = 3;
  optional string resourceClaimTemplateName = 4;
}

message PodResourceClaimStatus {
  optional string name = 1;
  optional string resourceClaimName = 2;
}

message PodSchedulingGate {
  optional string name = 1;
}

message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1;
  optional WindowsSecurityContextOptions windowsOptions = 8;
  optional int64 runAsUser = 2;
  optional int64 runAsGroup = 6;
  optional bool runAsNonRoot = 3;
  repeated int64 supplementalGroups = 4;
  optional string supplementalGroupsPolicy = 12;
  optional int64 fsGroup = 5;
  repeated Sysctl sysctls = 7;
  optional string fsGroupChangePolicy = 9;
  optional SeccompProfile seccompProfile = 10;
  optional AppArmorProfile appArmorProfile = 11;
  optional string seLinuxChangePolicy = 13;
}

message PodSpec {
  repeated Volume volumes = 1;
  repeated Container initContainers = 20;
  repeated Container containers = 2;
  repeated EphemeralContainer ephemeralContainers = 34;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4;
  optional int64 activeDeadlineSeconds = 5;
  optional string dnsPolicy = 6;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional bool automountServiceAccountToken = 21;
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional bool shareProcessNamespace = 27;
  optional PodSecurityContext securityContext = 14;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18;
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25;
  optional PodDNSConfig dnsConfig = 26;
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29;
  optional bool enableServiceLinks = 30;
  optional string preemptionPolicy = 31;
  repeated .k8s.io.api.core.v1.QuantityEntry overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  optional bool setHostnameAsFQDN = 35;
  optional PodOS os = 36;
  optional bool hostUsers = 37;
  repeated PodSchedulingGate schedulingGates = 38;
  repeated PodResourceClaim resourceClaims = 39;
  optional ResourceRequirements resources = 40;
}

message PodStatus {
  optional string phase = 1;
  repeated PodCondition conditions = 2;
  optional string message = 3;
  optional string reason = 4;
  optional string nominatedNodeName = 11;
  optional string hostIP = 5;
  repeated HostIP hostIPs = 16;
  optional string podIP = 6;
  repeated PodIP podIPs = 12;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 7;
  repeated ContainerStatus initContainerStatuses = 10;
  repeated ContainerStatus containerStatuses = 8;
  optional string qosClass = 9;
  repeated ContainerStatus ephemeralContainerStatuses = 13;
  optional string resize = 14;
  repeated PodResourceClaimStatus resourceClaimStatuses = 15;
}

message PodTemplate {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodTemplateSpec template = 2;
}

message PodTemplateSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

message PortStatus {
  optional int32 port = 1;
  optional string protocol = 2;
  optional string error = 3;
}

message PortworxVolumeSource {
  optional string volumeID = 1;
  optional string fsType = 2;
  optional bool readOnly = 3;
}

message PreferredSchedulingTerm {
  optional int32 weight = 1;
  optional NodeSelectorTerm preference = 2;
}

message Probe {
  optional ProbeHandler handler = 1;
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7;
}

message ProbeHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional GRPCAction grpc = 4;
}

message ProjectedVolumeSource {
  repeated VolumeProjection sources = 1;
  optional int32 defaultMode = 2;
}

message QuobyteVolumeSource {
  optional string registry = 1;
  optional string volume = 2;
  optional bool readOnly = 3;
  optional string user = 4;
  optional string group = 5;
  optional string tenant = 6;
}

message RBDPersistentVolumeSource {
  repeated string monitors = 1;
  optional string image = 2;
  optional string fsType = 3;
  optional string pool = 4;
  optional string user = 5;
  optional string keyring = 6;
  optional SecretReference secretRef = 7;
  optional bool readOnly = 8;
}

message RBDVolumeSource {
  repeated string monitors = 1;
  optional string image = 2;
  optional string fsType = 3;
  optional string pool = 4;
  optional string user = 5;
  optional string keyring = 6;
  optional LocalObjectReference secretRef = 7;
  optional bool readOnly = 8;
}

message ReplicationController {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ReplicationControllerSpec spec = 2;
  optional ReplicationControllerStatus status = 3;
}

message ReplicationControllerCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message ReplicationControllerSpec {
  optional int32 replicas = 1;
  optional int32 minReadySeconds = 4;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry selector = 2;
  optional PodTemplateSpec template = 3;
}

message ReplicationControllerStatus {
  optional int32 replicas = 1;
  optional int32 fullyLabeledReplicas = 2;
  optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5;
  optional int64 observedGeneration = 3;
  repeated ReplicationControllerCondition conditions = 6;
}

message ResourceClaim {
  optional string name = 1;
  optional string request = 2;
}

message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity divisor = 3;
}

message ResourceHealth {
  optional string resourceID = 1;
  optional string health = 2;
}

message ResourceRequirements {
  repeated .k8s.io.api.core.v1.QuantityEntry limits = 1;
  repeated .k8s.io.api.core.v1.QuantityEntry requests = 2;
  repeated ResourceClaim claims = 3;
}

message ResourceStatus {
  optional string name = 1;
  repeated ResourceHealth resources = 2;
}

message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}

message ScaleIOPersistentVolumeSource {
  optional string gateway = 1;
  optional string system = 2;
  optional SecretReference secretRef = 3;
  optional bool sslEnabled = 4;
  optional string protectionDomain = 5;
  optional string storagePool = 6;
  optional string storageMode = 7;
  optional string volumeName = 8;
  optional string fsType = 9;
  optional bool readOnly = 10;
}

message ScaleIOVolumeSource {
  optional string gateway = 1;
  optional string system = 2;
  optional LocalObjectReference secretRef = 3;
  optional bool sslEnabled = 4;
  optional string protectionDomain = 5;
  optional string storagePool = 6;
  optional string storageMode = 7;
  optional string volumeName = 8;
  optional string fsType = 9;
  optional bool readOnly = 10;
}

message SeccompProfile {
  optional string type = 1;
  optional string localhostProfile = 2;
}

message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1;
  optional bool optional = 2;
}

message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1;
  optional string key = 2;
  optional bool optional = 3;
}

message SecretProjection {
  optional LocalObjectReference localObjectReference = 1;
  repeated KeyToPath items = 2;
  optional bool optional = 4;
}

message SecretReference {
  optional string name = 1;
  optional string namespace = 2;
}

message SecretVolumeSource {
  optional string secretName = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3;
  optional bool optional = 4;
}

message SecurityContext {
  optional Capabilities capabilities = 1;
  optional bool privileged = 2;
  optional SELinuxOptions seLinuxOptions = 3;
  optional WindowsSecurityContextOptions windowsOptions = 10;
  optional int64 runAsUser = 4;
  optional int64 runAsGroup = 8;
  optional bool runAsNonRoot = 5;
  optional bool readOnlyRootFilesystem = 6;
  optional bool allowPrivilegeEscalation = 7;
  optional string procMount = 9;
  optional SeccompProfile seccompProfile = 11;
  optional AppArmorProfile appArmorProfile = 12;
}

message Service {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}

message ServiceAccountTokenProjection {
  optional string audience = 1;
  optional int64 expirationSeconds = 2;
  optional string path = 3;
}

message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional string appProtocol = 6;
  optional int32 port = 3;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry selector = 2;
  optional string clusterIP = 3;
  repeated string clusterIPs = 18;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14;
  repeated string ipFamilies = 19;
  optional string ipFamilyPolicy = 17;
  optional bool allocateLoadBalancerNodePorts = 20;
  optional string loadBalancerClass = 21;
  optional string internalTrafficPolicy = 22;
  optional string trafficDistribution = 23;
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 2;
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1;
}

message SleepAction {
  optional int64 seconds = 1;
}

message StorageOSPersistentVolumeSource {
  optional string volumeName = 1;
  optional string volumeNamespace = 2;
  optional string fsType = 3;
  optional bool readOnly = 4;
  optional ObjectReference secretRef = 5;
}

message StorageOSVolumeSource {
  optional string volumeName = 1;
  optional string volumeNamespace = 2;
  optional string fsType = 3;
  optional bool readOnly = 4;
  optional LocalObjectReference secretRef = 5;
}

message Sysctl {
  optional string name = 1;
  optional string value = 2;
}

message TCPSocketAction {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
  optional string host = 2;
}

message Taint {
  optional string key = 1;
  optional string value = 2;
  optional string effect = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time timeAdded = 4;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5;
}

message TopologySelectorLabelRequirement {
  optional string key = 1;
  repeated string values = 2;
}

message TopologySelectorTerm {
  repeated TopologySelectorLabelRequirement matchLabelExpressions = 1;
}

message TopologySpreadConstraint {
  optional int32 maxSkew = 1;
  optional string topologyKey = 2;
  optional string whenUnsatisfiable = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 4;
  optional int32 minDomains = 5;
  optional string nodeAffinityPolicy = 6;
  optional string nodeTaintsPolicy = 7;
  repeated string matchLabelKeys = 8;
}

message TypedLocalObjectReference {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
}

message TypedObjectReference {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
  optional string namespace = 4;
}

message Volume {
  optional string name = 1;
  optional VolumeSource volumeSource = 2;
}

message VolumeDevice {
  optional string name = 1;
  optional string devicePath = 2;
}

message VolumeMount {
  optional string name = 1;
  optional bool readOnly = 2;
  optional string recursiveReadOnly = 7;
  optional string mountPath = 3;
  optional string subPath = 4;
  optional string mountPropagation = 5;
  optional string subPathExpr = 6;
}

message VolumeMountStatus {
  optional string name = 1;
  optional string mountPath = 2;
  optional bool readOnly = 3;
  optional string recursiveReadOnly = 4;
}

message VolumeNodeAffinity {
  optional NodeSelector required = 1;
}

message VolumeProjection {
  optional SecretProjection secret = 1;
  optional DownwardAPIProjection downwardAPI = 2;
  optional ConfigMapProjection configMap = 3;
  optional ServiceAccountTokenProjection serviceAccountToken = 4;
  optional ClusterTrustBundleProjection clusterTrustBundle = 5;
}

message VolumeResourceRequirements {
  repeated .k8s.io.api.core.v1.QuantityEntry limits = 1;
  repeated .k8s.io.api.core.v1.QuantityEntry requests = 2;
}

message VolumeSource {
  optional HostPathVolumeSource hostPath = 1;
  optional EmptyDirVolumeSource emptyDir = 2;
  optional GCEPersistentDiskVolumeSource gcePersistentDisk = 3;
  optional AWSElasticBlockStoreVolumeSource awsElasticBlockStore = 4;
  optional GitRepoVolumeSource gitRepo = 5;
  optional SecretVolumeSource secret = 6;
  optional NFSVolumeSource nfs = 7;
  optional ISCSIVolumeSource iscsi = 8;
  optional GlusterfsVolumeSource glusterfs = 9;
  optional PersistentVolumeClaimVolumeSource persistentVolumeClaim = 10;
  optional RBDVolumeSource rbd = 11;
  optional FlexVolumeSource flexVolume = 12;
  optional CinderVolumeSource cinder = 13;
  optional CephFSVolumeSource cephfs = 14;
  optional FlockerVolumeSource flocker = 15;
  optional DownwardAPIVolumeSource downwardAPI = 16;
  optional FCVolumeSource fc = 17;
  optional AzureFileVolumeSource azureFile = 18;
  optional ConfigMapVolumeSource configMap = 19;
  optional VsphereVirtualDiskVolumeSource vsphereVolume = 20;
  optional QuobyteVolumeSource quobyte = 21;
  optional AzureDiskVolumeSource azureDisk = 22;
  optional PhotonPersistentDiskVolumeSource photonPersistentDisk = 23;
  optional ProjectedVolumeSource projected = 26;
  optional PortworxVolumeSource portworxVolume = 24;
  optional ScaleIOVolumeSource scaleIO = 25;
  optional StorageOSVolumeSource storageos = 27;
  optional CSIVolumeSource csi = 28;
  optional EphemeralVolumeSource ephemeral = 29;
  optional ImageVolumeSource image = 30;
}

message VsphereVirtualDiskVolumeSource {
  optional string volumePath = 1;
  optional string fsType = 2;
  optional string storagePolicyName = 3;
  optional string storagePolicyID = 4;
}

message WeightedPodAffinityTerm {
  optional int32 weight = 1;
  optional PodAffinityTerm podAffinityTerm = 2;
}

message WindowsSecurityContextOptions {
  optional string gmsaCredentialSpecName = 1;
  optional string gmsaCredentialSpec = 2;
  optional string runAsUserName = 3;
  optional bool hostProcess = 4;
}
`;

export const CORE_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "v1/Pod": "k8s.io.api.core.v1.Pod",
    "v1/Node": "k8s.io.api.core.v1.Node",
    "v1/Service": "k8s.io.api.core.v1.Service",
    "v1/Endpoints": "k8s.io.api.core.v1.Endpoints",
    "v1/ReplicationController": "k8s.io.api.core.v1.ReplicationController",
    "v1/PodTemplate": "k8s.io.api.core.v1.PodTemplate",
    "v1/PersistentVolume": "k8s.io.api.core.v1.PersistentVolume",
    "v1/PersistentVolumeClaim": "k8s.io.api.core.v1.PersistentVolumeClaim",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    Affinity: ["nodeAffinity", "podAffinity", "podAntiAffinity"],
    AppArmorProfile: ["localhostProfile"],
    AzureDiskVolumeSource: ["cachingMode", "fsType", "readOnly", "kind"],
    AzureFilePersistentVolumeSource: ["secretNamespace"],
    CSIPersistentVolumeSource: [
      "controllerPublishSecretRef",
      "nodeStageSecretRef",
      "nodePublishSecretRef",
      "controllerExpandSecretRef",
      "nodeExpandSecretRef",
    ],
    CSIVolumeSource: ["readOnly", "fsType", "nodePublishSecretRef"],
    CephFSPersistentVolumeSource: ["secretRef"],
    CephFSVolumeSource: ["secretRef"],
    CinderPersistentVolumeSource: ["secretRef"],
    CinderVolumeSource: ["secretRef"],
    ClientIPConfig: ["timeoutSeconds"],
    ClusterTrustBundleProjection: ["name", "signerName", "labelSelector", "optional"],
    ConfigMapEnvSource: ["optional"],
    ConfigMapKeySelector: ["optional"],
    ConfigMapProjection: ["optional"],
    ConfigMapVolumeSource: ["defaultMode", "optional"],
    Container: ["restartPolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "securityContext"],
    ContainerState: ["waiting", "running", "terminated"],
    ContainerStatus: ["started", "resources", "user"],
    ContainerUser: ["linux"],
    DownwardAPIVolumeFile: ["fieldRef", "resourceFieldRef", "mode"],
    DownwardAPIVolumeSource: ["defaultMode"],
    EmptyDirVolumeSource: ["sizeLimit"],
    EndpointAddress: ["nodeName", "targetRef"],
    EndpointPort: ["appProtocol"],
    EnvFromSource: ["configMapRef", "secretRef"],
    EnvVar: ["valueFrom"],
    EnvVarSource: ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"],
    EphemeralContainerCommon: ["restartPolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "securityContext"],
    EphemeralVolumeSource: ["volumeClaimTemplate"],
    FCVolumeSource: ["lun"],
    FlexPersistentVolumeSource: ["secretRef"],
    FlexVolumeSource: ["secretRef"],
    GRPCAction: ["service"],
    GlusterfsPersistentVolumeSource: ["endpointsNamespace"],
    HostPathVolumeSource: ["type"],
    ISCSIPersistentVolumeSource: ["secretRef", "initiatorName"],
    ISCSIVolumeSource: ["secretRef", "initiatorName"],
    KeyToPath: ["mode"],
    Lifecycle: ["postStart", "preStop"],
    LifecycleHandler: ["exec", "httpGet", "tcpSocket", "sleep"],
    LoadBalancerIngress: ["ipMode"],
    LocalVolumeSource: ["fsType"],
    NodeAffinity: ["requiredDuringSchedulingIgnoredDuringExecution"],
    NodeConfigSource: ["configMap"],
    NodeConfigStatus: ["assigned", "active", "lastKnownGood"],
    NodeFeatures: ["supplementalGroupsPolicy"],
    NodeRuntimeHandler: ["features"],
    NodeRuntimeHandlerFeatures: ["recursiveReadOnlyMounts", "userNamespaces"],
    NodeSpec: ["configSource"],
    NodeStatus: ["config", "features"],
    PersistentVolumeClaimSpec: ["selector", "storageClassName", "volumeMode", "dataSource", "dataSourceRef", "volumeAttributesClassName"],
    PersistentVolumeClaimStatus: ["currentVolumeAttributesClassName", "modifyVolumeStatus"],
    PersistentVolumeSource: [
      "gcePersistentDisk",
      "awsElasticBlockStore",
      "hostPath",
      "glusterfs",
      "nfs",
      "rbd",
      "iscsi",
      "cinder",
      "cephfs",
      "fc",
      "flocker",
      "flexVolume",
      "azureFile",
      "vsphereVolume",
      "quobyte",
      "azureDisk",
      "photonPersistentDisk",
      "portworxVolume",
      "scaleIO",
      "local",
      "storageos",
      "csi",
    ],
    PersistentVolumeSpec: ["claimRef", "volumeMode", "nodeAffinity", "volumeAttributesClassName"],
    PersistentVolumeStatus: ["lastPhaseTransitionTime"],
    PodAffinityTerm: ["labelSelector", "namespaceSelector"],
    PodDNSConfigOption: ["value"],
    PodResourceClaim: ["resourceClaimName", "resourceClaimTemplateName"],
    PodResourceClaimStatus: ["resourceClaimName"],
    PodSecurityContext: [
      "seLinuxOptions",
      "windowsOptions",
      "runAsUser",
      "runAsGroup",
      "runAsNonRoot",
      "supplementalGroupsPolicy",
      "fsGroup",
      "fsGroupChangePolicy",
      "seccompProfile",
      "appArmorProfile",
      "seLinuxChangePolicy",
    ],
    PodSpec: [
      "terminationGracePeriodSeconds",
      "activeDeadlineSeconds",
      "automountServiceAccountToken",
      "shareProcessNamespace",
      "securityContext",
      "affinity",
      "priority",
      "dnsConfig",
      "runtimeClassName",
      "enableServiceLinks",
      "preemptionPolicy",
      "setHostnameAsFQDN",
      "os",
      "hostUsers",
      "resources",
    ],
    PodStatus: ["startTime"],
    PortStatus: ["error"],
    Probe: ["terminationGracePeriodSeconds"],
    ProbeHandler: ["exec", "httpGet", "tcpSocket", "grpc"],
    ProjectedVolumeSource: ["defaultMode"],
    RBDPersistentVolumeSource: ["secretRef"],
    RBDVolumeSource: ["secretRef"],
    ReplicationControllerSpec: ["replicas", "template"],
    ScaleIOPersistentVolumeSource: ["secretRef"],
    ScaleIOVolumeSource: ["secretRef"],
    SeccompProfile: ["localhostProfile"],
    SecretEnvSource: ["optional"],
    SecretKeySelector: ["optional"],
    SecretProjection: ["optional"],
    SecretVolumeSource: ["defaultMode", "optional"],
    SecurityContext: [
      "capabilities",
      "privileged",
      "seLinuxOptions",
      "windowsOptions",
      "runAsUser",
      "runAsGroup",
      "runAsNonRoot",
      "readOnlyRootFilesystem",
      "allowPrivilegeEscalation",
      "procMount",
      "seccompProfile",
      "appArmorProfile",
    ],
    ServiceAccountTokenProjection: ["expirationSeconds"],
    ServicePort: ["appProtocol"],
    ServiceSpec: [
      "sessionAffinityConfig",
      "ipFamilyPolicy",
      "allocateLoadBalancerNodePorts",
      "loadBalancerClass",
      "internalTrafficPolicy",
      "trafficDistribution",
    ],
    SessionAffinityConfig: ["clientIP"],
    StorageOSPersistentVolumeSource: ["secretRef"],
    StorageOSVolumeSource: ["secretRef"],
    Taint: ["timeAdded"],
    Toleration: ["tolerationSeconds"],
    TopologySpreadConstraint: ["labelSelector", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy"],
    TypedLocalObjectReference: ["apiGroup"],
    TypedObjectReference: ["apiGroup", "namespace"],
    VolumeMount: ["recursiveReadOnly", "mountPropagation"],
    VolumeMountStatus: ["recursiveReadOnly"],
    VolumeNodeAffinity: ["required"],
    VolumeProjection: ["secret", "downwardAPI", "configMap", "serviceAccountToken", "clusterTrustBundle"],
    VolumeSource: [
      "hostPath",
      "emptyDir",
      "gcePersistentDisk",
      "awsElasticBlockStore",
      "gitRepo",
      "secret",
      "nfs",
      "iscsi",
      "glusterfs",
      "persistentVolumeClaim",
      "rbd",
      "flexVolume",
      "cinder",
      "cephfs",
      "flocker",
      "downwardAPI",
      "fc",
      "azureFile",
      "configMap",
      "vsphereVolume",
      "quobyte",
      "azureDisk",
      "photonPersistentDisk",
      "projected",
      "portworxVolume",
      "scaleIO",
      "storageos",
      "csi",
      "ephemeral",
      "image",
    ],
    WindowsSecurityContextOptions: ["gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName", "hostProcess"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    AWSElasticBlockStoreVolumeSource: ["volumeID"],
    AppArmorProfile: ["type"],
    AttachedVolume: ["name", "devicePath"],
    AzureDiskVolumeSource: ["diskName", "diskURI"],
    AzureFilePersistentVolumeSource: ["secretName", "shareName"],
    AzureFileVolumeSource: ["secretName", "shareName"],
    CSIPersistentVolumeSource: ["driver", "volumeHandle"],
    CSIVolumeSource: ["driver"],
    CinderPersistentVolumeSource: ["volumeID"],
    CinderVolumeSource: ["volumeID"],
    ClusterTrustBundleProjection: ["path"],
    ConfigMapKeySelector: ["key"],
    ConfigMapNodeConfigSource: ["namespace", "name", "kubeletConfigKey"],
    Container: ["name"],
    ContainerPort: ["containerPort"],
    ContainerResizePolicy: ["resourceName", "restartPolicy"],
    ContainerStateTerminated: ["exitCode"],
    ContainerStatus: ["name", "ready", "restartCount", "image", "imageID"],
    DaemonEndpoint: ["Port"],
    DownwardAPIVolumeFile: ["path"],
    EndpointAddress: ["ip"],
    EndpointPort: ["port"],
    EnvVar: ["name"],
    EphemeralContainerCommon: ["name"],
    FlexPersistentVolumeSource: ["driver"],
    FlexVolumeSource: ["driver"],
    GCEPersistentDiskVolumeSource: ["pdName"],
    GRPCAction: ["port"],
    GitRepoVolumeSource: ["repository"],
    GlusterfsPersistentVolumeSource: ["endpoints", "path"],
    GlusterfsVolumeSource: ["endpoints", "path"],
    HTTPHeader: ["name", "value"],
    HostAlias: ["ip"],
    HostIP: ["ip"],
    HostPathVolumeSource: ["path"],
    ISCSIPersistentVolumeSource: ["targetPortal", "iqn", "lun"],
    ISCSIVolumeSource: ["targetPortal", "iqn", "lun"],
    KeyToPath: ["key", "path"],
    LinuxContainerUser: ["uid", "gid"],
    LocalVolumeSource: ["path"],
    ModifyVolumeStatus: ["status"],
    NFSVolumeSource: ["server", "path"],
    NodeAddress: ["type", "address"],
    NodeCondition: ["type", "status"],
    NodeRuntimeHandler: ["name"],
    NodeSelectorRequirement: ["key", "operator"],
    NodeSystemInfo: [
      "machineID",
      "systemUUID",
      "bootID",
      "kernelVersion",
      "osImage",
      "containerRuntimeVersion",
      "kubeletVersion",
      "kubeProxyVersion",
      "operatingSystem",
      "architecture",
    ],
    ObjectFieldSelector: ["fieldPath"],
    PersistentVolumeClaimCondition: ["type", "status"],
    PersistentVolumeClaimVolumeSource: ["claimName"],
    PhotonPersistentDiskVolumeSource: ["pdID"],
    PodAffinityTerm: ["topologyKey"],
    PodCondition: ["type", "status"],
    PodIP: ["ip"],
    PodOS: ["name"],
    PodReadinessGate: ["conditionType"],
    PodResourceClaim: ["name"],
    PodResourceClaimStatus: ["name"],
    PodSchedulingGate: ["name"],
    PortStatus: ["port", "protocol"],
    PortworxVolumeSource: ["volumeID"],
    PreferredSchedulingTerm: ["weight"],
    QuobyteVolumeSource: ["registry", "volume"],
    RBDPersistentVolumeSource: ["image"],
    RBDVolumeSource: ["image"],
    ReplicationControllerCondition: ["type", "status"],
    ReplicationControllerStatus: ["replicas"],
    ResourceClaim: ["name"],
    ResourceFieldSelector: ["resource"],
    ResourceHealth: ["resourceID"],
    ResourceStatus: ["name"],
    ScaleIOPersistentVolumeSource: ["gateway", "system"],
    ScaleIOVolumeSource: ["gateway", "system"],
    SeccompProfile: ["type"],
    SecretKeySelector: ["key"],
    ServiceAccountTokenProjection: ["path"],
    ServicePort: ["port"],
    SleepAction: ["seconds"],
    Sysctl: ["name", "value"],
    Taint: ["key", "effect"],
    TopologySelectorLabelRequirement: ["key"],
    TopologySpreadConstraint: ["maxSkew", "topologyKey", "whenUnsatisfiable"],
    TypedLocalObjectReference: ["kind", "name"],
    TypedObjectReference: ["kind", "name"],
    Volume: ["name"],
    VolumeDevice: ["name", "devicePath"],
    VolumeMount: ["name", "mountPath"],
    VolumeMountStatus: ["name", "mountPath"],
    VsphereVirtualDiskVolumeSource: ["volumePath"],
    WeightedPodAffinityTerm: ["weight"],
  }),
  // Go structs embedded with `json:",inline"`.
  inlineFields: qualified(PACKAGE, {
    ConfigMapEnvSource: ["localObjectReference"],
    ConfigMapKeySelector: ["localObjectReference"],
    ConfigMapProjection: ["localObjectReference"],
    ConfigMapVolumeSource: ["localObjectReference"],
    PersistentVolumeSpec: ["persistentVolumeSource"],
    Probe: ["handler"],
    SecretEnvSource: ["localObjectReference"],
    SecretKeySelector: ["localObjectReference"],
    SecretProjection: ["localObjectReference"],
    Volume: ["volumeSource"],
    EphemeralContainer: ["ephemeralContainerCommon"],
  }),
};
