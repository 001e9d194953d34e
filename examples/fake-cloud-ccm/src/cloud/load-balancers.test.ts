import { createSocket } from "node:dgram";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostTraffic } from "@kubekit/ccm-e2e";
import { afterEach, describe, expect, it } from "vitest";
import type { Target } from "./listener.js";
import { FakeLoadBalancers, listenerKey, type LoadBalancerSpec } from "./load-balancers.js";

// Real sockets on loopback: a load balancer's listeners in front of small backends.
describe("FakeLoadBalancers", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function httpBackend(name: string): Promise<Target> {
    const server: Server = createServer((req, res) => res.end(req.url === "/clientip" ? `${req.socket.remoteAddress}` : name));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    return { name, address: "127.0.0.1", port: (server.address() as AddressInfo).port };
  }

  function spec(targets: Target[], overrides: Partial<LoadBalancerSpec> = {}): LoadBalancerSpec {
    return {
      name: "a1",
      ports: [{ port: 18080, protocol: "TCP" }],
      sessionAffinity: "None",
      targets: new Map([[listenerKey(18080, "TCP"), targets]]),
      backendNodes: targets.map((t) => t.name),
      ...overrides,
    };
  }

  function lbs(): Promise<FakeLoadBalancers> {
    const balancers = new FakeLoadBalancers();
    closers.push(() => balancers.close());
    return Promise.resolve(balancers);
  }

  it("forwards TCP to its targets in turn, from the client's own address", async () => {
    const balancers = await lbs();
    const targets = [await httpBackend("b1"), await httpBackend("b2")];
    const ip = await balancers.ensure(spec(targets));
    const names = new Set<string>();
    for (let i = 0; i < 4; i++) names.add((await hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).body);
    expect([...names].sort()).toEqual(["b1", "b2"]);
    expect((await hostTraffic.httpGet(ip, 18080, "/clientip", { timeoutMs: 2000 })).body).toBe("127.0.0.1");
  });

  it("gives an internal load balancer a private address that only the cluster's network reaches, and a new public one when it turns external", async () => {
    const balancers = await lbs();
    const targets = [await httpBackend("b1")];
    // The cluster's network here: one node address on loopback, standing in for a node's InternalIP.
    const ip = await balancers.ensure(spec(targets, { internal: { clusterNetwork: ["127.0.0.2/32"] } }));
    expect(ip.startsWith(balancers.internalCIDR.replace(/0\.0\/16$/, ""))).toBe(true);
    await expect(hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 1000 })).rejects.toThrow();
    const fromNode = await new Promise<string>((resolve, reject) => {
      const req = request({ host: ip, port: 18080, path: "/", localAddress: "127.0.0.2", agent: false }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve(body));
      });
      req.on("error", reject);
      req.end();
    });
    expect(fromNode).toBe("b1");
    const external = await balancers.ensure(spec(targets));
    expect(external).not.toBe(ip);
    expect((await hostTraffic.httpGet(external, 18080, "/", { timeoutMs: 2000 })).body).toBe("b1");
    await expect(hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 1000 })).rejects.toThrow();
  });

  it("holds a client on one target with ClientIP affinity", async () => {
    const balancers = await lbs();
    const ip = await balancers.ensure(spec([await httpBackend("b1"), await httpBackend("b2")], { sessionAffinity: "ClientIP" }));
    const names = new Set<string>();
    for (let i = 0; i < 6; i++) names.add((await hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).body);
    expect(names.size).toBe(1);
    expect(balancers.get("a1")?.sessionAffinity).toBe("ClientIP");
  });

  it("keeps its VIP across updates, moves listeners to new ports and closes them on delete", async () => {
    const balancers = await lbs();
    const target = await httpBackend("b1");
    const ip = await balancers.ensure(spec([target]));
    const moved = await balancers.ensure(
      spec([target], {
        ports: [{ port: 18081, protocol: "TCP", nodePort: 30001 }],
        targets: new Map([[listenerKey(18081, "TCP"), [target]]]),
      }),
    );
    expect(moved).toBe(ip);
    expect((await hostTraffic.httpGet(ip, 18081, "/", { timeoutMs: 2000 })).body).toBe("b1");
    await expect(hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).rejects.toThrow(/ECONNREFUSED/);
    expect(balancers.get("a1")).toEqual({
      ingress: [{ ip }],
      ports: [{ port: 18081, protocol: "TCP", nodePort: 30001 }],
      backendNodes: ["b1"],
      sessionAffinity: "None",
    });
    await balancers.delete("a1");
    expect(balancers.get("a1")).toBeUndefined();
    await expect(hostTraffic.httpGet(ip, 18081, "/", { timeoutMs: 2000 })).rejects.toThrow(/ECONNREFUSED/);
  });

  it("resets a connection when there is no target", async () => {
    const balancers = await lbs();
    const ip = await balancers.ensure(spec([]));
    await expect(hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).rejects.toThrow(/ECONNRESET|socket hang up/);
  });

  it("admits only clients inside loadBalancerSourceRanges, and everyone once the ranges are gone", async () => {
    const balancers = await lbs();
    const target = await httpBackend("b1");
    const ip = await balancers.ensure(spec([target], { sourceRanges: ["10.0.0.0/8", "127.0.0.1/32"] }));
    expect((await hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).body).toBe("b1");
    await balancers.ensure(spec([target], { sourceRanges: ["127.0.0.2/32"] }));
    await expect(hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).rejects.toThrow(/ECONNRESET|socket hang up/);
    await balancers.ensure(spec([target], { sourceRanges: [] }));
    expect((await hostTraffic.httpGet(ip, 18080, "/", { timeoutMs: 2000 })).body).toBe("b1");
  });

  it("relays UDP flows both ways", async () => {
    const backend = createSocket("udp4");
    backend.on("message", (message, from) => backend.send(`echo ${message.toString()}`, from.port, from.address));
    await new Promise<void>((resolve) => backend.bind(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => backend.close(() => resolve())));
    const balancers = await lbs();
    const target = { name: "u1", address: "127.0.0.1", port: backend.address().port };
    const ip = await balancers.ensure(
      spec([target], { ports: [{ port: 18082, protocol: "UDP" }], targets: new Map([[listenerKey(18082, "UDP"), [target]]]) }),
    );
    await expect(hostTraffic.udpExchange(ip, 18082, "hi", { timeoutMs: 2000 })).resolves.toBe("echo hi");
  });
});
