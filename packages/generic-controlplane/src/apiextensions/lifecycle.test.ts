/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { startEtcd } from "../../test/harness/etcd.js";
import { createEtcdStorage } from "../storage/etcd.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import type { Storage } from "../storage/types.js";
import { establish, eventually, watchReader, widgetCrd } from "./test-fixtures.js";
import type { CustomResourceDefinition } from "./types.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const AGGREGATED = { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" };

async function groupNames(t: TestPlane): Promise<string[]> {
  return (await t.call("GET", "/apis")).json.groups.map((g: any) => g.name);
}

async function aggregatedResources(t: TestPlane, group: string): Promise<string[] | undefined> {
  const list = (await t.call("GET", "/apis", { headers: AGGREGATED })).json;
  const found = list.items.find((g: any) => g.metadata.name === group);
  return found?.versions.flatMap((v: any) => v.resources.map((r: any) => `${v.version}/${r.resource}`));
}

describe("CRD lifecycle", () => {
  let t: TestPlane;
  beforeAll(async () => {
    t = await startTestPlane();
  });
  afterAll(async () => {
    await t.close();
  });

  it("appears in legacy and aggregated discovery and OpenAPI v2/v3 within a second of Established, and is gone after delete", async () => {
    const crd = widgetCrd({ group: "discovery.example.com", plural: "probes", kind: "Probe", categories: ["all"] });
    await establish(t, crd, 1000);
    await eventually(
      "the group in discovery",
      async () => ((await groupNames(t)).includes("discovery.example.com") ? true : undefined),
      1000,
    );
    expect(await aggregatedResources(t, "discovery.example.com")).toEqual(["v1/probes"]);
    const resource = (await t.call("GET", "/apis/discovery.example.com/v1")).json.resources.find((r: any) => r.name === "probes");
    expect(resource).toMatchObject({ kind: "Probe", namespaced: true, singularName: "probe", shortNames: ["wd"], categories: ["all"] });
    const index = (await t.call("GET", "/openapi/v3")).json;
    const v3 = (await t.call("GET", index.paths["apis/discovery.example.com/v1"].serverRelativeURL)).json;
    const schemaName = Object.keys(v3.components.schemas).find((n) => n.endsWith(".Probe"));
    expect(schemaName).toBe("com.example.discovery.v1.Probe");
    expect(v3.components.schemas[schemaName!].properties.spec.properties.color.description).toBe("Color of the widget, e.g. blue.");
    const v2 = (await t.call("GET", "/openapi/v2")).json;
    expect(v2.definitions["com.example.discovery.v1.Probe"]).toBeDefined();

    expect((await t.call("DELETE", `${CRDS}/probes.discovery.example.com`)).status).toBe(200);
    await eventually(
      "the CRD to be gone",
      async () => ((await t.call("GET", `${CRDS}/probes.discovery.example.com`)).status === 404 ? true : undefined),
      1000,
    );
    expect(await groupNames(t)).not.toContain("discovery.example.com");
    expect(await aggregatedResources(t, "discovery.example.com")).toBeUndefined();
    expect((await t.call("GET", "/openapi/v3")).json.paths["apis/discovery.example.com/v1"]).toBeUndefined();
    expect((await t.call("GET", "/apis/discovery.example.com/v1/probes")).status).toBe(404);
  });

  it("deletes the custom resources before the CRD, refusing new ones while terminating", async () => {
    const crd = widgetCrd({ group: "cleanup.example.com", plural: "items", kind: "Item", scope: "Cluster" });
    await establish(t, crd);
    const items = "/apis/cleanup.example.com/v1/items";
    expect((await t.call("POST", items, { body: { metadata: { name: "plain" } } })).status).toBe(201);
    // A finalizer of its own keeps one custom resource, and so the CRD, around until it is removed.
    expect((await t.call("POST", items, { body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } })).status).toBe(201);

    const deleted = await t.call("DELETE", `${CRDS}/items.cleanup.example.com`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(deleted.json.metadata.deletionTimestamp).toBeDefined();
    expect(deleted.json.status.conditions.find((c: any) => c.type === "Terminating")).toMatchObject({
      status: "True",
      reason: "InstanceDeletionPending",
    });

    const terminating: CustomResourceDefinition = await eventually("instance deletion to start", async () => {
      const current = (await t.call("GET", `${CRDS}/items.cleanup.example.com`)).json;
      return current.status.conditions.some((c: any) => c.type === "Terminating" && c.reason === "InstanceDeletionInProgress")
        ? current
        : undefined;
    });
    expect(terminating.status?.conditions?.find((c) => c.type === "Terminating")?.message).toBe("CustomResource deletion is in progress");
    await eventually("the plain item to be deleted", async () =>
      (await t.call("GET", `${items}/plain`)).status === 404 ? true : undefined,
    );
    expect((await t.call("GET", `${items}/held`)).json.metadata.deletionTimestamp).toBeDefined();

    const refused = await t.call("POST", items, { body: { metadata: { name: "late" } } });
    expect(refused.status).toBe(405);
    expect(refused.json).toMatchObject({
      reason: "MethodNotAllowed",
      message: "create not allowed while custom resource definition is terminating",
    });

    expect(
      (
        await t.call("PATCH", `${items}/held`, {
          body: { metadata: { finalizers: null } },
          headers: { "Content-Type": "application/merge-patch+json" },
        })
      ).status,
    ).toBe(200);
    await eventually("the CRD to be gone", async () =>
      (await t.call("GET", `${CRDS}/items.cleanup.example.com`)).status === 404 ? true : undefined,
    );
    expect((await t.call("GET", items)).status).toBe(404);
    // Nothing of the custom resources is left in storage.
    expect((await t.plane.storage.list("/registry/cleanup.example.com/")).items).toEqual([]);
  });

  it("serves every served version, storing objects in the storage version (conversion None)", async () => {
    const crd = widgetCrd({ group: "versions.example.com", plural: "dials", kind: "Dial" });
    const v1 = crd.spec!.versions![0]!;
    crd.spec!.versions = [
      { ...v1, name: "v1beta1", storage: false, additionalPrinterColumns: [], selectableFields: [] },
      v1,
      { ...v1, name: "v2alpha1", served: false, storage: false, selectableFields: [] },
    ];
    await establish(t, crd);
    const created = await t.call("POST", "/apis/versions.example.com/v1beta1/namespaces/default/dials", {
      body: { metadata: { name: "d1" }, spec: { color: "blue" } },
    });
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe("versions.example.com/v1beta1");
    const asV1 = await t.call("GET", "/apis/versions.example.com/v1/namespaces/default/dials/d1");
    expect(asV1.json).toMatchObject({ apiVersion: "versions.example.com/v1", kind: "Dial", spec: { color: "blue" } });
    const stored = await t.plane.storage.get("/registry/versions.example.com/dials/default/d1");
    expect(JSON.parse(stored!.value).apiVersion).toBe("versions.example.com/v1");
    expect((await t.call("GET", "/apis/versions.example.com/v2alpha1/namespaces/default/dials")).status).toBe(404);
    const group = (await t.call("GET", "/apis/versions.example.com")).json;
    expect(group.versions.map((v: any) => v.version).sort()).toEqual(["v1", "v1beta1"]);
    expect(group.preferredVersion.version).toBe("v1");
  });

  it("warns on every request to a deprecated version, naming the newest served one", async () => {
    const crd = widgetCrd({ group: "deprecated.example.com", plural: "relics", kind: "Relic" });
    const v1 = crd.spec!.versions![0]!;
    crd.spec!.versions = [
      { ...v1, name: "v1alpha1", storage: false, deprecated: true, selectableFields: [] },
      {
        ...v1,
        name: "v1beta1",
        storage: false,
        deprecated: true,
        deprecationWarning: "v1beta1 relics go away in 2027",
        selectableFields: [],
      },
      v1,
    ];
    await establish(t, crd);
    const alpha = await t.call("GET", "/apis/deprecated.example.com/v1alpha1/namespaces/default/relics");
    expect(alpha.status).toBe(200);
    expect(alpha.headers.get("warning")).toBe(
      '299 - "deprecated.example.com/v1alpha1 Relic is deprecated; use deprecated.example.com/v1 Relic"',
    );
    const beta = await t.call("POST", "/apis/deprecated.example.com/v1beta1/namespaces/default/relics", {
      body: { metadata: { name: "r1" } },
    });
    expect(beta.headers.get("warning")).toBe('299 - "v1beta1 relics go away in 2027"');
    expect((await t.call("GET", "/apis/deprecated.example.com/v1/namespaces/default/relics")).headers.get("warning")).toBeNull();
  });

  it("watches custom resources (CustomResourceDefinition Watch)", async () => {
    const crd = widgetCrd({ group: "watch.example.com", plural: "noisemakers", kind: "NoiseMaker" });
    await establish(t, crd);
    const path = "/apis/watch.example.com/v1/namespaces/default/noisemakers";
    const response = await fetch(`${t.url}${path}?watch=true`);
    const { next, cancel } = watchReader(response);
    await t.call("POST", path, { body: { metadata: { name: "n1" }, spec: { color: "a" } } });
    expect(await next()).toMatchObject({ type: "ADDED", object: { kind: "NoiseMaker", metadata: { name: "n1" } } });
    await t.call("PATCH", `${path}/n1`, { body: { spec: { color: "b" } }, headers: { "Content-Type": "application/merge-patch+json" } });
    expect(await next()).toMatchObject({ type: "MODIFIED", object: { spec: { color: "b" } } });
    await t.call("DELETE", `${path}/n1`);
    expect(await next()).toMatchObject({ type: "DELETED", object: { metadata: { name: "n1" } } });
    await cancel();
  });
});

