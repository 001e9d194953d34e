import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../src/controllers/test-support.js";
import { createTestNamespace, expectStatus, type Obj } from "./harness/framework.js";
import { KubeHttp, mergePatch } from "./harness/http.js";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

// Ports of test/e2e/apimachinery/resource_quota.go ("ResourceQuota") for the object counts a
// generic control plane has: the quota's status is calculated, creates are charged and refused
// over the limit, deletes are given back, and the controller restores a status edited by hand.
// The pod, service and scope cases need pods and have no counterpart here.

interface Quota extends Obj {
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
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

const quotaPath = (ns: string, name = "", sub = "") => `/api/v1/namespaces/${ns}/resourcequotas${name ? `/${name}` : ""}${sub}`;
const path = (ns: string, plural: string, name = "") => `/api/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ""}`;

/** Waits until the quota's status shows `used` for every named resource (upstream `waitForResourceQuota`). */
async function waitForUsage(ns: string, name: string, used: Record<string, string>): Promise<Quota> {
  return eventually(`quota ${ns}/${name} to use ${JSON.stringify(used)}`, async () => {
    const quota = (await http.get<Quota>(quotaPath(ns, name))).body;
    return Object.entries(used).every(([resource, value]) => quota.status?.used?.[resource] === value) ? quota : undefined;
  });
}

async function count(ns: string, plural: string): Promise<number> {
  return ((await http.get<{ items: unknown[] }>(path(ns, plural))).body as { items: unknown[] }).items.length;
}

describe("[sig-api-machinery] ResourceQuota", () => {
  it("should create a ResourceQuota and ensure its status is promptly calculated", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    const hard = { configmaps: "10", secrets: "10", resourcequotas: "1", "count/leases.coordination.k8s.io": "5" };
    expectStatus(await http.post(quotaPath(ns), { metadata: { name: "test-quota" }, spec: { hard } }), 201);
    const quota = await waitForUsage(ns, "test-quota", {
      resourcequotas: "1",
      configmaps: String(await count(ns, "configmaps")),
      secrets: String(await count(ns, "secrets")),
      "count/leases.coordination.k8s.io": "0",
    });
    expect(quota.status?.hard).toEqual(hard);
  });

  for (const [plural, body] of [
    ["configmaps", { data: { a: "b" } }],
    ["secrets", { type: "Opaque", data: { a: "Yg==" } }],
  ] as const) {
    it(`should create a ResourceQuota and capture the life of a ${plural === "configmaps" ? "configMap" : "secret"}`, async () => {
      const ns = await createTestNamespace(http, "resourcequota");
      const existing = await count(ns, plural);
      expectStatus(
        await http.post(quotaPath(ns), {
          metadata: { name: "test-quota" },
          spec: { hard: { [plural]: String(existing + 1), resourcequotas: "1" } },
        }),
        201,
      );
      await waitForUsage(ns, "test-quota", { [plural]: String(existing), resourcequotas: "1" });

      // Creating one captures its usage.
      expectStatus(await http.post(path(ns, plural), { metadata: { name: "test-object" }, ...body }), 201);
      await waitForUsage(ns, "test-quota", { [plural]: String(existing + 1) });

      // Not allowing one to be created that exceeds remaining quota.
      const refused = await http.post<{ message: string; reason: string; code: number }>(path(ns, plural), {
        metadata: { name: "too-many" },
        ...body,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.reason).toBe("Forbidden");
      expect(refused.body.message).toBe(
        `${plural} "too-many" is forbidden: exceeded quota: test-quota, requested: ${plural}=1, used: ${plural}=${existing + 1}, limited: ${plural}=${existing + 1}`,
      );

      // Deleting it releases the usage.
      expectStatus(await http.delete(path(ns, plural, "test-object")), 200);
      await waitForUsage(ns, "test-quota", { [plural]: String(existing) });
      expectStatus(await http.post(path(ns, plural), { metadata: { name: "fits-again" }, ...body }), 201);
    });
  }

  it("should be able to update and delete ResourceQuota", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    expectStatus(await http.post(quotaPath(ns), { metadata: { name: "test-quota" }, spec: { hard: { cpu: "1", memory: "500Mi" } } }), 201);
    const fetched = await http.get<Quota>(quotaPath(ns, "test-quota"));
    expect(fetched.body.spec?.hard).toEqual({ cpu: "1", memory: "500Mi" });
    const updated = await http.put<Quota>(quotaPath(ns, "test-quota"), { ...fetched.body, spec: { hard: { cpu: "2", memory: "1Gi" } } });
    expectStatus(updated, 200);
    expect((await http.get<Quota>(quotaPath(ns, "test-quota"))).body.spec?.hard).toEqual({ cpu: "2", memory: "1Gi" });
    expectStatus(await http.delete(quotaPath(ns, "test-quota")), 200);
    expect((await http.get(quotaPath(ns, "test-quota"))).status).toBe(404);
  });

  it("should apply changes to a resourcequota status", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    const hard = { configmaps: "3" };
    expectStatus(await http.post(quotaPath(ns), { metadata: { name: "e2e-rq-status" }, spec: { hard } }), 201);
    await waitForUsage(ns, "e2e-rq-status", { configmaps: String(await count(ns, "configmaps")) });
    const patched = await http.patch<Quota>(
      quotaPath(ns, "e2e-rq-status", "/status"),
      { status: { hard: { configmaps: "7" } } },
      mergePatch,
    );
    expectStatus(patched, 200);
    expect(patched.body.status?.hard).toEqual({ configmaps: "7" });
    expect(patched.body.spec?.hard).toEqual(hard);
    // The controller puts the spec's hard limits back.
    await eventually("the controller to restore status.hard", async () => {
      const quota = (await http.get<Quota>(quotaPath(ns, "e2e-rq-status"))).body;
      return quota.status?.hard?.["configmaps"] === "3" ? quota : undefined;
    });
  });

