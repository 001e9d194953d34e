/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read arbitrary JSON responses */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ApiException, AuthorizationV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findKubectl132 } from "../../test/harness/tools.js";
import { startTestPlane, type TestPlane } from "../server/test-support.js";

const run = promisify(execFile);

/** Bearer tokens of the test users, as a token authenticator would map them. */
const USERS: Record<string, { name: string; groups: string[] }> = {
  "admin-token": {
    name: "root",
    groups: ["system:masters", "system:authenticated"],
  },
  "jane-token": { name: "jane", groups: ["system:authenticated"] },
  "lead-token": { name: "lead", groups: ["system:authenticated", "leads"] },
  "nobody-token": { name: "nobody", groups: ["system:authenticated"] },
  "patcher-token": { name: "patcher", groups: ["system:authenticated"] },
};

let t: TestPlane;
let dir: string;
let kubectl: string;

const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, {
    headers: as("admin-token"),
    ...(body === undefined ? {} : { body }),
  });
const user = (token: string, method: string, path: string, body?: unknown) =>
  t.call(method, path, {
    headers: as(token),
    ...(body === undefined ? {} : { body }),
  });

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

function roleBinding(
  name: string,
  namespace: string,
  roleKind: "Role" | "ClusterRole",
  role: string,
  subjects: Array<{ kind: string; name: string }>,
) {
  return {
    metadata: { name, namespace },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: roleKind,
      name: role,
    },
    subjects: subjects.map((s) => ({
      ...s,
      apiGroup: "rbac.authorization.k8s.io",
    })),
  };
}

/**
 * kubectl as the anonymous user: kubectl sends no credentials over plain HTTP, so these tests bind
 * roles to `system:anonymous` and `system:unauthenticated`, as an operator opening a server up would.
 */
