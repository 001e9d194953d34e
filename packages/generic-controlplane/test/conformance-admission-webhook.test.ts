/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "../src/server/test-support.js";
import {
  startTestWebhookServer,
  type TestWebhookHandler,
  type TestWebhookServer,
} from "../src/admission/plugin/webhooks/test-webhook-server.js";

/**
 * The AdmissionWebhook e2e assertions (test/e2e/apimachinery/webhook.go), against a real control
 * plane and a real HTTPS webhook on 127.0.0.1.
 */

const VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(handlers: Record<string, TestWebhookHandler>): Promise<{ plane: TestPlane; webhook: TestWebhookServer }> {
  const webhook = await startTestWebhookServer(handlers);
  cleanups.push(() => webhook.close());
  const plane = await startTestPlane();
  cleanups.push(() => plane.close());
  return { plane, webhook };
}

const configMapRule = (operations = ["CREATE", "UPDATE"]) => ({
  operations,
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["configmaps"],
});

function hook(webhook: TestWebhookServer, name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: `${webhook.url}${path}`, caBundle: webhook.ca.caBundle },
    rules: [configMapRule()],
    sideEffects: "None",
    admissionReviewVersions: ["v1", "v1beta1"],
    ...extra,
  };
}

async function register(plane: TestPlane, collection: string, name: string, webhooks: unknown[]) {
  const kind = collection === VALIDATING ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration";
  const created = await plane.call("POST", collection, {
    body: { apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name }, webhooks },
  });
  expect(created.status, created.text).toBe(201);
  return created.json as { metadata: { resourceVersion: string }; webhooks: Array<Record<string, unknown>> };
}

/** The sample webhook's `/configmaps`: refuses data `webhook-e2e-test: webhook-disallow`. */
const denyUnwantedConfigMapData: TestWebhookHandler = (request) => {
  const data = (request.object as { data?: Record<string, string> } | null)?.data ?? {};
  if (data["webhook-e2e-test"] === "webhook-disallow")
    return { allowed: false, status: { message: "the configmap contains unwanted key and value" } };
  return { allowed: true };
};

/** The sample webhook's `/mutating-configmaps`: adds `mutation-stage-1`, or `mutation-stage-2` when stage 1 is there. */
const mutateConfigMap: TestWebhookHandler = (request) => {
  const data = (request.object as { data?: Record<string, string> } | null)?.data ?? {};
  const key = "mutation-stage-1" in data ? "mutation-stage-2" : "mutation-stage-1";
  return { allowed: true, patch: [{ op: "add", path: `/data/${key}`, value: "yes" }] };
};

