import { afterEach, describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../../registry/rest/resource-definition.js";
import { createResourceStore } from "../../registry/store.js";
import type { Namespace } from "../../resources/namespaces.js";
import { GroupDiscoveryFailedError, discoverPreferredResources } from "../discovery.js";
import { CONFIGMAPS, NAMESPACES_REF, SECRETS, eventually, isGoneFrom, startControllers, type ControllerHarness } from "../test-support.js";
import { KubeClient } from "../client.js";
import { startTestPlane, type TestPlane } from "../../server/test-support.js";
import { namespaceController } from "./controller.js";
import { NamespacedResourcesDeleter, ResourcesRemainingError } from "./deleter.js";

const gadgets: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Namespaced",
  schema: { type: "object", properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object" } } },
  printerColumns: [],
};

let h: ControllerHarness | undefined;
let plain: TestPlane | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await plain?.close();
  plain = undefined;
});

async function createNamespace(client: KubeClient, name: string): Promise<Namespace> {
  return client.create<Namespace>(NAMESPACES_REF, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

function condition(ns: Namespace, type: string) {
  return ns.status?.conditions?.find((c) => c.type === type);
}

describe("namespace controller", () => {
  it("empties a deleted namespace of every namespaced resource and the namespace goes", async () => {
    h = await startControllers([namespaceController({ deletionGracePeriodMs: 0 })]);
    const { client } = h;
    await createNamespace(client, "doomed");
    await client.create(CONFIGMAPS, "doomed", { metadata: { name: "c1" }, data: { a: "1" } });
    await client.create(SECRETS, "doomed", { metadata: { name: "s1" }, stringData: { a: "1" } });
    await client.create(CONFIGMAPS, "default", { metadata: { name: "keep" } });
    await client.delete(NAMESPACES_REF, undefined, "doomed");
    await eventually("namespace doomed to be gone", async () =>
      (await isGoneFrom(client, NAMESPACES_REF, undefined, "doomed")) ? true : undefined,
    );
    // Re-creating the namespace does not bring old content back.
    await createNamespace(client, "doomed");
    expect((await client.list(CONFIGMAPS, "doomed")).items).toEqual([]);
    expect((await client.list(SECRETS, "doomed")).items).toEqual([]);
    expect((await client.get(CONFIGMAPS, "default", "keep")).metadata?.name).toBe("keep");
  });

  it("finds resource types added at run time", async () => {
    h = await startControllers([namespaceController({ deletionGracePeriodMs: 0 })]);
    const { client, test } = h;
    test.plane.server.addResource({ definition: gadgets, store: createResourceStore(gadgets, test.plane.storage) });
    const gadgetRef = { group: "example.com", version: "v1", resource: "gadgets", namespaced: true };
    await createNamespace(client, "late");
    await client.create(gadgetRef, "late", { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" } });
    await client.delete(NAMESPACES_REF, undefined, "late");
    await eventually("namespace late to be gone", async () =>
      (await isGoneFrom(client, NAMESPACES_REF, undefined, "late")) ? true : undefined,
    );
    expect(await isGoneFrom(client, gadgetRef, "late", "g")).toBe(true);
  });

  it("waits for content finalizers, reporting NamespaceContentRemaining and NamespaceFinalizersRemaining", async () => {
    h = await startControllers([namespaceController({ deletionGracePeriodMs: 0 })]);
    const { client } = h;
    await createNamespace(client, "held");
    await client.create(CONFIGMAPS, "held", { metadata: { name: "pinned", finalizers: ["example.com/hold"] } });
    await client.delete(NAMESPACES_REF, undefined, "held");
    const ns = await eventually("content conditions", async () => {
      const current = await client.get<Namespace>(NAMESPACES_REF, undefined, "held");
      return condition(current, "NamespaceFinalizersRemaining")?.status === "True" ? current : undefined;
    });
    expect(condition(ns, "NamespaceContentRemaining")).toMatchObject({
      status: "True",
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: configmaps. has 1 resource instances",
    });
    expect(condition(ns, "NamespaceFinalizersRemaining")).toMatchObject({
      status: "True",
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    expect(condition(ns, "NamespaceDeletionDiscoveryFailure")).toMatchObject({
      status: "False",
      reason: "ResourcesDiscovered",
      message: "All resources successfully discovered",
    });
    expect(condition(ns, "NamespaceDeletionContentFailure")).toMatchObject({
      status: "False",
      reason: "ContentDeleted",
      message: "All content successfully deleted, may be waiting on finalization",
    });
    expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
    // The held object is marked deleted; releasing it lets the namespace go.
    const pinned = await client.get(CONFIGMAPS, "held", "pinned");
    expect(pinned.metadata?.deletionTimestamp).toBeDefined();
    await client.patch(CONFIGMAPS, "held", "pinned", { metadata: { finalizers: null } });
    await eventually(
      "namespace held to be gone",
      async () => ((await isGoneFrom(client, NAMESPACES_REF, undefined, "held")) ? true : undefined),
      20_000,
    );
  }, 30_000);
});

// Ports of upstream pkg/controller/namespace/deletion/namespaced_resources_deleter_test.go, run against a real server.
describe("NamespacedResourcesDeleter", () => {
  it("TestSyncNamespaceThatIsActive: an active namespace is left alone", async () => {
    plain = await startTestPlane();
    const client = new KubeClient(plain.url);
    await createNamespace(client, "active");
    await client.create(CONFIGMAPS, "active", { metadata: { name: "c" } });
    await new NamespacedResourcesDeleter({ client }).delete("active");
    expect((await client.get<Namespace>(NAMESPACES_REF, undefined, "active")).spec?.finalizers).toEqual(["kubernetes"]);
    expect((await client.list(CONFIGMAPS, "active")).items).toHaveLength(1);
    client.close();
  });

  it("testSyncNamespaceThatIsTerminating: content is deleted, then the kubernetes finalizer is removed and the namespace goes", async () => {
    plain = await startTestPlane();
    const client = new KubeClient(plain.url);
    await createNamespace(client, "term");
    await client.create(CONFIGMAPS, "term", { metadata: { name: "c" } });
    await client.delete(NAMESPACES_REF, undefined, "term");
    await new NamespacedResourcesDeleter({ client }).delete("term");
    expect(await isGoneFrom(client, CONFIGMAPS, "term", "c")).toBe(true);
    expect(await isGoneFrom(client, NAMESPACES_REF, undefined, "term")).toBe(true);
    client.close();
  });

  it("TestFinalizeNamespaceFunc: only its own token is removed from spec.finalizers", async () => {
    plain = await startTestPlane();
    const client = new KubeClient(plain.url);
    await client.create(NAMESPACES_REF, undefined, {
      metadata: { name: "tokens" },
      spec: { finalizers: ["kubernetes", "example.com/other"] },
    });
    await client.delete(NAMESPACES_REF, undefined, "tokens");
    await new NamespacedResourcesDeleter({ client }).delete("tokens");
    expect((await client.get<Namespace>(NAMESPACES_REF, undefined, "tokens")).spec?.finalizers).toEqual(["example.com/other"]);
    client.close();
  });

  it("TestSyncNamespaceThatIsTerminating with a discovery failure: content goes but the namespace is not finalized", async () => {
    plain = await startTestPlane();
    const client = new KubeClient(plain.url);
    await createNamespace(client, "partial");
    await client.create(CONFIGMAPS, "partial", { metadata: { name: "c" } });
    await client.delete(NAMESPACES_REF, undefined, "partial");
    const failing = new GroupDiscoveryFailedError(
      new Map([["metrics.k8s.io/v1beta1", new Error("the server is currently unable to handle the request")]]),
      await discoverPreferredResources(client),
    );
    const deleter = new NamespacedResourcesDeleter({ client, discoverResources: () => Promise.reject(failing) });
    await expect(deleter.delete("partial")).rejects.toBe(failing);
    expect(await isGoneFrom(client, CONFIGMAPS, "partial", "c")).toBe(true);
    const ns = await client.get<Namespace>(NAMESPACES_REF, undefined, "partial");
    expect(ns.spec?.finalizers).toEqual(["kubernetes"]);
    expect(condition(ns, "NamespaceDeletionDiscoveryFailure")).toMatchObject({
      status: "True",
      reason: "DiscoveryFailed",
      message:
        "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
    });
    client.close();
  });

  it("reports ResourcesRemainingError with the finalizer estimate while finalizers hold content", async () => {
    plain = await startTestPlane();
    const client = new KubeClient(plain.url);
    await createNamespace(client, "est");
    await client.create(CONFIGMAPS, "est", { metadata: { name: "c", finalizers: ["example.com/hold"] } });
    await client.delete(NAMESPACES_REF, undefined, "est");
    const error = await new NamespacedResourcesDeleter({ client }).delete("est").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourcesRemainingError);
    expect((error as ResourcesRemainingError).estimateSeconds).toBe(15);
    await client.patch(CONFIGMAPS, "est", "c", { metadata: { finalizers: null } });
    client.close();
  });
});
