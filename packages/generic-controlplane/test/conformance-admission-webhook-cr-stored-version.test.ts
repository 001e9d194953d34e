/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";
import {
  startTestWebhookServer,
  type TestWebhookHandler,
  type TestWebhookServer,
} from "../src/admission/plugin/webhooks/test-webhook-server.js";
import { establish } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition } from "../src/apiextensions/types.js";

/**
 * AdmissionWebhook "should mutate custom resource with different stored version"
 * (test/e2e/apimachinery/webhook.go, testMultiVersionCustomResourceWebhook): a custom resource
 * created while v1 is the storage version is patched through v2 after the CRD made v2 the storage
 * version, and the mutating webhooks registered for both versions see and change it.
 */

const GROUP = "webhook.example.com";
const PLURAL = "e2e-test-webhook-crds";
const KIND = "E2e-test-webhook-crd";
const NS = "webhook-multiversion";
const UNIQUE = "webhook-multiversion-unique";

/** The sample webhook's `/mutating-custom-resource`: stage 1 after `mutation-start`, stage 2 after stage 1. */
const mutateCustomResource: TestWebhookHandler = (request) => {
  const data = (request.object as { data?: Record<string, string> } | null)?.data ?? {};
  let patch: unknown[] | undefined;
  if (data["mutation-start"] === "yes") patch = [{ op: "add", path: "/data/mutation-stage-1", value: "yes" }];
  if (data["mutation-stage-1"] === "yes") patch = [{ op: "add", path: "/data/mutation-stage-2", value: "yes" }];
  return patch === undefined ? { allowed: true } : { allowed: true, patch };
};

const preserveUnknown = { openAPIV3Schema: { type: "object" as const, "x-kubernetes-preserve-unknown-fields": true } };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(): Promise<{ t: TestPlane; webhook: TestWebhookServer }> {
  const webhook = await startTestWebhookServer({ "/mutating-custom-resource": mutateCustomResource });
  cleanups.push(() => webhook.close());
  const t = await startTestPlane();
  cleanups.push(() => t.close());
  expect(
    (
      await t.call("POST", "/api/v1/namespaces", {
        body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: { [UNIQUE]: "true" } } },
      })
    ).status,
  ).toBe(201);
  // upstream createAdmissionWebhookMultiVersionTestCRDWithV1Storage.
  const crd: CustomResourceDefinition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: PLURAL, singular: "e2e-test-webhook-crd", kind: KIND, listKind: `${KIND}List` },
      versions: [
        { name: "v1", served: true, storage: true, schema: preserveUnknown },
        { name: "v2", served: true, storage: false, schema: preserveUnknown },
      ],
    },
  };
  await establish(t, crd);
  // upstream registerMutatingWebhookForCustomResource: both versions, stage 1 on create and update, stage 2 on create.
  const rule = (operations: string[]) => ({ operations, apiGroups: [GROUP], apiVersions: ["v1", "v2"], resources: [PLURAL] });
  const hook = (name: string, operations: string[]) => ({
    name,
    rules: [rule(operations)],
    clientConfig: { url: `${webhook.url}/mutating-custom-resource`, caBundle: webhook.ca.caBundle },
    sideEffects: "None",
    admissionReviewVersions: ["v1", "v1beta1"],
    namespaceSelector: { matchLabels: { [UNIQUE]: "true" } },
  });
  const registered = await t.call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "mutate-custom-resource-multiversion" },
      webhooks: [
        hook("mutate-custom-resource-data-stage-1.k8s.io", ["CREATE", "UPDATE"]),
        hook("mutate-custom-resource-data-stage-2.k8s.io", ["CREATE"]),
      ],
    },
  });
  expect(registered.status, registered.text).toBe(201);
  return { t, webhook };
}

describe("AdmissionWebhook", { timeout: 30_000 }, () => {
  it("should mutate custom resource with different stored version", async () => {
    const { t, webhook } = await setup();
    const crs = (version: string) => `/apis/${GROUP}/${version}/namespaces/${NS}/${PLURAL}`;

    // Creating a custom resource while v1 is storage version.
    const created = await t.call("POST", crs("v1"), {
      body: {
        kind: KIND,
        apiVersion: `${GROUP}/v1`,
        metadata: { name: "cr-instance-1", namespace: NS },
        data: { "mutation-start": "yes" },
      },
    });
    expect(created.status, created.text).toBe(201);

    // Patching the Custom Resource Definition to set v2 as storage (a strategic merge patch, as upstream sends).
    const patchedCrd = await t.call("PATCH", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${PLURAL}.${GROUP}`, {
      raw: JSON.stringify({
        spec: {
          versions: [
            { name: "v1", storage: false, served: true, schema: preserveUnknown },
            { name: "v2", storage: true, served: true, schema: preserveUnknown },
          ],
        },
      }),
      headers: { "Content-Type": "application/strategic-merge-patch+json" },
    });
    expect(patchedCrd.status, patchedCrd.text).toBe(200);

    // Patching the custom resource while v2 is storage version.
    const mutated = await t.call("PATCH", `${crs("v2")}/cr-instance-1`, {
      raw: JSON.stringify([{ op: "add", path: "/dummy", value: "test" }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(mutated.status, mutated.text).toBe(200);
    expect(mutated.json.data).toEqual({ "mutation-start": "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes" });
    expect(mutated.json.dummy).toBe("test");
    // The update reached the webhook in v2, the object stored as v1 handed over as v2's old object.
    const update = webhook.received("/mutating-custom-resource").find((r) => r.operation === "UPDATE");
    expect(update).toMatchObject({
      kind: { group: GROUP, version: "v2", kind: KIND },
      object: { apiVersion: `${GROUP}/v2`, dummy: "test" },
      oldObject: { apiVersion: `${GROUP}/v2` },
    });
  });
});