describe("AdmissionWebhook", { timeout: 30_000 }, () => {
  it("should be able to deny configmap creation and update, skipping an exempt namespace, with a fail-open webhook that cannot be reached", async () => {
    const { plane, webhook } = await setup({ "/configmaps": denyUnwantedConfigMapData });
    await register(plane, VALIDATING, "e2e-test-webhook-config", [
      hook(webhook, "deny-unwanted-configmap-data.k8s.io", "/configmaps", {
        namespaceSelector: { matchExpressions: [{ key: "skip-webhook-admission", operator: "NotIn", values: ["yes"] }] },
      }),
      // Nothing listens there; failurePolicy Ignore admits the request anyway.
      {
        ...hook(webhook, "fail-open.k8s.io", "/configmaps"),
        clientConfig: { url: "https://127.0.0.1:1/configmaps", caBundle: webhook.ca.caBundle },
        failurePolicy: "Ignore",
      },
    ]);

    const denied = await plane.call("POST", CONFIGMAPS, {
      body: configMap("disallowed-configmap", { "webhook-e2e-test": "webhook-disallow" }),
    });
    expect(denied.status).toBe(400);
    expect(denied.json.message).toBe(
      'admission webhook "deny-unwanted-configmap-data.k8s.io" denied the request: the configmap contains unwanted key and value',
    );
    expect((await plane.call("GET", `${CONFIGMAPS}/disallowed-configmap`)).status).toBe(404);

    const allowed = await plane.call("POST", CONFIGMAPS, { body: configMap("allowed-configmap", { admit: "this" }) });
    expect(allowed.status).toBe(201);
    const update = await plane.call("PUT", `${CONFIGMAPS}/allowed-configmap`, {
      body: { ...allowed.json, data: { "webhook-e2e-test": "webhook-disallow" } },
    });
    expect(update.status).toBe(400);
    expect(update.json.message).toContain("the configmap contains unwanted key and value");
    const patch = await plane.call("PATCH", `${CONFIGMAPS}/allowed-configmap`, {
      raw: JSON.stringify({ data: { "webhook-e2e-test": "webhook-disallow" } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patch.status).toBe(400);
    expect((await plane.call("GET", `${CONFIGMAPS}/allowed-configmap`)).json.data).toEqual({ admit: "this" });

    // The namespace labelled skip-webhook-admission=yes is exempt.
    expect(
      (
        await plane.call("POST", "/api/v1/namespaces", {
          body: { metadata: { name: "exempted-namespace", labels: { "skip-webhook-admission": "yes" } } },
        })
      ).status,
    ).toBe(201);
    const exempt = await plane.call("POST", "/api/v1/namespaces/exempted-namespace/configmaps", {
      body: configMap("disallowed-configmap", { "webhook-e2e-test": "webhook-disallow" }),
    });
    expect(exempt.status).toBe(201);
    expect(webhook.received("/configmaps").map((r) => r.name)).not.toContain(undefined);
  });

  it("should mutate configmap, each webhook seeing the previous one's result", async () => {
    const { plane, webhook } = await setup({ "/mutating-configmaps": mutateConfigMap });
    await register(plane, MUTATING, "e2e-test-mutating-webhook-config", [
      hook(webhook, "adding-configmap-data-stage-1.k8s.io", "/mutating-configmaps", { rules: [configMapRule(["CREATE"])] }),
      hook(webhook, "adding-configmap-data-stage-2.k8s.io", "/mutating-configmaps", { rules: [configMapRule(["CREATE"])] }),
    ]);
    const created = await plane.call("POST", CONFIGMAPS, { body: configMap("to-be-mutated", { "mutation-start": "yes" }) });
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes" });
    expect((await plane.call("GET", `${CONFIGMAPS}/to-be-mutated`)).json.data).toEqual(created.json.data);
  });

  it("should honor timeout: fail closed after timeoutSeconds, admit with Ignore, succeed within the timeout", async () => {
    const held: Array<() => void> = [];
    const { plane, webhook } = await setup({
      "/hang": () => new Promise((resolve) => held.push(() => resolve({ allowed: true }))),
      "/allow-after-1s": () => new Promise((resolve) => setTimeout(() => resolve({ allowed: true }), 1000)),
    });
    cleanups.push(() => {
      for (const release of held) release();
      return Promise.resolve();
    });
    await register(plane, VALIDATING, "slow-fail", [
      hook(webhook, "allow-configmap-with-delay-webhook.k8s.io", "/hang", { timeoutSeconds: 1 }),
    ]);
    const started = Date.now();
    const failed = await plane.call("POST", CONFIGMAPS, { body: configMap("timeout-fail") });
    expect(failed.status).toBe(500);
    expect(failed.json.reason).toBe("InternalError");
    expect(failed.json.message).toMatch(
      /^Internal error occurred: failed calling webhook "allow-configmap-with-delay-webhook\.k8s\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded$/,
    );
    expect(Date.now() - started).toBeLessThan(5000);

    await plane.call("DELETE", `${VALIDATING}/slow-fail`);
    await register(plane, VALIDATING, "slow-ignore", [
      hook(webhook, "allow-configmap-with-delay-webhook.k8s.io", "/hang", { timeoutSeconds: 1, failurePolicy: "Ignore" }),
    ]);
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("timeout-ignored") })).status).toBe(201);

    await plane.call("DELETE", `${VALIDATING}/slow-ignore`);
    await register(plane, VALIDATING, "slow-enough", [
      hook(webhook, "allow-configmap-with-delay-webhook.k8s.io", "/allow-after-1s", { timeoutSeconds: 5 }),
    ]);
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("within-timeout") })).status).toBe(201);
  });

  it("should unconditionally reject operations on fail closed webhook", async () => {
    const { plane, webhook } = await setup({});
    await register(plane, VALIDATING, "e2e-test-webhook-fail-closed", [
      {
        ...hook(webhook, "fail-closed.k8s.io", "/configmaps"),
        clientConfig: { service: { namespace: "default", name: "no-such-service", path: "/configmaps" }, caBundle: webhook.ca.caBundle },
        namespaceSelector: { matchExpressions: [{ key: "fail-closed-webhook", operator: "In", values: ["yes"] }] },
        failurePolicy: "Fail",
      },
    ]);
    expect(
      (
        await plane.call("POST", "/api/v1/namespaces", {
          body: { metadata: { name: "fail-closed-namespace", labels: { "fail-closed-webhook": "yes" } } },
        })
      ).status,
    ).toBe(201);
    const refused = await plane.call("POST", "/api/v1/namespaces/fail-closed-namespace/configmaps", { body: configMap("webhook-test") });
    expect(refused.status).toBe(500);
    expect(refused.json.message).toMatch(
      /^Internal error occurred: failed calling webhook "fail-closed\.k8s\.io": failed to call webhook: Post "https:\/\/no-such-service\.default\.svc:443\/configmaps\?timeout=10s": dial tcp: lookup no-such-service\.default\.svc/,
    );
    // Outside the selected namespace the webhook is not called.
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("webhook-test") })).status).toBe(201);
  });

  it("should not be able to mutate or prevent deletion of webhook configuration objects", async () => {
    const { plane, webhook } = await setup({
      "/always-deny": () => ({ allowed: false, status: { message: "this webhook denies all requests" } }),
      "/add-label": () => ({ allowed: true, patch: [{ op: "add", path: "/metadata/labels", value: { mutated: "yes" } }] }),
    });
    const everything = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
    await register(plane, VALIDATING, "deny-webhook-configuration-deletions", [
      hook(webhook, "deny-webhook-configuration-deletions.k8s.io", "/always-deny", { rules: everything }),
    ]);
    await register(plane, MUTATING, "add-label-to-webhook-configurations", [
      hook(webhook, "add-label-to-webhook-configurations.k8s.io", "/add-label", { rules: everything }),
    ]);

    // The configurations themselves stay writable and unmutated...
    const dummy = await register(plane, VALIDATING, "dummy-validating-webhook-configuration", [
      hook(webhook, "dummy.k8s.io", "/always-deny"),
    ]);
    expect((dummy as { metadata: { labels?: unknown } }).metadata.labels).toBeUndefined();
    const dummyMutating = await register(plane, MUTATING, "dummy-mutating-webhook-configuration", [
      hook(webhook, "dummy.k8s.io", "/always-deny"),
    ]);
    expect((dummyMutating as { metadata: { labels?: unknown } }).metadata.labels).toBeUndefined();
    expect((await plane.call("DELETE", `${VALIDATING}/dummy-validating-webhook-configuration`)).status).toBe(200);
    expect((await plane.call("DELETE", `${MUTATING}/dummy-mutating-webhook-configuration`)).status).toBe(200);
    expect((await plane.call("DELETE", `${VALIDATING}/deny-webhook-configuration-deletions`)).status).toBe(200);
    expect(webhook.reviews).toEqual([]);
    // ...while everything else is denied and mutated.
    const other = await plane.call("POST", CONFIGMAPS, { body: configMap("anything") });
    expect(other.status).toBe(201);
    expect(other.json.metadata.labels).toEqual({ mutated: "yes" });
  });

  it("sends an AdmissionReview v1 with the request's kind, resource, names, user, objects and options", async () => {
    const { plane, webhook } = await setup({ "/allow": () => ({ allowed: true }) });
    await register(plane, VALIDATING, "observe", [hook(webhook, "observe.k8s.io", "/allow", { rules: [configMapRule(["*"])] })]);
    const created = await plane.call("POST", `${CONFIGMAPS}?fieldManager=tester`, { body: configMap("observed", { a: "1" }) });
    await plane.call("PUT", `${CONFIGMAPS}/observed?dryRun=All`, { body: { ...created.json, data: { a: "2" } } });
    await plane.call("DELETE", `${CONFIGMAPS}/observed`);
    const [create, update, remove] = webhook.received("/allow");
    expect(create).toMatchObject({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      requestKind: { group: "", version: "v1", kind: "ConfigMap" },
      requestResource: { group: "", version: "v1", resource: "configmaps" },
      name: "observed",
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "system:anonymous", groups: ["system:unauthenticated"] },
      object: { kind: "ConfigMap", metadata: { name: "observed" }, data: { a: "1" } },
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "tester" },
    });
    expect(create?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(update).toMatchObject({
      operation: "UPDATE",
      dryRun: true,
      object: { data: { a: "2" } },
      oldObject: { data: { a: "1" } },
      options: { kind: "UpdateOptions", dryRun: ["All"] },
    });
    expect(remove).toMatchObject({
      operation: "DELETE",
      object: null,
      oldObject: { data: { a: "1" } },
      options: { kind: "DeleteOptions" },
    });
    expect(new Set([create?.uid, update?.uid, remove?.uid]).size).toBe(3);
  });

  it("returns warnings as Warning headers", async () => {
    const { plane, webhook } = await setup({ "/warn": () => ({ allowed: true, warnings: ['mind the "gap"'] }) });
    await register(plane, VALIDATING, "warner", [hook(webhook, "warner.k8s.io", "/warn")]);
    const created = await plane.call("POST", CONFIGMAPS, { body: configMap("warned") });
    expect(created.status).toBe(201);
    expect(created.headers.get("warning")).toBe('299 - "mind the \\"gap\\""');
  });

  it("calls only webhooks with sideEffects None or NoneOnDryRun for dry-run requests, and says dryRun", async () => {
    const { plane, webhook } = await setup({ "/allow": () => ({ allowed: true }) });
    await register(plane, VALIDATING, "dry", [hook(webhook, "dry.k8s.io", "/allow", { sideEffects: "NoneOnDryRun" })]);
    const dry = await plane.call("POST", `${CONFIGMAPS}?dryRun=All`, { body: configMap("dry") });
    expect(dry.status).toBe(201);
    expect(webhook.received("/allow")[0]?.dryRun).toBe(true);
    expect((await plane.call("GET", `${CONFIGMAPS}/dry`)).status).toBe(404);
    const unknown = await plane.call("POST", VALIDATING, {
      body: { metadata: { name: "some" }, webhooks: [hook(webhook, "some.k8s.io", "/allow", { sideEffects: "Some" })] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.details.causes).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        field: "webhooks[0].sideEffects",
      },
    ]);
  });

  it("reinvokes IfNeeded webhooks once after a later webhook changed the object", async () => {
    const { plane, webhook } = await setup({
      // Copies whatever `late` holds into `early-saw`: only a second call can see it.
      "/early": (request) => {
        const data = (request.object as { data?: Record<string, string> }).data ?? {};
        return { allowed: true, patch: [{ op: "add", path: "/data/early-saw", value: data.late ?? "nothing" }] };
      },
      "/late": () => ({ allowed: true, patch: [{ op: "add", path: "/data/late", value: "set" }] }),
    });
    await register(plane, MUTATING, "a-reinvoked", [
      hook(webhook, "early.k8s.io", "/early", { reinvocationPolicy: "IfNeeded", rules: [configMapRule(["CREATE"])] }),
      hook(webhook, "late.k8s.io", "/late", { rules: [configMapRule(["CREATE"])] }),
    ]);
    const created = await plane.call("POST", CONFIGMAPS, { body: configMap("reinvoked", {}) });
    expect(created.json.data).toEqual({ "early-saw": "set", late: "set" });
    expect(webhook.received("/early")).toHaveLength(2);
    expect(webhook.received("/late")).toHaveLength(1);
  });

  it("matches equivalent resources with matchPolicy Equivalent, and only the exact one with Exact", async () => {
    const { plane, webhook } = await setup({ "/events": () => ({ allowed: true }) });
    const eventsRule = { operations: ["CREATE"], apiGroups: ["events.k8s.io"], apiVersions: ["v1"], resources: ["events"] };
    await register(plane, VALIDATING, "events", [
      hook(webhook, "equivalent.k8s.io", "/events", { rules: [eventsRule] }),
      hook(webhook, "exact.k8s.io", "/events", { rules: [eventsRule], matchPolicy: "Exact" }),
    ]);
    const event = {
      metadata: { name: "e1" },
      involvedObject: { kind: "ConfigMap", name: "x", namespace: "default" },
      reason: "Tested",
      message: "hello",
      type: "Normal",
      source: { component: "test" },
      firstTimestamp: "2024-01-01T00:00:00Z",
      lastTimestamp: "2024-01-01T00:00:00Z",
      count: 1,
    };
    const created = await plane.call("POST", "/api/v1/namespaces/default/events", { body: event });
    expect(created.status, created.text).toBe(201);
    const received = webhook.received("/events");
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      kind: { group: "events.k8s.io", version: "v1", kind: "Event" },
      resource: { group: "events.k8s.io", version: "v1", resource: "events" },
      requestKind: { group: "", version: "v1", kind: "Event" },
      requestResource: { group: "", version: "v1", resource: "events" },
      object: { apiVersion: "events.k8s.io/v1", kind: "Event", note: "hello", reason: "Tested" },
    });
  });

  it("selects by objectSelector on the new or old object's labels, and by subresource rules", async () => {
    const { plane, webhook } = await setup({
      "/deny": () => ({ allowed: false, status: { message: "labelled", code: 403, reason: "Forbidden" } }),
      "/status": () => ({ allowed: true }),
    });
    await register(plane, VALIDATING, "selective", [
      hook(webhook, "selective.k8s.io", "/deny", { objectSelector: { matchLabels: { guarded: "true" } } }),
      hook(webhook, "status.k8s.io", "/status", {
        rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["*/status"] }],
      }),
    ]);
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("free") })).status).toBe(201);
    const guarded = await plane.call("POST", CONFIGMAPS, { body: configMap("guarded", { a: "1" }, { guarded: "true" }) });
    expect(guarded.status).toBe(403);
    expect(guarded.json).toMatchObject({
      reason: "Forbidden",
      code: 403,
      message: 'admission webhook "selective.k8s.io" denied the request: labelled',
    });

    const ns = await plane.call("GET", "/api/v1/namespaces/default");
    expect((await plane.call("PUT", "/api/v1/namespaces/default/status", { body: ns.json })).status).toBe(200);
    expect(webhook.received("/status")).toMatchObject([
      { operation: "UPDATE", subResource: "status", resource: { resource: "namespaces" }, name: "default", namespace: "default" },
    ]);
  });

  it("fails closed on an invalid response, naming what was wrong", async () => {
    const { plane, webhook } = await setup({ "/patch-from-validating": () => ({ allowed: true, patch: [] }) });
    await register(plane, VALIDATING, "broken", [hook(webhook, "broken.k8s.io", "/patch-from-validating")]);
    const refused = await plane.call("POST", CONFIGMAPS, { body: configMap("x") });
    expect(refused.status).toBe(500);
    expect(refused.json.message).toBe(
      'Internal error occurred: failed calling webhook "broken.k8s.io": received invalid webhook response: validating webhook may not return response.patch',
    );
  });
});

