/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";
import type { LogRecord } from "./logger.js";

let t: TestPlane;
const logs: LogRecord[] = [];
beforeAll(async () => {
  t = await startTestPlane({ logger: (record) => logs.push(record) });
});
afterAll(async () => {
  await t.close();
});

describe("version and discovery", () => {
  it("serves version.Info with integer major and minor strings", async () => {
    const r = await t.call("GET", "/version?timeout=32s");
    expect(r.status).toBe(200);
    expect(r.json.major).toMatch(/^\d+$/);
    expect(r.json.minor).toMatch(/^\d+$/);
    expect(r.json.gitVersion).toMatch(/^v\d+\.\d+\.\d+/);
    expect(r.json.platform).toContain("/");
  });

  it("indents JSON for ?pretty=true and for curl, compact otherwise", async () => {
    expect((await t.call("GET", "/version?pretty=true")).text).toContain('\n  "major"');
    expect((await t.call("GET", "/version", { headers: { "User-Agent": "curl/8.0" } })).text).toContain('\n  "major"');
    expect((await t.call("GET", "/version")).text).toMatch(/^\{"major":/);
  });

  it("lists the served paths at /", async () => {
    const r = await t.call("GET", "/");
    expect(r.json.paths).toEqual(
      expect.arrayContaining([
        "/api",
        "/api/v1",
        "/apis",
        "/apis/coordination.k8s.io",
        "/apis/coordination.k8s.io/v1",
        "/healthz",
        "/metrics",
        "/openapi/v3",
        "/version",
      ]),
    );
  });

  it("serves legacy discovery and the resource lists", async () => {
    const api = await t.call("GET", "/api", { headers: { Accept: "application/json, */*" } });
    expect(api.json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const v1 = await t.call("GET", "/api/v1");
    expect(v1.json.kind).toBe("APIResourceList");
    const names = v1.json.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "configmaps",
        "namespaces",
        "namespaces/finalize",
        "namespaces/status",
        "secrets",
        "serviceaccounts",
        "events",
      ]),
    );
    const apis = await t.call("GET", "/apis");
    expect(apis.json.kind).toBe("APIGroupList");
    const group = await t.call("GET", "/apis/coordination.k8s.io");
    expect(group.json.preferredVersion.groupVersion).toBe("coordination.k8s.io/v1");
    expect((await t.call("GET", "/apis/coordination.k8s.io/v1")).json.resources[0].name).toBe("leases");
    expect((await t.call("GET", "/apis/nope.example.com/v1")).status).toBe(404);
  });

  it("answers 406 to a Table-only Accept on discovery documents", async () => {
    const r = await t.call("GET", "/api/v1", { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(r.status).toBe(406);
    expect(r.json).toMatchObject({ kind: "Status", reason: "NotAcceptable" });
  });

  it("serves aggregated discovery with the echoed Content-Type", async () => {
    const accept =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    const r = await t.call("GET", "/apis", { headers: { Accept: accept } });
    expect(r.headers.get("content-type")).toBe("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    expect(r.json.kind).toBe("APIGroupDiscoveryList");
    const beta = await t.call("GET", "/api", {
      headers: { Accept: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList" },
    });
    expect(beta.headers.get("content-type")).toBe("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
    expect(beta.json.items[0].versions[0].resources.map((x: { resource: string }) => x.resource)).toContain("configmaps");
  });
});

describe("openapi", () => {
  it("serves the v3 index, per-group-version documents with PATCH fieldValidation, and v2 as protobuf", async () => {
    const index = await t.call("GET", "/openapi/v3");
    expect(index.status).toBe(200);
    const url: string = index.json.paths["api/v1"].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = await t.call("GET", url);
    expect(doc.status).toBe(200);
    expect(doc.headers.get("cache-control")).toContain("immutable");
    const patch = doc.json.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"].patch;
    expect(patch.parameters.map((p: { name: string }) => p.name)).toContain("fieldValidation");
    expect((await t.call("GET", "/openapi/v3/apis/nope/v1")).status).toBe(404);
    const v2 = await fetch(`${t.url}/openapi/v2`, { headers: { Accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
    expect(v2.headers.get("content-type")).toBe("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    expect((await v2.arrayBuffer()).byteLength).toBeGreaterThan(15);
    const json = await t.call("GET", "/openapi/v2");
    expect(json.json.swagger).toBe("2.0");
  });
});

describe("self reviews (kubectl auth can-i, whoami)", () => {
  it("answers SelfSubjectAccessReview (JSON and protobuf) with allowed: true by default", async () => {
    const review = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "get", resource: "configmaps", namespace: "default" } },
    };
    const r = await t.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { body: review });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      kind: "SelfSubjectAccessReview",
      status: { allowed: true },
      spec: { resourceAttributes: { verb: "get" } },
    });
    const { encodeProtobuf } = await import("../protobuf/codec.js");
    const proto = await t.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      raw: encodeProtobuf(review),
      headers: { "Content-Type": "application/vnd.kubernetes.protobuf", Accept: "application/vnd.kubernetes.protobuf,application/json" },
    });
    expect(proto.status).toBe(201);
    expect(proto.json.status.allowed).toBe(true);
  });

  it("asks the configured authorizer, for the reviews and for every request", async () => {
    // Read-only, but may ask what it may do (kubectl auth can-i creates reviews).
    const readOnly = (_user: unknown, attributes: { verb: string; resource?: string }) =>
      attributes.verb === "get" || attributes.verb === "list" || attributes.resource === "selfsubjectaccessreviews"
        ? { allowed: true }
        : { allowed: false, reason: "read-only" };
    const denied = await startTestPlane({ authorizer: { authorize: readOnly } });
    try {
      const review = (verb: string) => ({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb, resource: "secrets" } },
      });
      expect(
        (await denied.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { body: review("get") })).json.status,
      ).toEqual({ allowed: true });
      expect(
        (await denied.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { body: review("delete") })).json.status,
      ).toEqual({ allowed: false, reason: "read-only" });
      // What can-i says is what a request gets.
      expect((await denied.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      const create = await denied.call("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "x" } } });
      expect(create.status).toBe(403);
      expect(create.json).toMatchObject({
        kind: "Status",
        reason: "Forbidden",
        code: 403,
        message:
          'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "default": read-only',
        details: { kind: "configmaps" },
      });
    } finally {
      await denied.close();
    }
  });

  it("answers SelfSubjectRulesReview and SelfSubjectReview for the anonymous user", async () => {
    const rules = await t.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      body: { spec: { namespace: "default" } },
    });
    expect(rules.json.status.resourceRules).toEqual([{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]);
    const whoami = await t.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: {} });
    expect(whoami.json.status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    expect((await t.call("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")).status).toBe(405);
  });
});

