import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMapPath, createTestNamespace, expectStatus, updateObject, type Obj } from "./harness/framework.js";
import { KubeHttp, strategicMergePatch, type WatchStream } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of the API-only Conformance tests of ConfigMap (test/e2e/common/node/configmap.go and the
// immutable test of common/storage), Secret (common/node/secrets.go), ServiceAccount
// (auth/service_accounts.go), Event (instrumentation/core_events.go and events.go) and Lease
// (common/node/lease.go), keeping upstream's steps and assertions on the API objects. The ServiceAccount
// test of kube-root-ca.crt needs a CA, so it runs over HTTPS in conformance-root-ca.test.ts;
// TokenRequest/TokenReview and OIDC discovery are ported in conformance-auth.test.ts.

interface List<T = Obj> {
  kind: string;
  metadata: { resourceVersion: string };
  items: T[];
}

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { reason: string; field: string; message: string }[] };
}

let server: TestServer;
let http: KubeHttp;
const watches: WatchStream[] = [];

beforeAll(async () => {
  server = await startInProcess();
  http = new KubeHttp(server.url);
}, 30_000);

afterAll(async () => {
  for (const watch of watches) watch.close();
  await server?.close();
});

const b64 = (text: string) => Buffer.from(text).toString("base64");
const uid = () => Math.random().toString(36).slice(2, 10);

describe("[sig-node] ConfigMap", () => {
  it("should run through a ConfigMap lifecycle", async () => {
    const ns = await createTestNamespace(http, "configmap");
    const name = `test-configmap${uid()}`;
    expectStatus(
      await http.post(configMapPath(ns), { metadata: { name, labels: { "test-configmap-static": "true" } }, data: { valueName: "value" } }),
      201,
    );
    const fetched = await http.get<Obj>(configMapPath(ns, name));
    expect(fetched.body.data?.["valueName"]).toBe("value");
    expect(fetched.body.metadata.labels?.["test-configmap-static"]).toBe("true");

    const patched = await http.patch(
      configMapPath(ns, name),
      { metadata: { labels: { "test-configmap": "patched" } }, data: { valueName: "value1" } },
      strategicMergePatch,
    );
    expectStatus(patched, 200);

    const all = await http.get<List>(`/api/v1/configmaps?labelSelector=${encodeURIComponent("test-configmap=patched")}`);
    expectStatus(all, 200);
    const found = all.body.items.find(
      (cm) =>
        cm.metadata.name === name &&
        cm.metadata.namespace === ns &&
        cm.metadata.labels?.["test-configmap-static"] === "true" &&
        cm.metadata.labels["test-configmap"] === "patched" &&
        cm.data?.["valueName"] === "value1",
    );
    expect(found).toBeDefined();

    expectStatus(await http.delete(`${configMapPath(ns)}?labelSelector=${encodeURIComponent("test-configmap-static=true")}`), 200);
    const after = await http.get<List>(`${configMapPath(ns)}?labelSelector=${encodeURIComponent("test-configmap-static=true")}`);
    expect(after.body.items).toHaveLength(0);
  });

  it("should update ConfigMap successfully", async () => {
    const ns = await createTestNamespace(http, "configmap");
    const name = `configmap-test-upd-${uid()}`;
    expectStatus(await http.post(configMapPath(ns), { metadata: { name, namespace: ns } }), 201);
    const updated = await http.put(configMapPath(ns, name), { metadata: { name, namespace: ns }, data: { data: "value" } });
    expectStatus(updated, 200);
    expect((await http.get<Obj>(configMapPath(ns, name))).body.data).toEqual({ data: "value" });
  });

  it("should fail to create ConfigMap with empty key", async () => {
    const ns = await createTestNamespace(http, "configmap");
    const answer = await http.post<StatusBody>(configMapPath(ns), {
      metadata: { name: `configmap-test-emptykey-${uid()}` },
      data: { "": "value-1" },
    });
    expectStatus(answer, 422);
    expect(answer.body.kind).toBe("Status");
    expect(answer.body.reason).toBe("Invalid");
    expect(answer.body.details?.causes?.map((cause) => cause.field)).toContain("data[]");
  });

  it("should be immutable if `immutable` field is set", async () => {
    const ns = await createTestNamespace(http, "configmap");
    const name = `immutable-${uid()}`;
    expectStatus(await http.post(configMapPath(ns), { metadata: { name }, data: { data: "value" } }), 201);
    // Mutable until marked immutable; then data changes and un-marking are refused, deletion works.
    const marked = await http.patch<Obj>(configMapPath(ns, name), { immutable: true, data: { data: "value-2" } }, strategicMergePatch);
    expectStatus(marked, 200);
    expect(marked.body["immutable"]).toBe(true);
    const change = await http.patch<StatusBody>(configMapPath(ns, name), { data: { data: "value-3" } }, strategicMergePatch);
    expectStatus(change, 422);
    expect(change.body.message).toContain("field is immutable when `immutable` is set");
    const unmark = await http.patch<StatusBody>(configMapPath(ns, name), { immutable: false }, strategicMergePatch);
    expectStatus(unmark, 422);
    // Metadata stays mutable.
    expectStatus(await http.patch(configMapPath(ns, name), { metadata: { labels: { ok: "yes" } } }, strategicMergePatch), 200);
    expectStatus(await http.delete(configMapPath(ns, name)), 200);
    expectStatus(await http.post(configMapPath(ns), { metadata: { name }, data: { data: "fresh" } }), 201);
  });
});

