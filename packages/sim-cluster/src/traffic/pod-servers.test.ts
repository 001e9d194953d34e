import { describe, expect, it } from "vitest";
import { httpFailure, httpGet, udpAsk } from "../../test/traffic-client.js";
import type { Pod } from "../resources/pods.js";
import { PodServers } from "./pod-servers.js";
import { randomTrafficRanges } from "./loopback.js";

function pod(uid: string, name: string, ip: string, phase = "Running"): Pod {
  return {
    metadata: { uid, name, namespace: "default" },
    spec: { nodeName: "n1", containers: [{ name: "c", args: ["netexec", "--http-port=8080", "--udp-port=8081"] }] },
    status: { phase, podIP: ip },
  };
}

describe("PodServers", () => {
  it("serves a Running pod on its IP, stops when it finishes, and gives a reused IP to the new pod", async () => {
    const ip = randomTrafficRanges().podCIDR.replace(/0\/16$/, "7");
    const servers = new PodServers(() => undefined);
    try {
      await servers.sync(pod("a", "first", ip));
      expect((await httpGet(ip, 8080, "/hostname")).body).toBe("first");
      expect(await udpAsk(ip, 8081, "echo hi")).toBe("hi");
      expect((await httpGet(ip, 8080, "/clientip", "127.0.0.5")).body).toMatch(/^127\.0\.0\.5:\d+$/);
      expect((await httpGet(ip, 8080, "/echo?msg=x&code=503")).status).toBe(503);

      // The kubelet handed the address to a new pod before this side saw the old one go.
      await servers.sync(pod("b", "second", ip));
      expect((await httpGet(ip, 8080, "/hostname")).body).toBe("second");

      await servers.sync(pod("b", "second", ip, "Succeeded"));
      expect(await httpFailure(ip, 8080, "/hostname")).toBe("ECONNREFUSED");
    } finally {
      await servers.close();
    }
  });

  it("never tries to bind an address outside 127.0.0.0/8", async () => {
    const logs: unknown[] = [];
    const servers = new PodServers(
      () => undefined,
      (record) => logs.push(record),
    );
    await servers.sync(pod("a", "p", "10.244.0.5"));
    await servers.close();
    // Binding it would have failed (the address is not local) and been logged.
    expect(logs).toEqual([]);
  });
});