describe("CRDs across a restart", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "crd-restart-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A CRD and a custom resource written by one control plane are served by the next one on the same storage. */
  async function survivesRestart(open: () => Promise<Storage>): Promise<void> {
    const first = await startTestPlane({ storage: await open() });
    try {
      await establish(first, widgetCrd({ group: "restart.example.com" }));
      expect(
        (
          await first.call("POST", "/apis/restart.example.com/v1/namespaces/default/widgets", {
            body: { metadata: { name: "kept" }, spec: { color: "gold" } },
          })
        ).status,
      ).toBe(201);
    } finally {
      await first.close();
    }
    const second = await startTestPlane({ storage: await open() });
    try {
      // Served as soon as the control plane is up: no waiting for a controller.
      const kept = await second.call("GET", "/apis/restart.example.com/v1/namespaces/default/widgets/kept");
      expect(kept.status).toBe(200);
      expect(kept.json.spec.color).toBe("gold");
      expect((await second.call("GET", "/apis/restart.example.com/v1")).json.resources.map((r: any) => r.name)).toContain("widgets");
    } finally {
      await second.close();
    }
  }

  it("serves the stored CRDs and their custom resources again when started on the same SQLite file", async () => {
    const path = join(dir, "state.db");
    await survivesRestart(() => createSqliteStorage({ path }));
  });

  it("serves the stored CRDs and their custom resources again when started on the same etcd", async () => {
    const etcd = await startEtcd();
    try {
      await survivesRestart(() => Promise.resolve(createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0 })));
    } finally {
      await etcd.stop();
    }
  }, 60_000);
});