describe("[sig-node] Secrets", () => {
  const secretPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/secrets${name === undefined ? "" : `/${name}`}`;

  it("should patch a secret", async () => {
    const ns = await createTestNamespace(http, "secrets");
    const name = `test-secret-${uid()}`;
    const created = await http.post(secretPath(ns), {
      metadata: { name, labels: { "testsecret-constant": "true" } },
      data: { key: b64("value") },
      type: "Opaque",
    });
    expectStatus(created, 201);
    const listed = await http.get<List>(`/api/v1/secrets?labelSelector=${encodeURIComponent("testsecret-constant=true")}`);
    expect(listed.body.items.some((s) => s.metadata.name === name && s.metadata.namespace === ns)).toBe(true);

    const patched = await http.patch(
      secretPath(ns, name),
      { metadata: { labels: { testsecret: "true" } }, data: { key: b64("value1") } },
      strategicMergePatch,
    );
    expectStatus(patched, 200);
    const fetched = await http.get<Obj>(secretPath(ns, name));
    expect(Buffer.from(fetched.body.data?.["key"] ?? "", "base64").toString()).toBe("value1");
    expect(fetched.body.metadata.labels?.["testsecret"]).toBe("true");

    expectStatus(await http.delete(`${secretPath(ns)}?labelSelector=${encodeURIComponent("testsecret-constant=true")}`), 200);
    const after = await http.get<List>(`/api/v1/secrets?labelSelector=${encodeURIComponent("testsecret-constant=true")}`);
    expect(after.body.items.some((s) => s.metadata.name === name)).toBe(false);
  });

  it("should fail to create secret due to empty secret key", async () => {
    const ns = await createTestNamespace(http, "secrets");
    const answer = await http.post<StatusBody>(secretPath(ns), {
      metadata: { name: `secret-emptykey-test-${uid()}` },
      data: { "": b64("value-1\n") },
    });
    expectStatus(answer, 422);
    expect(answer.body.reason).toBe("Invalid");
  });

  it("should be immutable if `immutable` field is set", async () => {
    const ns = await createTestNamespace(http, "secrets");
    const name = `immutable-${uid()}`;
    expectStatus(await http.post(secretPath(ns), { metadata: { name }, data: { data: b64("value") } }), 201);
    expectStatus(await http.patch(secretPath(ns, name), { immutable: true, data: { data: b64("value-2") } }, strategicMergePatch), 200);
    expectStatus(await http.patch(secretPath(ns, name), { data: { data: b64("value-3") } }, strategicMergePatch), 422);
    expectStatus(await http.patch(secretPath(ns, name), { stringData: { data: "value-4" } }, strategicMergePatch), 422);
    expectStatus(await http.patch(secretPath(ns, name), { immutable: false }, strategicMergePatch), 422);
    expectStatus(await http.patch(secretPath(ns, name), { metadata: { labels: { ok: "yes" } } }, strategicMergePatch), 200);
    expectStatus(await http.delete(secretPath(ns, name)), 200);
  });
});

describe("[sig-auth] ServiceAccounts", () => {
  const saPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/serviceaccounts${name === undefined ? "" : `/${name}`}`;

  it("should run through the lifecycle of a ServiceAccount", async () => {
    const ns = await createTestNamespace(http, "svcaccounts");
    const name = "testserviceaccount";
    const selector = encodeURIComponent("test-serviceaccount-static=true");
    const watch = await http.watch(`${saPath(ns)}?labelSelector=${selector}`);
    watches.push(watch);

    expectStatus(await http.post(saPath(ns), { metadata: { name, labels: { "test-serviceaccount-static": "true" } } }), 201);
    expect((await watch.next()).type).toBe("ADDED");

    const patched = await http.patch<Obj>(
      saPath(ns, name),
      { metadata: { labels: { "test-serviceaccount": "patched" } }, automountServiceAccountToken: false },
      strategicMergePatch,
    );
    expectStatus(patched, 200);
    const modified = await watch.next();
    expect(modified.type).toBe("MODIFIED");
    expect((modified.object as Obj)["automountServiceAccountToken"]).toBe(false);
    expect((modified.object as Obj).metadata.labels?.["test-serviceaccount"]).toBe("patched");

    const listed = await http.get<List>(`/api/v1/serviceaccounts?labelSelector=${selector}`);
    expect(listed.body.items.some((sa) => sa.metadata.name === name && sa.metadata.namespace === ns)).toBe(true);

    expectStatus(await http.delete(`${saPath(ns)}?labelSelector=${selector}`), 200);
    expect((await watch.next()).type).toBe("DELETED");
  });

  it("should update a ServiceAccount", async () => {
    const ns = await createTestNamespace(http, "svcaccounts");
    const name = `e2e-sa-${uid()}`;
    expectStatus(await http.post(saPath(ns), { metadata: { name } }), 201);
    const updated = await updateObject(http, saPath(ns, name), (sa) => {
      sa["automountServiceAccountToken"] = true;
    });
    expect(updated["automountServiceAccountToken"]).toBe(true);
    expect((await http.get<Obj>(saPath(ns, name))).body["automountServiceAccountToken"]).toBe(true);
  });
});

