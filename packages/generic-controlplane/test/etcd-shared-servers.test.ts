import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane } from "../src/control-plane.js";
import { createEtcdStorage } from "../src/storage/etcd.js";
import { startEtcd, type EtcdProcess } from "./harness/etcd.js";

// Two API servers on one etcd, as kube-apiserver replicas behind a load balancer: a GET without a
// resourceVersion is a linearizable read, so whatever one server acknowledged is in the very next
// GET through the other, however far the other's watch cache is behind.

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

const path = (name = "") => `/api/v1/namespaces/default/configmaps${name === "" ? "" : `/${name}`}`;

describe("two API servers sharing one etcd", () => {
  let etcd: EtcdProcess;
  let a: ControlPlane;
  let b: ControlPlane;

  beforeAll(async () => {
    etcd = await startEtcd();
    const storage = () => createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0, requestTimeoutMs: 5000 });
    a = await createControlPlane({ storage: storage(), port: 0, host: "127.0.0.1" });
    b = await createControlPlane({ storage: storage(), port: 0, host: "127.0.0.1" });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await etcd?.stop();
  });

  async function send(plane: ControlPlane, method: string, url: string, body?: unknown): Promise<{ status: number; body: ConfigMap }> {
    const response = await fetch(`${plane.url}${url}`, {
      method,
      ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as ConfigMap };
  }

  it("shows a create, an update and a delete through one server in the next GET through the other", async () => {
    // Both servers have read the state once, so each has its caches running.
    await send(a, "POST", path(), { metadata: { name: "warm" } });
    expect((await send(b, "GET", path("warm"))).status).toBe(200);
    expect((await send(b, "GET", path())).status).toBe(200);
    for (let i = 0; i < 40; i++) {
      const name = `cm-${i}`;
      const created = await send(a, "POST", path(), { metadata: { name }, data: { step: "created" } });
      expect(created.status).toBe(201);
      const afterCreate = await send(b, "GET", path(name));
      expect([afterCreate.status, afterCreate.body.metadata.resourceVersion]).toEqual([200, created.body.metadata.resourceVersion]);

      const updated = await send(a, "PUT", path(name), { ...created.body, data: { step: "updated" } });
      expect(updated.status).toBe(200);
      const afterUpdate = await send(b, "GET", path(name));
      expect([afterUpdate.body.data, afterUpdate.body.metadata.resourceVersion]).toEqual([
        { step: "updated" },
        updated.body.metadata.resourceVersion,
      ]);

      expect((await send(a, "DELETE", path(name))).status).toBe(200);
      expect((await send(b, "GET", path(name))).status).toBe(404);
    }
  }, 60_000);
});