describe("health", () => {
  it("answers ok on /healthz, /livez and /readyz, lists checks with ?verbose, runs one check by path", async () => {
    for (const path of ["/healthz", "/livez", "/readyz"]) {
      const r = await t.call("GET", path);
      expect(r.status).toBe(200);
      expect(r.text).toBe("ok");
    }
    const verbose = await t.call("GET", "/readyz?verbose");
    expect(verbose.text).toContain("[+]ping ok");
    expect(verbose.text).toContain("[+]etcd ok");
    expect(verbose.text).toContain("[+]shutdown ok");
    expect(verbose.text).toContain("readyz check passed");
    expect((await t.call("GET", "/livez/ping")).text).toBe("ok");
    expect((await t.call("GET", "/livez/nope")).status).toBe(404);
  });
});

describe("metrics and logs", () => {
  it("exports upstream metric names with upstream labels", async () => {
    await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("metered") });
    await t.call("GET", "/api/v1/namespaces/default/configmaps/metered");
    await t.call("GET", "/api/v1/namespaces/default/configmaps/absent");
    const r = await t.call("GET", "/metrics");
    expect(r.status).toBe(200);
    expect(r.text).toContain(
      'apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"} 1',
    );
    expect(r.text).toContain(
      'apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"} 1',
    );
    expect(r.text).toContain("apiserver_request_duration_seconds_bucket{");
    await t.call("GET", "/apis/random.example/v9/things");
    expect((await t.call("GET", "/metrics")).text).not.toContain("random.example");
    expect(r.text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"}');
    expect(r.text).toMatch(/apiserver_storage_objects\{resource="configmaps"\} [1-9]/);
    expect(r.text).toMatch(/apiserver_storage_objects\{resource="namespaces"\} 4/);
    // events.k8s.io events live under the core events' keys and are counted there.
    expect(r.text).toContain('apiserver_storage_objects{resource="events"}');
    expect(r.text).not.toContain('apiserver_storage_objects{resource="events.events.k8s.io"}');
    expect(r.text).toContain("# TYPE apiserver_registered_watchers gauge");
  });

  it("writes one structured log record per request", async () => {
    logs.length = 0;
    await t.call("GET", "/api/v1/namespaces/default/configmaps/metered");
    const record = logs.find((l) => l.msg === "request" && l.path === "/api/v1/namespaces/default/configmaps/metered");
    expect(record).toMatchObject({ verb: "GET", code: 200, resource: "configmaps", namespace: "default" });
    expect(typeof record?.latencyMs).toBe("number");
  });
});

describe("kubeconfig", () => {
  it("points a context named after the server at the URL", () => {
    expect(t.plane.kubeconfig).toContain(`server: ${t.url}`);
    expect(t.plane.kubeconfig).toContain("current-context: kubekit");
    // client-node 2.x only talks plain http to clusters marked insecure-skip-tls-verify.
    expect(t.plane.kubeconfig).toContain("insecure-skip-tls-verify: true");
  });
});
