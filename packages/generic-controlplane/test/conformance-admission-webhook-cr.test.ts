/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { establish } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from "../src/apiextensions/types.js";

type CustomResourceValidation = NonNullable<CustomResourceDefinitionVersion["schema"]>;
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";
import {
  startTestWebhookServer,
  type TestWebhookHandler,
  type TestWebhookServer,
} from "../src/admission/plugin/webhooks/test-webhook-server.js";

/**
 * The AdmissionWebhook e2e assertions on custom resources and CustomResourceDefinitions
 * (test/e2e/apimachinery/webhook.go), against a real control plane and a real HTTPS webhook on
 * 127.0.0.1 answering as the e2e suite's sample webhook (agnhost's `/custom-resource`,
 * `/mutating-custom-resource` and `/crd`) does.
 */

const VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Setup {
  plane: TestPlane;
  webhook: TestWebhookServer;
  /** The test's namespace, labelled `<unique>: "true"` as the framework labels it for the webhooks' selectors. */
  namespace: string;
  unique: string;
}

let counter = 0;

async function setup(handlers: Record<string, TestWebhookHandler>): Promise<Setup> {
  const webhook = await startTestWebhookServer(handlers);
  cleanups.push(() => webhook.close());
  const plane = await startTestPlane();
  cleanups.push(() => plane.close());
  const unique = `webhook-${++counter}`;
  const namespace = `${unique}-ns`;
  const created = await plane.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace, labels: { [unique]: "true" } } } });
  expect(created.status, created.text).toBe(201);
  return { plane, webhook, namespace, unique };
}

type CustomResource = { data?: Record<string, string> } | null;

/** agnhost's `admitCustomResource`: the denial is in `status.reason`, as the sample webhook sends it. */
const admitCustomResource: TestWebhookHandler = (request) => {
  const data = ((request.operation === "DELETE" ? request.oldObject : request.object) as CustomResource)?.data ?? {};
  const value = data["webhook-e2e-test"];
  if (value === "webhook-disallow" && (request.operation === "CREATE" || request.operation === "UPDATE")) {
    return { allowed: false, status: { reason: "the custom resource contains unwanted data" } };
  }
  if (value === "webhook-nondeletable" && request.operation === "DELETE") {
    return { allowed: false, status: { reason: "the custom resource cannot be deleted because it contains unwanted key and value" } };
  }
  return { allowed: true };
};

/** agnhost's `mutateCustomResource`: stage 1 after `mutation-start`, stage 2 after stage 1. */
const mutateCustomResource: TestWebhookHandler = (request) => {
  const data = (request.object as CustomResource)?.data ?? {};
  let key: string | undefined;
  if (data["mutation-start"] === "yes") key = "mutation-stage-1";
  if (data["mutation-stage-1"] === "yes") key = "mutation-stage-2";
  return key === undefined ? { allowed: true } : { allowed: true, patch: [{ op: "add", path: `/data/${key}`, value: "yes" }] };
};

/** agnhost's `admitCRD`: refuses CRDs labelled `webhook-e2e-test: webhook-disallow`. */
const admitCrd: TestWebhookHandler = (request) => {
  const labels = (request.object as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
  if (labels["webhook-e2e-test"] === "webhook-disallow") return { allowed: false, status: { message: "the crd contains unwanted label" } };
  return { allowed: true };
};

const preserveUnknown: CustomResourceValidation = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };

/** test/utils/crd's `genRandomCRD`: a namespaced CRD whose kind is its lower-case, dashed singular. */
function testCrd(unique: string, versions: CustomResourceDefinitionVersion[]): CustomResourceDefinition {
  const name = `e2e-test-${unique}-${Math.random().toString(36).slice(2, 7)}-crd`;
  const group = "webhook.example.com";
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${name}s.${group}` },
    spec: { group, scope: "Namespaced", names: { plural: `${name}s`, singular: name, kind: name, listKind: `${name}List` }, versions },
  };
}

/** `CreateTestCRD`: v1 only, preserving unknown fields. */
const singleVersion = (): CustomResourceDefinitionVersion[] => [{ name: "v1", served: true, storage: true, schema: preserveUnknown }];

/** `createAdmissionWebhookMultiVersionTestCRDWithV1Storage`: v1 (storage) and v2, both preserving unknown fields. */
const twoVersions = (): CustomResourceDefinitionVersion[] => [
  { name: "v1", served: true, storage: true, schema: preserveUnknown },
  { name: "v2", served: true, storage: false, schema: preserveUnknown },
];

function servedVersions(crd: CustomResourceDefinition): string[] {
  return (crd.spec?.versions ?? []).filter((v) => v.served).map((v) => v.name!);
}

function webhookFor(
  s: Setup,
  name: string,
  path: string,
  rules: unknown[],
  selector: Record<string, unknown> = { namespaceSelector: { matchLabels: { [s.unique]: "true" } } },
) {
  return {
    name,
    rules,
    clientConfig: { url: `${s.webhook.url}${path}`, caBundle: s.webhook.ca.caBundle },
    sideEffects: "None",
    admissionReviewVersions: ["v1", "v1beta1"],
    ...selector,
  };
}

async function register(s: Setup, collection: string, name: string, webhooks: unknown[]): Promise<void> {
  const kind = collection === VALIDATING ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration";
  const created = await s.plane.call("POST", collection, {
    body: { apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name }, webhooks },
  });
  expect(created.status, created.text).toBe(201);
}

function crPath(s: Setup, crd: CustomResourceDefinition, version: string, name?: string): string {
  return `/apis/${crd.spec!.group}/${version}/namespaces/${s.namespace}/${crd.spec!.names!.plural}${name === undefined ? "" : `/${name}`}`;
}

function customResource(s: Setup, crd: CustomResourceDefinition, name: string, data: Record<string, string>) {
  return {
    kind: crd.spec!.names!.kind,
    apiVersion: `${crd.spec!.group}/${crd.spec!.versions![0]!.name}`,
    metadata: { name, namespace: s.namespace },
    data,
  };
}

/** upstream's `updateCustomResource`: GET, mutate, PUT, retried only on 409 Conflict. */
async function updateCustomResource(s: Setup, path: string, mutate: (cr: Record<string, any>) => void) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await s.plane.call("GET", path);
    expect(current.status, current.text).toBe(200);
    mutate(current.json);
    const updated = await s.plane.call("PUT", path, { body: current.json });
    if (updated.status !== 409) return updated;
  }
  throw new Error(`update of ${path} kept conflicting`);
}

async function registerMutatingWebhookForCustomResource(s: Setup, crd: CustomResourceDefinition): Promise<void> {
  const rule = (operations: string[]) => ({
    operations,
    apiGroups: [crd.spec!.group],
    apiVersions: servedVersions(crd),
    resources: [crd.spec!.names!.plural],
  });
  await register(s, MUTATING, s.unique, [
    webhookFor(s, "mutate-custom-resource-data-stage-1.k8s.io", "/mutating-custom-resource", [rule(["CREATE", "UPDATE"])]),
    webhookFor(s, "mutate-custom-resource-data-stage-2.k8s.io", "/mutating-custom-resource", [rule(["CREATE"])]),
  ]);
}

describe("[sig-api-machinery] AdmissionWebhook on custom resources", { timeout: 30_000 }, () => {
  it("should be able to deny custom resource creation, update and deletion", async () => {
    const s = await setup({ "/custom-resource": admitCustomResource });
    const crd = await establish(s.plane, testCrd(s.unique, singleVersion()));
    await register(s, VALIDATING, s.unique, [
      webhookFor(s, "deny-unwanted-custom-resource-data.k8s.io", "/custom-resource", [
        {
          operations: ["CREATE", "UPDATE", "DELETE"],
          apiGroups: [crd.spec!.group],
          apiVersions: servedVersions(crd),
          resources: [crd.spec!.names!.plural],
        },
      ]),
    ]);

    // testCustomResourceWebhook
    const denied = await s.plane.call("POST", crPath(s, crd, "v1"), {
      body: customResource(s, crd, "cr-instance-1", { "webhook-e2e-test": "webhook-disallow" }),
    });
    expect(denied.status).toBe(400);
    expect(denied.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      code: 400,
      reason: "the custom resource contains unwanted data",
      message:
        'admission webhook "deny-unwanted-custom-resource-data.k8s.io" denied the request: the custom resource contains unwanted data',
    });
    expect((await s.plane.call("GET", crPath(s, crd, "v1", "cr-instance-1"))).status).toBe(404);

    // testBlockingCustomResourceUpdateDeletion
    const path = crPath(s, crd, "v1", "cr-instance-2");
    const created = await s.plane.call("POST", crPath(s, crd, "v1"), {
      body: customResource(s, crd, "cr-instance-2", { "webhook-e2e-test": "webhook-nondeletable" }),
    });
    expect(created.status, created.text).toBe(201);

    const disallowedUpdate = await updateCustomResource(s, path, (cr) => {
      cr.data = { ...cr.data, "webhook-e2e-test": "webhook-disallow" };
    });
    expect(disallowedUpdate.status).toBe(400);
    expect(disallowedUpdate.json.message).toContain("the custom resource contains unwanted data");
    expect((await s.plane.call("GET", path)).json.data).toEqual({ "webhook-e2e-test": "webhook-nondeletable" });

    const deniedDelete = await s.plane.call("DELETE", path);
    expect(deniedDelete.status).toBe(400);
    expect(deniedDelete.json.message).toBe(
      'admission webhook "deny-unwanted-custom-resource-data.k8s.io" denied the request: the custom resource cannot be deleted because it contains unwanted key and value',
    );
    expect((await s.plane.call("GET", path)).status).toBe(200);

    const compliant = await updateCustomResource(s, path, (cr) => {
      cr.data = { ...cr.data, "webhook-e2e-test": "webhook-allow" };
    });
    expect(compliant.status, compliant.text).toBe(200);
    const deleted = await s.plane.call("DELETE", path);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await s.plane.call("GET", path)).status).toBe(404);

    // The webhook saw the delete with the stored object as oldObject, and no object.
    const deletes = s.webhook.received("/custom-resource").filter((r) => r.operation === "DELETE");
    expect(deletes).toHaveLength(2);
    expect(deletes[0]).toMatchObject({
      object: null,
      oldObject: { data: { "webhook-e2e-test": "webhook-nondeletable" } },
      name: "cr-instance-2",
      namespace: s.namespace,
    });
  });

  it("should mutate custom resource", async () => {
    const s = await setup({ "/mutating-custom-resource": mutateCustomResource });
    const crd = await establish(s.plane, testCrd(s.unique, singleVersion()));
    await registerMutatingWebhookForCustomResource(s, crd);

    const created = await s.plane.call("POST", crPath(s, crd, "v1"), {
      body: customResource(s, crd, "cr-instance-1", { "mutation-start": "yes" }),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes" });
    expect((await s.plane.call("GET", crPath(s, crd, "v1", "cr-instance-1"))).json.data).toEqual(created.json.data);
  });

  it("should mutate custom resource with pruning", async () => {
    const s = await setup({ "/mutating-custom-resource": mutateCustomResource });
    const schema: CustomResourceValidation = {
      openAPIV3Schema: {
        type: "object",
        properties: {
          data: {
            type: "object",
            // mutation-stage-2 is left out so that it is pruned.
            properties: { "mutation-start": { type: "string" }, "mutation-stage-1": { type: "string" } },
          },
        },
      },
    };
    const versions = twoVersions().map((v) => ({ ...v, schema }));
    const crd = await establish(s.plane, testCrd(s.unique, versions));
    await registerMutatingWebhookForCustomResource(s, crd);

    const created = await s.plane.call("POST", crPath(s, crd, "v1"), {
      body: customResource(s, crd, "cr-instance-1", { "mutation-start": "yes" }),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes" });
    expect((await s.plane.call("GET", crPath(s, crd, "v1", "cr-instance-1"))).json.data).toEqual({
      "mutation-start": "yes",
      "mutation-stage-1": "yes",
    });
    // Both stages ran: stage 2's field was added, then pruned.
    expect(s.webhook.received("/mutating-custom-resource")).toHaveLength(2);
  });

  it("should deny crd creation", async () => {
    const s = await setup({ "/crd": admitCrd });
    await register(s, VALIDATING, s.unique, [
      webhookFor(
        s,
        "deny-crd-with-unwanted-label.k8s.io",
        "/crd",
        [{ operations: ["CREATE"], apiGroups: ["apiextensions.k8s.io"], apiVersions: ["*"], resources: ["customresourcedefinitions"] }],
        {
          objectSelector: { matchLabels: { [s.unique]: "true" } },
        },
      ),
    ]);

    const name = "e2e-test-webhook-deny-crd";
    const group = "webhook.example.com";
    const kind = "E2e-test-webhook-deny-crd";
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${name}s.${group}`, labels: { [s.unique]: "true", "webhook-e2e-test": "webhook-disallow" } },
      spec: {
        group,
        versions: [{ name: "v1", served: true, storage: true, schema: preserveUnknown }],
        names: { singular: name, kind, listKind: `${kind}List`, plural: `${name}s` },
        scope: "Namespaced",
      },
    };
    const denied = await s.plane.call("POST", CRDS, { body: crd });
    expect(denied.status).toBe(400);
    expect(denied.json.message).toBe(
      'admission webhook "deny-crd-with-unwanted-label.k8s.io" denied the request: the crd contains unwanted label',
    );
    expect((await s.plane.call("GET", `${CRDS}/${name}s.${group}`)).status).toBe(404);
    expect(s.webhook.received("/crd")).toMatchObject([
      { operation: "CREATE", resource: { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions" } },
    ]);

    // Without the disallowed label the same CRD is admitted.
    const allowed = await s.plane.call("POST", CRDS, {
      body: { ...crd, metadata: { name: crd.metadata.name, labels: { [s.unique]: "true" } } },
    });
    expect(allowed.status, allowed.text).toBe(201);
  });
});
