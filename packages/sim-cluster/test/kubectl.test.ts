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

interface PodList {
  items: Array<{ metadata: { name: string }; spec: { nodeName?: string }; status: { phase?: string; podIP?: string } }>;
}

async function webPods(): Promise<PodList["items"]> {
  const out = await run("get", "pods", "-l", "app=web", "-o", "json");
  expect(out.stderr).toBe("");
  return (JSON.parse(out.stdout) as PodList).items;
}

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 3 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-kubectl-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Rollouts now wait for graceful pod termination; each wait below fails with its own message first.
describe("kubectl 1.32 against a simulated cluster", { timeout: 30_000 }, () => {
  it("get nodes -o wide lists the simulated nodes Ready with their addresses", async () => {
    const out = await run("get", "nodes", "-o", "wide");
    expect(out.code).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ["sim-node-1", "Ready"],
      ["sim-node-2", "Ready"],
      ["sim-node-3", "Ready"],
    ]);
    expect(lines[1]).toContain("172.18.0.2");
  });

  it("create deployment --replicas=3 runs 3 pods spread over the nodes; scale and rollout status work", async () => {
    // kubectl 1.32 sends this typed create as protobuf.
    const created = await run("create", "deployment", "web", "--image=x", "--replicas=3");
    expect(created).toMatchObject({ code: 0, stdout: "deployment.apps/web created\n" });
    const running = await eventually("3 running web pods", async () => {
      const pods = await webPods();
      return pods.length === 3 && pods.every((p) => p.status.phase === "Running") ? pods : undefined;
    });
    expect(new Set(running.map((p) => p.spec.nodeName))).toEqual(new Set(["sim-node-1", "sim-node-2", "sim-node-3"]));
    expect(running.every((p) => p.status.podIP?.startsWith("10.244."))).toBe(true);

    const scaled = await run("scale", "deployment", "web", "--replicas=5");
    expect(scaled).toMatchObject({ code: 0, stdout: "deployment.apps/web scaled\n" });
    const status = await run("rollout", "status", "deployment/web", "--timeout=20s");
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split("\n").at(-1)).toBe('deployment "web" successfully rolled out');
    const pods = await webPods();
    expect(pods.filter((p) => p.status.phase === "Running")).toHaveLength(5);
  });

  it("a rolling update replaces every pod within maxSurge and maxUnavailable", async () => {
    expect((await run("set", "image", "deployment/web", "x=y")).code).toBe(0);
    const status = await run("rollout", "status", "deployment/web", "--timeout=20s");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('deployment "web" successfully rolled out');
    const rs = JSON.parse((await run("get", "rs", "-l", "app=web", "-o", "json")).stdout) as {
      items: Array<{ spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } }>;
    };
    const byImage = Object.fromEntries(rs.items.map((r) => [r.spec.template.spec.containers[0]!.image, r.spec.replicas]));
    expect(byImage).toEqual({ x: 0, y: 5 });
  });

  it("expose --type=NodePort allocates a NodePort and a ClusterIP, and deleting the service frees them", async () => {
    const exposed = await run("expose", "deployment", "web", "--type=NodePort", "--port=80");
    expect(exposed).toMatchObject({ code: 0, stdout: "service/web exposed\n" });
    const svc = JSON.parse((await run("get", "svc", "web", "-o", "json")).stdout) as {
      spec: { clusterIP: string; ports: Array<{ nodePort: number }> };
    };
    const nodePort = svc.spec.ports[0]!.nodePort;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    expect(svc.spec.clusterIP).toMatch(/^10\.96\./);
    const wide = await run("get", "svc", "web", "-o", "wide");
    expect(wide.stdout).toMatch(
      new RegExp(`web\\s+NodePort\\s+${svc.spec.clusterIP.replaceAll(".", "\\.")}\\s+<none>\\s+80:${nodePort}/TCP\\s+\\S+\\s+app=web`),
    );

    // Taken: the same NodePort and ClusterIP are refused with upstream's errors.
    const clash = join(dir, "clash.json");
    await writeFile(
      clash,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "clash" },
        spec: { type: "NodePort", clusterIP: svc.spec.clusterIP, ports: [{ port: 80, nodePort }] },
      }),
    );
    const refused = await run("create", "-f", clash);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `spec.clusterIPs: Invalid value: ["${svc.spec.clusterIP}"]: failed to allocate IP ${svc.spec.clusterIP}: provided IP is already allocated`,
    );
    expect(refused.stderr).toContain(`spec.ports[0].nodePort: Invalid value: ${nodePort}: provided port is already allocated`);

    expect((await run("delete", "svc", "web")).code).toBe(0);
    // Freed by the time the delete answered.
    const again = await run("create", "-f", clash);
    expect(again).toMatchObject({ code: 0, stdout: "service/clash created\n" });
  });

  it("create service nodeport (protobuf) allocates from the range, and a taken port is refused", async () => {
    const created = await run("create", "service", "nodeport", "fixed", "--tcp=80:8080", "--node-port=30555");
    expect(created).toMatchObject({ code: 0, stdout: "service/fixed created\n" });
    const svc = JSON.parse((await run("get", "svc", "fixed", "-o", "json")).stdout) as {
      spec: { ports: Array<{ port: number; targetPort: number; nodePort: number }> };
    };
    expect(svc.spec.ports).toEqual([{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30555 }]);
    const taken = await run("create", "service", "nodeport", "other", "--tcp=80:8080", "--node-port=30555");
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toBe(
      'error: failed to create NodePort service: Service "other" is invalid: spec.ports[0].nodePort: Invalid value: 30555: provided port is already allocated\n',
    );
  });

  it("rollout restart replaces every pod, and deleting the deployment removes its ReplicaSets and pods", async () => {
    const before = new Set((await webPods()).map((p) => p.metadata.name));
    expect((await run("rollout", "restart", "deployment/web")).code).toBe(0);
    const status = await run("rollout", "status", "deployment/web", "--timeout=20s");
    expect(status.stdout).toContain('deployment "web" successfully rolled out');
    const after = await eventually("only restarted pods", async () => {
      const pods = await webPods();
      return pods.length === 5 && pods.every((p) => !before.has(p.metadata.name)) ? pods : undefined;
    });
    expect(after.every((p) => p.status.phase === "Running")).toBe(true);
    const history = await run("rollout", "history", "deployment/web");
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n3\s+<none>/);

    expect((await run("delete", "deployment", "web")).code).toBe(0);
    await eventually("the ReplicaSets and pods to be collected", async () => {
      const left = await run("get", "rs,pods", "-l", "app=web", "-o", "name");
      return left.code === 0 && left.stdout === "" ? true : undefined;
    });
  });
});
