/**
 * The driver: everything infrastructure-specific a test needs, declared up front (capabilities,
 * timeouts) or injected as hooks. Every hook is optional; a test that needs a missing one is
 * skipped with the reason in the report, never passed silently.
 */

/** What the cloud and its CCM support. A test needing an undeclared capability is skipped. */
export interface Capabilities {
  /** `type: LoadBalancer` Services get a cloud load balancer and `status.loadBalancer.ingress`. */
  loadBalancer?: boolean;
  /** UDP load balancers (and UDP reachability checks through them). */
  udp?: boolean;
  /** `sessionAffinity: ClientIP` is honoured by the load balancer. */
  sessionAffinityClientIP?: boolean;
  /** `externalTrafficPolicy: Local`: only nodes with endpoints receive traffic. */
  externalTrafficPolicyLocal?: boolean;
  /** The health-check NodePort of ETP Local services answers `/healthz` on nodes with endpoints only. */
  healthCheckNodePort?: boolean;
  /** `allocateLoadBalancerNodePorts: false` load balancers (traffic goes to pods, not NodePorts). */
  allocateLoadBalancerNodePortsFalse?: boolean;
  /** `spec.loadBalancerSourceRanges` is honoured: the load balancer accepts only clients from those CIDRs. */
  loadBalancerSourceRanges?: boolean;
  /** Internal (private) load balancers. */
  internalLoadBalancer?: boolean;
  /** The CCM deletes Nodes whose instance is gone. */
  nodeDeletion?: boolean;
  /** The CCM taints shut-down instances' Nodes with `node.cloudprovider.kubernetes.io/shutdown`. */
  nodeShutdown?: boolean;
  /** Instances can be rebooted and come back Ready. */
  reboot?: boolean;
  /** `spec.externalIPs` not assigned to any node are routed to the service. */
  externalIPs?: boolean;
  /** ClusterIPs and NodePorts carry traffic (kube-proxy or an equivalent runs): every real cluster; tests that send traffic need it. */
  serviceTraffic?: boolean;
  /** The control plane can be upgraded to the run's `--upgrade-target` (`upgradeControlPlane`). */
  controlPlaneUpgrade?: boolean;
  /** The nodes can be upgraded to the run's `--upgrade-target` (`upgradeNodes`). */
  nodeUpgrade?: boolean;
  /** The cluster can be downgraded to the run's `--upgrade-target`, nodes first (`downgrade`). */
  downgrade?: boolean;
  /** Load balancer ingress mode: `VIP` (the IP is on the nodes) or `Proxy` (a proxy in front). */
  ipMode?: "VIP" | "Proxy";
}

/** The boolean capabilities, the names tests require and `ccm-e2e list` prints. */
export type CapabilityName = { [K in keyof Capabilities]-?: Capabilities[K] extends boolean | undefined ? K : never }[keyof Capabilities];

export const CAPABILITY_NAMES: readonly CapabilityName[] = [
  "loadBalancer",
  "udp",
  "sessionAffinityClientIP",
  "externalTrafficPolicyLocal",
  "healthCheckNodePort",
  "allocateLoadBalancerNodePortsFalse",
  "loadBalancerSourceRanges",
  "internalLoadBalancer",
  "nodeDeletion",
  "nodeShutdown",
  "reboot",
  "externalIPs",
  "serviceTraffic",
  "controlPlaneUpgrade",
  "nodeUpgrade",
  "downgrade",
];

