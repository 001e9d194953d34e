/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStorage, type Storage } from "../src/storage/index.js";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";
import { staticServiceResolver } from "../src/webhook/client-config.js";
import { establish, eventually } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from "../src/apiextensions/types.js";
import type { JSONSchemaProps } from "../src/schema/types.js";
import {
  CONVERSION_SERVICE,
  convertEach,
  hostPortConversion,
  startTestConversionWebhook,
  type ReviewHandler,
  type TestConversionWebhook,
} from "../src/apiextensions/conversion/test-conversion-webhook.js";
import { startTestWebhookServer } from "../src/admission/plugin/webhooks/test-webhook-server.js";
import { Kubectl } from "./harness/kubectl.js";
import { findKubectl132 } from "./harness/tools.js";

/**
 * Ports of test/e2e/apimachinery/crd_conversion_webhook.go (CustomResourceConversionWebhook), with
 * every assertion upstream makes, plus what users see around it: watches, a webhook that is down,
 * answers the server refuses, kubectl 1.32 and client-node reading either version. The webhook is
 * the e2e suite's converter (hostPort ⇄ host and port) over HTTPS, reached through its Service.
 */

const GROUP = "stable.example.com";
const PLURAL = "e2e-test-crd-webhook-crds";
const KIND = "E2e-test-crd-webhook-crd";
const NS = "crd-webhook";
const SERVICE_PORT = 9443;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const crs = (version: string) => `/apis/${GROUP}/${version}/namespaces/${NS}/${PLURAL}`;

const schema = (properties: Record<string, JSONSchemaProps>) => ({ openAPIV3Schema: { type: "object" as const, properties } });
/** upstream `apiVersions`: v1 (storage) has hostPort, v2 has host and port. */
const apiVersions = (): CustomResourceDefinitionVersion[] => [
  { name: "v1", served: true, storage: true, schema: schema({ hostPort: { type: "string" } }) },
  { name: "v2", served: true, storage: false, schema: schema({ host: { type: "string" }, port: { type: "string" } }) },
];
/** upstream `alternativeAPIVersions`: the same with v2 as the storage version. */
const alternativeAPIVersions = (): CustomResourceDefinitionVersion[] => apiVersions().map((v) => ({ ...v, storage: v.name === "v2" }));

function conversionCrd(caBundle: string, conversionReviewVersions = ["v1", "v1beta1"]): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: PLURAL, singular: "e2e-test-crd-webhook-crd", kind: KIND, listKind: `${KIND}List` },
      versions: apiVersions(),
      conversion: {
        strategy: "Webhook",
        webhook: {
          clientConfig: {
            caBundle,
            service: { namespace: CONVERSION_SERVICE.namespace, name: CONVERSION_SERVICE.name, path: "/crdconvert", port: SERVICE_PORT },
          },
          conversionReviewVersions,
        },
      },
      preserveUnknownFields: false,
    },
  };
}

interface Setup {
  t: TestPlane;
  webhook: TestConversionWebhook;
  storage: Storage;
  crd: CustomResourceDefinition;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(handler: ReviewHandler = convertEach(hostPortConversion), reviewVersions?: string[]): Promise<Setup> {
  const webhook = await startTestConversionWebhook({ "/crdconvert": handler });
  cleanups.push(() => webhook.close());
  const storage = createMemoryStorage();
  const t = await startTestPlane({
    storage,
    webhooks: {
      serviceResolver: staticServiceResolver({
        [`${CONVERSION_SERVICE.namespace}/${CONVERSION_SERVICE.name}:${SERVICE_PORT}`]: webhook.url,
      }),
    },
  });
  cleanups.push(() => t.close());
  expect(
    (await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } })).status,
  ).toBe(201);
  const crd = await establish(t, conversionCrd(webhook.caBundle, reviewVersions));
  return { t, webhook, storage, crd };
}

/** upstream `waitWebhookConversionReady`: a stub created in `version` (needing conversion) succeeds, then is deleted. */
async function waitWebhookConversionReady(t: TestPlane, version: string): Promise<void> {
  await eventually("a create needing conversion to succeed", async () => {
    const created = await t.call("POST", crs(version), {
      body: { apiVersion: `${GROUP}/${version}`, kind: KIND, metadata: { name: "conversion-ready", namespace: NS } },
    });
    return created.status === 201 ? true : undefined;
  });
  expect((await t.call("DELETE", `${crs(version)}/conversion-ready`)).status).toBe(200);
}

