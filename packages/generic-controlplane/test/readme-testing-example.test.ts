// my-code.test.ts
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startTestPlane, type TestPlane } from "@kubekit/generic-controlplane/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

let test: TestPlane;
let core: CoreV1Api;

beforeAll(async () => {
  test = await startTestPlane(); // in memory, on a free 127.0.0.1 port
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromString(test.plane.kubeconfig);
  core = kubeconfig.makeApiClient(CoreV1Api);
});
afterAll(() => test.close());

it("reads back what my code wrote", async () => {
  await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "settings" }, data: { mode: "fast" } } });
  const stored = await core.readNamespacedConfigMap({ namespace: "default", name: "settings" });
  expect(stored.data).toEqual({ mode: "fast" });
});
