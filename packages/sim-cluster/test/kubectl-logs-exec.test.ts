// kubectl 1.32 against pods/log, pods/exec, pods/attach and nodes/proxy of the sim cluster:
// `kubectl logs` (container choice, --tail, --timestamps, --previous, -f), `kubectl exec` (ends at
// once with the runtime's error; CONNECT admission can deny it first, as upstream's webhook e2e
// "should be able to deny attaching pod" relies on) and `kubectl get --raw` of a node's kubelet.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.53";

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-logs-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function runningPod(name: string, manifest: object): Promise<void> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, ...manifest }));
  expect((await run("create", "-f", file)).code).toBe(0);
  await eventually(`${name} running`, async () =>
    (await run("get", "pod", name, "-o", "jsonpath={.status.phase}")).stdout === "Running" ? true : undefined,
  );
}

describe("kubectl 1.32: logs, exec and nodes/proxy", { timeout: 60_000 }, () => {
  it("kubectl logs prints the container's lines, with -c, --tail, --timestamps and -f", async () => {
    await runningPod("netexec", { spec: { containers: [{ name: "agnhost", image: agnhost, args: ["netexec"] }] } });
    const logs = await run("logs", "netexec");
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(
      /^I\d{4} [\d:.]+ +1 log\.go:195\] Started HTTP server on port 8080\nI\d{4} [\d:.]+ +1 log\.go:195\] Started UDP server on port {2}8081\n$/,
    );
    expect((await run("logs", "netexec", "--tail=1", "--timestamps")).stdout).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z I\d{4} .*Started UDP server on port {2}8081\n$/,
    );
    const previous = await run("logs", "netexec", "--previous");
    expect(previous.code).toBe(1);
    expect(previous.stderr).toBe('Error from server (BadRequest): previous terminated container "agnhost" in pod "netexec" not found\n');

    await runningPod("two", {
      spec: {
        containers: [
          { name: "a", image: "busybox", command: ["sh", "-c", "echo from-a; sleep 3600"] },
          { name: "b", image: "busybox", command: ["sh", "-c", "echo from-b; sleep 3"] },
        ],
      },
    });
    expect((await run("logs", "two", "-c", "b")).stdout).toBe("from-b\n");
    // Without -c kubectl picks the first container and says so.
    const defaulted = await run("logs", "two");
    expect(defaulted.stdout).toBe("from-a\n");
    expect(defaulted.stderr).toContain('Defaulted container "a" out of: a, b');
    const started = Date.now();
    const followed = await run("logs", "two", "-c", "b", "-f");
    expect(followed).toMatchObject({ code: 0, stdout: "from-b\n" });
    expect(Date.now() - started).toBeGreaterThan(300);
  });

  it("kubectl exec ends at once with the runtime's error, and CONNECT admission can deny it first", async () => {
    await runningPod("target", { spec: { containers: [{ name: "c", image: agnhost, args: ["pause"] }] } });
    const exec = await run("exec", "target", "--", "hostname");
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain(
      "error executing command in pod target: the simulated container runtime runs no processes (exec is not implemented)",
    );

    const policy = join(dir, "policy.yaml");
    await writeFile(
      policy,
      [
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicy",
        "metadata: {name: deny-exec}",
        "spec:",
        "  failurePolicy: Fail",
        "  matchConstraints:",
        "    resourceRules:",
        '    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT"], resources: ["pods/exec", "pods/attach", "pods/proxy"]}',
        "  validations:",
        '  - {expression: "false", message: "exec and attach are denied here"}',
        "---",
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicyBinding",
        "metadata: {name: deny-exec}",
        "spec: {policyName: deny-exec, validationActions: [Deny]}",
        "",
      ].join("\n"),
    );
    expect((await run("apply", "-f", policy)).code).toBe(0);
    const denied = await eventually("exec denied", async () => {
      const answer = await run("exec", "target", "--", "hostname");
      return answer.stderr.includes("denied here") ? answer : undefined;
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      "ValidatingAdmissionPolicy 'deny-exec' with binding 'deny-exec' denied request: exec and attach are denied here",
    );
    const attach = await run("attach", "target");
    expect(attach.code).toBe(1);
    expect(attach.stderr).toContain("denied here");
    const proxied = await run("get", "--raw", "/api/v1/namespaces/default/pods/target/proxy/hostname");
    expect(proxied.code).toBe(1);
    expect(proxied.stderr).toContain("exec and attach are denied here");
    expect((await run("delete", "-f", policy)).code).toBe(0);
  });

  it("kubectl get --raw reaches a node's kubelet through nodes/proxy", async () => {
    const node = (await run("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")).stdout;
    expect(await run("get", "--raw", `/api/v1/nodes/${node}/proxy/healthz`)).toMatchObject({ code: 0, stdout: "ok" });
    const pods = JSON.parse((await run("get", "--raw", `/api/v1/nodes/${node}:10250/proxy/pods`)).stdout) as {
      kind: string;
      items: Array<{ metadata: { name: string } }>;
    };
    expect(pods.kind).toBe("PodList");
    expect(pods.items.map((p) => p.metadata.name)).toContain("netexec");
    const summary = JSON.parse((await run("get", "--raw", `/api/v1/nodes/${node}/proxy/stats/summary`)).stdout) as {
      node: { nodeName: string };
      pods: Array<{ podRef: { name: string } }>;
    };
    expect(summary.node.nodeName).toBe(node);
    expect(summary.pods.map((p) => p.podRef.name)).toContain("netexec");
    expect(JSON.parse((await run("get", "--raw", `/api/v1/nodes/${node}/proxy/configz`)).stdout)).toMatchObject({
      kubeletconfig: { kind: "KubeletConfiguration" },
    });
    expect((await run("get", "--raw", `/api/v1/nodes/${node}/proxy/metrics`)).stdout).toContain(`kubelet_node_name{node="${node}"} 1`);
    const missing = await run("get", "--raw", "/api/v1/nodes/nope/proxy/healthz");
    expect(missing.stderr).toContain('nodes "nope" not found');
  });
});
