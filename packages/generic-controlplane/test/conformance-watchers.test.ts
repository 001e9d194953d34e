import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchEvent } from "../src/index.js";
import { configMapPath, createTestNamespace, expectStatus, updateObject, type Obj } from "./harness/framework.js";
import { KubeHttp, type WatchStream } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of test/e2e/apimachinery/watch.go ("Watchers"): all five Conformance tests, on configmaps
// as upstream, against both storage backends. Kept from upstream: the label selectors, the order of
// writes and reads, 100 iterations of the concurrent-watch test (a watch opened at each event's
// resourceVersion, all seeing the same sequence), and a 10 s quiet window wherever upstream's
// expectNoEvent waits 10 s. Stricter than upstream: a quiet window must see no event at all
// (upstream ignores events of other types); the closed watch's MODIFIED is compared with the first
// update and the ADDED/MODIFIED events with the written objects, where upstream passes nil for some;
// the replay from a resourceVersion must end quiet. Left out: nothing. The tests run concurrently,
// each in its own namespace (upstream runs them in parallel too), so the quiet windows overlap.

const labelKey = "watch-this-configmap";
const quietMs = 10_000;
const quietTestTimeoutMs = 120_000;

describe.concurrent.each(["memory", "sqlite", "etcd"] as const)("[sig-api-machinery] Watchers (%s storage)", (backend) => {
  let server: TestServer;
  let http: KubeHttp;
  const open: WatchStream[] = [];

  beforeAll(async () => {
    server = await startInProcess({ storage: backend });
    http = new KubeHttp(server.url);
  }, 30_000);

  afterAll(async () => {
    for (const watch of open.splice(0)) watch.close();
    await server?.close();
  });

  /** `watchConfigMaps`: a watch whose selector is `watch-this-configmap in (labels…)`. */
  async function watchConfigMaps(namespace: string, resourceVersion: string, ...labels: string[]): Promise<WatchStream> {
    const selector = encodeURIComponent(`${labelKey} in (${labels.join(",")})`);
    const rv = resourceVersion ? `&resourceVersion=${resourceVersion}` : "";
    const watch = await http.watch(`${configMapPath(namespace)}?labelSelector=${selector}${rv}`);
    open.push(watch);
    return watch;
  }

  /** `expectEvent`: the next event has this type and, when given, exactly this object. */
  async function expectEvent(watch: WatchStream, type: WatchEvent["type"], object?: Obj): Promise<WatchEvent> {
    const event = await watch.next(5_000);
    expect(event.type).toBe(type);
    if (object) expect(event.object).toEqual(object);
    return event;
  }

  async function expectNoEvent(watch: WatchStream): Promise<void> {
    expect(await watch.drain(quietMs)).toEqual([]);
  }

  async function create(namespace: string, name: string, label: string): Promise<Obj> {
    const answer = await http.post<Obj>(configMapPath(namespace), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, labels: { [labelKey]: label } },
    });
    expectStatus(answer, 201);
    return answer.body;
  }

  function setData(namespace: string, name: string, key: string, value: string): Promise<Obj> {
    return updateObject(http, configMapPath(namespace, name), (cm) => {
      cm.data = { ...cm.data, [key]: value };
    });
  }

  async function remove(namespace: string, name: string): Promise<void> {
    expectStatus(await http.delete(configMapPath(namespace, name)), 200);
  }

  it("should observe add, update, and delete watch notifications on configmaps", { timeout: quietTestTimeoutMs }, async () => {
    const ns = await createTestNamespace(http, "watch");
    const watchA = await watchConfigMaps(ns, "", "multiple-watchers-A");
    const watchB = await watchConfigMaps(ns, "", "multiple-watchers-B");
    const watchAB = await watchConfigMaps(ns, "", "multiple-watchers-A", "multiple-watchers-B");

    let a = await create(ns, "e2e-watch-test-configmap-a", "multiple-watchers-A");
    await expectEvent(watchA, "ADDED", a);
    await expectEvent(watchAB, "ADDED", a);
    await expectNoEvent(watchB);

    a = await setData(ns, a.metadata.name, "mutation", "1");
    await expectEvent(watchA, "MODIFIED", a);
    await expectEvent(watchAB, "MODIFIED", a);
    await expectNoEvent(watchB);

    a = await setData(ns, a.metadata.name, "mutation", "2");
    await expectEvent(watchA, "MODIFIED", a);
    await expectEvent(watchAB, "MODIFIED", a);
    await expectNoEvent(watchB);

    await remove(ns, a.metadata.name);
    await expectEvent(watchA, "DELETED");
    await expectEvent(watchAB, "DELETED");
    await expectNoEvent(watchB);

    const b = await create(ns, "e2e-watch-test-configmap-b", "multiple-watchers-B");
    await expectEvent(watchB, "ADDED", b);
    await expectEvent(watchAB, "ADDED", b);
    await expectNoEvent(watchA);

    await remove(ns, b.metadata.name);
    await expectEvent(watchB, "DELETED");
    await expectEvent(watchAB, "DELETED");
    await expectNoEvent(watchA);
  });

  it("should be able to start watching from a specific resource version", { timeout: quietTestTimeoutMs }, async () => {
    const ns = await createTestNamespace(http, "watch");
    const cm = await create(ns, "e2e-watch-test-resource-version", "from-resource-version");
    const firstUpdate = await setData(ns, cm.metadata.name, "mutation", "1");
    const secondUpdate = await setData(ns, cm.metadata.name, "mutation", "2");
    await remove(ns, cm.metadata.name);

    const watch = await watchConfigMaps(ns, firstUpdate.metadata.resourceVersion, "from-resource-version");
    await expectEvent(watch, "MODIFIED", secondUpdate);
    const deleted = await expectEvent(watch, "DELETED");
    expect((deleted.object as Obj).metadata.name).toBe(cm.metadata.name);
    await expectNoEvent(watch);
  });

  it("should be able to restart watching from the last resource version observed by the previous watch", async () => {
    const ns = await createTestNamespace(http, "watch");
    const broken = await watchConfigMaps(ns, "", "watch-closed-and-restarted");
    const cm = await create(ns, "e2e-watch-test-watch-closed", "watch-closed-and-restarted");
    const firstUpdate = await setData(ns, cm.metadata.name, "mutation", "1");
    await expectEvent(broken, "ADDED", cm);
    const lastEvent = await expectEvent(broken, "MODIFIED", firstUpdate);
    broken.close();

    const secondUpdate = await setData(ns, cm.metadata.name, "mutation", "2");
    const restarted = await watchConfigMaps(ns, (lastEvent.object as Obj).metadata.resourceVersion, "watch-closed-and-restarted");
    await remove(ns, cm.metadata.name);
    await expectEvent(restarted, "MODIFIED", secondUpdate);
    await expectEvent(restarted, "DELETED");
  });

  it(
    "should observe an object deletion if it stops meeting the requirements of the selector",
    { timeout: quietTestTimeoutMs },
    async () => {
      const ns = await createTestNamespace(http, "watch");
      const label = "label-changed-and-restored";
      const watch = await watchConfigMaps(ns, "", label);
      const cm = await create(ns, "e2e-watch-test-label-changed", label);
      const firstUpdate = await setData(ns, cm.metadata.name, "mutation", "1");
      await updateObject(http, configMapPath(ns, cm.metadata.name), (object) => {
        object.metadata.labels = { ...object.metadata.labels, [labelKey]: "wrong-value" };
      });
      await expectEvent(watch, "ADDED", cm);
      await expectEvent(watch, "MODIFIED", firstUpdate);
      await expectEvent(watch, "DELETED");

      await setData(ns, cm.metadata.name, "mutation", "2");
      await expectNoEvent(watch);

      const restored = await updateObject(http, configMapPath(ns, cm.metadata.name), (object) => {
        object.metadata.labels = { ...object.metadata.labels, [labelKey]: label };
      });
      const thirdUpdate = await setData(ns, cm.metadata.name, "mutation", "3");
      await remove(ns, cm.metadata.name);
      await expectEvent(watch, "ADDED", restored);
      await expectEvent(watch, "MODIFIED", thirdUpdate);
      await expectEvent(watch, "DELETED");
    },
  );

  it("should receive events on concurrent watches in same order", { timeout: quietTestTimeoutMs }, async () => {
    const ns = await createTestNamespace(http, "watch");
    const iterations = 100;
    const list = await http.get<{ metadata: { resourceVersion: string } }>(configMapPath(ns));
    expectStatus(list, 200);
    let resourceVersion = list.body.metadata.resourceVersion;

    // produceConfigMapEvents: random creates, unconditional updates and deletes in the background.
    let stop = false;
    const producer = (async () => {
      const existing: number[] = [];
      let next = 0;
      while (!stop) {
        let op = Math.floor(Math.random() * 3);
        if (existing.length === 0) op = 0;
        if (op === 0) {
          expectStatus(await http.post(configMapPath(ns), { metadata: { name: `cm-${next}` } }), 201);
          existing.push(next++);
        } else {
          const index = Math.floor(Math.random() * existing.length);
          const name = `cm-${existing[index]}`;
          if (op === 1) {
            expectStatus(await http.put(configMapPath(ns, name), { metadata: { name }, data: { n: String(Math.random()) } }), 200);
          } else {
            expectStatus(await http.delete(configMapPath(ns, name)), 200);
            existing.splice(index, 1);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    const watches: WatchStream[] = [];
    try {
      for (let i = 0; i < iterations; i++) {
        const watch = await http.watch(`${configMapPath(ns)}?resourceVersion=${resourceVersion}`);
        open.push(watch);
        watches.push(watch);
        resourceVersion = ((await watches[0]!.next(10_000)).object as Obj).metadata.resourceVersion;
        for (const other of watches.slice(1)) {
          const event = await other.next(10_000);
          expect((event.object as Obj).metadata.resourceVersion).toBe(resourceVersion);
        }
      }
    } finally {
      stop = true;
      await producer;
      for (const watch of watches) watch.close();
    }
  });
});
