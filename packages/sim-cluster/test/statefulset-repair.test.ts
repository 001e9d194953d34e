/**
 * A StatefulSet's controller keeps its pods' identity and storage as upstream's
 * pkg/controller/statefulset (stateful_set_control.go `processReplica`, stateful_pod_control.go
 * `UpdateStatefulPod` and `createMissingPersistentVolumeClaims`) and names its revisions as
 * pkg/controller/history `CreateControllerRevision` does on a hash collision, through the API.
 */
import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { revisionData } from "../src/controllers/daemonset-history.js";
import { podTemplateHash } from "../src/controllers/pod-template-hash.js";
import type { ControllerRevision } from "../src/resources/controller-revisions.js";
import type { PersistentVolumeClaim } from "../src/resources/persistent-volumes.js";
import type { Pod } from "../src/resources/pods.js";
import type { StatefulSet } from "../src/resources/statefulsets.js";
import { CONTROLLER_REVISIONS, DAEMON_SETS, PERSISTENT_VOLUME_CLAIMS, PODS, STATEFUL_SETS, STORAGE_CLASSES } from "../src/refs.js";
import type { DaemonSet } from "../src/resources/daemonsets.js";
import { eventually } from "./kubectl.js";
import { newStatefulSet, waitForRunningAndReady } from "./statefulset-helpers.js";

const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };
const EVENTS: ResourceRef = { group: "", version: "v1", resource: "events", namespaced: true };
const labels = { app: "repair" };

interface KubeEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
}

let cluster: SimCluster;
let client: KubeClient;
let ns: string;
let counter = 0;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1, podShutdownMs: 20 });
  client = new KubeClient({ server: cluster.url });
  await client.create(STORAGE_CLASSES, undefined, {
    metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: "example.com/sim",
  });
}, 60_000);
afterAll(async () => {
  client.close();
  await cluster.close();
});
beforeEach(async () => {
  ns = `statefulset-repair-${++counter}`;
  await client.create(NAMESPACES, undefined, { metadata: { name: ns } });
});

function withClaims(name: string, replicas: number): StatefulSet {
  const ss = newStatefulSet(name, ns, "svc", replicas, labels);
  ss.spec!.volumeClaimTemplates = [
    { metadata: { name: "datadir" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Mi" } } } },
  ];
  return ss;
}

describe("StatefulSet identity and storage (stateful_set_utils.go)", { timeout: 60_000 }, () => {
  it("puts back the identity labels a pod lost by hand, with a SuccessfulUpdate event", async () => {
    const ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, newStatefulSet("web", ns, "svc", 1, labels));
    await waitForRunningAndReady(client, 1, ss);
    await client.patch(
      PODS,
      ns,
      "web-0",
      { metadata: { labels: { "statefulset.kubernetes.io/pod-name": "someone-else", "apps.kubernetes.io/pod-index": "7" } } },
      "application/merge-patch+json",
    );
    const repaired = await eventually(
      "web-0's identity labels back",
      async () => {
        const pod = await client.get<Pod>(PODS, ns, "web-0");
        return pod.metadata?.labels?.["statefulset.kubernetes.io/pod-name"] === "web-0" ? pod : undefined;
      },
      20_000,
    );
    expect(repaired.metadata?.labels).toMatchObject({
      ...labels,
      "statefulset.kubernetes.io/pod-name": "web-0",
      "apps.kubernetes.io/pod-index": "0",
    });
    const event = await eventually(
      "SuccessfulUpdate event",
      async () => {
        const events = (await client.list<KubeEvent>(EVENTS, ns)).items;
        return events.find((e) => e.reason === "SuccessfulUpdate");
      },
      10_000,
    );
    expect(event).toMatchObject({ type: "Normal", message: "update Pod web-0 in StatefulSet web successful" });
  });

  it("makes again the missing claim of a pod that stays Pending without it", async () => {
    const ss = withClaims("db", 1);
    // No node has this label: the pod stays Pending, so nothing uses its claim.
    ss.spec!.template!.spec!["nodeSelector"] = { "example.com/never": "true" };
    await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    const first = await eventually(
      "datadir-db-0",
      async () => client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, "datadir-db-0").catch(() => undefined),
      20_000,
    );
    await eventually(
      "pod db-0 Pending",
      async () => {
        const pod = await client.get<Pod>(PODS, ns, "db-0").catch(() => undefined);
        return pod?.status?.phase === "Pending" ? pod : undefined;
      },
      20_000,
    );
    await client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "datadir-db-0");
    const again = await eventually(
      "datadir-db-0 made again",
      async () => {
        const claim = await client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, "datadir-db-0").catch(() => undefined);
        return claim !== undefined && claim.metadata?.uid !== first.metadata?.uid && claim.metadata?.deletionTimestamp === undefined
          ? claim
          : undefined;
      },
      20_000,
    );
    expect(again.metadata?.labels).toMatchObject(labels);
  });
});

