import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";
import { httpFailure, httpGet, udpAsk } from "./traffic-client.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = async (...args: string[]) => {
  const out = await kubectl(kubeconfig, args);
  if (out.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${out.stderr}`);
  return out.stdout;
};
let nodeAddress: Map<string, string>;

async function jsonpath(...args: string[]): Promise<string> {
  return (await run(...args)).trim();
}

async function podsOf(selector: string): Promise<Array<{ name: string; node: string; ip: string }>> {
  const out = await run(
    "get",
    "pods",
    "-l",
    selector,
    "-o",
    'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.podIP} {.status.phase}{"\\n"}{end}',
  );
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "))
    .filter((cells) => cells[3] === "Running")
    .map(([name, node, ip]) => ({ name: name!, node: node!, ip: ip! }));
}

async function runningPods(selector: string, count: number): Promise<Array<{ name: string; node: string; ip: string }>> {
  return eventually(`${count} running pods of ${selector}`, async () => {
    const pods = await podsOf(selector);
    return pods.length === count ? pods : undefined;
  });
}

/** GETs `path` until it answers, then returns the body. */
async function reach(host: string, port: number, path: string, localAddress?: string): Promise<string> {
  return eventually(`http://${host}:${port}${path}`, () => httpGet(host, port, path, localAddress).then((r) => r.body));
}

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 3, traffic: true });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-traffic-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
  const wide = await run(
    "get",
    "nodes",
    "-o",
    'jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\\n"}{end}',
  );
  nodeAddress = new Map(
    wide
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("traffic mode with kubectl 1.32", () => {
  it("gives every node its own loopback address", () => {
    expect([...nodeAddress.values()].every((ip) => ip.startsWith("127."))).toBe(true);
    expect(new Set(nodeAddress.values()).size).toBe(3);
  });

  it("a NodePort on any node's address reaches the deployment's pods over HTTP, and fails once it is scaled to 0", async () => {
    await run("create", "deployment", "web", "--image=x", "--replicas=3");
    await run("expose", "deployment", "web", "--type=NodePort", "--port=80", "--target-port=8080");
    const pods = await runningPods("app=web", 3);
    const names = new Set(pods.map((p) => p.name));
    expect(pods.every((p) => p.ip.startsWith("127."))).toBe(true);
    const nodePort = Number(await jsonpath("get", "svc", "web", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const seen = new Set<string>();
    for (const address of nodeAddress.values()) {
      const hostname = await reach(address, nodePort, "/hostname");
      expect(names).toContain(hostname);
      seen.add(hostname);
    }
    const node1 = nodeAddress.get("sim-node-1")!;
    for (let i = 0; i < 30 && seen.size < 3; i++) seen.add((await httpGet(node1, nodePort, "/hostname")).body);
    expect(seen).toEqual(names);
    expect((await httpGet(node1, nodePort, "/echo?msg=hello")).body).toBe("hello");
    expect((await httpGet(node1, nodePort, "/healthz")).status).toBe(200);
    // externalTrafficPolicy Cluster: the pod sees the receiving node's address, as after kube-proxy's masquerade.
    expect((await httpGet(node1, nodePort, "/clientip")).body).toMatch(new RegExp(`^${node1.replaceAll(".", "\\.")}:\\d+$`));

    // The ClusterIP answers too.
    const clusterIP = await jsonpath("get", "svc", "web", "-o", "jsonpath={.spec.clusterIP}");
    expect(clusterIP).toMatch(/^127\./);
    expect(names).toContain((await httpGet(clusterIP, 80, "/hostname")).body);

    await run("scale", "deployment", "web", "--replicas=0");
    expect(
      await eventually("the NodePort to refuse", async () =>
        (await httpFailure(node1, nodePort, "/hostname")) === "ECONNREFUSED" ? "refused" : undefined,
      ),
    ).toBe("refused");
    expect(await httpFailure(clusterIP, 80, "/hostname")).toBe("ECONNREFUSED");
  });

  it("forwards UDP on NodePorts and ClusterIPs, and refuses when there is no endpoint", async () => {
    await run("create", "deployment", "dns", "--image=x", "--replicas=2");
    await run("expose", "deployment", "dns", "--type=NodePort", "--protocol=UDP", "--port=53", "--target-port=8081");
    const names = new Set((await runningPods("app=dns", 2)).map((p) => p.name));
    const nodePort = Number(await jsonpath("get", "svc", "dns", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const node2 = nodeAddress.get("sim-node-2")!;
    const hostname = await eventually("a UDP answer on the NodePort", () => udpAsk(node2, nodePort, "hostname"));
    expect(names).toContain(hostname);
    expect(await udpAsk(node2, nodePort, "echo ping")).toBe("ping");
    const clusterIP = await jsonpath("get", "svc", "dns", "-o", "jsonpath={.spec.clusterIP}");
    expect(names).toContain(await udpAsk(clusterIP, 53, "hostname"));
    await run("scale", "deployment", "dns", "--replicas=0");
    await eventually("UDP to be refused", async () => {
      try {
        await udpAsk(node2, nodePort, "hostname", 500);
        return undefined;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "ECONNREFUSED" ? true : undefined;
      }
    });
  });

  it("externalTrafficPolicy Local: only the node with an endpoint answers, and the pod sees the client's address", async () => {
    await run("create", "deployment", "local", "--image=x", "--replicas=1", "--port=9000");
    await run("expose", "deployment", "local", "--type=NodePort", "--port=80", "--target-port=9000");
    await run("patch", "svc", "local", "-p", '{"spec":{"externalTrafficPolicy":"Local"}}');
    const [pod] = await runningPods("app=local", 1);
    const nodePort = Number(await jsonpath("get", "svc", "local", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const home = nodeAddress.get(pod!.node)!;
    const client = "127.0.0.77";
    expect(await reach(home, nodePort, "/hostname", client)).toBe(pod!.name);
    expect((await httpGet(home, nodePort, "/clientip", client)).body).toMatch(/^127\.0\.0\.77:\d+$/);
    for (const [node, address] of nodeAddress) {
      if (node === pod!.node) continue;
      expect(
        await eventually(`node ${node} to refuse`, async () =>
          (await httpFailure(address, nodePort, "/hostname")) === "ECONNREFUSED" ? "refused" : undefined,
        ),
      ).toBe("refused");
    }
  });

  it("sessionAffinity ClientIP keeps a client on one pod; None spreads it again", async () => {
    await run("create", "deployment", "sticky", "--image=x", "--replicas=3", "--port=8080");
    await run("expose", "deployment", "sticky", "--port=80", "--target-port=8080", "--session-affinity=ClientIP");
    await runningPods("app=sticky", 3);
    const clusterIP = await jsonpath("get", "svc", "sticky", "-o", "jsonpath={.spec.clusterIP}");
    const first = await eventually("all 3 endpoints", async () => {
      const slices = await run(
        "get",
        "endpointslices",
        "-l",
        "kubernetes.io/service-name=sticky",
        "-o",
        "jsonpath={.items[*].endpoints[*].addresses[0]}",
      );
      return slices.trim().split(" ").length === 3 ? reach(clusterIP, 80, "/hostname") : undefined;
    });
    // AffinityConfirmCount in the upstream e2e helpers: 15 identical answers in a row.
    for (let i = 0; i < 15; i++) expect((await httpGet(clusterIP, 80, "/hostname")).body).toBe(first);
    // Another client address gets its own choice, held as well.
    const other = (await httpGet(clusterIP, 80, "/hostname", "127.0.0.99")).body;
    for (let i = 0; i < 5; i++) expect((await httpGet(clusterIP, 80, "/hostname", "127.0.0.99")).body).toBe(other);

    await run("patch", "svc", "sticky", "-p", '{"spec":{"sessionAffinity":"None"}}');
    const seen = await eventually("answers from several pods", async () => {
      const hosts = new Set<string>();
      for (let i = 0; i < 30; i++) hosts.add((await httpGet(clusterIP, 80, "/hostname")).body);
      return hosts.size > 1 ? hosts : undefined;
    });
    expect(seen.size).toBeGreaterThan(1);
  });

  it("falls back to a serving terminating endpoint while no ready one exists", async () => {
    const manifest = join(dir, "held.yaml");
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [
          // As upstream's test: netexec keeps serving for --delay-shutdown seconds after SIGTERM, within a long grace period.
          {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "held", labels: { app: "held" } },
            spec: {
              terminationGracePeriodSeconds: 600,
              containers: [{ name: "c", image: "agnhost", args: ["netexec", "--http-port=8080", "--delay-shutdown=600"] }],
            },
          },
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "held" },
            spec: { selector: { app: "held" }, ports: [{ port: 80, targetPort: 8080 }] },
          },
        ],
      }),
    );
    await run("apply", "-f", manifest);
    await runningPods("app=held", 1);
    const clusterIP = await jsonpath("get", "svc", "held", "-o", "jsonpath={.spec.clusterIP}");
    expect(await reach(clusterIP, 80, "/hostname")).toBe("held");
    await run("delete", "pod", "held", "--wait=false");
    await eventually("the endpoint to turn terminating", async () =>
      (await jsonpath(
        "get",
        "endpointslices",
        "-l",
        "kubernetes.io/service-name=held",
        "-o",
        "jsonpath={.items[0].endpoints[0].conditions.terminating}",
      )) === "true"
        ? true
        : undefined,
    );
    // No ready endpoint anywhere: the serving terminating one still takes traffic.
    expect((await httpGet(clusterIP, 80, "/hostname")).body).toBe("held");

    // A ready pod appears: traffic goes to it only.
    await run("run", "fresh", "--image=x", "--labels=app=held", "--port=8080");
    await eventually("the ready pod to take every request", async () => {
      const hosts = new Set<string>();
      for (let i = 0; i < 10; i++) hosts.add((await httpGet(clusterIP, 80, "/hostname")).body);
      return hosts.size === 1 && hosts.has("fresh") ? true : undefined;
    });
    await run("delete", "pod", "held", "--grace-period=0", "--force");
  });

  it("pods/proxy and services/proxy reach the pods through the API server, as kubectl get --raw uses them", async () => {
    await run("create", "deployment", "proxied", "--image=x", "--replicas=2", "--port=8080");
    await run("expose", "deployment", "proxied", "--port=80", "--target-port=8080", "--name=proxied");
    const pods = await runningPods("app=proxied", 2);
    const names = pods.map((p) => p.name);
    // kubectl get --raw /api/v1/namespaces/x/pods/p:8080/proxy/hostname: the pod's own hostname.
    for (const pod of pods) {
      expect(
        await eventually(
          `pods/${pod.name}:8080/proxy`,
          async () =>
            (await kubectl(kubeconfig, ["get", "--raw", `/api/v1/namespaces/default/pods/${pod.name}:8080/proxy/hostname`])).stdout ||
            undefined,
        ),
      ).toBe(pod.name);
    }
    // The port defaults to the pod's first container port; the query is forwarded.
    expect(await run("get", "--raw", `/api/v1/namespaces/default/pods/${names[0]}/proxy/echo?msg=through-the-proxy`)).toBe(
      "through-the-proxy",
    );
    // A service by its port number (or name), to one of its endpoints.
    const viaService = await eventually(
      "services/proxied:80/proxy",
      async () =>
        (await kubectl(kubeconfig, ["get", "--raw", "/api/v1/namespaces/default/services/proxied:80/proxy/hostname"])).stdout || undefined,
    );
    expect(names).toContain(viaService);
    // POST bodies go through too.
    const body = join(dir, "posted.json");
    await writeFile(body, '{"posted":true}');
    const posted = await kubectl(kubeconfig, [
      "create",
      "--raw",
      "/api/v1/namespaces/default/services/http:proxied:80/proxy/echo?msg=posted",
      "-f",
      body,
    ]);
    expect(posted.code, posted.stderr).toBe(0);
    expect(posted.stdout).toBe("posted");

    // netexec's /dial, through pods/proxy: how upstream's e2e tests reach a ClusterIP from inside the cluster.
    const clusterIP = await jsonpath("get", "svc", "proxied", "-o", "jsonpath={.spec.clusterIP}");
    const dialled = JSON.parse(
      await run(
        "get",
        "--raw",
        `/api/v1/namespaces/default/pods/${names[0]}:8080/proxy/dial?request=hostname&protocol=http&host=${clusterIP}&port=80&tries=3`,
      ),
    ) as { responses: string[] };
    expect(dialled.responses).toHaveLength(3);
    for (const answer of dialled.responses) expect(names).toContain(answer);
    const refused = JSON.parse(
      await run(
        "get",
        "--raw",
        `/api/v1/namespaces/default/pods/${names[0]}:8080/proxy/dial?request=hostname&protocol=http&host=${pods[1]!.ip}&port=9999&tries=1`,
      ),
    ) as { errors: string[] };
    expect(refused).toEqual({
      errors: [`Get "http://${pods[1]!.ip}:9999/hostname": dial tcp ${pods[1]!.ip}:9999: connect: connection refused`],
    });

    const unknownPort = await kubectl(kubeconfig, ["get", "--raw", "/api/v1/namespaces/default/services/proxied:81/proxy/hostname"]);
    expect(unknownPort.code).not.toBe(0);
    expect(unknownPort.stderr).toContain('no service port 81 found for service "proxied"');
    const closedPort = await kubectl(kubeconfig, ["get", "--raw", `/api/v1/namespaces/default/pods/${names[0]}:9999/proxy/`]);
    expect(closedPort.stderr).toContain(`error trying to reach service: dial tcp ${pods[0]!.ip}:9999: connect: connection refused`);
    const missing = await kubectl(kubeconfig, ["get", "--raw", "/api/v1/namespaces/default/pods/nope:8080/proxy/hostname"]);
    expect(missing.stderr).toContain('pods "nope" not found');
  });

  it("a stopped node answers nothing until it starts again", async () => {
    await run("create", "deployment", "halt", "--image=x", "--replicas=1");
    await run("expose", "deployment", "halt", "--type=NodePort", "--port=80", "--target-port=8080");
    await runningPods("app=halt", 1);
    const nodePort = Number(await jsonpath("get", "svc", "halt", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const address = nodeAddress.get("sim-node-1")!;
    await reach(address, nodePort, "/hostname");
    await cluster.stopNode("sim-node-1");
    expect(await httpFailure(address, nodePort, "/hostname")).toBe("ECONNREFUSED");
    await cluster.startNode("sim-node-1");
    await reach(address, nodePort, "/hostname");
    await run("delete", "deployment", "halt");
    await run("delete", "service", "halt");
  });

  it("closes a removed node's NodePorts and pods' servers", async () => {
    await run("create", "deployment", "gone", "--image=x", "--replicas=1");
    await run("expose", "deployment", "gone", "--type=NodePort", "--port=80", "--target-port=8080");
    const [pod] = await runningPods("app=gone", 1);
    const nodePort = Number(await jsonpath("get", "svc", "gone", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const address = nodeAddress.get("sim-node-3")!;
    await reach(address, nodePort, "/hostname");
    await reach(pod!.ip, 8080, "/hostname");
    await cluster.removeNode("sim-node-3");
    expect(await httpFailure(address, nodePort, "/hostname")).toBe("ECONNREFUSED");
    if (pod!.node === "sim-node-3") expect(await httpFailure(pod!.ip, 8080, "/hostname")).toBe("ECONNREFUSED");
  });
});