/** Per-operation timeouts in milliseconds (upstream's values by default; see `DEFAULT_TIMEOUTS`). */
export interface Timeouts {
  /** A LoadBalancer Service gets its ingress (`GetServiceLoadBalancerCreationTimeout`, 15 min). */
  lbCreate: number;
  /** A new load balancer answers traffic (`LoadBalancerLagTimeoutDefault`, 2 min). */
  lbLag: number;
  /** A change reaches the load balancer (`GetServiceLoadBalancerPropagationTimeout`, 10 min). */
  lbPropagation: number;
  /** A load balancer and its cloud resources are gone (`LoadBalancerCleanupTimeout`, 15 min). */
  lbCleanup: number;
  /** NodePort changes take effect (`KubeProxyLagTimeout`, 5 min). */
  kubeProxyLag: number;
  /** Endpoint changes take effect (`KubeProxyEndpointLagTimeout`, 30 s). */
  kubeProxyEndpointLag: number;
  /** Session affinity is observed (`LoadBalancerPollTimeout`, 22 min). */
  affinity: number;
  /** Pods become Running and Ready (`PodStartTimeout`, 5 min). */
  podStart: number;
  /** A rebooted node goes NotReady (2 min, reboot.go). */
  nodeNotReady: number;
  /** A node is Ready again (5 min, reboot.go). */
  nodeReadyAgain: number;
  /** A Node whose instance is gone is deleted (`CheckReady(n-1)`, 5 min, nodes.go). */
  nodeDeleted: number;
  /** A test's namespace is deleted after the test (`NamespaceCleanupTimeout`... 15 min upstream; 5 min here). */
  namespaceDelete: number;
  /** One whole test, the Ginkgo spec timeout analogue (60 min). */
  test: number;
  /** One driver hook call (a command of a YAML driver), 5 min. */
  hook: number;
  /** One upgrade or downgrade hook call (`upgradeControlPlane`, `upgradeNodes`, `downgrade`), 30 min. */
  upgrade: number;
}

/** A node as the driver's instance actions see it. */
export interface NodeRef {
  name: string;
  /** `spec.providerID`, e.g. `aws:///us-east-1a/i-0abc`; empty when the Node has none. */
  providerID: string;
  addresses: { type: string; address: string }[];
}

/** A Service as the driver's load balancer queries see it. */
export interface ServiceRef {
  namespace: string;
  name: string;
  uid: string;
  /** `cloudprovider.DefaultLoadBalancerName`: "a" + the UID without dashes, 32 characters at most. */
  loadBalancerName: string;
}

export type Protocol = "TCP" | "UDP" | "SCTP";

/** The cloud's own view of a load balancer, for cross-checking what the Service status says. */
export interface CloudLoadBalancer {
  ingress: { ip?: string; hostname?: string }[];
  ports: { port: number; protocol: Protocol; nodePort?: number }[];
  /** Names of the nodes the load balancer sends traffic to (for ETP Local: the healthy ones). */
  backendNodes: string[];
  sessionAffinity: "None" | "ClientIP";
}

export type RebootMode = "clean" | "hard" | "kernel-panic";

export type NetworkDirection = "all" | "inbound" | "outbound";

/** What one call of `downgrade` moves to the older version: upstream downgrades the nodes first, then the control plane. */
export type DowngradePart = "nodes" | "controlPlane";

/** Identifies the running test to the per-test hooks. */
export interface TestInfo {
  name: string;
  namespace: string;
}

export type TestOutcome = "passed" | "failed" | "skipped" | "interrupted";

/** An HTTP answer seen from a vantage point. */
export interface ProbeResponse {
  status: number;
  body: string;
}

/**
 * A vantage point for traffic checks: the requests a test would send from "outside" the cluster
 * (the test host upstream). Rejections (connection refused, timeout, no UDP answer) are thrown.
 */
export interface TrafficClient {
  httpGet(host: string, port: number, path: string, options: ProbeOptions): Promise<ProbeResponse>;
  /** Sends one datagram and resolves with the first answer; `srcPort` fixes the client port. */
  udpExchange(host: string, port: number, payload: string, options: ProbeOptions & { srcPort?: number }): Promise<string>;
}

export interface ProbeOptions {
  timeoutMs: number;
  /**
   * For an in-cluster vantage point: send from a pod on this node (what `internalTrafficPolicy:
   * Local` depends on). An outside vantage point ignores it.
   */
  fromNode?: string;
}

/** How the cloud is asked for an internal (private) load balancer, for the internal load balancer test. */
export interface InternalLoadBalancerRequest {
  /** The annotations that make a LoadBalancer Service internal; without them it is external. */
  annotations: Record<string, string>;
  /** Where internal ingress addresses lie; default the private ranges (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7). */
  ingressCIDRs?: string[];
}

/** What the runner gives `setup` and `teardown`. */
export interface DriverRunContext {
  kubeconfig: string;
  log(message: string): void;
}

