import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeConfig } from "@kubernetes/client-node";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
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

async function startRunning(options: SimClusterOptions): Promise<Running> {
  const cluster = await startSimCluster(options);
  try {
    const dir = await mkdtemp(join(tmpdir(), "sim-cluster-test-"));
    const running = { cluster, client: new KubeClient({ server: cluster.url }), dir, kubeconfig: join(dir, "kubeconfig") };
    await cluster.writeKubeconfig(running.kubeconfig);
    return running;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

async function stopRunning(running: Running | undefined): Promise<void> {
  running?.client.close();
  await running?.cluster.close();
  if (running !== undefined) await rm(running.dir, { recursive: true, force: true });
}

/** The fixture's accessors over whichever cluster `current` returns (it throws when there is none). */
function fixtureOf(current: () => Running, namespacePrefix: string): SimClusterFixture {
  let namespaceCount = 0;
  const fixture: SimClusterFixture = {
    get cluster() {
      return current().cluster;
    },
    get client() {
      return current().client;
    },
    get kubeconfig() {
      return current().kubeconfig;
    },
    kubeConfig() {
      const running = current();
      running.kubeConfig ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
        const config = new KubeConfig();
        config.loadFromFile(running.kubeconfig);
        return config;
      });
      return running.kubeConfig;
    },
    uniqueName(prefix = namespacePrefix) {
      return `${prefix}-${++namespaceCount}`;
    },
    async newNamespace(prefix = namespacePrefix) {
      const client = current().client;
      const name = fixture.uniqueName(prefix);
      await client.create(NAMESPACES, undefined, { metadata: { name } });
      return name;
    },
  };
  return fixture;
}

/**
 * One simulated cluster for the test file that calls it: started in `beforeAll` (with a client and
 * a kubeconfig file), closed and its files removed in `afterAll`.
 */
export function useSimCluster(options: SimClusterFixtureOptions = {}): SimClusterFixture {
  const { namespacePrefix = "test", startTimeoutMs = 60_000, ...clusterOptions } = options;
  let running: Running | undefined;

  beforeAll(async () => {
    running = await startRunning(clusterOptions);
  }, startTimeoutMs);
  afterAll(async () => {
    const stopping = running;
    running = undefined;
    await stopRunning(stopping);
  });

  return fixtureOf(() => {
    if (running === undefined)
      throw new Error("useSimCluster: the cluster is read before beforeAll started it, or after afterAll closed it");
    return running;
  }, namespacePrefix);
}

/** A fixture whose tests each start a cluster of their own, with the options the test needs. */
export interface SimClusterPerTestFixture extends SimClusterFixture {
  /** Starts this test's cluster (with a client and a kubeconfig file); it is closed after the test. */
  start(options?: SimClusterOptions): Promise<SimCluster>;
}

/**
 * A cluster per test for the tests of the file or block that calls it, each started by the test
 * with `start(options)` and closed, with its client and files, in `afterEach` (also when the test
 * closed it itself, or failed).
 */
export function useSimClusterPerTest(options: Pick<SimClusterFixtureOptions, "namespacePrefix"> = {}): SimClusterPerTestFixture {
  let running: Running | undefined;
  afterEach(async () => {
    const stopping = running;
    running = undefined;
    await stopRunning(stopping);
  });
  const fixture = fixtureOf(() => {
    if (running === undefined) throw new Error("useSimClusterPerTest: the cluster is read before this test started one");
    return running;
  }, options.namespacePrefix ?? "test");
  return Object.assign(fixture, {
    async start(clusterOptions: SimClusterOptions = {}) {
      if (running !== undefined) throw new Error("useSimClusterPerTest: this test started its cluster already");
      running = await startRunning(clusterOptions);
      return running.cluster;
    },
  });
}