  it("refuses a create while no controller has calculated the quota's status", async () => {
    const bare = await startInProcess();
    try {
      const client = new KubeHttp(bare.url);
      expectStatus(await client.post(quotaPath("default"), { metadata: { name: "fresh" }, spec: { hard: { configmaps: "5" } } }), 201);
      const refused = await client.post<{ message: string }>(path("default", "configmaps"), { metadata: { name: "c" } });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('configmaps "c" is forbidden: status unknown for quota: fresh, resources: configmaps');
    } finally {
      await bare.close();
    }
  });

  it("counts any namespaced type as count/<resource>.<group>, and charges a dry run nothing", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    expectStatus(
      await http.post(quotaPath(ns), { metadata: { name: "leases" }, spec: { hard: { "count/leases.coordination.k8s.io": "1" } } }),
      201,
    );
    await waitForUsage(ns, "leases", { "count/leases.coordination.k8s.io": "0" });
    const lease = { metadata: { name: "l" }, spec: { holderIdentity: "x" } };
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    expectStatus(await http.post(`${leases}?dryRun=All`, lease), 201);
    expect((await http.get<Quota>(quotaPath(ns, "leases"))).body.status?.used).toEqual({ "count/leases.coordination.k8s.io": "0" });
    expectStatus(await http.post(leases, lease), 201);
    const refused = await http.post<{ message: string }>(leases, { ...lease, metadata: { name: "l2" } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      'leases.coordination.k8s.io "l2" is forbidden: exceeded quota: leases, requested: count/leases.coordination.k8s.io=1, used: count/leases.coordination.k8s.io=1, limited: count/leases.coordination.k8s.io=1',
    );
  });