export interface CcmDriver {
  /** Shown in the report (JUnit property `Driver`) and the summary. */
  name: string;
  capabilities: Capabilities;
  /** Overrides for single operations, in milliseconds. */
  timeouts?: Partial<Timeouts>;
  /** Multiplies every default timeout not overridden (upstream's values are sized for real clouds). */
  timeoutScale?: number;

  setup?(context: DriverRunContext): Promise<void>;
  /** Runs once after every test, also after a failure or Ctrl-C: sweep leaked load balancers here. */
  teardown?(context: DriverRunContext): Promise<void>;
  beforeEach?(test: TestInfo): Promise<void>;
  /** Dump CCM logs and load balancer state on failure here. */
  afterEach?(test: TestInfo, outcome: TestOutcome): Promise<void>;

  /** Deletes the node's instance for good (the node deletion test). */
  deleteInstance?(node: NodeRef): Promise<void>;
  /** Shuts the instance down without deleting it. */
  stopInstance?(node: NodeRef): Promise<void>;
  startInstance?(node: NodeRef): Promise<void>;
  rebootInstance?(node: NodeRef, mode: RebootMode): Promise<void>;
  /** Cuts the node's network (`all`: the interface down; `inbound`/`outbound`: packets dropped) for `seconds`, then restores it. Resolves once the disruption has started. */
  disruptNetwork?(node: NodeRef, direction: NetworkDirection, seconds: number): Promise<void>;

  /**
   * Node access (upstream's hostexec pod, or SSH): runs a `/bin/sh` command line on the node and
   * resolves with its standard output; a non-zero exit rejects. Tests that look at the node
   * itself (a NodePort no longer LISTENing) use it, and fall back to probing without it.
   */
  execOnNode?(node: NodeRef, command: string): Promise<string>;

  /**
   * Upgrades the control plane to `version` (the run's `--upgrade-target`, e.g. `1.33.1`, upstream's
   * `controlPlaneUpgrade`); resolves once it is done. The test then expects `/version` to report it.
   */
  upgradeControlPlane?(version: string): Promise<void>;
  /**
   * Upgrades every node to `version` the way the cloud does it (drain, then replace or reimage
   * each node; upstream's `nodeUpgrade`); resolves once done. The test then waits for every node
   * Ready and expects each kubelet to report the version.
   */
  upgradeNodes?(version: string): Promise<void>;
  /**
   * Downgrades one part of the cluster to `version`: called with `nodes`, then with `controlPlane`
   * (upstream's order: "nodes must downgrade first"), each checked before the next.
   */
  downgrade?(version: string, part: DowngradePart): Promise<void>;

  /** Cloud truth: does the instance exist (stopped instances exist)? */
  instanceExists?(node: NodeRef): Promise<boolean>;
  /** Cloud truth: the load balancer the CCM made for a Service, or undefined when there is none. */
  getLoadBalancer?(service: ServiceRef): Promise<CloudLoadBalancer | undefined>;
  /** Deletes whatever cloud resources remain for the Service (called after each test that made one). */
  cleanupServiceResources?(service: ServiceRef): Promise<void>;

  /** How to ask for an internal load balancer (with the `internalLoadBalancer` capability). */
  internalLoadBalancer?: InternalLoadBalancerRequest;

  /** The vantage point "outside" the cluster; the test host's own sockets when absent. */
  external?: TrafficClient;
  /**
   * A vantage point inside the cluster network (pod to service traffic), for a driver with a
   * better way; without it the run sends through agnhost dialer pods (`/dial` over `pods/proxy`).
   */
  inCluster?: TrafficClient;
}

/** The optional hooks, the names tests require. */
export type DriverHookName =
  | "setup"
  | "teardown"
  | "beforeEach"
  | "afterEach"
  | "deleteInstance"
  | "stopInstance"
  | "startInstance"
  | "rebootInstance"
  | "disruptNetwork"
  | "execOnNode"
  | "upgradeControlPlane"
  | "upgradeNodes"
  | "downgrade"
  | "instanceExists"
  | "getLoadBalancer"
  | "cleanupServiceResources"
  | "internalLoadBalancer";
