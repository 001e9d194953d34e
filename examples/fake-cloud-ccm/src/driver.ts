import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { hostTraffic, type CcmDriver } from "@kubekit/ccm-e2e";
import { INTERNAL_LB_ANNOTATION, INTERNAL_LB_VALUE } from "./ccm/service-controller.js";
import type { FakeCloud } from "./cloud/fake-cloud.js";

const run = promisify(execFile);

export interface FakeCloudDriverOptions {
  /** The cluster carries service traffic (sim-cluster's traffic mode): the traffic tests can run. */
  serviceTraffic: boolean;
  /** How long a rebooted machine stays down. */
  rebootDownMs?: number;
  /**
   * Cuts a node off the network for `seconds` (resolving once it is cut): its kubelet can no
   * longer reach the API server, whichever direction the packets are dropped in.
   */
  disruptNetwork?: (nodeName: string, seconds: number) => Promise<void>;
}

/**
 * The driver of the fake cloud (module form): capabilities as the fake cloud and mini CCM
 * implement them, instance actions and cloud truth straight from the cloud's state, timeouts at
 * 1/20 of upstream's (the fake cloud answers in milliseconds, not minutes).
 */
export function fakeCloudDriver(cloud: FakeCloud, options: FakeCloudDriverOptions): CcmDriver {
  const machines = cloud.instances.controllable;
  const driver: CcmDriver = {
    name: "fake-cloud",
    capabilities: {
      loadBalancer: true,
      udp: true,
      sessionAffinityClientIP: true,
      externalTrafficPolicyLocal: true,
      // The cluster's kube-proxy stand-in answers it; the mini CCM programs the same nodes.
      healthCheckNodePort: options.serviceTraffic,
      allocateLoadBalancerNodePortsFalse: true,
      loadBalancerSourceRanges: true,
      internalLoadBalancer: true,
      serviceTraffic: options.serviceTraffic,
      nodeDeletion: machines,
      nodeShutdown: machines,
      reboot: machines,
      controlPlaneUpgrade: cloud.upgrades !== undefined,
      nodeUpgrade: cloud.upgrades !== undefined,
      downgrade: cloud.upgrades !== undefined,
      ipMode: "VIP",
    },
    timeoutScale: 0.05,
    internalLoadBalancer: {
      annotations: { [INTERNAL_LB_ANNOTATION]: INTERNAL_LB_VALUE },
      ingressCIDRs: [cloud.loadBalancers.internalCIDR],
    },
    external: hostTraffic,
    deleteInstance: (node) => cloud.instances.delete(node.providerID),
    // The simulated nodes' network is this host's loopback: a shell here sees their sockets.
    execOnNode: async (_node, command) => (await run("/bin/sh", ["-c", command])).stdout,
    instanceExists: (node) => Promise.resolve(cloud.instances.exists(node.providerID)),
    getLoadBalancer: (service) => Promise.resolve(cloud.loadBalancers.get(service.loadBalancerName)),
    cleanupServiceResources: (service) => cloud.loadBalancers.delete(service.loadBalancerName),
    // Whatever a test left behind (a leak included) goes at the end of the run.
    teardown: () => cloud.loadBalancers.close(),
  };
  if (machines) {
    driver.stopInstance = (node) => cloud.instances.stop(node.providerID);
    driver.startInstance = (node) => cloud.instances.start(node.providerID);
    driver.rebootInstance = (node) => cloud.instances.reboot(node.providerID, options.rebootDownMs ?? 2000);
  }
  const upgrades = cloud.upgrades;
  if (upgrades !== undefined) {
    driver.upgradeControlPlane = (version) => upgrades.controlPlane(version);
    driver.upgradeNodes = (version) => upgrades.nodes(version);
    driver.downgrade = (version, part) => (part === "nodes" ? upgrades.nodes(version) : upgrades.controlPlane(version));
  }
  const disrupt = options.disruptNetwork;
  if (disrupt !== undefined) driver.disruptNetwork = (node, _direction, seconds) => disrupt(node.name, seconds);
  return driver;
}
