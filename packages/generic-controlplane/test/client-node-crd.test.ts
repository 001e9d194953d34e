import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess, type TestServer } from "./harness/server.js";

// @kubernetes/client-node 2.0.1 against CRDs: ApiextensionsV1Api for the definition, CustomObjectsApi for its objects.

const crd: V1CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gears.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "gears", singular: "gear", kind: "Gear" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { teeth: { type: "integer" } } },
              status: { type: "object", properties: { turning: { type: "boolean" } } },
            },
          },
        },
        subresources: { status: {} },
      },
    ],
  },
};

interface Gear {
  metadata: { name: string; resourceVersion?: string; generation?: number };
  spec?: { teeth?: number };
  status?: { turning?: boolean };
}

let server: TestServer;
let kc: KubeConfig;
let extensions: ApiextensionsV1Api;
let objects: CustomObjectsApi;

beforeAll(async () => {
  server = await startInProcess();
  kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  extensions = kc.makeApiClient(ApiextensionsV1Api);
  objects = kc.makeApiClient(CustomObjectsApi);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

/** Resolves once a watch on the CRD sees it Established; fails after `ms`. */
function established(name: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let controller: AbortController | undefined;
    const timer = setTimeout(() => {
      controller?.abort();
      reject(new Error(`timed out waiting for ${name} to be Established`));
    }, ms);
    void new Watch(kc)
      .watch(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        { fieldSelector: `metadata.name=${name}` },
        (_phase, object: V1CustomResourceDefinition) => {
          if (object.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) {
            clearTimeout(timer);
            controller?.abort();
            resolve();
          }
        },
        () => undefined,
      )
      .then((c) => (controller = c));
  });
}

describe("client-node with custom resources", () => {
  it("creates a CRD, then creates, reads, lists, patches, updates status of and deletes custom objects", async () => {
    const ready = established("gears.example.com", 5000);
    await extensions.createCustomResourceDefinition({ body: crd });
    await ready;
    const read = await extensions.readCustomResourceDefinition({ name: "gears.example.com" });
    expect(read.status?.acceptedNames?.kind).toBe("Gear");

    const target = { group: "example.com", version: "v1", namespace: "default", plural: "gears" };
    const created = (await objects.createNamespacedCustomObject({
      ...target,
      body: { apiVersion: "example.com/v1", kind: "Gear", metadata: { name: "g1" }, spec: { teeth: 12 } },
    })) as Gear;
    expect(created.metadata.generation).toBe(1);
    const got = (await objects.getNamespacedCustomObject({ ...target, name: "g1" })) as Gear;
    expect(got.spec?.teeth).toBe(12);
    const list = (await objects.listNamespacedCustomObject(target)) as { items: Gear[] };
    expect(list.items.map((g) => g.metadata.name)).toEqual(["g1"]);

    const patched = (await objects.patchNamespacedCustomObject(
      { ...target, name: "g1", body: { spec: { teeth: 24 } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    )) as Gear;
    expect(patched.spec?.teeth).toBe(24);
    expect(patched.metadata.generation).toBe(2);
    const jsonPatched = (await objects.patchNamespacedCustomObject(
      { ...target, name: "g1", body: [{ op: "replace", path: "/spec/teeth", value: 36 }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    )) as Gear;
    expect(jsonPatched.spec?.teeth).toBe(36);

    const status = (await objects.replaceNamespacedCustomObjectStatus({
      ...target,
      name: "g1",
      body: { ...jsonPatched, status: { turning: true } },
    })) as Gear;
    expect(status.status?.turning).toBe(true);
    expect(status.metadata.generation).toBe(3);

    const stale = objects.replaceNamespacedCustomObject({ ...target, name: "g1", body: { ...jsonPatched, spec: { teeth: 1 } } });
    await expect(stale).rejects.toMatchObject({ code: 409 });

    await objects.deleteNamespacedCustomObject({ ...target, name: "g1" });
    await expect(objects.getNamespacedCustomObject({ ...target, name: "g1" })).rejects.toMatchObject({ code: 404 });
  });
});
