import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeConfig } from "@kubernetes/client-node";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startSimCluster, type SimCluster, type SimClusterOptions } from "../src/index.js";

const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };

export interface SimClusterFixtureOptions extends SimClusterOptions {
  /** The start of the names `newNamespace()` makes when it is given none (default "test"). */
  namespacePrefix?: string;
  /** How long starting the cluster may take; a loaded machine needs more than the hook default. */
  startTimeoutMs?: number;
}

/** What a test file reads once its cluster runs; every accessor throws before `beforeAll` has. */
export interface SimClusterFixture {
  readonly cluster: SimCluster;
  /** A JSON client of the cluster's API server. */
  readonly client: KubeClient;
  /** The path of a kubeconfig file for the cluster (for kubectl). */
  readonly kubeconfig: string;
  /** `@kubernetes/client-node`'s KubeConfig loaded from that file (imported on first use). */
  kubeConfig(): Promise<KubeConfig>;
  /** `<prefix>-<n>`, n counting up within the file (shared with `newNamespace`), as upstream's `f.UniqueName`. */
  uniqueName(prefix?: string): string;
  /** Creates a namespace named `uniqueName(prefix)`. */
  newNamespace(prefix?: string): Promise<string>;
}

interface Running {
  cluster: SimCluster;
  client: KubeClient;
  dir: string;
  kubeconfig: string;
  kubeConfig?: Promise<KubeConfig>;
}

/**
 * One simulated cluster for the test file that calls it: started in `beforeAll` (with a client and
 * a kubeconfig file), closed and its files removed in `afterAll`.
 */
export function useSimCluster(options: SimClusterFixtureOptions = {}): SimClusterFixture {
  const { namespacePrefix = "test", startTimeoutMs = 60_000, ...clusterOptions } = options;
  let running: Running | undefined;
  let namespaceCount = 0;

  beforeAll(async () => {
    const cluster = await startSimCluster(clusterOptions);
    const dir = await mkdtemp(join(tmpdir(), "sim-cluster-test-"));
    running = { cluster, client: new KubeClient({ server: cluster.url }), dir, kubeconfig: join(dir, "kubeconfig") };
    await cluster.writeKubeconfig(running.kubeconfig);
  }, startTimeoutMs);
  afterAll(async () => {
    const stopping = running;
    running = undefined;
    stopping?.client.close();
    await stopping?.cluster.close();
    if (stopping !== undefined) await rm(stopping.dir, { recursive: true, force: true });
  });

  const started = (): Running => {
    if (running === undefined)
      throw new Error("useSimCluster: the cluster is read before beforeAll started it, or after afterAll closed it");
    return running;
  };

  const fixture: SimClusterFixture = {
    get cluster() {
      return started().cluster;
    },
    get client() {
      return started().client;
    },
    get kubeconfig() {
      return started().kubeconfig;
    },
    kubeConfig() {
      const current = started();
      current.kubeConfig ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
        const config = new KubeConfig();
        config.loadFromFile(current.kubeconfig);
        return config;
      });
      return current.kubeConfig;
    },
    uniqueName(prefix = namespacePrefix) {
      return `${prefix}-${++namespaceCount}`;
    },
    async newNamespace(prefix = namespacePrefix) {
      const client = started().client;
      const name = fixture.uniqueName(prefix);
      await client.create(NAMESPACES, undefined, { metadata: { name } });
      return name;
    },
  };
  return fixture;
}
