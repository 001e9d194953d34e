import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { AffinityTable } from "./affinity.js";
import { echoListensOf, podHostname } from "./echo-ports.js";
import { assertLoopbackRanges, isLoopback, randomTrafficRanges } from "./loopback.js";
import { clusterEndpoints, endpointsOfPort, localEndpoints, type ProxyEndpoint } from "./service-endpoints.js";

const pod = (containers: unknown[], extra: Record<string, unknown> = {}): Pod => ({
  metadata: { name: "web-1" },
  spec: { containers: containers as never, ...extra },
});

describe("echoListensOf", () => {
  it("follows agnhost netexec's and serve-hostname's flags", () => {
    expect(echoListensOf(pod([{ name: "c", args: ["netexec", "--http-port=80", "--udp-port=80"] }]))).toEqual([
      { protocol: "TCP", port: 80, style: "netexec" },
      { protocol: "UDP", port: 80, style: "netexec" },
    ]);
    expect(echoListensOf(pod([{ name: "c", command: ["/agnhost", "netexec"], args: ["--http-port", "9000", "--udp-port=-1"] }]))).toEqual([
      { protocol: "TCP", port: 9000, style: "netexec" },
    ]);
    expect(echoListensOf(pod([{ name: "c", args: ["serve-hostname"] }]))).toEqual([
      { protocol: "TCP", port: 9376, style: "serve-hostname-http" },
    ]);
    expect(echoListensOf(pod([{ name: "c", args: ["serve-hostname", "--tcp", "--udp", "--port=9377"] }]))).toEqual([
      { protocol: "TCP", port: 9377, style: "serve-hostname-tcp" },
      { protocol: "UDP", port: 9377, style: "netexec" },
    ]);
  });

  it("answers on declared TCP and UDP container ports, else on netexec's defaults", () => {
    expect(
      echoListensOf(
        pod([
          { name: "c", ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }, { containerPort: 9, protocol: "SCTP" }] },
        ]),
      ),
    ).toEqual([
      { protocol: "TCP", port: 80, style: "netexec" },
      { protocol: "UDP", port: 53, style: "netexec" },
    ]);
    expect(echoListensOf(pod([{ name: "c", image: "nginx" }]))).toEqual([
      { protocol: "TCP", port: 8080, style: "netexec" },
      { protocol: "UDP", port: 8081, style: "netexec" },
    ]);
  });

  it("names the pod's host as the kubelet does", () => {
    expect(podHostname(pod([]))).toBe("web-1");
    expect(podHostname(pod([], { hostname: "custom" }))).toBe("custom");
  });
});

describe("endpoint choice, as kube-proxy's CategorizeEndpoints", () => {
  const ep = (ip: string, nodeName: string, state: "ready" | "terminating" | "stopping" | "unready"): ProxyEndpoint => ({
    ip,
    port: 80,
    nodeName,
    ready: state === "ready",
    serving: state === "ready" || state === "terminating",
    terminating: state === "terminating" || state === "stopping",
  });

  it("prefers ready endpoints and falls back to serving terminating ones, cluster-wide and per node", () => {
    const all = [
      ep("127.9.0.1", "a", "ready"),
      ep("127.9.0.2", "b", "terminating"),
      ep("127.9.0.3", "b", "stopping"),
      ep("127.9.0.4", "c", "unready"),
    ];
    expect(clusterEndpoints(all).map((e) => e.ip)).toEqual(["127.9.0.1"]);
    expect(clusterEndpoints(all.slice(1)).map((e) => e.ip)).toEqual(["127.9.0.2"]);
    expect(localEndpoints(all, "a").map((e) => e.ip)).toEqual(["127.9.0.1"]);
    expect(localEndpoints(all, "b").map((e) => e.ip)).toEqual(["127.9.0.2"]);
    expect(localEndpoints(all, "c")).toEqual([]);
  });

  it("reads a service port's endpoints from the slice port of the same name and protocol", () => {
    const slices = [
      {
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        endpoints: [{ addresses: ["127.9.0.1"], nodeName: "a" }],
      },
      {
        addressType: "IPv4",
        ports: [{ name: "http", port: 8081, protocol: "UDP" }],
        endpoints: [{ addresses: ["127.9.0.2"], conditions: { ready: false, serving: true, terminating: true } }],
      },
      { addressType: "IPv6", ports: [{ name: "http", port: 8080, protocol: "TCP" }], endpoints: [{ addresses: ["::1"] }] },
    ];
    expect(endpointsOfPort(slices, { name: "http", port: 80, protocol: "TCP" })).toEqual([
      { ip: "127.9.0.1", port: 8080, nodeName: "a", ready: true, serving: true, terminating: false },
    ]);
    expect(endpointsOfPort(slices, { name: "http", port: 80, protocol: "UDP" })).toEqual([
      { ip: "127.9.0.2", port: 8081, nodeName: undefined, ready: false, serving: true, terminating: true },
    ]);
  });
});

describe("AffinityTable", () => {
  it("keeps a client on its endpoint until the timeout passes without a new connection", () => {
    let now = 0;
    const table = new AffinityTable(() => now);
    const endpoints: ProxyEndpoint[] = ["127.9.0.1", "127.9.0.2"].map((ip) => ({
      ip,
      port: 80,
      nodeName: "a",
      ready: true,
      serving: true,
      terminating: false,
    }));
    const first = table.choose("ns/svc:/TCP", "127.0.0.1", 10, endpoints, () => 0)!;
    expect(first.ip).toBe("127.9.0.1");
    now = 9_000;
    expect(table.choose("ns/svc:/TCP", "127.0.0.1", 10, endpoints, () => 0.9)!.ip).toBe("127.9.0.1");
    now = 18_500; // 9.5 s after the last connection: still held
    expect(table.choose("ns/svc:/TCP", "127.0.0.1", 10, endpoints, () => 0.9)!.ip).toBe("127.9.0.1");
    now = 40_000;
    expect(table.choose("ns/svc:/TCP", "127.0.0.1", 10, endpoints, () => 0.9)!.ip).toBe("127.9.0.2");
    // An endpoint that is gone is not held.
    expect(table.choose("ns/svc:/TCP", "127.0.0.1", 10, endpoints.slice(0, 1), () => 0.9)!.ip).toBe("127.9.0.1");
  });
});

describe("loopback ranges", () => {
  it("picks three /16s inside 127.0.0.0/8 and refuses any other range", () => {
    const ranges = randomTrafficRanges(() => 0.5);
    expect(ranges).toEqual({ podCIDR: "127.132.0.0/16", serviceCIDR: "127.133.0.0/16", nodeCIDR: "127.134.0.0/16" });
    const last = randomTrafficRanges(() => 0.999);
    for (const cidr of [last.podCIDR, last.serviceCIDR, last.nodeCIDR]) expect(isLoopback(cidr.split("/")[0]!)).toBe(true);
    expect(() => assertLoopbackRanges({ ...ranges, podCIDR: "10.244.0.0/16" })).toThrow(
      'traffic mode binds only loopback addresses: podCIDR "10.244.0.0/16" must lie in 127.0.0.0/8',
    );
  });
});