describe("AdmissionWebhook configuration API", { timeout: 30_000 }, () => {
  it("should include webhook resources in discovery documents", async () => {
    const { plane } = await setup({});
    const groups = await plane.call("GET", "/apis");
    expect(groups.json.groups).toContainEqual({
      name: "admissionregistration.k8s.io",
      versions: [{ groupVersion: "admissionregistration.k8s.io/v1", version: "v1" }],
      preferredVersion: { groupVersion: "admissionregistration.k8s.io/v1", version: "v1" },
    });
    const resources = await plane.call("GET", "/apis/admissionregistration.k8s.io/v1");
    const names = (resources.json.resources as Array<{ name: string }>).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]));
  });

  it("patching/updating a validating webhook should work", async () => {
    const { plane, webhook } = await setup({ "/configmaps": denyUnwantedConfigMapData });
    await register(plane, VALIDATING, "patched", [hook(webhook, "deny-unwanted-configmap-data.k8s.io", "/configmaps")]);
    const disallowed = () =>
      plane.call("POST", CONFIGMAPS, {
        body: { metadata: { generateName: "disallowed-" }, data: { "webhook-e2e-test": "webhook-disallow" } },
      });
    expect((await disallowed()).status).toBe(400);
    // Updating the rules to leave out CREATE lets the configmap in...
    const current = (await plane.call("GET", `${VALIDATING}/patched`)).json;
    current.webhooks[0].rules[0].operations = ["UPDATE"];
    expect((await plane.call("PUT", `${VALIDATING}/patched`, { body: current })).status).toBe(200);
    expect((await disallowed()).status).toBe(201);
    // ...and patching CREATE back in refuses it again.
    const patch = [{ op: "replace", path: "/webhooks/0/rules/0/operations", value: ["CREATE"] }];
    const patched = await plane.call("PATCH", `${VALIDATING}/patched`, {
      raw: JSON.stringify(patch),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(patched.status).toBe(200);
    expect((await disallowed()).status).toBe(400);
  });

  it("listing and deleting a collection of mutating webhooks should work", async () => {
    const { plane, webhook } = await setup({ "/mutating-configmaps": mutateConfigMap });
    for (const name of ["first", "second"]) {
      await plane.call("POST", MUTATING, {
        body: {
          metadata: { name, labels: { "e2e-list-test-uuid": "abc" } },
          webhooks: [hook(webhook, "adding-configmap-data-stage-1.k8s.io", "/mutating-configmaps", { rules: [configMapRule(["CREATE"])] })],
        },
      });
    }
    const listed = await plane.call("GET", `${MUTATING}?labelSelector=e2e-list-test-uuid%3Dabc`);
    expect(listed.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["first", "second"]);
    // Both configurations mutate, the second seeing the first one's result.
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("mutated", {}) })).json.data).toEqual({
      "mutation-stage-1": "yes",
      "mutation-stage-2": "yes",
    });
    expect((await plane.call("DELETE", `${MUTATING}?labelSelector=e2e-list-test-uuid%3Dabc`)).status).toBe(200);
    expect((await plane.call("GET", MUTATING)).json.items).toEqual([]);
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("not-mutated", {}) })).json.data).toEqual({});
  });
});

