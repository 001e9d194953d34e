import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CcmDriver } from "@kubekit/ccm-e2e";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { startMiniCcm, type MiniCcm } from "./ccm/mini-ccm.js";
import { NODES, type NodeObject } from "./ccm/objects.js";
import { FakeCloud } from "./cloud/fake-cloud.js";
import { nodeConditionMachines } from "./cloud/node-condition-machines.js";
import { startAdminServer, type AdminServer } from "./admin-server.js";
import { clusterTraffic } from "./cluster-traffic.js";
import { fakeCloudDriver } from "./driver.js";
import { parseFault, type Fault } from "./faults.js";

export interface FakeCloudEnvironmentOptions {
  nodes?: number;
  /** Build the mini CCM with this defect (default: the one `FAKE_CLOUD_FAULT` names, if any). */
  fault?: Fault;
  /** The lifecycle controller's monitor period (default 500 ms here). */
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

export async function startFakeCloudEnvironment(options: FakeCloudEnvironmentOptions = {}): Promise<FakeCloudEnvironment> {
  const fault = options.fault ?? parseFault(process.env.FAKE_CLOUD_FAULT);
  const dir = await mkdtemp(join(tmpdir(), "fake-cloud-"));
  // The kubelets' own status reports would undo a stopped machine's NotReady: far apart here.
  const cluster = await startSimCluster({ nodes: options.nodes ?? 3, name: "fake", statusReportIntervalMs: 3_600_000 });
  const client = new KubeClient({ server: cluster.url });
  let ccm: MiniCcm | undefined;
  let admin: AdminServer | undefined;
  const cloud = new FakeCloud(nodeConditionMachines(client));
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
    for (const node of (await client.list<NodeObject>(NODES)).items) cloud.instances.register(node.spec?.providerID ?? "", node.metadata.name);
    ccm = startMiniCcm({ client, cloud, nodeMonitorPeriodMs: options.nodeMonitorPeriodMs ?? 500, ...(fault === undefined ? {} : { fault }) });
    admin = await startAdminServer(cloud);
    const kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
    // Traffic mode is what makes ClusterIPs and NodePorts answer; without it the traffic tests skip.
    const serviceTraffic = false;
    const driver = fakeCloudDriver(cloud, { serviceTraffic, ...(serviceTraffic ? { inCluster: clusterTraffic(client) } : {}) });
    return { cluster, cloud, driver, kubeconfig, adminUrl: admin.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