function crInstance(name: string, version = "v1") {
  return { kind: KIND, apiVersion: `${GROUP}/${version}`, metadata: { name, namespace: NS }, hostPort: "localhost:8080" };
}

/** upstream `verifyV1Object`. */
function verifyV1Object(object: any): void {
  expect(object.apiVersion).toBe(`${GROUP}/v1`);
  expect(object.hostPort).toBe("localhost:8080");
  expect("host" in object).toBe(false);
  expect("port" in object).toBe(false);
}

/** upstream `verifyV2Object`. */
function verifyV2Object(object: any): void {
  expect(object.apiVersion).toBe(`${GROUP}/v2`);
  expect("hostPort" in object).toBe(false);
  expect(object.host).toBe("localhost");
  expect(object.port).toBe("8080");
}

/** The object as it sits in storage (the form the webhook converted it to on write). */
async function stored(storage: Storage, name: string): Promise<any> {
  const kv = await storage.get(`/registry/${GROUP}/${PLURAL}/${NS}/${name}`);
  return kv === undefined ? undefined : JSON.parse(kv.value);
}

async function setStorageVersion(t: TestPlane, versions: CustomResourceDefinitionVersion[]): Promise<CustomResourceDefinition> {
  const current = (await t.call("GET", `${CRDS}/${PLURAL}.${GROUP}`)).json;
  const updated = await t.call("PUT", `${CRDS}/${PLURAL}.${GROUP}`, { body: { ...current, spec: { ...current.spec, versions } } });
  expect(updated.status, updated.text).toBe(200);
  return updated.json;
}

describe("CustomResourceConversionWebhook [Privileged:ClusterAdmin]", { timeout: 30_000 }, () => {
  it("should be able to convert from CR v1 to CR v2", async () => {
    const { t, storage, webhook } = await setup();
    await waitWebhookConversionReady(t, "v2");
    const created = await t.call("POST", crs("v1"), { body: crInstance("cr-instance-1") });
    expect(created.status, created.text).toBe(201);
    const v2 = await t.call("GET", `${crs("v2")}/cr-instance-1`);
    expect(v2.status, v2.text).toBe(200);
    verifyV2Object(v2.json);
    // Stored in the storage version, as the client wrote it; reads in v1 need no call.
    verifyV1Object(await stored(storage, "cr-instance-1"));
    const before = webhook.reviews.length;
    verifyV1Object((await t.call("GET", `${crs("v1")}/cr-instance-1`)).json);
    expect(webhook.reviews.length).toBe(before);
    // The review: v1 (first listed), desired v2, the stored object, client-go's timeout parameter.
    const review = webhook.reviews.at(-1)!;
    expect(review).toMatchObject({
      path: "/crdconvert",
      apiVersion: "apiextensions.k8s.io/v1",
      timeout: "30s",
      request: { desiredAPIVersion: `${GROUP}/v2` },
    });
    expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(review.request.objects).toHaveLength(1);
    verifyV1Object(review.request.objects[0]);
  });

  it("should be able to convert a non homogeneous list of CRs", async () => {
    const { t, storage, webhook } = await setup();
    await waitWebhookConversionReady(t, "v2");
    expect((await t.call("POST", crs("v1"), { body: crInstance("cr-instance-1") })).status).toBe(201);
    // Now cr-instance-1 is stored as v1; v2 becomes the storage version.
    const crd = await setStorageVersion(t, alternativeAPIVersions());
    expect(crd.status?.storedVersions).toEqual(["v1", "v2"]);
    // upstream retries this create while the new storage version takes effect; here it applies at once.
    await eventually("the create of cr-instance-2 to succeed", async () =>
      (await t.call("POST", crs("v1"), { body: crInstance("cr-instance-2") })).status === 201 ? true : undefined,
    );
    verifyV1Object(await stored(storage, "cr-instance-1"));
    verifyV2Object(await stored(storage, "cr-instance-2"));

    const v1 = await t.call("GET", crs("v1"));
    expect(v1.status, v1.text).toBe(200);
    expect(v1.json.items).toHaveLength(2);
    expect(v1.json.items.map((i: any) => i.metadata.name).sort()).toEqual(["cr-instance-1", "cr-instance-2"]);
    verifyV1Object(v1.json.items[0]);
    verifyV1Object(v1.json.items[1]);

    const before = webhook.reviews.length;
    const v2 = await t.call("GET", crs("v2"));
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.items).toHaveLength(2);
    expect(v2.json.items.map((i: any) => i.metadata.name).sort()).toEqual(["cr-instance-1", "cr-instance-2"]);
    verifyV2Object(v2.json.items[0]);
    verifyV2Object(v2.json.items[1]);
    // Only the object stored as v1 went to the webhook, in one review.
    expect(webhook.reviews.slice(before).map((r) => r.request.objects.map((o) => o.metadata?.name))).toEqual([["cr-instance-1"]]);
  });
});