describe("[sig-instrumentation] Events", () => {
  const eventPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/events${name === undefined ? "" : `/${name}`}`;
  const event = (ns: string, name: string, labels: Record<string, string>) => ({
    metadata: { name, labels },
    message: "This is a test event",
    reason: "Test",
    type: "Normal",
    count: 1,
    involvedObject: { namespace: ns },
  });

  it("should manage the lifecycle of an event", async () => {
    const ns = await createTestNamespace(http, "events");
    const name = "event-test";
    expectStatus(await http.post(eventPath(ns), event(ns, name, { "testevent-constant": "true" })), 201);
    const listed = await http.get<List>(`/api/v1/events?labelSelector=${encodeURIComponent("testevent-constant=true")}`);
    expect(listed.body.items.some((e) => e.metadata.name === name && e.metadata.namespace === ns)).toBe(true);

    const patched = await http.patch(eventPath(ns, name), { message: "This is a test event - patched" }, strategicMergePatch);
    expectStatus(patched, 200);
    expect((await http.get<Obj>(eventPath(ns, name))).body["message"]).toBe("This is a test event - patched");

    // Update with a series, resourceVersion and managedFields cleared; the stored object then
    // equals what was sent, apart from those two server-set fields.
    const testEvent = (await http.get<Obj>(eventPath(ns, name))).body;
    testEvent["series"] = { count: 100, lastObservedTime: "2017-09-19T13:49:16.000000Z" };
    testEvent.metadata.resourceVersion = "";
    delete testEvent.metadata.managedFields;
    expectStatus(await http.put(eventPath(ns, name), testEvent), 200);
    const stored = (await http.get<Obj>(eventPath(ns, name))).body;
    stored.metadata.resourceVersion = "";
    delete stored.metadata.managedFields;
    expect(stored).toEqual(testEvent);

    expectStatus(await http.delete(eventPath(ns, name)), 200);
    const after = await http.get<List>(`/api/v1/events?labelSelector=${encodeURIComponent("testevent-constant=true")}`);
    expect(after.body.items.some((e) => e.metadata.name === name)).toBe(false);
  });

  it("should delete a collection of events", async () => {
    const ns = await createTestNamespace(http, "events");
    for (const name of ["test-event-1", "test-event-2", "test-event-3"]) {
      expectStatus(await http.post(eventPath(ns), event(ns, name, { "testevent-set": "true" })), 201);
    }
    const selector = encodeURIComponent("testevent-set=true");
    expect((await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`)).body.items).toHaveLength(3);
    expectStatus(await http.delete(`${eventPath(ns)}?labelSelector=${selector}`), 200);
    expect((await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`)).body.items).toHaveLength(0);
  });
});

describe("[sig-instrumentation] Events API", () => {
  const eventPath = (ns: string, name?: string) => `/apis/events.k8s.io/v1/namespaces/${ns}/events${name === undefined ? "" : `/${name}`}`;
  const event = (ns: string, name: string, labels: Record<string, string>) => ({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, labels },
    regarding: { namespace: ns },
    eventTime: "2017-09-19T13:49:16.000000Z",
    note: `This is ${name}`,
    action: "Do",
    reason: "Test",
    type: "Normal",
    reportingController: "test-controller",
    reportingInstance: "test-node",
  });

  it("should ensure that an event can be fetched, patched, deleted, and listed", async () => {
    const ns = await createTestNamespace(http, "events");
    const name = "event-test";
    const created = await http.post<Obj>(eventPath(ns), event(ns, name, { "testevent-constant": "true" }));
    expectStatus(created, 201);
    expect(created.body["eventTime"]).toBe("2017-09-19T13:49:16.000000Z");

    const selector = encodeURIComponent("testevent-constant=true");
    const inAll = await http.get<List>(`/apis/events.k8s.io/v1/events?labelSelector=${selector}`);
    expect(inAll.body.items.some((e) => e.metadata.name === name && e.metadata.namespace === ns)).toBe(true);
    const inNamespace = await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`);
    expect(inNamespace.body.items.some((e) => e.metadata.name === name)).toBe(true);

    // The same event through core/v1, selected by its reporting controller as `source`.
    const bySource = await http.get<List>(`/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent("source=test-controller")}`);
    expectStatus(bySource, 200);
    expect(bySource.body.items.map((e) => e.metadata.name)).toEqual([name]);
    const byController = await http.get<List>(
      `${eventPath(ns)}?fieldSelector=${encodeURIComponent("reportingController=test-controller")}`,
    );
    expectStatus(byController, 200);
    expect(byController.body.items.map((e) => e.metadata.name)).toEqual([name]);

    const testEvent = (await http.get<Obj>(eventPath(ns, name))).body;
    // client-go's two-way strategic merge patch from the event to the event with a series.
    const series = { count: 2, lastObservedTime: "2017-09-19T13:49:16.000000Z" };
    expectStatus(await http.patch(eventPath(ns, name), { series }, strategicMergePatch), 200);
    const patched = (await http.get<Obj>(eventPath(ns, name))).body;
    const strip = (object: Obj) => {
      object.metadata.resourceVersion = "";
      delete object.metadata.managedFields;
    };
    strip(patched);
    strip(testEvent);
    testEvent["series"] = series;
    expect(patched).toEqual(testEvent);

    testEvent["series"] = { count: 100, lastObservedTime: "2017-09-19T13:49:16.000000Z" };
    expectStatus(await http.put(eventPath(ns, name), testEvent), 200);
    const updated = (await http.get<Obj>(eventPath(ns, name))).body;
    strip(updated);
    expect(updated).toEqual(testEvent);

    expectStatus(await http.delete(eventPath(ns, name)), 200);
    const afterAll = await http.get<List>(`/apis/events.k8s.io/v1/events?labelSelector=${selector}`);
    expect(afterAll.body.items.some((e) => e.metadata.name === name && e.metadata.namespace === ns)).toBe(false);
    const afterNamespace = await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`);
    expect(afterNamespace.body.items.some((e) => e.metadata.name === name)).toBe(false);
  });

  it("should delete a collection of events", async () => {
    const ns = await createTestNamespace(http, "events");
    for (const name of ["test-event-1", "test-event-2", "test-event-3"]) {
      expectStatus(await http.post(eventPath(ns), event(ns, name, { "testevent-set": "true" })), 201);
    }
    const selector = encodeURIComponent("testevent-set=true");
    expect((await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`)).body.items).toHaveLength(3);
    expectStatus(await http.delete(`${eventPath(ns)}?labelSelector=${selector}`), 200);
    expect((await http.get<List>(`${eventPath(ns)}?labelSelector=${selector}`)).body.items).toHaveLength(0);
  });
});

