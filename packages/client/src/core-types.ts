/**
 * The wire shapes of the core/v1 objects programs most often read and write: Pod (with the
 * in-place resize fields of KEP-1287), Node, Event and ServiceAccount. Fields are typed as the API
 * server serves them in JSON (times and quantities as strings, enumerations as plain strings since
 * upstream adds values); fields not described here pass through untouched, as every object stays plain JSON.
 */
import type { KubeObject, ObjectMeta } from "./types.js";

/**
 * A `resource.Quantity` as written in JSON: the server always answers with its canonical string,
 * and accepts a number where a manifest gives one (`cpu: 2`).
 */
export type QuantityValue = string | number;

/** Amounts by resource name (`cpu`, `memory`, `example.com/gpu`, …): core/v1 `ResourceList`. */
export type ResourceList = Record<string, QuantityValue>;

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
  claims?: Array<{ name: string; request?: string }>;
}

/** How a container takes an in-place resize of one resource (KEP-1287). */
export interface ContainerResizePolicy {
  resourceName: string;
  restartPolicy: string;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: Record<string, unknown> }>;
  ports?: Array<{ containerPort: number; name?: string; protocol?: string; hostPort?: number; hostIP?: string }>;
  resources?: ResourceRequirements;
  resizePolicy?: ContainerResizePolicy[];
  /** `Always` on an init container makes it a sidecar. */
  restartPolicy?: string;
  imagePullPolicy?: string;
  securityContext?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  priorityClassName?: string;
  priority?: number;
  restartPolicy?: string;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  runtimeClassName?: string;
  /** Set from the RuntimeClass by admission; counted on top of the containers' requests. */
  overhead?: ResourceList;
  /** Pod-level resources (KEP-2837). */
  resources?: ResourceRequirements;
  securityContext?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  observedGeneration?: number;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  state?: Record<string, unknown>;
  lastState?: Record<string, unknown>;
  /** The requests the kubelet admitted and counts against the node. */
  allocatedResources?: ResourceList;
  /** What the runtime runs the container with now. */
  resources?: ResourceRequirements;
  [field: string]: unknown;
}

export interface PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  conditions?: PodCondition[];
  hostIP?: string;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  qosClass?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  /** The pod generation the kubelet last acted on. */
  observedGeneration?: number;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** A pod's template, as workload controllers hold it. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface NodeSystemInfo {
  kubeletVersion?: string;
  operatingSystem?: string;
  architecture?: string;
  containerRuntimeVersion?: string;
  /** Swap the node has, in bytes (reported by kubelets with swap support). */
  swap?: { capacity?: number };
  [field: string]: unknown;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  [field: string]: unknown;
}

export interface NodeStatus {
  capacity?: ResourceList;
  allocatable?: ResourceList;
  conditions?: NodeCondition[];
  addresses?: Array<{ type: string; address: string }>;
  nodeInfo?: NodeSystemInfo;
  [field: string]: unknown;
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

/** A reference to another object, as core/v1 Events point at what they are about. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A core/v1 Event (the type `kubectl get events` and client-go's recorder write). */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string | null;
  count?: number;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
  related?: ObjectReference;
}

export interface ServiceAccount extends KubeObject {
  automountServiceAccountToken?: boolean;
  secrets?: ObjectReference[];
  imagePullSecrets?: Array<{ name?: string }>;
}
