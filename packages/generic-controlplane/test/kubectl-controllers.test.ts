import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

// kubectl 1.32 against a control plane running its controllers in-process: namespace deletion and
// cascading deletion behave as on kube-apiserver + kube-controller-manager.

interface Obj {
  metadata: { name: string; uid: string; ownerReferences?: { name: string; uid: string }[]; deletionTimestamp?: string };
}

let server: TestServer;
let kubectl: Kubectl;

beforeAll(async () => {
  server = await startInProcess({ controllers: true });
  kubectl = new Kubectl(findKubectl132(), server);
}, 30_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

async function exists(kind: string, name: string, namespace: string): Promise<boolean> {
  const result = await kubectl.run(["get", kind, name, "-n", namespace, "-o", "name"]);
  if (result.code === 0) return true;
  if (result.stderr.includes("NotFound") || result.stderr.includes("not found")) return false;
  throw new Error(`kubectl get ${kind} ${name}: ${result.stderr}`);
}

/** An owner configmap and three secrets it owns (blocking owner deletion, as controllers set them). */
async function family(namespace: string, owner: string): Promise<Obj> {
  await kubectl.ok(["create", "configmap", owner, "-n", namespace, "--from-literal=role=owner"]);
  const created = await kubectl.json<Obj>(["get", "configmap", owner, "-n", namespace]);
  const dependents = [0, 1, 2].map((i) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: `${owner}-dep-${i}`,
      namespace,
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name: owner, uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    stringData: { i: String(i) },
  }));
  await kubectl.ok(["create", "-f", "-"], { input: dependents.map((d) => stringify(d)).join("---\n") });
  return created;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("kubectl 1.32 with the in-process controllers", () => {
  it("delete ns with content returns and the namespace is gone within 5 s", async () => {
    await kubectl.ok(["create", "namespace", "with-content"]);
    await kubectl.ok(["create", "configmap", "c1", "-n", "with-content", "--from-literal=a=b"]);
    await kubectl.ok(["create", "secret", "generic", "s1", "-n", "with-content", "--from-literal=a=b"]);
    await kubectl.ok(["create", "serviceaccount", "sa1", "-n", "with-content"]);
    const started = Date.now();
    const out = await kubectl.ok(["delete", "namespace", "with-content"], { timeoutMs: 5_000 });
    expect(out.trim()).toBe('namespace "with-content" deleted');
    const gone = await kubectl.run(["get", "namespace", "with-content"]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('namespaces "with-content" not found');
    // Re-creating it does not bring the old content back.
    await kubectl.ok(["create", "namespace", "with-content"]);
    expect(await kubectl.ok(["get", "configmaps,secrets", "-n", "with-content", "-o", "name"])).toBe("");
    expect(await exists("serviceaccount", "sa1", "with-content")).toBe(false);
  });

  it.each(["foreground", "orphan"])(
    "delete ns --cascade=%s finishes: the namespace is emptied, then its garbage-collection finalizer released",
    async (cascade) => {
      const name = `cascade-ns-${cascade}`;
      await kubectl.ok(["create", "namespace", name]);
      await kubectl.ok(["create", "configmap", "c1", "-n", name, "--from-literal=a=b"]);
      const out = await kubectl.ok(["delete", "namespace", name, `--cascade=${cascade}`], { timeoutMs: 20_000 });
      expect(out.trim()).toBe(`namespace "${name}" deleted`);
      const gone = await kubectl.run(["get", "namespace", name]);
      expect(gone.stderr).toContain(`namespaces "${name}" not found`);
    },
  );

  it("a new namespace gets the default ServiceAccount (ServiceAccounts: default service account in every namespace)", async () => {
    await kubectl.ok(["create", "namespace", "with-sa"]);
    await waitUntil("serviceaccount default in with-sa", () => exists("serviceaccount", "default", "with-sa"));
    const names = await kubectl.ok(["get", "serviceaccounts", "-n", "with-sa", "-o", "name"]);
    expect(names).toBe("serviceaccount/default\n");
  });

  it("delete --cascade=background removes the owner at once and its dependents soon after", async () => {
    await kubectl.ok(["create", "namespace", "cascade-bg"]);
    await family("cascade-bg", "owner");
    expect((await kubectl.ok(["delete", "configmap", "owner", "-n", "cascade-bg", "--cascade=background"])).trim()).toBe(
      'configmap "owner" deleted',
    );
    expect(await exists("configmap", "owner", "cascade-bg")).toBe(false);
    for (let i = 0; i < 3; i++)
      await waitUntil(`secret owner-dep-${i} to go`, async () => !(await exists("secret", `owner-dep-${i}`, "cascade-bg")));
  });

  it("delete --cascade=foreground returns once the owner is gone, and its blocking dependents went first", async () => {
    await kubectl.ok(["create", "namespace", "cascade-fg"]);
    await family("cascade-fg", "owner");
    expect(
      (await kubectl.ok(["delete", "configmap", "owner", "-n", "cascade-fg", "--cascade=foreground"], { timeoutMs: 20_000 })).trim(),
    ).toBe('configmap "owner" deleted');
    expect(await exists("configmap", "owner", "cascade-fg")).toBe(false);
    expect(await kubectl.ok(["get", "secrets", "-n", "cascade-fg", "-o", "name"])).toBe("");
  });

  it("delete --cascade=orphan removes the owner and leaves its dependents without the reference", async () => {
    await kubectl.ok(["create", "namespace", "cascade-orphan"]);
    await family("cascade-orphan", "owner");
    expect(
      (await kubectl.ok(["delete", "configmap", "owner", "-n", "cascade-orphan", "--cascade=orphan"], { timeoutMs: 20_000 })).trim(),
    ).toBe('configmap "owner" deleted');
    expect(await exists("configmap", "owner", "cascade-orphan")).toBe(false);
    const list = await kubectl.json<{ items: Obj[] }>(["get", "secrets", "-n", "cascade-orphan"]);
    expect(list.items.map((s) => s.metadata.name).sort()).toEqual(["owner-dep-0", "owner-dep-1", "owner-dep-2"]);
    for (const item of list.items) expect(item.metadata.ownerReferences).toBeUndefined();
  });
});
