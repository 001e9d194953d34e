import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestNamespace, expectStatus } from "./harness/framework.js";
import { KubeHttp } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of Conformance tests from test/e2e/apimachinery: field_validation.go (the two typed-object
// tests, with a Lease standing in for upstream's Deployment, plus the nested list-path case; the
// four custom-resource tests wait for CustomResourceDefinitions), discovery.go (PreferredVersion
// and "locate the groupVersion"), aggregated_discovery.go (raw Accept headers and the client
// interface), server_version.go and table_conversion.go (see its block below).

let server: TestServer;
let http: KubeHttp;

beforeAll(async () => {
  server = await startInProcess();
  http = new KubeHttp(server.url);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

describe("[sig-api-machinery] FieldValidation", () => {
  // Upstream posts a Deployment; Lease is this server's typed object with a nested spec.
  it("should detect unknown and duplicate fields of a typed object", async () => {
    const ns = await createTestNamespace(http, "field-validation");
    const body = `{
      "apiVersion": "coordination.k8s.io/v1",
      "kind": "Lease",
      "metadata": { "name": "my-lease", "labels": {"app": "nginx"} },
      "spec": {
        "unknownField": "foo",
        "leaseDurationSeconds": 2,
        "leaseDurationSeconds": 3,
        "holderIdentity": "holder"
      }
    }`;
    const answer = await http.request<StatusBody>(
      "POST",
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases?fieldManager=field_validation_mgr&fieldValidation=Strict`,
      {
        body,
        contentType: "application/json",
      },
    );
    expectStatus(answer, 400);
    expect(answer.body.kind).toBe("Status");
    expect(answer.body.reason).toBe("BadRequest");
    expect(answer.body.message).toContain(
      'strict decoding error: unknown field "spec.unknownField", duplicate field "spec.leaseDurationSeconds"',
    );
    expectStatus(await http.get(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/my-lease`), 404);
  });

  it("names unknown and duplicate fields inside a list of objects by their index path", async () => {
    // Upstream's Deployment puts them under spec.template.spec.containers[0]; a Lease's
    // metadata.ownerReferences is this server's typed list of objects.
    const ns = await createTestNamespace(http, "field-validation");
    const body = `{
      "apiVersion": "coordination.k8s.io/v1",
      "kind": "Lease",
      "metadata": {
        "name": "my-lease",
        "ownerReferences": [
          { "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "6f0e4b1c-0000-4000-8000-000000000001" },
          { "apiVersion": "v1", "kind": "ConfigMap", "name": "other", "uid": "6f0e4b1c-0000-4000-8000-000000000002",
            "unknownNested": "foo", "controller": true, "controller": false }
        ]
      },
      "spec": { "holderIdentity": "holder" }
    }`;
    const answer = await http.request<StatusBody>(
      "POST",
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases?fieldManager=field_validation_mgr&fieldValidation=Strict`,
      {
        body,
        contentType: "application/json",
      },
    );
    expectStatus(answer, 400);
    expect(answer.body.reason).toBe("BadRequest");
    expect(answer.body.message).toBe(
      'strict decoding error: unknown field "metadata.ownerReferences[1].unknownNested", duplicate field "metadata.ownerReferences[1].controller"',
    );
    expectStatus(await http.get(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/my-lease`), 404);
  });

  it("should detect unknown metadata fields of a typed object", async () => {
    const ns = await createTestNamespace(http, "field-validation");
    const body = `{
      "apiVersion": "coordination.k8s.io/v1",
      "kind": "Lease",
      "metadata": { "name": "my-lease", "unknownMeta": "foo", "labels": {"app": "nginx"} },
      "spec": { "holderIdentity": "holder" }
    }`;
    const answer = await http.request<StatusBody>(
      "POST",
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases?fieldManager=field_validation_mgr&fieldValidation=Strict`,
      {
        body,
        contentType: "application/json",
      },
    );
    expectStatus(answer, 400);
    expect(answer.body.message).toContain('strict decoding error: unknown field "metadata.unknownMeta"');
  });

  it("Warn accepts the object and reports unknown fields in Warning headers; Ignore drops them silently", async () => {
    const ns = await createTestNamespace(http, "field-validation");
    const warn = await http.request("POST", `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Warn`, {
      body: { metadata: { name: "warned" }, data: { a: "1" }, unknownTop: true },
    });
    expectStatus(warn, 201);
    expect(warn.headers.get("warning")).toMatch(/^299 - ".*unknown field \\"unknownTop\\".*"$/);
    expect(warn.body["unknownTop"]).toBeUndefined();
    const ignore = await http.request("POST", `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Ignore`, {
      body: { metadata: { name: "ignored" }, unknownTop: true },
    });
    expectStatus(ignore, 201);
    expect(ignore.headers.get("warning")).toBeNull();
    expect(ignore.body["unknownTop"]).toBeUndefined();
  });
});

interface APIGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion: { groupVersion: string; version: string };
}

interface APIResourceList {
  kind: string;
  groupVersion: string;
  resources: { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[] }[];
}

describe("[sig-api-machinery] Discovery", () => {
  it("should validate PreferredVersion for each APIGroup", async () => {
    const groups = await http.get<{ kind: string; groups: APIGroup[] }>("/apis");
    expectStatus(groups, 200);
    expect(groups.body.kind).toBe("APIGroupList");
    expect(groups.body.groups.map((g) => g.name)).toEqual(expect.arrayContaining(["coordination.k8s.io", "events.k8s.io"]));
    for (const group of groups.body.groups) {
      const single = await http.get<APIGroup & { kind: string }>(`/apis/${group.name}`);
      expectStatus(single, 200);
      expect(single.body.kind).toBe("APIGroup");
      expect(single.body.preferredVersion).toEqual(group.preferredVersion);
      expect(group.versions.map((v) => v.groupVersion)).toContain(group.preferredVersion.groupVersion);
      expect(single.body.versions.map((v) => v.groupVersion)).toContain(single.body.preferredVersion.groupVersion);
    }
  });

  it("should locate the groupVersion and a resource within each APIGroup", async () => {
    const groups = await http.get<{ groups: APIGroup[] }>("/apis");
    for (const group of groups.body.groups) {
      for (const version of group.versions) {
        const list = await http.get<APIResourceList>(`/apis/${version.groupVersion}`);
        expectStatus(list, 200);
        expect(list.body.kind).toBe("APIResourceList");
        expect(list.body.groupVersion).toBe(version.groupVersion);
        expect(list.body.resources.length).toBeGreaterThan(0);
      }
    }
    const core = await http.get<{ kind: string; versions: string[] }>("/api");
    expect(core.body.kind).toBe("APIVersions");
    expect(core.body.versions).toEqual(["v1"]);
    const v1 = await http.get<APIResourceList>("/api/v1");
    expect(v1.body.groupVersion).toBe("v1");
    const configmaps = v1.body.resources.find((r) => r.name === "configmaps");
    expect(configmaps).toMatchObject({ singularName: "configmap", namespaced: true, kind: "ConfigMap" });
    expect(configmaps?.verbs).toEqual(
      expect.arrayContaining(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]),
    );
    expect(v1.body.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(["namespaces", "namespaces/status", "namespaces/finalize", "secrets", "serviceaccounts", "events"]),
    );
    const leases = await http.get<APIResourceList>("/apis/coordination.k8s.io/v1");
    expect(leases.body.resources.find((r) => r.name === "leases")).toMatchObject({ kind: "Lease", namespaced: true });
  });
});

describe("[sig-api-machinery] AggregatedDiscovery", () => {
  it("should support raw aggregated discovery endpoint Accept headers", async () => {
    for (const version of ["v2", "v2beta1"]) {
      const accept = `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
      for (const path of ["/api", "/apis"]) {
        const answer = await http.get<{ kind: string; apiVersion: string; items: unknown[] }>(path, accept);
        expectStatus(answer, 200);
        const type = (answer.headers.get("content-type") ?? "").replace(/\s/g, "");
        expect(type.split(";").sort()).toEqual(accept.split(";").sort());
        expect(answer.body.kind).toBe("APIGroupDiscoveryList");
        expect(answer.body.apiVersion).toBe(`apidiscovery.k8s.io/${version}`);
        expect(answer.body.items.length).toBeGreaterThan(0);
      }
    }
  });
});

interface AggregatedList {
  items: {
    metadata: { name?: string };
    versions: {
      version: string;
      freshness?: string;
      resources: {
        resource: string;
        responseKind: { group: string; version: string; kind: string };
        scope: string;
        verbs: string[];
        subresources?: { subresource: string }[];
      }[];
    }[];
  }[];
}

describe("[sig-api-machinery] AggregatedDiscovery (consistency)", () => {
  it("should support aggregated discovery interface", async () => {
    const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const core = await http.get<AggregatedList>("/api", accept);
    const groups = await http.get<AggregatedList>("/apis", accept);
    const aggregated = [...core.body.items, ...groups.body.items];
    // The core group has an empty name, which Go's omitempty leaves out.
    expect(core.body.items.map((g) => g.metadata.name ?? "")).toEqual([""]);

    // Everything legacy discovery lists is in the aggregated document, with the same kind, scope and verbs.
    const legacyGroups = (await http.get<{ groups: APIGroup[] }>("/apis")).body.groups;
    const gvs = ["v1", ...legacyGroups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
    for (const gv of gvs) {
      const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
      const entry = aggregated.find((g) => (g.metadata.name ?? "") === group)?.versions.find((v) => v.version === version);
      expect(entry, gv).toBeDefined();
      expect(entry?.freshness ?? "Current").toBe("Current");
      const legacy = (await http.get<APIResourceList>(gv === "v1" ? "/api/v1" : `/apis/${gv}`)).body.resources;
      for (const resource of legacy.filter((r) => !r.name.includes("/"))) {
        const match = entry?.resources.find((r) => r.resource === resource.name);
        expect(match, `${gv} ${resource.name}`).toBeDefined();
        expect(match?.responseKind.kind).toBe(resource.kind);
        expect(match?.scope).toBe(resource.namespaced ? "Namespaced" : "Cluster");
        expect([...(match?.verbs ?? [])].sort()).toEqual([...resource.verbs].sort());
      }
      for (const sub of legacy.filter((r) => r.name.includes("/"))) {
        const [parent, subresource] = sub.name.split("/");
        const owner = entry?.resources.find((r) => r.resource === parent);
        expect(
          owner?.subresources?.map((s) => s.subresource),
          `${gv} ${sub.name}`,
        ).toContain(subresource);
      }
    }
    // The preferred version of each group comes first, as clients take the first as preferred.
    for (const group of legacyGroups) {
      const entry = groups.body.items.find((g) => g.metadata.name === group.name);
      expect(entry?.versions[0]?.version).toBe(group.preferredVersion.version);
    }
  });
});

describe("[sig-api-machinery] server version", () => {
  it("should find the server version", async () => {
    const version = await http.get<{ major: string; minor: string; gitVersion: string; platform: string }>("/version");
    expectStatus(version, 200);
    const major = /[1-9]/.exec(version.body.major)?.[0];
    expect(major).toBe("1");
    const minor = Number.parseInt(version.body.minor.replace(/[^0-9]+/g, ""), 10);
    expect(Number.isInteger(minor)).toBe(true);
    expect(version.body.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(version.body.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
  });
});

// Ports of test/e2e/apimachinery/table_conversion.go, all four tests. This server serves no pods,
// pod templates or nodes, so "pod details" reads one ConfigMap, "chunks of table results" pages
// through 20 ConfigMaps named template-%04d, and "across all namespaces for nodes" lists the
// cluster-scoped namespaces and the configmaps of every namespace. Upstream's client-side
// printTable (cli-runtime) is not ported: kubectl's own printing is covered in kubectl-1.32.test.ts.
describe("[sig-api-machinery] Servers with support for Table transformation", () => {
  interface Table {
    kind: string;
    apiVersion: string;
    metadata: { resourceVersion?: string; continue?: string };
    columnDefinitions: { name: string; format: string }[];
    rows: { cells: unknown[]; object: { kind: string; metadata: { name: string; namespace?: string } } }[];
  }
  const tableV1beta1 = "application/json;as=Table;v=v1beta1;g=meta.k8s.io";

  function expectTableShape(table: Table, apiVersion = "meta.k8s.io/v1beta1"): void {
    expect(table.kind).toBe("Table");
    expect(table.apiVersion).toBe(apiVersion);
    expect(table.columnDefinitions[0]?.name).toBe("Name");
    for (const row of table.rows) expect(row.cells).toHaveLength(table.columnDefinitions.length);
  }

  it("should return pod details (one object as a Table)", async () => {
    const ns = await createTestNamespace(http, "tables");
    expectStatus(await http.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "pod-1" }, data: { a: "1", b: "2" } }), 201);
    const table = await http.get<Table>(`/api/v1/namespaces/${ns}/configmaps/pod-1`, tableV1beta1);
    expectStatus(table, 200);
    expectTableShape(table.body);
    expect(table.body.columnDefinitions.length).toBeGreaterThan(2);
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(table.body.columnDefinitions[0]?.format).toBe("name");
    expect(table.body.rows).toHaveLength(1);
    expect(table.body.rows[0]?.cells.slice(0, 2)).toEqual(["pod-1", 2]);
    expect(table.body.rows[0]?.object.kind).toBe("PartialObjectMetadata");
  });

  it("should return chunks of table results for list calls", async () => {
    const ns = await createTestNamespace(http, "tables");
    // workqueue.ParallelizeUntil(ctx, 5, 20, …)
    for (let start = 0; start < 20; start += 5) {
      await Promise.all(
        Array.from({ length: 5 }, async (_, offset) => {
          const name = `template-${String(start + offset).padStart(4, "0")}`;
          expectStatus(await http.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } }), 201);
        }),
      );
    }
    const paged = await http.get<Table>(`/api/v1/namespaces/${ns}/configmaps?limit=2`, tableV1beta1);
    expectStatus(paged, 200);
    expectTableShape(paged.body);
    expect(paged.body.rows).toHaveLength(2);
    expect(paged.body.metadata.resourceVersion ?? "").not.toBe("");
    expect(paged.body.metadata.continue ?? "").not.toBe("");
    expect(paged.body.rows[0]?.cells[0]).toBe("template-0000");
    expect(paged.body.rows[1]?.cells[0]).toBe("template-0001");

    const next = await http.get<Table>(
      `/api/v1/namespaces/${ns}/configmaps?continue=${encodeURIComponent(paged.body.metadata.continue!)}`,
      tableV1beta1,
    );
    expectStatus(next, 200);
    expect(next.body.rows).not.toHaveLength(0);
    expect(next.body.rows[0]?.cells[0]).toBe("template-0002");
  });

  it("should return generic metadata details across all namespaces", async () => {
    const first = await createTestNamespace(http, "tables");
    const second = await createTestNamespace(http, "tables");
    for (const ns of [first, second]) {
      expectStatus(await http.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `row-of-${ns}` }, data: { a: "1" } }), 201);
    }

    // A cluster-scoped resource, as upstream's nodes.
    const namespaces = await http.get<Table>("/api/v1/namespaces", tableV1beta1);
    expectStatus(namespaces, 200);
    expectTableShape(namespaces.body);
    expect(namespaces.body.columnDefinitions.length).toBeGreaterThanOrEqual(2);
    expect(namespaces.body.rows).not.toHaveLength(0);
    expect(namespaces.body.metadata.resourceVersion ?? "").not.toBe("");
    expect(namespaces.body.rows.map((row) => row.cells[0])).toEqual(expect.arrayContaining([first, second]));

    // A namespaced resource listed across all namespaces (kubectl get -A).
    const all = await http.get<Table>("/api/v1/configmaps", "application/json;as=Table;v=v1;g=meta.k8s.io");
    expectStatus(all, 200);
    expectTableShape(all.body, "meta.k8s.io/v1");
    expect(all.body.metadata.resourceVersion ?? "").not.toBe("");
    const rows = all.body.rows.map((row) => [row.object.metadata.namespace, row.cells[0]]);
    expect(rows).toEqual(
      expect.arrayContaining([
        [first, `row-of-${first}`],
        [second, `row-of-${second}`],
      ]),
    );
  });

  it("should return a 406 for a backend which does not implement metadata", async () => {
    // Upstream posts a SelfSubjectAccessReview accepting only the v1beta1 Table form.
    const review = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { nonResourceAttributes: { path: "/", verb: "get" } },
    };
    const answer = await http.request<StatusBody>("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      body: review,
      accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    });
    expectStatus(answer, 406);
    expect(answer.body.kind).toBe("Status");
    expect(answer.body.reason).toBe("NotAcceptable");
    // The same review with a JSON Accept is answered.
    const allowed = await http.post<{ kind: string; status: { allowed: boolean } }>(
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      review,
    );
    expectStatus(allowed, 201);
    expect(allowed.body.status.allowed).toBe(true);
  });

  it("should return a 406 for a table request the server cannot serve", async () => {
    // Only Table (no JSON fallback) on a discovery document, which has no table form.
    const answer = await http.get<StatusBody>("/api/v1", "application/json;as=Table;v=v1;g=meta.k8s.io");
    expectStatus(answer, 406);
    expect(answer.body.kind).toBe("Status");
    expect(answer.body.reason).toBe("NotAcceptable");
  });
});
