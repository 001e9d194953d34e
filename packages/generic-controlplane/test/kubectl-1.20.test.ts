import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl120 } from "./harness/tools.js";

// kubectl 1.20 is the "old client" profile: legacy discovery only, JSON POSTs without a
// Content-Type, apply through the protobuf /openapi/v2 document, delete via list+watch by name.

interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

// On the sample binary's default backend, and on etcd for the deployments that share one.
describe.each(["sqlite", "etcd"] as const)("kubectl 1.20 (%s storage)", { timeout: 60_000 }, (backend) => {
  let server: TestServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    const binary = findKubectl120();
    server = await startInProcess({ storage: backend });
    kubectl = new Kubectl(binary, server);
  }, 120_000);

  afterAll(async () => {
    killAllChildren();
    await server?.close();
  });

  it("create namespace and configmap --from-literal, then get them", async () => {
    expect(await kubectl.ok(["create", "namespace", "old-client"])).toBe("namespace/old-client created\n");
    expect(await kubectl.ok(["create", "configmap", "legacy", "-n", "old-client", "--from-literal=a=1"])).toBe(
      "configmap/legacy created\n",
    );
    const { header, rows } = parseTable(await kubectl.ok(["get", "configmaps", "-n", "old-client"]));
    expect(header).toEqual(["NAME", "DATA", "AGE"]);
    expect(rows.map((row) => row.slice(0, 2))).toEqual([["legacy", "1"]]);
    const cm = await kubectl.json<Obj>(["get", "configmap", "legacy", "-n", "old-client"]);
    expect(cm.data).toEqual({ a: "1" });
    const ns = parseTable(await kubectl.ok(["get", "namespaces"]));
    expect(ns.rows.map((row) => row[0])).toEqual(expect.arrayContaining(["default", "kube-system", "old-client"]));
  });

  it("apply -f creates, is unchanged on a repeat, and configures a change", async () => {
    const file = join(server.dir, "old-apply.yaml");
    const write = (mode: string) =>
      writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n  mode: ${mode}\n`);
    write("fast");
    expect(await kubectl.ok(["apply", "-f", file])).toBe("configmap/applied created\n");
    const created = await kubectl.json<Obj>(["get", "configmap", "applied"]);
    expect(await kubectl.ok(["apply", "-f", file])).toBe("configmap/applied unchanged\n");
    expect((await kubectl.json<Obj>(["get", "configmap", "applied"])).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    write("slow");
    expect(await kubectl.ok(["apply", "-f", file])).toBe("configmap/applied configured\n");
    expect((await kubectl.json<Obj>(["get", "configmap", "applied"])).data).toEqual({ mode: "slow" });
  });

  it("get -l selects by label", async () => {
    await kubectl.ok(["create", "configmap", "labelled", "-n", "default"]);
    await kubectl.ok(["label", "configmap", "labelled", "old=yes"]);
    expect(await kubectl.ok(["get", "configmaps", "-l", "old=yes", "-o", "name"])).toBe("configmap/labelled\n");
  });

  it("delete waits for the object to disappear", async () => {
    await kubectl.ok(["create", "configmap", "doomed"]);
    expect(await kubectl.ok(["delete", "configmap", "doomed"])).toBe('configmap "doomed" deleted\n');
    const missing = await kubectl.run(["get", "configmap", "doomed"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('configmaps "doomed" not found');
  });

  it("get -w prints rows as objects change", async () => {
    await kubectl.ok(["create", "namespace", "old-watch"]);
    const watch = kubectl.stream(["get", "configmaps", "-n", "old-watch", "-w"]);
    try {
      // Whether the create lands before kubectl's LIST or after it (then the watch from the list's RV), it is printed.
      await kubectl.ok(["create", "configmap", "seen", "-n", "old-watch", "--from-literal=a=1"]);
      await watch.waitFor((out) => /^seen\s+1\s+/m.test(out));
      await kubectl.ok(["patch", "configmap", "seen", "-n", "old-watch", "--type", "merge", "-p", '{"data":{"b":"2"}}']);
      await watch.waitFor((out) => /^seen\s+2\s+/m.test(out));
      expect(watch.child.exitCode).toBeNull();
    } finally {
      await watch.stop();
    }
  });
});