async function kubectlAnonymous(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(kubectl, ["--kubeconfig", join(dir, "kubeconfig"), "--cache-dir", join(dir, "cache"), ...args], {
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
  }
}

/** Polls `check` until it holds, failing with `what` after the deadline. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(async () => {
  kubectl = findKubectl132();
  t = await startTestPlane({
    authorization: { modes: ["RBAC"] },
    authenticate: (ctx) => {
      const header = ctx.req.headers.authorization ?? "";
      return header.startsWith("Bearer ") ? USERS[header.slice(7)] : undefined;
    },
  });
  dir = await mkdtemp(join(tmpdir(), "rbac-"));
  await writeFile(join(dir, "kubeconfig"), t.plane.kubeconfig);
  expect(
    (
      await admin(
        "POST",
        `${RBAC}/namespaces/default/rolebindings`,
        roleBinding("jane-view", "default", "ClusterRole", "view", [{ kind: "User", name: "jane" }]),
      )
    ).status,
  ).toBe(201);
});

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("authorization on every request", () => {
  it("lets a user bound to view list configmaps but not create them (403 with upstream's message)", async () => {
    expect((await user("jane-token", "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    const create = await user("jane-token", "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "nope" } });
    expect(create.status).toBe(403);
    expect(create.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"',
      reason: "Forbidden",
      details: { kind: "configmaps" },
      code: 403,
    });
    // Nothing was stored.
    expect((await admin("GET", "/api/v1/namespaces/default/configmaps/nope")).status).toBe(404);
    // The binding is in default only.
    const other = await user("jane-token", "GET", "/api/v1/namespaces/kube-system/configmaps");
    expect(other.status).toBe(403);
    expect(other.json.message).toBe(
      'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "kube-system"',
    );
    // A namespace object is in its own namespace: view there lets jane read it.
    expect((await user("jane-token", "GET", "/api/v1/namespaces/default")).status).toBe(200);
    const named = await user("jane-token", "DELETE", "/api/v1/namespaces/default/configmaps/x");
    expect(named.json.message).toBe(
      'configmaps "x" is forbidden: User "jane" cannot delete resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it("answers cluster-scope and non-resource denials with their own wording; anonymous users see only public info", async () => {
    const cluster = await user("jane-token", "GET", "/api/v1/namespaces");
    expect(cluster.json.message).toBe(
      'namespaces is forbidden: User "jane" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    const metrics = await user("jane-token", "GET", "/metrics");
    expect(metrics.status).toBe(403);
    expect(metrics.json).toMatchObject({
      reason: "Forbidden",
      message: 'forbidden: User "jane" cannot get path "/metrics"',
    });
    // system:discovery and system:public-info-viewer.
    expect((await user("jane-token", "GET", "/apis")).status).toBe(200);
    for (const path of ["/version", "/healthz", "/readyz", "/livez"]) expect((await t.call("GET", path)).status).toBe(200);
    const anonymous = await t.call("GET", "/api/v1/namespaces/default/configmaps");
    expect(anonymous.status).toBe(403);
    expect(anonymous.json.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it("allows system:masters everything and reports the RBAC reason for a binding to a missing role", async () => {
    expect((await admin("GET", "/api/v1/namespaces")).status).toBe(200);
    expect(
      (
        await admin("POST", `${RBAC}/clusterrolebindings`, {
          metadata: { name: "nobody-ghost" },
          roleRef: {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: "ghost",
          },
          subjects: [{ kind: "User", name: "nobody" }],
        })
      ).status,
    ).toBe(201);
    const denied = await user("nobody-token", "GET", "/api/v1/namespaces/default/secrets");
    expect(denied.json.message).toBe(
      'secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    );
  });

  it("serves the bootstrap policy and reports the post-start hook", async () => {
    const roles = (await admin("GET", `${RBAC}/clusterroles`)).json.items.map((r: { metadata: { name: string } }) => r.metadata.name);
    for (const name of [
      "cluster-admin",
      "admin",
      "edit",
      "view",
      "system:discovery",
      "system:basic-user",
      "system:public-info-viewer",
      "system:monitoring",
      "system:aggregate-to-view",
      "system:controller:namespace-controller",
    ]) {
      expect(roles).toContain(name);
    }
    const bindings = (await admin("GET", `${RBAC}/clusterrolebindings/cluster-admin`)).json;
    expect(bindings.subjects).toEqual([
      {
        kind: "Group",
        apiGroup: "rbac.authorization.k8s.io",
        name: "system:masters",
      },
    ]);
    // view gathered system:aggregate-to-view's rules; edit includes view's; admin includes edit's.
    const view = (await admin("GET", `${RBAC}/clusterroles/view`)).json;
    expect(view.rules).toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["namespaces"],
    });
    const admins = (await admin("GET", `${RBAC}/clusterroles/admin`)).json;
    expect(admins.rules).toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["namespaces"],
    });
    expect((await admin("GET", "/readyz?verbose")).text).toContain("[+]poststarthook/rbac/bootstrap-roles ok");
  });
});

describe("escalation and bind checks", () => {
  beforeAll(async () => {
    // lead may write Roles and RoleBindings in default, and read configmaps, nothing more.
    const role = {
      metadata: { name: "role-writer", namespace: "default" },
      rules: [
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["roles", "rolebindings"],
          verbs: ["create", "get", "update", "patch"],
        },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
      ],
    };
    expect((await admin("POST", `${RBAC}/namespaces/default/roles`, role)).status).toBe(201);
    expect(
      (
        await admin(
          "POST",
          `${RBAC}/namespaces/default/rolebindings`,
          roleBinding("lead-writer", "default", "Role", "role-writer", [{ kind: "User", name: "lead" }]),
        )
      ).status,
    ).toBe(201);
  });

  it("refuses a Role granting permissions the writer does not hold, naming them", async () => {
    const role = {
      metadata: { name: "cm-writer", namespace: "default" },
      rules: [
        {
          apiGroups: [""],
          resources: ["configmaps"],
          verbs: ["get", "create", "delete"],
        },
      ],
    };
    const r = await user("lead-token", "POST", `${RBAC}/namespaces/default/roles`, role);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      reason: "Forbidden",
      details: {
        name: "cm-writer",
        group: "rbac.authorization.k8s.io",
        kind: "roles",
      },
    });
    expect(r.json.message).toBe(
      'roles.rbac.authorization.k8s.io "cm-writer" is forbidden: user "lead" (groups=["system:authenticated" "leads"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["create" "delete"]}',
    );
    // What lead holds can be granted.
    const held = {
      metadata: { name: "cm-reader", namespace: "default" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    };
    expect((await user("lead-token", "POST", `${RBAC}/namespaces/default/roles`, held)).status).toBe(201);
    // Widening it by update is refused too.
    const widened = {
      ...held,
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "patch"] }],
    };
    const update = await user("lead-token", "PUT", `${RBAC}/namespaces/default/roles/cm-reader`, widened);
    expect(update.status).toBe(403);
    expect(update.json.message).toContain('{APIGroups:[""], Resources:["configmaps"], Verbs:["patch"]}');
    const patched = await t.call("PATCH", `${RBAC}/namespaces/default/roles/cm-reader`, {
      headers: { ...as("lead-token"), "Content-Type": "application/merge-patch+json" },
      raw: JSON.stringify({ rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }] }),
    });
    expect(patched.status).toBe(403);
    expect(patched.json.message).toContain('{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}');
    // A change that grants nothing new (labels) passes.
    const labelled = await t.call("PATCH", `${RBAC}/namespaces/default/roles/cm-reader`, {
      headers: { ...as("lead-token"), "Content-Type": "application/merge-patch+json" },
      raw: JSON.stringify({ metadata: { labels: { team: "a" } } }),
    });
    expect(labelled.status).toBe(200);
  });

  it("refuses binding a role the writer could not grant, unless bound with bind; escalate allows writing any rules", async () => {
    const binding = roleBinding("jane-edit", "default", "ClusterRole", "edit", [{ kind: "User", name: "jane" }]);
    const refused = await user("lead-token", "POST", `${RBAC}/namespaces/default/rolebindings`, binding);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(
      /^rolebindings.rbac.authorization.k8s.io "jane-edit" is forbidden: user "lead" \(groups=\["system:authenticated" "leads"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );

    const powers = {
      metadata: { name: "lead-powers", namespace: "default" },
      rules: [
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["clusterroles"],
          verbs: ["bind"],
          resourceNames: ["edit"],
        },
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["roles"],
          verbs: ["escalate"],
        },
      ],
    };
    expect((await admin("POST", `${RBAC}/namespaces/default/roles`, powers)).status).toBe(201);
    expect(
      (
        await admin(
          "POST",
          `${RBAC}/namespaces/default/rolebindings`,
          roleBinding("lead-powers", "default", "Role", "lead-powers", [{ kind: "Group", name: "leads" }]),
        )
      ).status,
    ).toBe(201);

    expect((await user("lead-token", "POST", `${RBAC}/namespaces/default/rolebindings`, binding)).status).toBe(201);
    const other = await user(
      "lead-token",
      "POST",
      `${RBAC}/namespaces/default/rolebindings`,
      roleBinding("jane-admin", "default", "ClusterRole", "admin", [{ kind: "User", name: "jane" }]),
    );
    expect(other.status).toBe(403);
    const role = {
      metadata: { name: "anything", namespace: "default" },
      rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }],
    };
    expect((await user("lead-token", "POST", `${RBAC}/namespaces/default/roles`, role)).status).toBe(201);
    await admin("DELETE", `${RBAC}/namespaces/default/rolebindings/jane-edit`);
  });

  it("answers a binding to a missing role with the role's NotFound, as upstream's GetRoleReferenceRules", async () => {
    const r = await user(
      "lead-token",
      "POST",
      `${RBAC}/namespaces/default/rolebindings`,
      roleBinding("to-ghost", "default", "Role", "ghost-role", [{ kind: "User", name: "jane" }]),
    );
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({
      reason: "NotFound",
      message: 'roles.rbac.authorization.k8s.io "ghost-role" not found',
      details: { name: "ghost-role", group: "rbac.authorization.k8s.io", kind: "roles" },
    });
  });

  it("refuses labelling cluster-admin or admin into view's aggregation (kubectl label's patch) to a user who may only patch clusterroles", async () => {
    const patcher = {
      metadata: { name: "clusterrole-patcher" },
      rules: [{ apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], verbs: ["get", "patch"] }],
    };
    expect((await admin("POST", `${RBAC}/clusterroles`, patcher)).status).toBe(201);
    const binding = {
      metadata: { name: "patcher" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "clusterrole-patcher" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "patcher" }],
    };
    expect((await admin("POST", `${RBAC}/clusterrolebindings`, binding)).status).toBe(201);
    const viewBefore = (await admin("GET", `${RBAC}/clusterroles/view`)).json;
    for (const role of ["cluster-admin", "admin"]) {
      // What `kubectl label clusterrole <role> rbac.authorization.k8s.io/aggregate-to-view=true` sends
      // (kubectl sends no bearer token over plain HTTP, so the request is made as it would make it).
      const r = await t.call("PATCH", `${RBAC}/clusterroles/${role}?fieldManager=kubectl-label`, {
        headers: { ...as("patcher-token"), "Content-Type": "application/merge-patch+json" },
        raw: JSON.stringify({ metadata: { labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } } }),
      });
      expect(r.status).toBe(403);
      expect(r.json.message).toMatch(
        new RegExp(
          `^clusterroles.rbac.authorization.k8s.io "${role}" is forbidden: user "patcher" \\(groups=\\["system:authenticated"\\]\\) is attempting to grant RBAC permissions not currently held:\\n`,
        ),
      );
      expect(
        (await admin("GET", `${RBAC}/clusterroles/${role}`)).json.metadata.labels?.["rbac.authorization.k8s.io/aggregate-to-view"],
      ).toBeUndefined();
    }
    const viewAfter = (await admin("GET", `${RBAC}/clusterroles/view`)).json;
    expect(viewAfter.rules).toEqual(viewBefore.rules);
    expect(JSON.stringify(viewAfter.rules)).not.toContain('"*"');
  });
});

describe("RBAC object validation", () => {
  it("rejects rules and bindings upstream rejects, naming the field and the rule", async () => {
    const noVerbs = await admin("POST", `${RBAC}/namespaces/default/roles`, {
      metadata: { name: "bad" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: [] }],
    });
    expect(noVerbs.status).toBe(422);
    expect(noVerbs.json.message).toBe(
      'Role.rbac.authorization.k8s.io "bad" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
    );
    const urls = await admin("POST", `${RBAC}/namespaces/default/roles`, {
      metadata: { name: "bad" },
      rules: [{ nonResourceURLs: ["/x"], verbs: ["get"] }],
    });
    expect(urls.json.message).toContain("rules[0].nonResourceURLs: Invalid value");
    expect(urls.json.message).toContain("namespaced rules cannot apply to non-resource URLs");
    const kind = await admin("POST", `${RBAC}/clusterrolebindings`, {
      metadata: { name: "bad" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "x",
      },
      subjects: [],
    });
    expect(kind.json.message).toBe(
      'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    );
    const sa = await admin("POST", `${RBAC}/clusterrolebindings`, {
      metadata: { name: "bad" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "view",
      },
      subjects: [{ kind: "ServiceAccount", name: "default" }],
    });
    expect(sa.json.message).toBe('ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: subjects[0].namespace: Required value');
    const agg = await admin("POST", `${RBAC}/clusterroles`, {
      metadata: { name: "bad" },
      aggregationRule: { clusterRoleSelectors: [] },
    });
    expect(agg.json.message).toBe(
      'ClusterRole.rbac.authorization.k8s.io "bad" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    );
  });

  it("server-side applies a ClusterRole without an aggregationRule, creating and then updating it", async () => {
    const applied = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "applied-reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    };
    const apply = () =>
      t.call("PATCH", `${RBAC}/clusterroles/applied-reader?fieldManager=installer`, {
        headers: { ...as("admin-token"), "Content-Type": "application/apply-patch+yaml" },
        raw: JSON.stringify(applied),
      });
    const created = await apply();
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty("aggregationRule");
    expect((await apply()).status).toBe(200);
  });

  it("defaults subjects' apiGroup and keeps roleRef immutable", async () => {
    const created = await admin("POST", `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: "defaults" },
      roleRef: { kind: "ClusterRole", name: "view" },
      subjects: [
        { kind: "User", name: "u" },
        { kind: "ServiceAccount", name: "default" },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.json.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "view",
    });
    expect(created.json.subjects).toEqual([
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" },
      { kind: "ServiceAccount", name: "default" },
    ]);
    const changed = await admin("PUT", `${RBAC}/namespaces/default/rolebindings/defaults`, {
      ...created.json,
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "edit",
      },
    });
    expect(changed.status).toBe(422);
    expect(changed.json.message).toContain("roleRef: Invalid value");
    expect(changed.json.message).toContain("cannot change roleRef");
  });
});

describe("ClusterRole aggregation", () => {
  it("extends view with a ClusterRole labelled aggregate-to-view, and edit and admin through it", async () => {
    const extra = {
      metadata: {
        name: "lease-reader",
        labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" },
      },
      rules: [
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          verbs: ["get", "list"],
        },
      ],
    };
    expect((await admin("POST", `${RBAC}/clusterroles`, extra)).status).toBe(201);
    const hasRule = (name: string) => async () =>
      ((await admin("GET", `${RBAC}/clusterroles/${name}`)).json.rules ?? []).some(
        (r: { resources?: string[] }) => r.resources?.includes("leases") && r.resources.length === 1,
      );
    await eventually("view to gather lease-reader", hasRule("view"));
    await eventually("admin to gather it through edit", hasRule("admin"));
    expect((await user("jane-token", "GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases")).status).toBe(200);
    // Removing the label takes the rule away again.
    expect((await admin("DELETE", `${RBAC}/clusterroles/lease-reader`)).status).toBe(200);
    await eventually("view to drop the rule", async () => !(await hasRule("view")()));
    expect((await user("jane-token", "GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases")).status).toBe(403);
  });

  it("refuses an aggregationRule to a user without full authority", async () => {
    const powers = {
      metadata: { name: "clusterrole-writer" },
      rules: [
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["clusterroles"],
          verbs: ["create"],
        },
      ],
    };
    expect((await admin("POST", `${RBAC}/clusterroles`, powers)).status).toBe(201);
    expect(
      (
        await admin("POST", `${RBAC}/clusterrolebindings`, {
          metadata: { name: "lead-clusterrole-writer" },
          roleRef: {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: "clusterrole-writer",
          },
          subjects: [
            {
              kind: "User",
              apiGroup: "rbac.authorization.k8s.io",
              name: "lead",
            },
          ],
        })
      ).status,
    ).toBe(201);
    const r = await user("lead-token", "POST", `${RBAC}/clusterroles`, {
      metadata: { name: "gatherer" },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: "y" } }] },
    });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
  });
});

describe("escalation through aggregation labels, with kubectl", () => {
  it("refuses a user who may get and patch clusterroles labelling cluster-admin or admin into view's aggregation", async () => {
    const patcher = {
      metadata: { name: "clusterrole-label-patcher" },
      rules: [{ apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], verbs: ["get", "patch"] }],
    };
    expect((await admin("POST", `${RBAC}/clusterroles`, patcher)).status).toBe(201);
    // kubectl sends no token over plain HTTP, so the patcher is the anonymous user here; the
    // bindings go again at the end.
    const bindings = [
      ["anonymous-patcher", "clusterrole-label-patcher"],
      ["anonymous-discovery", "system:discovery"],
    ].map(([name, role]) => ({
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "system:anonymous" }],
    }));
    for (const binding of bindings) expect((await admin("POST", `${RBAC}/clusterrolebindings`, binding)).status).toBe(201);
    const viewBefore = (await admin("GET", `${RBAC}/clusterroles/view`)).json;
    const adminBefore = (await admin("GET", `${RBAC}/clusterroles/cluster-admin`)).json;

    const label = (role: string) => kubectlAnonymous("label", "clusterrole", role, "rbac.authorization.k8s.io/aggregate-to-view=true");
    const clusterAdmin = await label("cluster-admin");
    expect(clusterAdmin.code).toBe(1);
    expect(clusterAdmin.stderr).toContain(
      'clusterroles.rbac.authorization.k8s.io "cluster-admin" is forbidden: user "system:anonymous" (groups=["system:unauthenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}',
    );
    const aggregated = await label("admin");
    expect(aggregated.code).toBe(1);
    expect(aggregated.stderr).toContain('clusterroles.rbac.authorization.k8s.io "admin" is forbidden: user "system:anonymous"');
    // A role the patcher may write, with no rules and no aggregation, still takes a label.
    expect((await admin("POST", `${RBAC}/clusterroles`, { metadata: { name: "empty" } })).status).toBe(201);
    expect(await kubectlAnonymous("label", "clusterrole", "empty", "team=a")).toMatchObject({ code: 0 });

    // Give the aggregation controller its chance: nothing changed, so view keeps its rules.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const viewAfter = (await admin("GET", `${RBAC}/clusterroles/view`)).json;
    expect(viewAfter.rules).toEqual(viewBefore.rules);
    expect(viewAfter.rules).not.toContainEqual({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
    const adminAfter = (await admin("GET", `${RBAC}/clusterroles/cluster-admin`)).json;
    expect(adminAfter.metadata.labels).toEqual(adminBefore.metadata.labels);
    expect(adminAfter.metadata.resourceVersion).toBe(adminBefore.metadata.resourceVersion);
    expect((await user("jane-token", "GET", "/api/v1/namespaces/default/secrets")).status).toBe(403);
    for (const binding of bindings)
      expect((await admin("DELETE", `${RBAC}/clusterrolebindings/${binding.metadata.name}`)).status).toBe(200);
  });
});

describe("access reviews (SubjectReview conformance, kubectl auth can-i)", () => {
  it("lists the four reviews in discovery as create-only resources", async () => {
    const list = (await admin("GET", "/apis/authorization.k8s.io/v1")).json;
    const names = list.resources.map((r: { name: string; verbs: string[]; namespaced: boolean }) => [r.name, r.verbs, r.namespaced]);
    expect(names).toEqual(
      expect.arrayContaining([
        ["localsubjectaccessreviews", ["create"], true],
        ["selfsubjectaccessreviews", ["create"], false],
        ["selfsubjectrulesreviews", ["create"], false],
        ["subjectaccessreviews", ["create"], false],
      ]),
    );
    expect((await admin("GET", "/apis/authorization.k8s.io/v1/subjectaccessreviews")).status).toBe(405);
  });

  it("SubjectReview: SAR, LSAR and SSAR agree with each other and with the requests themselves", async () => {
    const attributes = {
      verb: "list",
      resource: "configmaps",
      namespace: "default",
    };
    const sar = await admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: "jane",
        groups: ["system:authenticated"],
        resourceAttributes: attributes,
      },
    });
    expect(sar.status).toBe(201);
    expect(sar.json.status.allowed).toBe(true);
    expect(sar.json.status.reason).toBe('RBAC: allowed by RoleBinding "jane-view/default" of ClusterRole "view" to User "jane"');
    const lsar = await admin("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "LocalSubjectAccessReview",
      spec: { user: "jane", resourceAttributes: attributes },
    });
    expect(lsar.status).toBe(201);
    expect(lsar.json.status.allowed).toBe(sar.json.status.allowed);
    const ssar = await user("jane-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: attributes },
    });
    expect(ssar.json.status.allowed).toBe(true);
    const create = await admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      spec: {
        user: "jane",
        resourceAttributes: { ...attributes, verb: "create" },
      },
    });
    expect(create.json.status).toEqual({ allowed: false });

    // Only some users may ask about others.
    const forbidden = await user("jane-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      spec: { user: "x", resourceAttributes: attributes },
    });
    expect(forbidden.status).toBe(403);
    // Bad reviews.
    const noSubject = await admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      spec: { resourceAttributes: attributes },
    });
    expect(noSubject.status).toBe(422);
    expect(noSubject.json.message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    const mismatch = await admin("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", {
      spec: {
        user: "jane",
        resourceAttributes: { ...attributes, namespace: "other" },
      },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe("spec.resourceAttributes.namespace must match namespace: default");
  });

  describe("with kubectl", () => {
    beforeAll(async () => {
      expect(
        (
          await admin("POST", "/api/v1/namespaces", {
            metadata: { name: "open" },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await admin(
            "POST",
            `${RBAC}/namespaces/open/rolebindings`,
            roleBinding("anonymous-view", "open", "ClusterRole", "view", [{ kind: "User", name: "system:anonymous" }]),
          )
        ).status,
      ).toBe(201);
      for (const role of ["system:basic-user", "system:discovery"]) {
        const binding = {
          metadata: { name: `unauthenticated-${role.slice(7)}` },
          roleRef: {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: role,
          },
          subjects: [
            {
              kind: "Group",
              apiGroup: "rbac.authorization.k8s.io",
              name: "system:unauthenticated",
            },
          ],
        };
        expect((await admin("POST", `${RBAC}/clusterrolebindings`, binding)).status).toBe(201);
      }
    });

    it("kubectl auth can-i answers what a request gets", async () => {
      const canList = await kubectlAnonymous("auth", "can-i", "list", "configmaps", "-n", "open");
      expect(canList).toMatchObject({ code: 0, stdout: "yes\n" });
      const canCreate = await kubectlAnonymous("auth", "can-i", "create", "configmaps", "-n", "open");
      expect(canCreate.code).toBe(1);
      expect(canCreate.stdout).toBe("no\n");
      expect((await kubectlAnonymous("get", "configmaps", "-n", "open")).code).toBe(0);
      const created = await kubectlAnonymous("create", "configmap", "kc", "-n", "open");
      expect(created.code).toBe(1);
      expect(created.stderr).toContain(
        'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "open"',
      );
      const elsewhere = await kubectlAnonymous("auth", "can-i", "list", "configmaps", "-n", "default");
      expect(elsewhere.stdout).toBe("no\n");
      expect((await kubectlAnonymous("get", "configmaps", "-n", "default")).stderr).toContain(
        'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps"',
      );
    });

    it("kubectl auth can-i --list shows the rules of the user's bindings", async () => {
      const list = await kubectlAnonymous("auth", "can-i", "--list", "-n", "open");
      expect(list.code).toBe(0);
      const lines = list.stdout.split("\n").map((l) => l.trim().split(/\s+/).join(" "));
      expect(lines[0]).toBe("Resources Non-Resource URLs Resource Names Verbs");
      // From view (through system:aggregate-to-view), system:basic-user and system:discovery.
      expect(lines).toContain("configmaps [] [] [get list watch]");
      expect(lines).toContain("selfsubjectaccessreviews.authorization.k8s.io [] [] [create]");
      expect(lines).toContain("[/api/*] [] [get]");
      expect(lines.some((l) => l.startsWith("secrets "))).toBe(false);
      const elsewhere = await kubectlAnonymous("auth", "can-i", "--list", "-n", "kube-system");
      expect(elsewhere.stdout).not.toContain("configmaps ");
    });

    it("kubectl creates Roles and RoleBindings (protobuf) as a namespace admin, refused where they would escalate", async () => {
      expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: "team" } })).status).toBe(201);
      const asAdmin = roleBinding("anonymous-admin", "team", "ClusterRole", "admin", [{ kind: "User", name: "system:anonymous" }]);
      expect((await admin("POST", `${RBAC}/namespaces/team/rolebindings`, asAdmin)).status).toBe(201);

      const role = await kubectlAnonymous("create", "role", "cm-reader", "--verb=get,list", "--resource=configmaps", "-n", "team");
      expect(role).toMatchObject({ code: 0, stdout: "role.rbac.authorization.k8s.io/cm-reader created\n" });
      const binding = await kubectlAnonymous(
        "create",
        "rolebinding",
        "bob-reads",
        "--role=cm-reader",
        "--user=bob",
        "--serviceaccount=team:bot",
        "-n",
        "team",
      );
      expect(binding).toMatchObject({ code: 0, stdout: "rolebinding.rbac.authorization.k8s.io/bob-reads created\n" });
      const stored = (await admin("GET", `${RBAC}/namespaces/team/rolebindings/bob-reads`)).json;
      expect(stored.subjects).toEqual([
        { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob" },
        { kind: "ServiceAccount", name: "bot", namespace: "team" },
      ]);
      const wide = await kubectlAnonymous("get", "rolebindings", "bob-reads", "-n", "team", "-o", "wide");
      expect(wide.stdout.split("\n")[0]?.split(/\s{2,}/)).toEqual(["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
      expect(wide.stdout).toMatch(/bob-reads\s+Role\/cm-reader\s+\S+\s+bob\s+team\/bot/);
      const roles = await kubectlAnonymous("get", "roles", "-n", "team");
      expect(roles.stdout).toMatch(/^NAME\s+CREATED AT\ncm-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);

      // admin may only read namespaces, so it cannot hand out deleting them.
      const nodes = await kubectlAnonymous("create", "role", "ns-deleter", "--verb=delete", "--resource=namespaces", "-n", "team");
      expect(nodes.code).toBe(1);
      expect(nodes.stderr).toContain(
        'roles.rbac.authorization.k8s.io "ns-deleter" is forbidden: user "system:anonymous" (groups=["system:unauthenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["namespaces"], Verbs:["delete"]}',
      );
    });
  });
});

describe("with @kubernetes/client-node as jane (bearer token)", () => {
  function clientFor(token: string): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      // client-node sends the token over plain HTTP only when told TLS is not verified.
      clusters: [{ name: "c", server: t.url, skipTLSVerify: true }],
      users: [{ name: "u", token }],
      contexts: [{ name: "c", cluster: "c", user: "u" }],
      currentContext: "c",
    });
    return kc;
  }

  it("reads what view allows, gets a 403 ApiException with upstream's Status for the rest, and can-i agrees", async () => {
    const kc = clientFor("jane-token");
    const core = kc.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    expect(Array.isArray(list.items)).toBe(true);
    const refused = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "from-client-node" } } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiException);
    const exception = refused as ApiException<string>;
    expect(exception.code).toBe(403);
    expect(JSON.parse(exception.body)).toMatchObject({
      reason: "Forbidden",
      message: 'configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"',
    });
    const authz = kc.makeApiClient(AuthorizationV1Api);
    const review = await authz.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { verb: "create", resource: "configmaps", namespace: "default" } } },
    });
    expect(review.status?.allowed).toBe(false);
    const rules = await authz.createSelfSubjectRulesReview({ body: { spec: { namespace: "default" } } });
    expect(rules.status?.incomplete).toBe(false);
    expect(rules.status?.resourceRules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["namespaces"] });
  });
});