describe("StatefulSet revision names (history's CreateControllerRevision)", { timeout: 60_000 }, () => {
  it("names the revision from the hash with status.collisionCount raised when another template's revision has the name", async () => {
    // The template as the server stores it (with its defaults), from a twin set: its revision takes the name first.
    const twin = await client.create<StatefulSet>(STATEFUL_SETS, ns, newStatefulSet("web", ns, "svc", 0, labels));
    const hash = podTemplateHash(revisionData(twin), 0);
    await eventually(
      "the twin's revision",
      async () => (await client.list<ControllerRevision>(CONTROLLER_REVISIONS, ns)).items.find((r) => r.metadata?.name === `web-${hash}`),
      20_000,
    );
    const other = `${ns}-other`;
    await client.create(NAMESPACES, undefined, { metadata: { name: other } });
    await client.create<ControllerRevision>(CONTROLLER_REVISIONS, other, {
      metadata: { name: `web-${hash}` },
      data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "another" } } } } },
      revision: 1,
    });
    const ss = await client.create<StatefulSet>(STATEFUL_SETS, other, newStatefulSet("web", other, "svc", 1, labels));
    const collided = podTemplateHash(revisionData(twin), 1);
    const status = await eventually(
      "collisionCount 1",
      async () => {
        const set = await client.get<StatefulSet>(STATEFUL_SETS, other, "web");
        return set.status?.collisionCount === 1 && set.status.updateRevision !== undefined ? set.status : undefined;
      },
      20_000,
    );
    expect(status.updateRevision).toBe(`web-${collided}`);
    const revision = await client.get<ControllerRevision>(CONTROLLER_REVISIONS, other, `web-${collided}`);
    expect(revision.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "StatefulSet",
      name: "web",
      uid: ss.metadata?.uid,
      controller: true,
    });
    await waitForRunningAndReady(client, 1, ss);
    expect((await client.get<Pod>(PODS, other, "web-0")).metadata?.labels?.["controller-revision-hash"]).toBe(`web-${collided}`);
  });

  it("a DaemonSet's revision likewise, its status.collisionCount appearing once there was a collision", async () => {
    const daemonSet = (namespace: string): DaemonSet => ({
      metadata: { name: "agent", namespace },
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "agent", image: "agent:1" }] } },
      },
    });
    const twin = await client.create<DaemonSet>(DAEMON_SETS, ns, daemonSet(ns));
    const hash = podTemplateHash(revisionData(twin), 0);
    await eventually(
      "the twin's revision",
      async () => (await client.list<ControllerRevision>(CONTROLLER_REVISIONS, ns)).items.find((r) => r.metadata?.name === `agent-${hash}`),
      20_000,
    );
    expect((await client.get<DaemonSet>(DAEMON_SETS, ns, "agent")).status?.collisionCount).toBeUndefined();
    const other = `${ns}-other`;
    await client.create(NAMESPACES, undefined, { metadata: { name: other } });
    await client.create<ControllerRevision>(CONTROLLER_REVISIONS, other, {
      metadata: { name: `agent-${hash}` },
      data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "another" } } } } },
      revision: 1,
    });
    await client.create<DaemonSet>(DAEMON_SETS, other, daemonSet(other));
    await eventually(
      "collisionCount 1",
      async () => ((await client.get<DaemonSet>(DAEMON_SETS, other, "agent")).status?.collisionCount === 1 ? true : undefined),
      20_000,
    );
    const collided = podTemplateHash(revisionData(twin), 1);
    const pod = await eventually("the daemon pod", async () => (await client.list<Pod>(PODS, other)).items[0], 20_000);
    expect(pod.metadata?.labels?.["controller-revision-hash"]).toBe(collided);
  });
});