describe("AdmissionWebhook match conditions", { timeout: 30_000 }, () => {
  it("should mutate everything except 'skip-me' configmaps", async () => {
    const { plane, webhook } = await setup({ "/mutating-configmaps": mutateConfigMap });
    await register(plane, MUTATING, "skip-me", [
      hook(webhook, "adding-configmap-data-stage-1.k8s.io", "/mutating-configmaps", {
        rules: [configMapRule(["CREATE"])],
        matchConditions: [{ name: "exclude-skip-me", expression: "object.metadata.name != 'skip-me'" }],
      }),
    ]);
    const mutated = await plane.call("POST", CONFIGMAPS, { body: configMap("mutate-me", { "mutation-start": "yes" }) });
    expect(mutated.json.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes" });
    const skipped = await plane.call("POST", CONFIGMAPS, { body: configMap("skip-me", { "mutation-start": "yes" }) });
    expect(skipped.json.data).toEqual({ "mutation-start": "yes" });
    expect(webhook.received("/mutating-configmaps").map((r) => r.name)).toEqual(["mutate-me"]);
  });

  it("should be able to create and update validating and mutating webhook configurations with match conditions", async () => {
    const { plane, webhook } = await setup({});
    for (const collection of [VALIDATING, MUTATING]) {
      const created = await register(plane, collection, "with-conditions", [
        hook(webhook, "conditions.k8s.io", "/x", {
          matchConditions: [{ name: "not-kube-system", expression: "request.namespace != 'kube-system'" }],
        }),
      ]);
      const webhooks = created.webhooks.map((w) => ({
        ...w,
        matchConditions: [{ name: "not-kube-system", expression: "request.namespace != 'kube-system' && has(object.metadata.labels)" }],
      }));
      const updated = await plane.call("PUT", `${collection}/with-conditions`, { body: { ...created, webhooks } });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.json.webhooks[0].matchConditions).toEqual([
        { name: "not-kube-system", expression: "request.namespace != 'kube-system' && has(object.metadata.labels)" },
      ]);
    }
  });

  it("should reject validating and mutating webhook configurations with invalid match conditions", async () => {
    const { plane, webhook } = await setup({});
    for (const collection of [VALIDATING, MUTATING]) {
      const refused = await plane.call("POST", collection, {
        body: {
          metadata: { name: "invalid-conditions" },
          webhooks: [
            hook(webhook, "conditions.k8s.io", "/x", {
              matchConditions: [{ name: "invalid-expression-1", expression: "object.nonExistentProperty ==" }],
            }),
          ],
        },
      });
      expect(refused.status).toBe(422);
      expect(refused.json.details.causes).toMatchObject([
        { reason: "FieldValueInvalid", field: "webhooks[0].matchConditions[0].expression" },
      ]);
      expect(refused.json.details.causes[0].message).toMatch(
        /^Invalid value: "object\.nonExistentProperty ==": compilation failed: ERROR: <input>:1:/,
      );
    }
  });

  it("refuses the request when a condition fails to evaluate under failurePolicy Fail, and skips the webhook under Ignore", async () => {
    const { plane, webhook } = await setup({ "/deny": () => ({ allowed: false, status: { message: "called" } }) });
    const erroring = [{ name: "needs-label", expression: "object.metadata.labels.team == 'a'" }];
    await register(plane, VALIDATING, "erroring", [hook(webhook, "erroring.k8s.io", "/deny", { matchConditions: erroring })]);
    const refused = await plane.call("POST", CONFIGMAPS, { body: configMap("unlabelled") });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      `configmaps "unlabelled" is forbidden: expression 'object.metadata.labels.team == 'a'' resulted in error: no such key: labels`,
    );
    // A condition that is false skips the webhook even when another one errs.
    const labelled = await plane.call("POST", CONFIGMAPS, { body: configMap("labelled", { a: "1" }, { team: "b" }) });
    expect(labelled.status).toBe(201);
    await plane.call("DELETE", `${VALIDATING}/erroring`);
    await register(plane, VALIDATING, "erroring-ignored", [
      hook(webhook, "erroring.k8s.io", "/deny", { matchConditions: erroring, failurePolicy: "Ignore" }),
    ]);
    expect((await plane.call("POST", CONFIGMAPS, { body: configMap("unlabelled") })).status).toBe(201);
    expect(webhook.received("/deny")).toEqual([]);
  });
});

