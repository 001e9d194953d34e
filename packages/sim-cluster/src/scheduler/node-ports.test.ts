import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { hostPortsConflict, hostPortsOf, type HostPort } from "./node-ports.js";

const pod = (ports: Array<Record<string, unknown>>, hostNetwork = false): Pod => ({
  spec: { hostNetwork, containers: [{ name: "c", image: "x", ports: ports }] },
});
const used = (...ports: Array<[string, string, number]>): HostPort[] => ports.map(([ip, protocol, port]) => ({ ip, protocol, port }));

// After pkg/scheduler/framework/plugins/nodeports/node_ports_test.go (TestNodePorts).
describe("NodePorts filter", () => {
  const cases: Array<{ name: string; pod: Pod; used: HostPort[]; conflict: boolean }> = [
    { name: "no host ports", pod: pod([{ containerPort: 80 }]), used: used(["0.0.0.0", "TCP", 80]), conflict: false },
    { name: "other port", pod: pod([{ containerPort: 80, hostPort: 8080 }]), used: used(["127.0.0.1", "TCP", 9090]), conflict: false },
    {
      name: "same port and address",
      pod: pod([{ containerPort: 80, hostPort: 8080, hostIP: "127.0.0.1" }]),
      used: used(["127.0.0.1", "TCP", 8080]),
      conflict: true,
    },
    {
      name: "same port, other protocol",
      pod: pod([{ containerPort: 80, hostPort: 8080, protocol: "UDP" }]),
      used: used(["0.0.0.0", "TCP", 8080]),
      conflict: false,
    },
    {
      name: "same port, other address",
      pod: pod([{ containerPort: 80, hostPort: 8080, hostIP: "127.0.0.2" }]),
      used: used(["127.0.0.1", "TCP", 8080]),
      conflict: false,
    },
    {
      name: "all addresses against one",
      pod: pod([{ containerPort: 80, hostPort: 8080 }]),
      used: used(["127.0.0.1", "TCP", 8080]),
      conflict: true,
    },
    {
      name: "one address against all",
      pod: pod([{ containerPort: 80, hostPort: 8080, hostIP: "127.0.0.1" }]),
      used: used(["0.0.0.0", "TCP", 8080]),
      conflict: true,
    },
    {
      name: "host networking takes the container port",
      pod: pod([{ containerPort: 53, protocol: "UDP" }], true),
      used: used(["0.0.0.0", "UDP", 53]),
      conflict: true,
    },
  ];
  for (const c of cases) it(c.name, () => expect(hostPortsConflict(hostPortsOf(c.pod), c.used)).toBe(c.conflict));
});
