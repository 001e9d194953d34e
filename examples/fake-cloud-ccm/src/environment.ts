import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CcmDriver } from "@kubekit/ccm-e2e";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { startMiniCcm, type MiniCcm } from "./ccm/mini-ccm.js";
import { NODES, PODS, type NodeObject, type PodObject } from "./ccm/objects.js";
import { FakeCloud } from "./cloud/fake-cloud.js";
import { upgradeNodes } from "./cloud/node-upgrade.js";
import { startAdminServer, type AdminServer } from "./admin-server.js";
import { fakeCloudDriver } from "./driver.js";
import { parseFault, type Fault } from "./faults.js";

export interface FakeCloudEnvironmentOptions {
  nodes?: number;
  /** Build the mini CCM with this defect (default: the one `FAKE_CLOUD_FAULT` names, if any). */
  fault?: Fault;
  /** The mini CCM's node lifecycle controller's monitor period (default 500 ms here). */
  nodeMonitorPeriodMs?: number;
}

/** A sim-cluster, the fake cloud over its nodes, the mini CCM, and the driver for the suite. */
export interface FakeCloudEnvironment {
  cluster: SimCluster;
  cloud: FakeCloud;
  /** The module driver. */
  driver: CcmDriver;
  /** A kubeconfig file for the cluster (in a temp dir removed by `close`). */
  kubeconfig: string;
  /** Where the YAML driver's commands reach the cloud (`fake-cloud-ctl --url`). */
  adminUrl: string;
  close(): Promise<void>;
}

/** A node off the network looks to the control plane like a silent kubelet: stopped, started again after `seconds`. */
async function cutOff(cluster: SimCluster, name: string, seconds: number): Promise<void> {
  await cluster.stopNode(name);
  // A cluster closed meanwhile has no node to start.
  setTimeout(() => void cluster.startNode(name).catch(() => undefined), seconds * 1000).unref();
}

/** The `restart-loses-pods` fault: the node's pods vanish while its machine is down. */
async function forgetPods(client: KubeClient, nodeName: string): Promise<void> {
  const pods = (await client.list<PodObject>(PODS, undefined, { fieldSelector: `spec.nodeName=${nodeName}` })).items;
  await Promise.all(
    pods.map((pod) => client.delete(PODS, pod.metadata.namespace, pod.metadata.name, { gracePeriodSeconds: 0 }).catch(() => undefined)),
  );
}

export async function startFakeCloudEnvironment(options: FakeCloudEnvironmentOptions = {}): Promise<FakeCloudEnvironment> {
  const fault = options.fault ?? parseFault(process.env.FAKE_CLOUD_FAULT);
  const dir = await mkdtemp(join(tmpdir(), "fake-cloud-"));
  // Traffic mode: ClusterIPs, NodePorts and pods answer, so the load balancers have something to
  // forward to. A stopped machine's kubelet falls silent; the cluster's node lifecycle controller
  // marks it Unknown after its grace period, here 1.5 s instead of 40 s, as the timeouts are scaled.
  const cluster = await startSimCluster({
    nodes: options.nodes ?? 3,
    name: "fake",
    traffic: true,
    leaseRenewIntervalMs: 250,
    nodeMonitorGracePeriodMs: 1_500,
    nodeMonitorPeriodMs: 250,
  });
  const client = new KubeClient({ server: cluster.url });
  let ccm: MiniCcm | undefined;
  let admin: AdminServer | undefined;
  // The machines behind the instances are the simulated nodes' kubelets.
  const cloud = new FakeCloud(
    {
      stop: (name) => cluster.stopNode(name),
      start: async (name) => {
        if (fault === "restart-loses-pods") await forgetPods(client, name);
        await cluster.startNode(name);
        // A machine that was off boots: a new boot ID, its containers started again (what
        // `common.RestartNodes` waits for); a kubelet merely started again would keep the old one.
        // If its Node was deleted meanwhile the boot cannot be reported: a fresh start registers it again.
        try {
          await cluster.rebootNode(name);
        } catch {
          await cluster.stopNode(name).catch(() => undefined);
          await cluster.startNode(name);
        }
      },
    },
    {
      controlPlane: (version) => Promise.resolve(cluster.setVersion(`v${version}`)),
      nodes: (version) => upgradeNodes(client, cluster, version),
    },
  );
  const close = async () => {
    await ccm?.stop();
    await admin?.close();
    await cloud.close();
    client.close();
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The cloud's instances are the nodes the cluster started with.
    for (const node of (await client.list<NodeObject>(NODES)).items)
      cloud.instances.register(node.spec?.providerID ?? "", node.metadata.name);
    ccm = startMiniCcm({
      client,
      cloud,
      nodeMonitorPeriodMs: options.nodeMonitorPeriodMs ?? 500,
      ...(fault === undefined ? {} : { fault }),
    });
    admin = await startAdminServer(cloud);
    const kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
    // A rebooted machine stays down past the grace period, so its Node is seen NotReady.
    const driver = fakeCloudDriver(cloud, {
      serviceTraffic: true,
      rebootDownMs: 4_000,
      disruptNetwork: (name, seconds) => cutOff(cluster, name, seconds),
    });
    return { cluster, cloud, driver, kubeconfig, adminUrl: admin.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
