import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

/**
 * Field ownership as kubectl 1.32 drives it against an in-process server: `apply --server-side`
 * mixed with `patch` (Update operations), conflicts and `--force-conflicts`. Each expectation is
 * what kube-apiserver does for the same commands.
 */

interface ManagedEntry {
  manager: string;
  operation: string;
  fieldsV1?: Record<string, unknown>;
}

interface Obj {
  metadata: {
    name: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: ManagedEntry[];
  };
  data?: Record<string, string>;
}

let server: TestServer;
let kubectl: Kubectl;

beforeAll(async () => {
  const binary = findKubectl132();
  server = await startInProcess();
  kubectl = new Kubectl(binary, server);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

/** `kubectl <args> -f -` with the manifest on stdin. */
function withManifest(args: string[], manifest: string) {
  return { args: [...args, "-f", "-"], input: manifest };
}

function applyAs(manager: string, manifest: string, ...flags: string[]): Promise<string> {
  const { args, input } = withManifest(["apply", "--server-side", `--field-manager=${manager}`, ...flags], manifest);
  return kubectl.ok(args, { input });
}

function managers(object: Obj): Record<string, unknown> {
  return Object.fromEntries((object.metadata.managedFields ?? []).map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
}

describe("kubectl 1.32 server-side apply", { timeout: 60_000 }, () => {
  it("removes a finalizer its applier drops while another manager's finalizer added by patch stays", async () => {
    await kubectl.ok(["create", "namespace", "ssa-finalizers"]);
    const withFinalizer =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: ssa-finalizers\n  finalizers: [a.io/x]\ndata:\n  k: v\n";
    await applyAs("a", withFinalizer);
    await kubectl.ok([
      "patch",
      "configmap",
      "held",
      "-n",
      "ssa-finalizers",
      "--field-manager=b",
      "--type=strategic",
      "-p",
      '{"metadata":{"finalizers":["b.io/y"]}}',
    ]);
    const patched = await kubectl.json<Obj>(["get", "configmap", "held", "-n", "ssa-finalizers", "--show-managed-fields"]);
    expect([...(patched.metadata.finalizers ?? [])].sort()).toEqual(["a.io/x", "b.io/y"]);
    // Sets are owned per value: b owns only the finalizer it added.
    expect(managers(patched)["b/Update"]).toEqual({ "f:metadata": { "f:finalizers": { 'v:"b.io/y"': {} } } });

    const withoutFinalizer = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: ssa-finalizers\ndata:\n  k: v\n";
    await applyAs("a", withoutFinalizer);
    const reapplied = await kubectl.json<Obj>(["get", "configmap", "held", "-n", "ssa-finalizers", "--show-managed-fields"]);
    expect(reapplied.metadata.finalizers).toEqual(["b.io/y"]);
    expect(managers(reapplied)).toEqual({
      "a/Apply": { "f:data": { "f:k": {} } },
      "b/Update": { "f:metadata": { "f:finalizers": { 'v:"b.io/y"': {} } } },
    });
    // Let the object go.
    await kubectl.ok(["patch", "configmap", "held", "-n", "ssa-finalizers", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
  });

  it("keeps a finalizer its applier drops while another manager also applies it", async () => {
    await kubectl.ok(["create", "namespace", "ssa-shared"]);
    const both = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: ssa-shared\n  finalizers: [a.io/x]\n";
    await applyAs("a", both);
    await applyAs("b", both);
    const none = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: ssa-shared\n";
    await applyAs("a", none);
    const object = await kubectl.json<Obj>(["get", "configmap", "shared", "-n", "ssa-shared", "--show-managed-fields"]);
    expect(object.metadata.finalizers).toEqual(["a.io/x"]);
    expect(Object.keys(managers(object))).toEqual(["b/Apply"]);
    await kubectl.ok([
      "patch",
      "configmap",
      "shared",
      "-n",
      "ssa-shared",
      "--type=json",
      "-p",
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
  });

  it("reports a conflict with the manager that changed a field, and takes it over with --force-conflicts", async () => {
    await kubectl.ok(["create", "namespace", "ssa-conflict"]);
    const v1 =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ssa-conflict\n  labels: {tier: web}\ndata:\n  mode: blue\n  size: small\n";
    await applyAs("deployer", v1);
    await kubectl.ok([
      "patch",
      "configmap",
      "app",
      "-n",
      "ssa-conflict",
      "--field-manager=operator",
      "--type=merge",
      "-p",
      '{"data":{"mode":"green","size":"large"}}',
    ]);

    const v2 =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ssa-conflict\n  labels: {tier: web}\ndata:\n  mode: red\n  size: huge\n";
    const refusal = withManifest(["apply", "--server-side", "--field-manager=deployer"], v2);
    const refused = await kubectl.run(refusal.args, { input: refusal.input });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Apply failed with 2 conflicts: conflicts with "operator" using v1:\n- .data.mode\n- .data.size');
    expect(refused.stderr).toContain("--force-conflicts");
    const unchanged = await kubectl.json<Obj>(["get", "configmap", "app", "-n", "ssa-conflict"]);
    expect(unchanged.data).toEqual({ mode: "green", size: "large" });

    await applyAs("deployer", v2, "--force-conflicts");
    const forced = await kubectl.json<Obj>(["get", "configmap", "app", "-n", "ssa-conflict", "--show-managed-fields"]);
    expect(forced.data).toEqual({ mode: "red", size: "huge" });
    // The operator owned nothing else, so its entry goes.
    expect(managers(forced)).toEqual({
      "deployer/Apply": { "f:data": { "f:mode": {}, "f:size": {} }, "f:metadata": { "f:labels": { "f:tier": {} } } },
    });
  });

  it("lets kubectl edit-style replaces keep applied ownership and a label removed by the applier go", async () => {
    await kubectl.ok(["create", "namespace", "ssa-labels"]);
    const v1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lab\n  namespace: ssa-labels\n  labels: {a: '1', b: '2'}\n";
    await applyAs("applier", v1);
    await kubectl.ok(["label", "configmap", "lab", "-n", "ssa-labels", "c=3"]);
    const v2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lab\n  namespace: ssa-labels\n  labels: {a: '1'}\n";
    await applyAs("applier", v2);
    const object = await kubectl.json<Obj>(["get", "configmap", "lab", "-n", "ssa-labels", "--show-managed-fields"]);
    expect(object.metadata.labels).toEqual({ a: "1", c: "3" });
    expect(managers(object)).toEqual({
      "applier/Apply": { "f:metadata": { "f:labels": { "f:a": {} } } },
      "kubectl-label/Update": { "f:metadata": { "f:labels": { "f:c": {} } } },
    });
  });

  it("moves a client-side applied object to server-side apply, which then removes what it no longer lists", async () => {
    await kubectl.ok(["create", "namespace", "ssa-upgrade"]);
    const v1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up\n  namespace: ssa-upgrade\ndata:\n  keep: '1'\n  drop: '2'\n";
    await kubectl.ok(["apply", "-f", "-"], { input: v1 });
    const clientSide = await kubectl.json<Obj>(["get", "configmap", "up", "-n", "ssa-upgrade", "--show-managed-fields"]);
    expect(Object.keys(managers(clientSide))).toEqual(["kubectl-client-side-apply/Update"]);
    // kubectl rewrites the client-side entry into its server-side one (a JSON patch of managedFields) before applying.
    const v2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up\n  namespace: ssa-upgrade\ndata:\n  keep: '1'\n";
    await kubectl.ok(["apply", "--server-side", "-f", "-"], { input: v2 });
    const serverSide = await kubectl.json<Obj>(["get", "configmap", "up", "-n", "ssa-upgrade", "--show-managed-fields"]);
    expect(serverSide.data).toEqual({ keep: "1" });
    // kubectl gives the client-side annotation to its own manager; the server keeps it in step with what kubectl applies.
    expect(Object.keys(managers(serverSide))).toEqual(["kubectl/Apply", "kubectl-last-applied/Apply"]);
    const lastApplied = JSON.parse(serverSide.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"] ?? "{}") as Obj;
    expect(lastApplied.data).toEqual({ keep: "1" });
    // So a later client-side apply starts from what was applied last.
    await kubectl.ok(["apply", "-f", "-"], { input: v2.replace("keep: '1'", "keep: '1'\n  added: '3'") });
    expect((await kubectl.json<Obj>(["get", "configmap", "up", "-n", "ssa-upgrade"])).data).toEqual({ keep: "1", added: "3" });
  });
});