describe("conversion webhook", { timeout: 30_000 }, () => {
  it("converts a list in one ConversionReview per page", async () => {
    const { t, webhook } = await setup();
    for (const name of ["a", "b", "c", "d", "e"]) expect((await t.call("POST", crs("v1"), { body: crInstance(name) })).status).toBe(201);
    const before = webhook.reviews.length;
    const list = await t.call("GET", crs("v2"));
    expect(list.json.items.map((i: any) => i.metadata.name)).toEqual(["a", "b", "c", "d", "e"]);
    for (const item of list.json.items) verifyV2Object(item);
    expect(webhook.reviews.slice(before).map((r) => r.request.objects.length)).toEqual([5]);

    const paged = webhook.reviews.length;
    const first = await t.call("GET", `${crs("v2")}?limit=2`);
    expect(first.json.items.map((i: any) => i.metadata.name)).toEqual(["a", "b"]);
    const rest = await t.call("GET", `${crs("v2")}?limit=3&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    expect(rest.json.items.map((i: any) => i.metadata.name)).toEqual(["c", "d", "e"]);
    for (const item of [...first.json.items, ...rest.json.items]) verifyV2Object(item);
    expect(webhook.reviews.slice(paged).map((r) => r.request.objects.map((o) => o.metadata?.name))).toEqual([
      ["a", "b"],
      ["c", "d", "e"],
    ]);
  });

  it("writes through v2 convert to the storage version, and updates see the old object in v2", async () => {
    const { t, storage } = await setup();
    const created = await t.call("POST", crs("v2"), {
      body: { apiVersion: `${GROUP}/v2`, kind: KIND, metadata: { name: "written", namespace: NS }, host: "example.org", port: "443" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: `${GROUP}/v2`, host: "example.org", port: "443" });
    expect(await stored(storage, "written")).toMatchObject({ apiVersion: `${GROUP}/v1`, hostPort: "example.org:443" });
    const patched = await t.call("PATCH", `${crs("v2")}/written`, {
      raw: JSON.stringify({ port: "8443" }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ apiVersion: `${GROUP}/v2`, host: "example.org", port: "8443" });
    expect(patched.json.metadata.resourceVersion).not.toBe(created.json.metadata.resourceVersion);
    expect(await stored(storage, "written")).toMatchObject({ apiVersion: `${GROUP}/v1`, hostPort: "example.org:8443" });
    const deleted = await t.call("DELETE", `${crs("v2")}/written`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "written", group: GROUP, kind: PLURAL } });
    expect(await stored(storage, "written")).toBeUndefined();
  });

  it("watches in v2 objects stored as v1: initial state, changes and deletion", async () => {
    const { t } = await setup();
    expect((await t.call("POST", crs("v1"), { body: crInstance("before") })).status).toBe(201);
    const controller = new AbortController();
    cleanups.push(() => Promise.resolve(controller.abort()));
    const response = await fetch(`${t.url}${crs("v2")}?watch=true`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const next = lineReader(response);
    const added = await next();
    expect(added.type).toBe("ADDED");
    expect(added.object.metadata.name).toBe("before");
    verifyV2Object(added.object);
    expect((await t.call("POST", crs("v1"), { body: crInstance("during") })).status).toBe(201);
    const live = await next();
    expect(live.type).toBe("ADDED");
    expect(live.object.metadata.name).toBe("during");
    verifyV2Object(live.object);
    const patched = await t.call("PATCH", `${crs("v1")}/during`, {
      raw: JSON.stringify({ hostPort: "example.org:80" }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await next()).toMatchObject({
      type: "MODIFIED",
      object: { apiVersion: `${GROUP}/v2`, host: "example.org", port: "80", metadata: { name: "during" } },
    });
    expect((await t.call("DELETE", `${crs("v1")}/before`)).status).toBe(200);
    const deleted = await next();
    expect(deleted.type).toBe("DELETED");
    expect(deleted.object.metadata.name).toBe("before");
    verifyV2Object(deleted.object);
  });

  it("answers 500 with upstream's message when the webhook is down, and leaves storage alone", async () => {
    const { t, webhook, storage } = await setup();
    expect((await t.call("POST", crs("v1"), { body: crInstance("cr-instance-1") })).status).toBe(201);
    const port = new URL(webhook.url).port;
    await webhook.close();
    // The URL is the Service's resolved endpoint, as upstream's service resolver gives it.
    const post = `Post "https://127.0.0.1:${port}/crdconvert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`;

    const get = await t.call("GET", `${crs("v2")}/cr-instance-1`);
    expect(get.status).toBe(500);
    expect(get.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `conversion webhook for ${GROUP}/v1, Kind=${KIND} failed: ${post}`,
      code: 500,
    });
    const list = await t.call("GET", crs("v2"));
    expect(list.status).toBe(500);
    expect(list.json.message).toBe(`conversion webhook for ${GROUP}/v1, Kind=${KIND} failed: ${post}`);
    // A write in v2 must be converted to v1 first: refused, nothing stored.
    const create = await t.call("POST", crs("v2"), {
      body: { apiVersion: `${GROUP}/v2`, kind: KIND, metadata: { name: "cr-instance-2", namespace: NS }, host: "h", port: "1" },
    });
    expect(create.status).toBe(500);
    expect(create.json.message).toBe(`conversion webhook for ${GROUP}/v2, Kind=${KIND} failed: ${post}`);
    expect(await stored(storage, "cr-instance-2")).toBeUndefined();
    // Reads and writes in the storage version need no conversion.
    verifyV1Object((await t.call("GET", `${crs("v1")}/cr-instance-1`)).json);
    expect((await t.call("POST", crs("v1"), { body: crInstance("cr-instance-3") })).status).toBe(201);
    // A watch in v2 that meets an object it cannot convert ends with an ERROR event.
    const response = await fetch(
      `${t.url}${crs("v2")}?watch=true&resourceVersion=${(await t.call("GET", crs("v1"))).json.metadata.resourceVersion}`,
    );
    const next = lineReader(response);
    expect((await t.call("POST", crs("v1"), { body: crInstance("cr-instance-4") })).status).toBe(201);
    expect(await next()).toEqual({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=${KIND} failed: ${post}`,
        reason: "InternalError",
        details: { causes: [{ message: `conversion webhook for ${GROUP}/v1, Kind=${KIND} failed: ${post}` }] },
        code: 500,
      },
    });
  });

  it("refuses answers upstream refuses: a changed uid, a failure result, a wrong count", async () => {
    const cases: Array<{ handler: ReviewHandler; message: string }> = [
      {
        handler: convertEach((object) => ({ ...object, metadata: { ...object.metadata, uid: "changed" } })),
        message: "must have the same UID",
      },
      {
        handler: (review) => ({
          apiVersion: review.apiVersion,
          kind: "ConversionReview",
          response: {
            uid: review.request.uid,
            convertedObjects: [],
            result: { status: "Failure", message: "custom webhook conversion error" },
          },
        }),
        message: `conversion webhook for ${GROUP}/v1, Kind=${KIND} failed: custom webhook conversion error`,
      },
      {
        handler: (review) => ({
          apiVersion: review.apiVersion,
          kind: "ConversionReview",
          response: { uid: review.request.uid, convertedObjects: [], result: { status: "Success" } },
        }),
        message: `conversion webhook for ${GROUP}/v1, Kind=${KIND} returned 0 objects, expected 1`,
      },
    ];
    for (const { handler, message } of cases) {
      const { t } = await setup(handler);
      expect((await t.call("POST", crs("v1"), { body: crInstance("stored") })).status).toBe(201);
      const get = await t.call("GET", `${crs("v2")}/stored`);
      expect(get.status).toBe(500);
      expect(get.json.message).toContain(message);
      while (cleanups.length > 0) await cleanups.pop()!();
    }
  });

  it("keeps labels and annotations the webhook sets and restores every other metadata field", async () => {
    const { t } = await setup(
      convertEach((object, desired) => ({
        ...object,
        metadata: {
          ...object.metadata,
          labels: { from: "v1", to: desired.replace("/", ".") },
          annotations: { from: object.apiVersion ?? "", to: desired },
          finalizers: ["foo"],
          generation: 42,
          garbage: "yes",
        } as any,
      })),
    );
    expect((await t.call("POST", crs("v1"), { body: crInstance("meta") })).status).toBe(201);
    const got = (await t.call("GET", `${crs("v2")}/meta`)).json;
    expect(got.metadata.labels).toEqual({ from: "v1", to: `${GROUP}.v2` });
    expect(got.metadata.annotations).toEqual({ from: `${GROUP}/v1`, to: `${GROUP}/v2` });
    expect(got.metadata.finalizers).toBeUndefined();
    expect(got.metadata.generation).toBe(1);
    expect(got.metadata.garbage).toBeUndefined();
  });

  it("deleting the CRD deletes its custom resources stored in either version", async () => {
    const { t, storage } = await setup();
    expect((await t.call("POST", crs("v1"), { body: crInstance("stored-as-v1") })).status).toBe(201);
    await setStorageVersion(t, alternativeAPIVersions());
    expect((await t.call("POST", crs("v1"), { body: crInstance("stored-as-v2") })).status).toBe(201);
    verifyV2Object(await stored(storage, "stored-as-v2"));
    expect((await t.call("DELETE", `${CRDS}/${PLURAL}.${GROUP}`)).status).toBe(200);
    await eventually("the CRD to be gone", async () =>
      (await t.call("GET", `${CRDS}/${PLURAL}.${GROUP}`)).status === 404 ? true : undefined,
    );
    expect(await stored(storage, "stored-as-v1")).toBeUndefined();
    expect(await stored(storage, "stored-as-v2")).toBeUndefined();
  });

  it("defaults on read in the stored version only, as upstream's validateDefaulting checks", async () => {
    // Each version defaults its own key of `.defaults`; the webhook only changes apiVersion.
    const { t, webhook, storage } = await setup(convertEach((object) => object));
    const defaulting = (own: string) => ({
      openAPIV3Schema: {
        type: "object" as const,
        properties: {
          defaults: {
            type: "object" as const,
            properties: {
              v1: { type: "boolean" as const, ...(own === "v1" ? { default: true } : {}) },
              v2: { type: "boolean" as const, ...(own === "v2" ? { default: true } : {}) },
            },
          },
        },
      },
    });
    const crd = await setStorageVersion(t, [
      { name: "v1", served: true, storage: true, schema: defaulting("v1") },
      { name: "v2", served: true, storage: false, schema: defaulting("v2") },
    ]);
    expect(crd.spec?.conversion?.webhook?.clientConfig?.caBundle).toBe(webhook.caBundle);
    for (const createVersion of ["v1", "v2"]) {
      const name = `defaulting-${createVersion}`;
      const created = await t.call("POST", crs(createVersion), {
        body: { apiVersion: `${GROUP}/${createVersion}`, kind: KIND, metadata: { name, namespace: NS }, defaults: {} },
      });
      expect(created.status, created.text).toBe(201);
      // The request version's default when decoding the request, the storage version's on the read-back.
      expect(created.json.defaults).toEqual(createVersion === "v1" ? { v1: true } : { v1: true, v2: true });
      // Only the first is persisted.
      expect((await stored(storage, name)).defaults).toEqual({ [createVersion]: true });
      // Reading another version defaults only the (not persisted) storage version's key.
      const other = createVersion === "v1" ? "v2" : "v1";
      const got = (await t.call("GET", `${crs(other)}/${name}`)).json;
      expect(got.defaults.v1).toBe(true);
      if (other !== "v1") expect(got.defaults[other]).toBeUndefined();
    }
  });

  it("calls the webhook with ConversionReview v1beta1 when that is the only version listed", async () => {
    const { t, webhook } = await setup(convertEach(hostPortConversion), ["v1beta1"]);
    expect((await t.call("POST", crs("v1"), { body: crInstance("beta") })).status).toBe(201);
    verifyV2Object((await t.call("GET", `${crs("v2")}/beta`)).json);
    expect(webhook.reviews.at(-1)!.apiVersion).toBe("apiextensions.k8s.io/v1beta1");
  });

  it("refuses a CRD whose conversionReviewVersions lists neither v1 nor v1beta1", async () => {
    const { t } = await setup();
    const crd = conversionCrd("", ["v2"]);
    crd.metadata = { name: `others.${GROUP}` };
    crd.spec!.names = { plural: "others", singular: "other", kind: "Other" };
    const created = await t.call("POST", CRDS, { body: crd });
    expect(created.status).toBe(422);
    expect(created.json.details.causes).toContainEqual(
      expect.objectContaining({ field: "spec.conversion.webhook.conversionReviewVersions" }),
    );
  });
});

describe("conversion webhook and admission", { timeout: 30_000 }, () => {
  it("hands a v2 request to a webhook registered for v1 (matchPolicy Equivalent) converted to v1, and its patch back in v2", async () => {
    const admission = await startTestWebhookServer({
      "/v1-only": (request) => {
        const object = request.object as { apiVersion?: string; hostPort?: string };
        // Only a v1 object has hostPort: the patch is written against v1.
        return object.apiVersion === `${GROUP}/v1` && object.hostPort !== undefined
          ? { allowed: true, patch: [{ op: "replace", path: "/hostPort", value: "mutated:9090" }] }
          : { allowed: true };
      },
    });
    cleanups.push(() => admission.close());
    const { t, storage } = await setup();
    const registered = await t.call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "v1-only" },
        webhooks: [
          {
            name: "v1-only.example.com",
            rules: [{ operations: ["CREATE"], apiGroups: [GROUP], apiVersions: ["v1"], resources: [PLURAL] }],
            matchPolicy: "Equivalent",
            clientConfig: { url: `${admission.url}/v1-only`, caBundle: admission.ca.caBundle },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      },
    });
    expect(registered.status, registered.text).toBe(201);
    const created = await t.call("POST", crs("v2"), {
      body: { apiVersion: `${GROUP}/v2`, kind: KIND, metadata: { name: "admitted", namespace: NS }, host: "localhost", port: "8080" },
    });
    expect(created.status, created.text).toBe(201);
    const [review] = admission.received("/v1-only");
    expect(review).toMatchObject({
      kind: { group: GROUP, version: "v1", kind: KIND },
      requestKind: { version: "v2" },
      object: { apiVersion: `${GROUP}/v1`, hostPort: "localhost:8080" },
    });
    expect(created.json).toMatchObject({ apiVersion: `${GROUP}/v2`, host: "mutated", port: "9090" });
    expect(await stored(storage, "admitted")).toMatchObject({ apiVersion: `${GROUP}/v1`, hostPort: "mutated:9090" });
  });
});

describe("conversion webhook with kubectl 1.32 and client-node", { timeout: 60_000 }, () => {
  it("kubectl gets a custom resource in both versions; client-node reads and lists v2", async () => {
    const { t } = await setup();
    expect((await t.call("POST", crs("v1"), { body: crInstance("cr-instance-1") })).status).toBe(201);
    const dir = mkdtempSync(join(tmpdir(), "kubekit-conversion-"));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const kubeconfigPath = join(dir, "kubeconfig");
    await t.plane.writeKubeconfig(kubeconfigPath);
    const kubectl = new Kubectl(findKubectl132(), { url: t.url, kubeconfigPath, dir, close: () => Promise.resolve() });
    verifyV2Object(await kubectl.json(["get", `${PLURAL}.v2.${GROUP}`, "cr-instance-1", "-n", NS]));
    verifyV1Object(await kubectl.json(["get", `${PLURAL}.v1.${GROUP}`, "cr-instance-1", "-n", NS]));
    const listed = await kubectl.json<{ items: unknown[] }>(["get", `${PLURAL}.v2.${GROUP}`, "-n", NS]);
    expect(listed.items).toHaveLength(1);
    verifyV2Object(listed.items[0]);

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const objects = kc.makeApiClient(CustomObjectsApi);
    verifyV2Object(
      await objects.getNamespacedCustomObject({ group: GROUP, version: "v2", namespace: NS, plural: PLURAL, name: "cr-instance-1" }),
    );
    const list = (await objects.listNamespacedCustomObject({ group: GROUP, version: "v2", namespace: NS, plural: PLURAL })) as {
      items: unknown[];
    };
    expect(list.items).toHaveLength(1);
    verifyV2Object(list.items[0]);
  });
});

/** Reads newline-delimited watch events; each call waits for the next one, failing after 5 s. */
function lineReader(response: Response): () => Promise<any> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return async () => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return JSON.parse(line);
      }
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no watch event within 5 s; buffered: ${buffer}`)), Math.max(left, 0))),
      );
      try {
        const { value, done } = await Promise.race([reader.read(), timeout]);
        if (done) throw new Error(`watch ended; buffered: ${buffer}`);
        buffer += decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  };
}