describe("webhook configuration validation", { timeout: 30_000 }, () => {
  it("defaults failurePolicy, matchPolicy, selectors, timeoutSeconds, scope, port and reinvocationPolicy", async () => {
    const { plane, webhook } = await setup({});
    const mutating = await register(plane, MUTATING, "defaults", [
      { ...hook(webhook, "defaults.k8s.io", "/x"), clientConfig: { service: { namespace: "default", name: "svc" } } },
    ]);
    expect(mutating.webhooks[0]).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: "Never",
      rules: [{ scope: "*" }],
      clientConfig: { service: { port: 443 } },
    });
  });

  it("refuses invalid configurations with upstream's field errors", async () => {
    const { plane } = await setup({});
    const invalid = await plane.call("POST", VALIDATING, {
      body: {
        metadata: { name: "invalid" },
        webhooks: [
          {
            name: "short.io",
            clientConfig: { url: "http://example.com/hook?x=1", service: undefined },
            rules: [{ operations: ["*", "CREATE"], apiGroups: [], apiVersions: ["v1"], resources: ["*", "pods"], scope: "Everywhere" }],
            failurePolicy: "Maybe",
            timeoutSeconds: 31,
            admissionReviewVersions: ["v2"],
          },
          {
            name: "dup.example.com",
            clientConfig: {},
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            matchConditions: [{ name: "a", expression: "nope.x" }],
          },
          {
            name: "dup.example.com",
            clientConfig: { service: { namespace: "", name: "x", port: 0, path: "no-slash" } },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.json.reason).toBe("Invalid");
    const causes = (invalid.json.details.causes as Array<{ field: string; message: string }>).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual([
      'webhooks[0].name: Invalid value: "short.io": should be a domain with at least three segments separated by dots',
      `webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`,
      "webhooks[0].rules[0].apiGroups: Required value",
      `webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`,
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
      "webhooks[1].matchConditions[0].expression: Invalid value: \"nope.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope.x\n | ^",
      "webhooks[2].clientConfig.service.namespace: Required value: service namespace is required",
      "webhooks[2].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
      `webhooks[2].clientConfig.service.path: Invalid value: "no-slash": must start with a '/'`,
      'webhooks[2].name: Duplicate value: "dup.example.com"',
    ]);
    expect((await plane.call("GET", `${VALIDATING}/invalid`)).status).toBe(404);
  });
});
