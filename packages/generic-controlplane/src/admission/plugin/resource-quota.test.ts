// The ResourceQuota extension point: a library user's evaluator measures its own resource, the
// admission plugin charges it (creates and updates) with upstream's messages, and the
// `resourcequota` controller sums it over the namespace and gives it back on delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane } from "../../control-plane.js";
import { eventually } from "../../controllers/test-support.js";
import { countOf, type QuotaEvaluator } from "../../registry/index.js";

/** Counts a ConfigMap's data keys as `example.com/keys`, and takes the `BestEffort` scope for those labelled `tier: free`. */
const keysEvaluator: QuotaEvaluator = {
  group: "",
  resource: "configmaps",
  matchingResources: (names) => names.filter((name) => name === "example.com/keys" || name === "configmaps"),
  usage: (object) =>
    new Map([
      ["configmaps", countOf(1)],
      ["example.com/keys", countOf(Object.keys((object["data"] as Record<string, string> | undefined) ?? {}).length)],
    ]),
  handles: (attributes) => attributes.subresource === "" && (attributes.operation === "CREATE" || attributes.operation === "UPDATE"),
  matchesScope: (requirement, object) => requirement.scopeName === "BestEffort" && object.metadata?.labels?.["tier"] === "free",
};

let plane: ControlPlane;
const base = () => `${plane.url}/api/v1/namespaces/default`;
const send = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base()}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      message?: string;
      status?: { used?: Record<string, string> };
      metadata?: { resourceVersion?: string };
    },
  };
};
const usedOf = async (name: string) => (await send("GET", `/resourcequotas/${name}`)).body.status?.used;
const waitForUsed = (name: string, used: Record<string, string>) =>
  eventually(`${name} to use ${JSON.stringify(used)}`, async () => {
    const now = await usedOf(name);
    return Object.entries(used).every(([key, value]) => now?.[key] === value) ? now : undefined;
  });

beforeAll(async () => {
  plane = await createControlPlane({ controllers: { leaderElection: false }, quotaEvaluators: [keysEvaluator] });
}, 30_000);
afterAll(async () => {
  await plane?.close();
});

describe("ResourceQuota with a registered evaluator", { timeout: 30_000 }, () => {
  it("charges creates and updates what the evaluator measures, recounts, and keeps scoped quotas to the objects in scope", async () => {
    expect(
      (await send("POST", "/resourcequotas", { metadata: { name: "keys" }, spec: { hard: { "example.com/keys": "3" } } })).status,
    ).toBe(201);
    // A pod scope cannot limit a standard resource of another type; a domain-qualified one it may.
    const unsupported = await send("POST", "/resourcequotas", {
      metadata: { name: "free" },
      spec: { hard: { configmaps: "1" }, scopes: ["BestEffort"] },
    });
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.message).toBe(
      'ResourceQuota "free" is invalid: spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource',
    );
    expect(
      (
        await send("POST", "/resourcequotas", {
          metadata: { name: "free" },
          spec: { hard: { "example.com/keys": "10" }, scopes: ["BestEffort"] },
        })
      ).status,
    ).toBe(201);
    await waitForUsed("keys", { "example.com/keys": "0" });
    await waitForUsed("free", { "example.com/keys": "0" });

    expect((await send("POST", "/configmaps", { metadata: { name: "a" }, data: { x: "1", y: "2" } })).status).toBe(201);
    expect(await usedOf("keys")).toEqual({ "example.com/keys": "2" });
    const over = await send("POST", "/configmaps", { metadata: { name: "b" }, data: { x: "1", y: "2" } });
    expect(over.status).toBe(403);
    expect(over.body.message).toBe(
      'configmaps "b" is forbidden: exceeded quota: keys, requested: example.com/keys=2, used: example.com/keys=2, limited: example.com/keys=3',
    );

    // An update is charged what it adds over the stored object.
    const current = await send("GET", "/configmaps/a");
    const grown = await send("PUT", "/configmaps/a", {
      metadata: { name: "a", resourceVersion: current.body.metadata?.resourceVersion },
      data: { x: "1", y: "2", z: "3", w: "4" },
    });
    expect(grown.status).toBe(403);
    expect(grown.body.message).toBe(
      'configmaps "a" is forbidden: exceeded quota: keys, requested: example.com/keys=2, used: example.com/keys=2, limited: example.com/keys=3',
    );

    // Only the objects in a quota's scope count against it.
    expect((await send("POST", "/configmaps", { metadata: { name: "c", labels: { tier: "free" } }, data: { x: "1" } })).status).toBe(201);
    await waitForUsed("free", { "example.com/keys": "1" });
    await waitForUsed("keys", { "example.com/keys": "3" });

    expect((await send("DELETE", "/configmaps/a")).status).toBe(200);
    await waitForUsed("keys", { "example.com/keys": "1" });
    expect(await usedOf("free")).toEqual({ "example.com/keys": "1" });
  });
});
