import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

type Pod = KubeObject & { status: { phase?: string; podIP?: string } };

describe("pods/proxy outside traffic mode", () => {
  it("never dials a pod IP with no network behind it: 503, as a cluster whose pod network is down answers", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    const client = new KubeClient({ server: cluster.url });
    try {
      await client.create(PODS, "default", {
        metadata: { name: "web" },
        spec: { containers: [{ name: "c", image: "x", ports: [{ containerPort: 8080 }] }] },
      });
      const pod = await eventually("web running", async () => {
        const current = await client.get<Pod>(PODS, "default", "web");
        return current.status.phase === "Running" ? current : undefined;
      });
      expect(pod.status.podIP).toMatch(/^10\.244\./);
      const response = await fetch(`${cluster.url}/api/v1/namespaces/default/pods/web/proxy/hostname`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        kind: "Status",
        reason: "ServiceUnavailable",
        message: `error trying to reach service: dial tcp ${pod.status.podIP}:8080: connect: network is unreachable`,
      });
      const malformed = await fetch(`${cluster.url}/api/v1/namespaces/default/pods/ftp:web:21/proxy/`);
      expect(malformed.status).toBe(400);
    } finally {
      client.close();
    }
  });
});
