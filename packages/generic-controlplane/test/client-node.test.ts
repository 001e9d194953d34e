import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  ListWatch,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
  type V1ConfigMapList,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess, type TestServer } from "./harness/server.js";

/** A Watch whose requests ask the server to end them after one second, as kube-apiserver does after its request timeout. */
class ShortWatch extends Watch {
  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(path, { ...queryParams, timeoutSeconds: 1 }, callback, done);
  }
}

// @kubernetes/client-node 2.0.1 against the server: typed CRUD, paging, raw watch, informers.

let server: TestServer;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  server = await startInProcess();
  kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("@kubernetes/client-node", () => {
  it("CoreV1Api creates, reads, replaces, patches and deletes a configmap", async () => {
    const namespace = "default";
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "crud", labels: { app: "crud" } }, data: { a: "1" } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const read = await core.readNamespacedConfigMap({ namespace, name: "crud" });
    expect(read.data).toEqual({ a: "1" });

    read.data = { b: "2" };
    const replaced = await core.replaceNamespacedConfigMap({ namespace, name: "crud", body: read });
    expect(replaced.data).toEqual({ b: "2" });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));

    const conflict = core.replaceNamespacedConfigMap({ namespace, name: "crud", body: read });
    await expect(conflict).rejects.toMatchObject({ code: 409 });

    const patched = await core.patchNamespacedConfigMap(
      { namespace, name: "crud", body: [{ op: "add", path: "/data/c", value: "3" }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    expect(patched.data).toEqual({ b: "2", c: "3" });
    const merged = await core.patchNamespacedConfigMap(
      { namespace, name: "crud", body: { data: { b: null } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    expect(merged.data).toEqual({ c: "3" });

    await core.deleteNamespacedConfigMap({ namespace, name: "crud" });
    await expect(core.readNamespacedConfigMap({ namespace, name: "crud" })).rejects.toMatchObject({ code: 404 });
  });

  it("replaceNamespacedLease creates a missing Lease (201), as upstream's AllowCreateOnUpdate, while a missing ConfigMap stays 404", async () => {
    const coordination = kc.makeApiClient(CoordinationV1Api);
    const lease = { metadata: { name: "put-created", namespace: "default" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15 } };
    const created = await coordination.replaceNamespacedLease({ name: "put-created", namespace: "default", body: lease });
    expect(created.spec?.holderIdentity).toBe("a");
    expect(created.metadata?.uid).toBeTruthy();
    const read = await coordination.readNamespacedLease({ name: "put-created", namespace: "default" });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const renewed = await coordination.replaceNamespacedLease({
      name: "put-created",
      namespace: "default",
      body: { ...read, spec: { ...read.spec, holderIdentity: "b" } },
    });
    expect(renewed.metadata?.uid).toBe(created.metadata?.uid);
    expect(renewed.spec?.holderIdentity).toBe("b");

    const status = await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/put-raw`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "put-raw" } }),
    });
    expect(status.status).toBe(201);

    const missing = await core
      .replaceNamespacedConfigMap({ name: "put-missing", namespace: "default", body: { metadata: { name: "put-missing" }, data: {} } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiException);
    expect((missing as ApiException<unknown>).code).toBe(404);
  });

  it("lists in pages with limit and continue", async () => {
    const namespace = "paging";
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const names = Array.from({ length: 7 }, (_, i) => `page-${i}`);
    for (const name of names) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
    }
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    let listRv: string | undefined;
    do {
      const page: V1ConfigMapList = await core.listNamespacedConfigMap({ namespace, limit: 3, ...(token ? { _continue: token } : {}) });
      pages++;
      seen.push(...page.items.map((item) => item.metadata?.name ?? ""));
      listRv ??= page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(listRv);
      if (page.metadata?._continue) expect(page.metadata.remainingItemCount).toBe(names.length - seen.length);
      token = page.metadata?._continue || undefined;
      // A write between pages is not visible: the continuation reads the first page's snapshot.
      if (pages === 1) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "page-9" } } });
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(names);

    // With a label selector the remaining count is unknown and left out, as upstream does.
    const selected = await core.listNamespacedConfigMap({ namespace, labelSelector: "!absent", limit: 2 });
    expect(selected.items).toHaveLength(2);
    expect(selected.metadata?._continue).toBeTruthy();
    expect(selected.metadata?.remainingItemCount).toBeUndefined();
  });

  it("Watch streams ADDED, MODIFIED and DELETED", async () => {
    const namespace = "default";
    const events: { type: string; name: string | undefined }[] = [];
    const watch = new Watch(kc);
    const done = deferred<unknown>();
    const controller = await watch.watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { fieldSelector: "metadata.name=watched" },
      (type, object: V1ConfigMap) => events.push({ type, name: object.metadata?.name }),
      (error) => done.resolve(error),
    );
    try {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "watched" } } });
      await core.patchNamespacedConfigMap(
        { namespace, name: "watched", body: { data: { x: "1" } } },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      );
      await core.deleteNamespacedConfigMap({ namespace, name: "watched" });
      await waitFor(() => events.length >= 3, 5_000, "three watch events");
      expect(events).toEqual([
        { type: "ADDED", name: "watched" },
        { type: "MODIFIED", name: "watched" },
        { type: "DELETED", name: "watched" },
      ]);
    } finally {
      controller.abort();
    }
  });

  it("an informer receives add, update and delete and keeps its cache", async () => {
    const namespace = "default";
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "inf-existing", labels: { inf: "yes" } } } });
    const informer = makeInformer<V1ConfigMap>(
      kc,
      `/api/v1/namespaces/${namespace}/configmaps`,
      () => core.listNamespacedConfigMap({ namespace, labelSelector: "inf=yes" }),
      "inf=yes",
    );
    const log: string[] = [];
    const errors: unknown[] = [];
    informer.on("add", (object) => log.push(`add ${object.metadata?.name}`));
    informer.on("update", (object) => log.push(`update ${object.metadata?.name} ${object.data?.["v"]}`));
    informer.on("delete", (object) => log.push(`delete ${object.metadata?.name}`));
    informer.on("error", (error) => errors.push(error));
    await informer.start();
    try {
      await waitFor(() => log.includes("add inf-existing"), 5_000, "initial list delivered as add");
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "inf-new", labels: { inf: "yes" } } } });
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "inf-unlabelled" } } });
      await waitFor(() => log.includes("add inf-new"), 5_000, "add");
      await core.patchNamespacedConfigMap(
        { namespace, name: "inf-new", body: { data: { v: "2" } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      await waitFor(() => log.includes("update inf-new 2"), 5_000, "update");
      expect(informer.get("inf-new", namespace)?.data).toEqual({ v: "2" });
      // Dropping the label takes the object out of the selection: the informer sees a delete.
      await core.patchNamespacedConfigMap(
        { namespace, name: "inf-existing", body: { metadata: { labels: { inf: null } } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedConfigMap({ namespace, name: "inf-new" });
      await waitFor(() => log.includes("delete inf-new") && log.includes("delete inf-existing"), 5_000, "deletes");
      expect(informer.list(namespace)).toEqual([]);
      expect(log.some((line) => line.includes("inf-unlabelled"))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it("informerReconnect: a label-selected ListWatch keeps delivering after the server ends its watch", async () => {
    const namespace = "default";
    const labelSelector = "informer-test=reconnect";
    const informer = new ListWatch<V1ConfigMap>(
      `/api/v1/namespaces/${namespace}/configmaps`,
      new ShortWatch(kc),
      () => core.listNamespacedConfigMap({ namespace, labelSelector }),
      false,
      labelSelector,
    );
    const added: string[] = [];
    let connects = 0;
    const errors: unknown[] = [];
    informer.on("add", (object) => added.push(object.metadata?.name ?? ""));
    informer.on("connect", () => connects++);
    informer.on("error", (error) => errors.push(error));
    try {
      await informer.start();
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "reconnect-1", labels: { "informer-test": "reconnect" } }, data: { key: "value1" } },
      });
      await waitFor(() => added.includes("reconnect-1"), 5_000, "add of the first configmap");
      await waitFor(() => connects > 1, 10_000, "a reconnect after the server closed the watch");
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "reconnect-2", labels: { "informer-test": "reconnect" } }, data: { key: "value2" } },
      });
      await waitFor(() => added.includes("reconnect-2"), 10_000, "add of the second configmap after reconnecting");
      // The reconnect resumed from the last resourceVersion: no replayed add for the first object.
      expect(added.filter((name) => name === "reconnect-1")).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await within(informer.stop(), 5_000, "informer stop");
    }
  }, 30_000);

  it("a ListWatch relists and keeps delivering after its resourceVersion is compacted away (410 Expired)", async () => {
    const storage = server.storage;
    if (!storage) throw new Error("the in-process server exposes its storage");
    const namespace = "default";
    const labelSelector = "informer-test=compacted";
    let lists = 0;
    const informer = new ListWatch<V1ConfigMap>(
      `/api/v1/namespaces/${namespace}/configmaps`,
      new ShortWatch(kc),
      () => {
        lists++;
        return core.listNamespacedConfigMap({ namespace, labelSelector });
      },
      false,
      labelSelector,
    );
    const added: string[] = [];
    const errors: unknown[] = [];
    informer.on("add", (object) => added.push(object.metadata?.name ?? ""));
    informer.on("error", (error) => errors.push(error));
    try {
      await informer.start();
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "compacted-1", labels: { "informer-test": "compacted" } } },
      });
      await waitFor(() => added.includes("compacted-1"), 5_000, "add of the first configmap");
      // Move the revision past the informer's resourceVersion with writes it does not select, then compact.
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "compacted-unselected" } } });
      await storage.compact(await storage.currentRevision());
      await waitFor(() => lists > 1, 10_000, "a relist after the watch answered 410 Expired");
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: "compacted-2", labels: { "informer-test": "compacted" } } },
      });
      await waitFor(() => added.includes("compacted-2"), 10_000, "add of the second configmap after the relist");
      expect(added.filter((name) => name === "compacted-1")).toHaveLength(1);
      expect(
        informer
          .list(namespace)
          .map((cm) => cm.metadata?.name)
          .sort(),
      ).toEqual(["compacted-1", "compacted-2"]);
      expect(errors).toEqual([]);
    } finally {
      await within(informer.stop(), 5_000, "informer stop");
    }
  }, 30_000);

  it("patchNamespace: a JSON patch replaces a namespace's labels", async () => {
    const name = "patch-ns-e2e";
    await core.createNamespace({ body: { metadata: { name, labels: { initialLabel: "initialValue" } } } });
    const created = await core.readNamespace({ name });
    expect(created.metadata?.labels?.["initialLabel"]).toBe("initialValue");
    await core.patchNamespace(
      { name, body: [{ op: "replace", path: "/metadata/labels", value: { foo: "bar" } }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    const patched = await core.readNamespace({ name });
    expect(patched.metadata?.labels?.["foo"]).toBe("bar");
    expect(patched.metadata?.labels?.["initialLabel"]).toBeUndefined();
  });

  it("KubernetesObjectApi finds resources through discovery and creates, reads, patches, lists and deletes", async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const lease: KubernetesObject & { spec?: Record<string, unknown> } = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "generic", namespace: "default", labels: { via: "object-api" } },
      spec: { holderIdentity: "a", leaseDurationSeconds: 15 },
    };
    const created = await objects.create(lease, undefined, undefined, "e2e-object-api");
    expect(created.metadata?.uid).toBeDefined();
    expect(created.metadata?.managedFields?.[0]?.manager).toBe("e2e-object-api");
    // Strategic merge (the default patch type of this API) on a built-in type.
    const patched = await objects.patch<typeof lease>({ ...lease, spec: { holderIdentity: "b" } });
    expect(patched.spec).toEqual({ holderIdentity: "b", leaseDurationSeconds: 15 });
    const read = await objects.read<typeof lease>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "generic", namespace: "default" },
    });
    expect(read.spec?.["holderIdentity"]).toBe("b");
    const list = await objects.list(
      "coordination.k8s.io/v1",
      "Lease",
      "default",
      undefined,
      undefined,
      undefined,
      undefined,
      "via=object-api",
    );
    expect(list.items.map((item) => item.metadata?.name)).toEqual(["generic"]);
    // A cluster-scoped kind: the namespace is taken from discovery, not the spec.
    const ns: KubernetesObject = await objects.create<KubernetesObject>({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "object-api-ns" },
    });
    expect(ns.metadata?.namespace).toBeUndefined();
    await objects.delete({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "generic", namespace: "default" } });
    await expect(
      objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "generic", namespace: "default" } }),
    ).rejects.toMatchObject({ code: 404 });
  });
});
