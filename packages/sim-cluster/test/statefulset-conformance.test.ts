/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes
 * test/e2e/apps/statefulset.go, "[sig-apps] StatefulSet Basic StatefulSet functionality
 * [StatefulSetBasic]" (conformance, those that need no container runtime):
 * - "should perform rolling updates and roll backs of template modifications"
 * - "should perform canary updates and phased rolling updates of template modifications"
 * - "Scaling should happen in predictable order and halt if any stateful pod is unhealthy"
 * - "Burst scaling should run to completion even with unhealthy pods"
 * - "should have a working scale subresource"
 * - "should list, patch and delete a collection of StatefulSets"
 * - "should validate Statefulset Status endpoints"
 * and, not conformance, "should implement legacy replacement when the update strategy is OnDelete".
 *
 * The simulated kubelet runs no probes: the http readiness probe these tests break and restore
 * (`breakHTTPProbe`, by moving the served file away) is a readiness gate here whose condition the
 * test sets as the probe would report (statefulset-helpers.ts). Waits are seconds, not minutes.
 */
import type { WatchEvent } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { Pod } from "../src/resources/pods.js";
import type { StatefulSet } from "../src/resources/statefulsets.js";
import { SERVICES, STATEFUL_SETS } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import {
  confirmStatefulPodCount,
  deleteStatefulPodAtIndex,
  getPodList,
  getStatefulSet,
  NEW_WEBSERVER_IMAGE,
  newStatefulSet,
  ReadinessProber,
  setHTTPProbe,
  updateStatefulSetWithRetries,
  waitForPartitionedRollingUpdate,
  waitForPodReadiness,
  waitForRollingUpdate,
  waitForRunningAndNotReady,
  waitForRunningAndReady,
  waitForState,
  waitForStatus,
  waitForStatusReadyReplicas,
  waitForStatusReplicas,
} from "./statefulset-helpers.js";

const NAMESPACES = { group: "", version: "v1", resource: "namespaces", namespaced: false };
const REVISION = "controller-revision-hash";
const ssName = "ss";
const labels = { foo: "bar", baz: "blah" };
const headlessSvcName = "test";

let cluster: SimCluster;
let client: KubeClient;
let ns: string;
let prober: ReadinessProber;
let counter = 0;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2, podShutdownMs: 20 });
  client = new KubeClient({ server: cluster.url });
});
afterAll(async () => {
  client.close();
  await cluster.close();
});

beforeEach(async () => {
  ns = `statefulset-${++counter}`;
  await client.create(NAMESPACES, undefined, { metadata: { name: ns } });
  prober = new ReadinessProber(client, ns);
  // e2eservice.CreateServiceSpec(headlessSvcName, "", true, labels)
  await client.create(SERVICES, ns, {
    metadata: { name: headlessSvcName },
    spec: { clusterIP: "None", selector: labels, ports: [{ port: 80, name: "http", protocol: "TCP" }] },
  });
});
afterEach(() => {
  prober.stop();
});

const image = (pod: Pod) => pod.spec?.containers?.[0]?.image;