describe("events.k8s.io/v1 and core/v1 serve the same events", () => {
  it("an event written through one API is read, listed and deleted through the other", async () => {
    const ns = await createTestNamespace(http, "events");
    const created = await http.post<Obj>(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      metadata: { name: "shared" },
      regarding: { namespace: ns, kind: "ConfigMap", name: "x" },
      note: "written as events.k8s.io/v1",
      reason: "Test",
      action: "Test",
      type: "Normal",
      eventTime: "2023-01-02T03:04:05.000001Z",
      reportingController: "test-controller",
      reportingInstance: "test-node",
    });
    expectStatus(created, 201);
    const core = await http.get<Obj>(`/api/v1/namespaces/${ns}/events/shared`);
    expectStatus(core, 200);
    expect(core.body["message"]).toBe("written as events.k8s.io/v1");
    expect(core.body["involvedObject"]).toMatchObject({ kind: "ConfigMap", name: "x", namespace: ns });
    expect(core.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expectStatus(await http.delete(`/api/v1/namespaces/${ns}/events/shared`), 200);
    expectStatus(await http.get(`/apis/events.k8s.io/v1/namespaces/${ns}/events/shared`), 404);
  });
});

describe("[sig-node] Lease", () => {
  const leasePath = (ns: string, name?: string) =>
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${name === undefined ? "" : `/${name}`}`;
  const spec = (holder: string, day: string, duration = 30) => ({
    holderIdentity: holder,
    leaseDurationSeconds: duration,
    acquireTime: `2018-01-${day}T00:00:00.000000Z`,
    renewTime: `2018-01-${day}T00:00:00.000000Z`,
  });

  it("lease API should be available", async () => {
    const ns = await createTestNamespace(http, "lease-test");
    const created = await http.post<Obj>(leasePath(ns), {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "lease" },
      spec: spec("holder", "01"),
    });
    expectStatus(created, 201);
    const read = await http.get<Obj>(leasePath(ns, "lease"));
    expect(read.body["spec"]).toEqual(spec("holder", "01"));
    expect(read.body["spec"]).toEqual(created.body["spec"]);

    const updated = await http.put<Obj>(leasePath(ns, "lease"), { ...created.body, spec: spec("holder2", "02") });
    expectStatus(updated, 200);
    expect((await http.get<Obj>(leasePath(ns, "lease"))).body["spec"]).toEqual(spec("holder2", "02"));

    // The two-way strategic merge patch client-go computes from old and new spec.
    const patched = await http.patch<Obj>(
      leasePath(ns, "lease"),
      {
        spec: {
          holderIdentity: "holder3",
          acquireTime: "2018-01-03T00:00:00.000000Z",
          renewTime: "2018-01-03T00:00:00.000000Z",
          leaseDurationSeconds: 60,
        },
      },
      strategicMergePatch,
    );
    expectStatus(patched, 200);
    expect((await http.get<Obj>(leasePath(ns, "lease"))).body["spec"]).toEqual(spec("holder3", "03", 60));

    expectStatus(
      await http.post(leasePath(ns), {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "lease2", labels: { deletecollection: "true" } },
        spec: spec("holder", "01"),
      }),
      201,
    );
    expect((await http.get<List>(leasePath(ns))).body.items).toHaveLength(2);
    expectStatus(await http.delete(`${leasePath(ns)}?labelSelector=${encodeURIComponent("deletecollection=true")}`), 200);
    expect((await http.get<List>(leasePath(ns))).body.items.map((l) => l.metadata.name)).toEqual(["lease"]);

    expectStatus(await http.delete(leasePath(ns, "lease")), 200);
    const gone = await http.get<StatusBody>(leasePath(ns, "lease"));
    expectStatus(gone, 404);
    expect(gone.body.reason).toBe("NotFound");
    expect(gone.body.message).toBe('leases.coordination.k8s.io "lease" not found');

    // The API is served cluster-wide as well.
    expectStatus(await http.get("/apis/coordination.k8s.io/v1/leases"), 200);
  });
});