  it("lets exactly as many concurrent creates through as the quota allows", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    const existing = await count(ns, "configmaps");
    expectStatus(
      await http.post(quotaPath(ns), { metadata: { name: "tight" }, spec: { hard: { configmaps: String(existing + 3) } } }),
      201,
    );
    await waitForUsage(ns, "tight", { configmaps: String(existing) });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => http.post(path(ns, "configmaps"), { metadata: { name: `c${i}` } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(9);
    expect(await count(ns, "configmaps")).toBe(existing + 3);
  });

  it("rejects invalid quotas naming the field and the rule", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    const bad = await http.post<{ message: string; code: number }>(quotaPath(ns), {
      metadata: { name: "bad" },
      spec: { hard: { widgets: "1", configmaps: "-1", secrets: "1.5", "count/x": "2Q" } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'ResourceQuota "bad" is invalid: [spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota, ' +
        'spec.hard[configmaps]: Invalid value: "-1": must be greater than or equal to 0, spec.hard[secrets]: Invalid value: "1.5": must be an integer, ' +
        "spec.hard[count/x]: Invalid value: \"2Q\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$']",
    );
  });

  it("validates scope selectors as upstream: operators per scope, values per operator, known scopes", async () => {
    const ns = await createTestNamespace(http, "resourcequota");
    const matchExpressions = [
      { scopeName: "Terminating", operator: "In", values: ["x"] },
      { scopeName: "PriorityClass", operator: "Exists", values: ["a"] },
      { scopeName: "Foo", operator: "Exists" },
    ];
    const bad = await http.post<{ message: string }>(quotaPath(ns), {
      metadata: { name: "bad" },
      spec: { hard: { pods: "1" }, scopeSelector: { matchExpressions } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'ResourceQuota "bad" is invalid: [spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be \'Exist\' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity, ' +
        "spec.scopeSelector.matchExpressions.values: Invalid value: [\"a\"]: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector, " +
        'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Foo": unsupported scope]',
    );
    const conflicting = await http.post<{ message: string }>(quotaPath(ns), {
      metadata: { name: "both" },
      spec: { hard: { pods: "1", "requests.storage": "1Gi" }, scopes: ["BestEffort", "NotBestEffort"] },
    });
    // Identical errors (requests.storage under either scope) print once, as field.ErrorList.ToAggregate does.
    expect(conflicting.body.message).toBe(
      'ResourceQuota "both" is invalid: [spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: unsupported scope applied to resource, spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes]',
    );
  });

  it("kubectl creates a quota and shows its usage", async () => {
    const kubectl = new Kubectl(await findKubectl132(), server);
    const ns = await createTestNamespace(http, "resourcequota");
    // A fresh namespace holds no secrets, so two fit under secrets=2.
    expect(await count(ns, "secrets")).toBe(0);
    await kubectl.ok(["create", "quota", "objects", "-n", ns, "--hard=configmaps=4,secrets=2"]);
    await waitForUsage(ns, "objects", { configmaps: String(await count(ns, "configmaps")), secrets: String(await count(ns, "secrets")) });
    await kubectl.ok(["create", "configmap", "one", "-n", ns]);
    const used = String(await count(ns, "configmaps"));
    await waitForUsage(ns, "objects", { configmaps: used });
    const table = parseTable(await kubectl.ok(["get", "quota", "-n", ns]));
    expect(table.header).toEqual(["NAME", "AGE", "REQUEST", "LIMIT"]);
    expect(table.rows[0]?.[0]).toBe("objects");
    expect(table.rows[0]?.[2]).toBe(`configmaps: ${used}/4, secrets: ${await count(ns, "secrets")}/2`);
    await kubectl.ok(["create", "secret", "generic", "s1", "-n", ns]);
    await kubectl.ok(["create", "secret", "generic", "s2", "-n", ns]);
    const over = await kubectl.run(["create", "secret", "generic", "s3", "-n", ns]);
    expect(over.code).not.toBe(0);
    expect(over.stderr).toContain(
      'secrets "s3" is forbidden: exceeded quota: objects, requested: secrets=1, used: secrets=2, limited: secrets=2',
    );
  });
});
