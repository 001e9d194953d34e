import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestNamespace, expectStatus, updateObject, type Obj } from "./harness/framework.js";
import { KubeHttp, mergePatch, strategicMergePatch } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of test/e2e/apimachinery/namespace.go ("Namespaces"): patch, update, status and finalizer
// tests with upstream's assertions. The deletion of a namespace with content runs with the
// controllers in conformance-namespace-deletion.test.ts; OrderedNamespaceDeletion (pods first) has
// no counterpart on a server without pods.

interface Namespace extends Obj {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

let server: TestServer;
let http: KubeHttp;

beforeAll(async () => {
  server = await startInProcess();
  http = new KubeHttp(server.url);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

const nsPath = (name: string, sub = "") => `/api/v1/namespaces/${name}${sub}`;

describe("[sig-api-machinery] Namespaces [Serial]", () => {
  it("should patch a Namespace", async () => {
    const ns = await createTestNamespace(http, "nspatchtest");
    expectStatus(await http.patch(nsPath(ns), { metadata: { labels: { testLabel: "testValue" } } }, strategicMergePatch), 200);
    const fetched = await http.get<Namespace>(nsPath(ns));
    expect(fetched.body.metadata.labels?.["testLabel"]).toBe("testValue");
  });

  it("should apply an update to a Namespace", async () => {
    const ns = await createTestNamespace(http, "e2e-ns");
    const updated = await updateObject(http, nsPath(ns), (object) => {
      object.metadata.labels = { ...object.metadata.labels, "e2e-Namespace": ns };
    });
    expect(updated.metadata.labels?.["e2e-Namespace"]).toBe(ns);
  });

  it("should apply changes to a namespace status", async () => {
    const ns = await createTestNamespace(http, "namespaces");
    const status = await http.get<Namespace>(nsPath(ns, "/status"));
    expectStatus(status, 200);
    expect(status.body.status?.phase).toBe("Active");

    const condition = { type: "StatusPatch", status: "True", reason: "E2E", message: "Patched by an e2e test" };
    const patched = await http.patch<Namespace>(
      nsPath(ns, "/status"),
      { metadata: { annotations: { "e2e-patched-ns-status": ns } }, status: { conditions: [condition] } },
      mergePatch,
    );
    expectStatus(patched, 200);
    expect(patched.body.metadata.annotations?.["e2e-patched-ns-status"]).toBe(ns);
    expect(patched.body.status?.conditions).toContainEqual(expect.objectContaining(condition));

    let updated: Namespace | undefined;
    for (let attempt = 0; attempt < 5 && !updated; attempt++) {
      const current = await http.get<Namespace>(nsPath(ns, "/status"));
      current.body.status = {
        ...current.body.status,
        conditions: [
          ...(current.body.status?.conditions ?? []),
          { type: "StatusUpdate", status: "True", reason: "E2E", message: "Updated by an e2e test" },
        ],
      };
      const answer = await http.put<Namespace>(nsPath(ns, "/status"), current.body);
      if (answer.status === 409) continue;
      expectStatus(answer, 200);
      updated = answer.body;
    }
    const conditions = updated?.status?.conditions ?? [];
    expect(conditions.map((c) => c.type)).toEqual(["StatusPatch", "StatusUpdate"]);
    expect(conditions.at(-1)?.message).toBe("Updated by an e2e test");
  });

  it("should apply a finalizer to a Namespace", async () => {
    const fakeFinalizer = "e2e.example.com/fakeFinalizer";
    const ns = await createTestNamespace(http, "e2e-ns");
    const initial = await http.get<Namespace>(nsPath(ns));
    expect(initial.body.spec?.finalizers).toEqual(["kubernetes"]);

    const finalize = async (change: (finalizers: string[]) => string[]): Promise<Namespace> => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const current = await http.get<Namespace>(nsPath(ns));
        current.body.spec = { ...current.body.spec, finalizers: change(current.body.spec?.finalizers ?? []) };
        const answer = await http.put<Namespace>(nsPath(ns, "/finalize"), current.body);
        if (answer.status === 409) continue;
        expectStatus(answer, 200);
        return answer.body;
      }
      throw new Error("finalize kept conflicting");
    };

    const added = await finalize((finalizers) => [...finalizers, fakeFinalizer]);
    expect(added.spec?.finalizers).toContain(fakeFinalizer);
    expect((await http.get<Namespace>(nsPath(ns))).body.spec?.finalizers).toEqual(["kubernetes", fakeFinalizer]);

    const removed = await finalize((finalizers) => finalizers.filter((f) => f !== fakeFinalizer));
    expect(removed.spec?.finalizers).not.toContain(fakeFinalizer);
    expect(removed.spec?.finalizers).toEqual(["kubernetes"]);
  });
});
