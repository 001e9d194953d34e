import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestNamespace, expectStatus, type Obj } from "./harness/framework.js";
import { KubeHttp } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of the namespace-deletion Conformance tests of test/e2e/apimachinery/namespace.go
// ("Namespaces [Serial] should ensure that all pods/services are removed when a namespace is
// deleted"), onto configmaps, secrets and a foreground-deleted owner, against a control plane
// running its controllers.

interface Namespace extends Obj {
  status?: { phase?: string };
}

let server: TestServer;
let http: KubeHttp;

beforeAll(async () => {
  server = await startInProcess({ controllers: true });
  http = new KubeHttp(server.url);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

/** upstream `waitForNamespaceDeletion`-like: polls until GET answers 404, failing after the deadline. */
async function waitForNamespaceGone(name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await http.get(`/api/v1/namespaces/${name}`);
    if (answer.status === 404) return;
    if (Date.now() > deadline) throw new Error(`namespace ${name} still there after ${timeoutMs} ms: ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ensureRemovedWhenNamespaceDeleted(resource: "configmaps" | "secrets", kind: string): Promise<void> {
  // Creating a test namespace; waiting for it to be active (it is, on create).
  const ns = await createTestNamespace(http, `nsdeletetest-${resource}`);
  expect((await http.get<Namespace>(`/api/v1/namespaces/${ns}`)).body.status?.phase).toBe("Active");
  // Creating an object in the namespace.
  const created = await http.post(`/api/v1/namespaces/${ns}/${resource}`, { apiVersion: "v1", kind, metadata: { name: "test-object" } });
  expectStatus(created, 201);
  // Deleting the namespace; waiting for it to be removed.
  const deleted = await http.delete<Namespace>(`/api/v1/namespaces/${ns}`);
  expectStatus(deleted, 200);
  expect(deleted.body.status?.phase).toBe("Terminating");
  await waitForNamespaceGone(ns, 5_000);
  // Recreating the namespace; verifying there are no objects in it.
  expectStatus(await http.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }), 201);
  const list = await http.get<{ items: Obj[] }>(`/api/v1/namespaces/${ns}/${resource}`);
  expectStatus(list, 200);
  expect(list.body.items).toEqual([]);
}

describe("Namespaces: deletion of a namespace with content", () => {
  // Ports: "should ensure that all pods are removed when a namespace is deleted" (onto configmaps)
  it("removes every configmap of a deleted namespace", async () => {
    await ensureRemovedWhenNamespaceDeleted("configmaps", "ConfigMap");
  });

  // Ports: "should ensure that all services are removed when a namespace is deleted" (onto secrets)
  it("removes every secret of a deleted namespace", async () => {
    await ensureRemovedWhenNamespaceDeleted("secrets", "Secret");
  });

  it("removes content that waits on foreground deletion of its dependents", async () => {
    const ns = await createTestNamespace(http, "nsdeletetest-fg");
    const owner = await http.post<Obj>(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "owner" },
    });
    expectStatus(owner, 201);
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid, blockOwnerDeletion: true };
    expectStatus(
      await http.post(`/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "dep", ownerReferences: [ref] },
      }),
      201,
    );
    expectStatus(
      await http.request("DELETE", `/api/v1/namespaces/${ns}/configmaps/owner`, { body: { propagationPolicy: "Foreground" } }),
      200,
    );
    expectStatus(await http.delete(`/api/v1/namespaces/${ns}`), 200);
    await waitForNamespaceGone(ns, 5_000);
  });
});
