import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-endpoints-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kubectl 1.32: endpoints and endpointslices of an exposed deployment", () => {
  it("get endpoints and get endpointslices show the pods' addresses as kube-apiserver prints them", async () => {
    expect((await run("create", "deployment", "web", "--image=x", "--replicas=2", "--port=8080")).code).toBe(0);
    expect((await run("expose", "deployment", "web", "--port=80", "--target-port=8080")).code).toBe(0);
    const ips = await eventually("2 running pods", async () => {
      const out = await run("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].status.podIP}");
      const found = out.stdout.split(" ").filter(Boolean);
      return found.length === 2 ? found.sort() : undefined;
    });
    const endpoints = await eventually("both addresses in the Endpoints", async () => {
      const out = await run("get", "endpoints", "web");
      return ips.every((ip) => out.stdout.includes(`${ip}:8080`)) ? out.stdout : undefined;
    });
    const lines = endpoints.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+ENDPOINTS\s+AGE$/);
    expect(lines[1]!.split(/\s+/).slice(0, 2)).toEqual(["web", ips.map((ip) => `${ip}:8080`).join(",")]);

    const slices = await eventually("both addresses in the slice", async () => {
      const out = await run("get", "endpointslices", "-l", "kubernetes.io/service-name=web");
      return ips.every((ip) => out.stdout.includes(ip)) ? out.stdout : undefined;
    });
    const sliceLines = slices.trim().split("\n");
    expect(sliceLines[0]).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    const cells = sliceLines[1]!.split(/\s+/);
    expect(cells[0]).toMatch(/^web-[a-z0-9]{5}$/);
    expect(cells.slice(1, 3)).toEqual(["IPv4", "8080"]);
    expect(cells[3]!.split(",").sort()).toEqual(ips);

    // Scaled to zero: the Endpoints are empty and the slice is a placeholder.
    expect((await run("scale", "deployment", "web", "--replicas=0")).code).toBe(0);
    await eventually("an empty placeholder slice", async () => {
      const out = await run("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "--no-headers");
      return /^web-[a-z0-9]{5}\s+IPv4\s+<unset>\s+<unset>\s+/.test(out.stdout) ? true : undefined;
    });
    await eventually("Endpoints without addresses", async () =>
      (await run("get", "endpoints", "web", "--no-headers")).stdout.split(/\s+/)[1] === "<none>" ? true : undefined,
    );
  });
});