describe(
  "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] (test/e2e/apps/statefulset.go)",
  { timeout: 120_000 },
  () => {
    it("should perform rolling updates and roll backs of template modifications", async () => {
      // rollbackTest
      let ss = newStatefulSet("ss2", ns, headlessSvcName, 3, labels);
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 3, ss);
      ss = await waitForStatus(client, ss);
      let currentRevision = ss.status?.currentRevision;
      let updateRevision = ss.status?.updateRevision;
      expect(currentRevision, "created with update revision equal to current revision").toBe(updateRevision);
      let pods = await getPodList(client, ss);
      for (const pod of pods) expect(pod.metadata?.labels?.[REVISION]).toBe(currentRevision);
      prober.break(pods[1]!.metadata!.name!);
      ss = await waitForPodReadiness(client, ss, pods[1]!.metadata!.name!, false);
      const newImage = NEW_WEBSERVER_IMAGE;
      const oldImage = ss.spec!.template!.spec!.containers![0]!.image!;
      expect(oldImage).not.toBe(newImage);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => {
        update.spec!.template!.spec!.containers![0]!.image = newImage;
      });

      // Creating a new revision
      ss = await waitForStatus(client, ss);
      currentRevision = ss.status?.currentRevision;
      updateRevision = ss.status?.updateRevision;
      expect(currentRevision, "Current revision should not equal update revision during rolling update").not.toBe(updateRevision);

      // Updating Pods in reverse ordinal order
      pods = await getPodList(client, ss);
      prober.restore(pods[1]!.metadata!.name!);
      ss = await waitForPodReadiness(client, ss, pods[1]!.metadata!.name!, true);
      ({ set: ss, pods } = await waitForRollingUpdate(client, ss));
      expect(ss.status?.currentRevision).toBe(updateRevision);
      for (const pod of pods) {
        expect(image(pod)).toBe(newImage);
        expect(pod.metadata?.labels?.[REVISION]).toBe(updateRevision);
      }

      // Rolling back to a previous revision
      prober.break(pods[1]!.metadata!.name!);
      ss = await waitForPodReadiness(client, ss, pods[1]!.metadata!.name!, false);
      const priorRevision = currentRevision;
      ss = await updateStatefulSetWithRetries(client, ss, (update) => {
        update.spec!.template!.spec!.containers![0]!.image = oldImage;
      });
      ss = await waitForStatus(client, ss);
      currentRevision = ss.status?.currentRevision;
      updateRevision = ss.status?.updateRevision;
      expect(updateRevision, "Prior revision should equal update revision during roll back").toBe(priorRevision);
      expect(currentRevision, "Current revision should not equal update revision during roll back").not.toBe(updateRevision);

      // Rolling back update in reverse ordinal order
      pods = await getPodList(client, ss);
      prober.restore(pods[1]!.metadata!.name!);
      ss = await waitForPodReadiness(client, ss, pods[1]!.metadata!.name!, true);
      ({ set: ss, pods } = await waitForRollingUpdate(client, ss));
      expect(ss.status?.currentRevision).toBe(priorRevision);
      for (const pod of pods) {
        expect(image(pod)).toBe(oldImage);
        expect(pod.metadata?.labels?.[REVISION]).toBe(priorRevision);
      }
    });

    it("should perform canary updates and phased rolling updates of template modifications", async () => {
      let ss = newStatefulSet("ss2", ns, headlessSvcName, 3, labels);
      setHTTPProbe(ss);
      ss.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 3 } };
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 3, ss);
      ss = await waitForStatus(client, ss);
      let currentRevision = ss.status?.currentRevision;
      let updateRevision = ss.status?.updateRevision;
      expect(currentRevision).toBe(updateRevision);
      let pods = await getPodList(client, ss);
      for (const pod of pods) expect(pod.metadata?.labels?.[REVISION]).toBe(currentRevision);
      const newImage = NEW_WEBSERVER_IMAGE;
      const oldImage = ss.spec!.template!.spec!.containers![0]!.image!;
      expect(oldImage).not.toBe(newImage);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => {
        update.spec!.template!.spec!.containers![0]!.image = newImage;
      });

      // Creating a new revision
      ss = await waitForStatus(client, ss);
      currentRevision = ss.status?.currentRevision;
      updateRevision = ss.status?.updateRevision;
      expect(currentRevision, "Current revision should not equal update revision during rolling update").not.toBe(updateRevision);

      // Not applying an update when the partition is greater than the number of replicas
      pods = await getPodList(client, ss);
      for (const pod of pods) {
        expect(image(pod)).toBe(oldImage);
        expect(pod.metadata?.labels?.[REVISION]).toBe(currentRevision);
      }

      const expectPartitioned = (set: StatefulSet, list: Pod[]) => {
        const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
        list.forEach((pod, i) => {
          if (i < partition) {
            expect(image(pod), `${pod.metadata?.name} image`).toBe(oldImage);
            expect(pod.metadata?.labels?.[REVISION], `${pod.metadata?.name} revision`).toBe(currentRevision);
          } else {
            expect(image(pod), `${pod.metadata?.name} image`).toBe(newImage);
            expect(pod.metadata?.labels?.[REVISION], `${pod.metadata?.name} revision`).toBe(updateRevision);
          }
        });
      };

      // Performing a canary update
      ss = await updateStatefulSetWithRetries(client, ss, (update) => {
        update.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 2 } };
      });
      ({ set: ss, pods } = await waitForPartitionedRollingUpdate(client, ss));
      expectPartitioned(ss, pods);

      // Restoring Pods to the correct revision when they are deleted
      await deleteStatefulPodAtIndex(client, 0, ss);
      await deleteStatefulPodAtIndex(client, 2, ss);
      await waitForRunningAndReady(client, 3, ss);
      ss = await getStatefulSet(client, ss);
      pods = await getPodList(client, ss);
      expectPartitioned(ss, pods);

      // Performing a phased rolling update
      for (let i = (ss.spec?.updateStrategy?.rollingUpdate?.partition ?? 0) - 1; i >= 0; i--) {
        ss = await updateStatefulSetWithRetries(client, ss, (update) => {
          update.spec!.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: i } };
        });
        ({ set: ss, pods } = await waitForPartitionedRollingUpdate(client, ss));
        expectPartitioned(ss, pods);
      }
      ss = (
        await waitForState(
          client,
          ss,
          "current revision to become the update revision",
          (set) => set.status?.currentRevision === updateRevision,
        )
      ).set;
      expect(ss.status?.currentRevision).toBe(updateRevision);
    });

    it("should implement legacy replacement when the update strategy is OnDelete", async () => {
      let ss = newStatefulSet("ss2", ns, headlessSvcName, 3, labels);
      setHTTPProbe(ss);
      ss.spec!.updateStrategy = { type: "OnDelete" };
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 3, ss);
      ss = await waitForStatus(client, ss);
      let currentRevision = ss.status?.currentRevision;
      let updateRevision = ss.status?.updateRevision;
      expect(currentRevision).toBe(updateRevision);

      // Restoring Pods to the current revision
      for (const i of [0, 1, 2]) await deleteStatefulPodAtIndex(client, i, ss);
      await waitForRunningAndReady(client, 3, ss);
      ss = await getStatefulSet(client, ss);
      for (const pod of await getPodList(client, ss)) expect(pod.metadata?.labels?.[REVISION]).toBe(currentRevision);
      const newImage = NEW_WEBSERVER_IMAGE;
      ss = await updateStatefulSetWithRetries(client, ss, (update) => {
        update.spec!.template!.spec!.containers![0]!.image = newImage;
      });

      // Creating a new revision
      ss = await waitForStatus(client, ss);
      currentRevision = ss.status?.currentRevision;
      updateRevision = ss.status?.updateRevision;
      expect(currentRevision).not.toBe(updateRevision);

      // Recreating Pods at the new revision
      for (const i of [0, 1, 2]) await deleteStatefulPodAtIndex(client, i, ss);
      const { pods } = await waitForState(
        client,
        ss,
        "3 pods at the new revision",
        (_set, list) =>
          list.length === 3 && list.every((p) => p.metadata?.labels?.[REVISION] === updateRevision && p.status?.phase === "Running"),
      );
      for (const pod of pods) {
        expect(image(pod)).toBe(newImage);
        expect(pod.metadata?.labels?.[REVISION]).toBe(updateRevision);
      }
    });

    it("Scaling should happen in predictable order and halt if any stateful pod is unhealthy", async () => {
      const selector = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      const watchOrder = async (type: WatchEvent["type"], expected: string[]) => {
        const list = await client.list(PODS_REF, ns, { labelSelector: selector });
        const remaining = [...expected];
        const handle = await client.watch(
          `/api/v1/namespaces/${ns}/pods`,
          { labelSelector: selector, resourceVersion: list.metadata?.resourceVersion ?? "" },
          (event) => {
            if (event.type === type && (event.object as Pod).metadata?.name === remaining[0]) remaining.shift();
          },
        );
        const finished = async () => {
          await eventually(`pods ${type} in the order ${expected.join(", ")}`, () =>
            Promise.resolve(remaining.length === 0 ? true : undefined),
          );
          handle.stop();
        };
        return { finished, remaining };
      };

      // Verify that stateful set will be scaled up in order.
      const up = await watchOrder("ADDED", [`${ssName}-0`, `${ssName}-1`, `${ssName}-2`]);
      let ss = newStatefulSet(ssName, ns, headlessSvcName, 1, labels);
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 1, ss);

      // Confirming that stateful set scale up will halt with unhealthy stateful pod
      prober.break(`${ssName}-0`);
      await waitForRunningAndNotReady(client, 1, ss);
      await waitForStatusReadyReplicas(client, ss, 0);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => (update.spec!.replicas = 3));
      await confirmStatefulPodCount(client, 1, ss, 2_000, true);

      // Scaling up stateful set ss to 3 replicas and waiting until all of them will be running
      prober.restore(`${ssName}-0`);
      await waitForRunningAndReady(client, 3, ss);
      // Verifying that stateful set ss was scaled up in order
      await up.finished();
      expect(up.remaining).toEqual([]);

      // Scale down will halt with unhealthy stateful pod
      const down = await watchOrder("DELETED", [`${ssName}-2`, `${ssName}-1`, `${ssName}-0`]);
      prober.break(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForStatusReadyReplicas(client, ss, 0);
      await waitForRunningAndNotReady(client, 3, ss);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => (update.spec!.replicas = 0));
      await confirmStatefulPodCount(client, 3, ss, 2_000, true);

      // Scaling down stateful set ss to 0 replicas and waiting until none of pods will run
      prober.restore(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForState(client, ss, "no pods", (set, pods) => pods.length === 0 && set.status?.replicas === 0);
      // Verifying that stateful set ss was scaled down in reverse order
      await down.finished();
      expect(down.remaining).toEqual([]);
    });

    it("Burst scaling should run to completion even with unhealthy pods", async () => {
      let ss = newStatefulSet(ssName, ns, headlessSvcName, 1, labels);
      ss.spec!.podManagementPolicy = "Parallel";
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 1, ss);

      // Confirming that stateful set scale up will not halt with unhealthy stateful pod
      prober.break(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForRunningAndNotReady(client, 1, ss);
      await waitForStatusReadyReplicas(client, ss, 0);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => (update.spec!.replicas = 3));
      await waitForState(client, ss, "3 pods despite the unhealthy one", (_set, pods) => pods.length === 3);

      // Scaling up stateful set ss to 3 replicas and waiting until all of them will be running
      prober.restore(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForRunningAndReady(client, 3, ss);

      // Scale down will not halt with unhealthy stateful pod
      prober.break(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForStatusReadyReplicas(client, ss, 0);
      await waitForRunningAndNotReady(client, 3, ss);
      ss = await updateStatefulSetWithRetries(client, ss, (update) => (update.spec!.replicas = 0));
      await waitForState(client, ss, "0 pods despite the unhealthy ones", (_set, pods) => pods.length === 0);

      prober.restore(`${ssName}-0`, `${ssName}-1`, `${ssName}-2`);
      await waitForStatusReplicas(client, ss, 0);
    });

    it("should have a working scale subresource", async () => {
      let ss = newStatefulSet(ssName, ns, headlessSvcName, 1, labels);
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 1, ss);
      await waitForStatus(client, ss);

      // getting scale subresource
      const path = `/apis/apps/v1/namespaces/${ns}/statefulsets/${ssName}/scale`;
      const scale = (await client.request("GET", path)) as {
        metadata: { resourceVersion?: string };
        spec: { replicas: number };
        status: { replicas: number };
      };
      expect(scale.spec.replicas).toBe(1);
      expect(scale.status.replicas).toBe(1);

      // updating a scale subresource
      scale.metadata.resourceVersion = "";
      scale.spec.replicas = 2;
      const scaleResult = (await client.request("PUT", path, { body: scale })) as { spec: { replicas: number } };
      expect(scaleResult.spec.replicas).toBe(2);

      // verifying the statefulset Spec.Replicas was modified
      ss = await getStatefulSet(client, ss);
      expect(ss.spec?.replicas).toBe(2);

      // Patch a scale subresource
      await client.patch(STATEFUL_SETS, ns, ssName, { spec: { replicas: 4 } }, "application/strategic-merge-patch+json", "scale");
      ss = await getStatefulSet(client, ss);
      expect(ss.spec?.replicas, "statefulset should have 4 replicas").toBe(4);
    });

    it("should list, patch and delete a collection of StatefulSets", async () => {
      const ssPatchReplicas = 2;
      const ssPatchImage = "registry.k8s.io/pause:3.10";
      const name = "test-ss";
      let ss = newStatefulSet(name, ns, headlessSvcName, 1, { name: "sample-pod", pod: "httpd" });
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 1, ss);
      await waitForStatus(client, ss);

      // patching the StatefulSet
      await client.patch(
        STATEFUL_SETS,
        ns,
        name,
        {
          metadata: { labels: { "test-ss": "patched" } },
          spec: {
            replicas: ssPatchReplicas,
            template: { spec: { TerminationGracePeriodSeconds: 1, containers: [{ name, image: ssPatchImage }] } },
          },
        },
        "application/strategic-merge-patch+json",
      );
      ss = await getStatefulSet(client, ss);
      expect(ss.spec?.replicas, "statefulset should have 2 replicas").toBe(ssPatchReplicas);
      expect(ss.spec?.template?.spec?.containers?.[0]?.image).toBe(ssPatchImage);
      await waitForRunningAndReady(client, ssPatchReplicas, ss);
      await waitForStatus(client, ss);

      // Listing all StatefulSets
      let list = await client.list<StatefulSet>(STATEFUL_SETS, undefined, { labelSelector: "test-ss=patched" });
      expect(list.items, "filtered list wasn't found").toHaveLength(1);

      // Delete all of the StatefulSets
      await client.deleteCollection(STATEFUL_SETS, ns, { gracePeriodSeconds: 1 }, { labelSelector: "test-ss=patched" });

      // Verify that StatefulSets have been deleted
      list = await client.list<StatefulSet>(STATEFUL_SETS, undefined, { labelSelector: "test-ss=patched" });
      expect(list.items, "filtered list should have no Statefulsets").toHaveLength(0);
    });

    it("should validate Statefulset Status endpoints", async () => {
      const labelSelector = "e2e=testing";
      const ssList = await client.list<StatefulSet>(STATEFUL_SETS, undefined, { labelSelector });
      let ss = newStatefulSet(ssName, ns, headlessSvcName, 1, labels);
      setHTTPProbe(ss);
      ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
      await waitForRunningAndReady(client, 1, ss);
      await waitForStatus(client, ss);

      // Patch Statefulset to include a label
      ss = await client.patch<StatefulSet>(
        STATEFUL_SETS,
        ns,
        ssName,
        { metadata: { labels: { e2e: "testing" } } },
        "application/strategic-merge-patch+json",
      );

      // Getting /status
      const status = (await client.request("GET", `/apis/apps/v1/namespaces/${ns}/statefulsets/${ssName}/status`)) as StatefulSet;
      expect(status.metadata?.name).toBe(ssName);

      const events: WatchEvent[] = [];
      const watch = await client.watch(
        `/apis/apps/v1/namespaces/${ns}/statefulsets`,
        { labelSelector, resourceVersion: ssList.metadata?.resourceVersion ?? "" },
        (event) => events.push(event),
      );
      try {
        // updating the StatefulSet Status (retry.RetryOnConflict)
        let updated: StatefulSet | undefined;
        for (let attempt = 0; updated === undefined; attempt++) {
          const toUpdate = await getStatefulSet(client, ss);
          toUpdate.status = {
            ...(toUpdate.status ?? {}),
            conditions: [
              ...(toUpdate.status?.conditions ?? []),
              { type: "StatusUpdate", status: "True", reason: "E2E", message: "Set from e2e test" },
            ],
          };
          try {
            updated = await client.update<StatefulSet>(STATEFUL_SETS, ns, toUpdate, "status");
          } catch (error) {
            if (attempt > 5) throw error;
          }
        }
        // watching for the statefulset status to be updated
        const found = (e: WatchEvent, match: (c: { type?: string; reason?: string; message?: string }) => boolean) => {
          const set = e.object as StatefulSet;
          return (
            set.metadata?.name === ssName &&
            set.metadata.namespace === ns &&
            set.metadata.labels?.["e2e"] === "testing" &&
            ((set.status?.conditions ?? []) as Array<{ type?: string }>).some(match)
          );
        };
        await eventually("the StatusUpdate condition in a watch event", () =>
          Promise.resolve(
            events.some((e) => found(e, (c) => c.type === "StatusUpdate" && c.reason === "E2E" && c.message === "Set from e2e test"))
              ? true
              : undefined,
          ),
        );

        // patching the Statefulset Status
        const patched = await client.patch<StatefulSet>(
          STATEFUL_SETS,
          ns,
          ssName,
          { status: { conditions: [{ type: "StatusPatched", status: "True" }] } },
          "application/merge-patch+json",
          "status",
        );
        expect((patched.status?.conditions as Array<{ type?: string }>).some((c) => c.type === "StatusPatched")).toBe(true);
        // watching for the Statefulset status to be patched
        await eventually("the StatusPatched condition in a watch event", () =>
          Promise.resolve(events.some((e) => found(e, (c) => c.type === "StatusPatched")) ? true : undefined),
        );
      } finally {
        watch.stop();
      }
    });
  },
);

const PODS_REF = { group: "", version: "v1", resource: "pods", namespaced: true };
