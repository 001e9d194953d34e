import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "../../../packages/generic-controlplane/test/harness/kubectl.js";
import { killAllChildren, run } from "../../../packages/generic-controlplane/test/harness/run.js";
import { findKubectl120, findKubectl132 } from "../../../packages/generic-controlplane/test/harness/tools.js";
import { startBinary, type RunningBinary } from "./binary.test-support.js";

// The binary's acceptance with the real clients: the library's suites prove the API in depth
// in-process; these prove that what `npm start` runs (flags, storage wiring, the kubeconfig it
// writes) serves kubectl 1.32 and 1.20 unmodified.

let dir: string;
let binary: RunningBinary;
let kubectl132: Kubectl;
let kubectl120: Kubectl;

beforeAll(async () => {
  const versions = { "1.32": findKubectl132(), "1.20": findKubectl120() };
  dir = mkdtempSync(join(tmpdir(), "sample-gcp-kubectl-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  binary = await startBinary(
    ["--port", "0", "--storage", `sqlite:${join(dir, "state.db")}`, "--kubeconfig", kubeconfigPath, "--quiet"],
    dir,
  );
  const server = { url: binary.url, kubeconfigPath, dir, close: () => Promise.resolve() };
  kubectl132 = new Kubectl(versions["1.32"], server);
  kubectl120 = new Kubectl(versions["1.20"], server);
});

afterAll(async () => {
  killAllChildren();
  await binary?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The ConfigMap the root CA publisher keeps in every namespace. */
const ROOT_CA = "kube-root-ca.crt";

/** The cluster CA published in `namespace`'s kube-root-ca.crt, once the publisher has written it (10 s at most). */
async function publishedCA(namespace: string): Promise<string> {
  for (const deadline = Date.now() + 10_000; ;) {
    const answer = await kubectl132.run(["get", "configmap", ROOT_CA, "-n", namespace, "-o", "jsonpath={.data.ca\\.crt}"]);
    if (answer.code === 0 && answer.stdout !== "") return answer.stdout;
    if (Date.now() > deadline) throw new Error(`no ${ROOT_CA} in ${namespace}: ${answer.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("sample-generic-controlplane with kubectl", () => {
  it("prints the kubectl command that reaches it, and that command works as printed", async () => {
    const hint = binary.stdout.find((line) => line.startsWith("  kubectl "));
    expect(binary.stdout).toContain(`kubeconfig written to ${join(dir, "kubeconfig")}; talk to the server with:`);
    expect(hint).toBe(`  kubectl --kubeconfig ${join(dir, "kubeconfig")} get namespaces`);
    const [, ...args] = hint!.trim().split(" ");
    const answer = await run(findKubectl132(), args, { timeoutMs: 30_000 });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toMatch(/^NAME\s+STATUS\s+AGE\n(.*\n)*default\s+Active/);
  });

  it("kubectl 1.32 creates (protobuf), applies twice, reads and deletes through the kubeconfig the binary wrote", async () => {
    expect(await kubectl132.ok(["version"])).toMatch(/^Server Version: v\d+\.\d+\.\d+/m);
    expect(await kubectl132.ok(["create", "namespace", "acceptance"])).toBe("namespace/acceptance created\n");
    expect(await kubectl132.ok(["create", "configmap", "made-by-create", "-n", "acceptance", "--from-literal=a=1"])).toBe(
      "configmap/made-by-create created\n",
    );
    const manifest = join(dir, "applied.yaml");
    writeFileSync(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: acceptance\ndata:\n  k: v\n");
    expect(await kubectl132.ok(["apply", "-f", manifest])).toBe("configmap/applied created\n");
    expect(await kubectl132.ok(["apply", "-f", manifest])).toBe("configmap/applied unchanged\n");
    const listed = await kubectl132.json<{ items: { metadata: { name: string }; data?: Record<string, string> }[] }>([
      "get",
      "configmaps",
      "-n",
      "acceptance",
    ]);
    // Every namespace also gets kube-root-ca.crt from the root CA publisher, on its own schedule.
    expect(listed.items.filter((item) => item.metadata.name !== ROOT_CA).map((item) => [item.metadata.name, item.data])).toEqual([
      ["applied", { k: "v" }],
      ["made-by-create", { a: "1" }],
    ]);
    expect(await publishedCA("acceptance")).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(await kubectl132.ok(["delete", "configmap", "applied", "made-by-create", "-n", "acceptance"])).toBe(
      'configmap "applied" deleted\nconfigmap "made-by-create" deleted\n',
    );
  });

  it("kubectl 1.20 (legacy discovery, JSON bodies without Content-Type, protobuf OpenAPI v2) creates, applies and deletes", async () => {
    expect(await kubectl120.ok(["create", "namespace", "old-client"])).toBe("namespace/old-client created\n");
    expect(await kubectl120.ok(["create", "configmap", "legacy", "-n", "old-client", "--from-literal=x=y"])).toBe(
      "configmap/legacy created\n",
    );
    const manifest = join(dir, "legacy.yaml");
    writeFileSync(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy-applied\n  namespace: old-client\ndata:\n  k: v\n");
    expect(await kubectl120.ok(["apply", "-f", manifest])).toBe("configmap/legacy-applied created\n");
    expect(await kubectl120.ok(["apply", "-f", manifest])).toBe("configmap/legacy-applied unchanged\n");
    const names = await kubectl120.ok(["get", "configmaps", "-n", "old-client", "-o", "name"]);
    expect(
      names
        .split("\n")
        .filter((name) => name !== `configmap/${ROOT_CA}`)
        .join("\n"),
    ).toBe("configmap/legacy\nconfigmap/legacy-applied\n");
    expect(await kubectl120.ok(["delete", "configmap", "legacy", "-n", "old-client"])).toBe('configmap "legacy" deleted\n');
  });
});
