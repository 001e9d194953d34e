// keys-annotator.test.ts
import { ControllerManager, KubeClient, controllerFor, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { startTestPlane, type TestPlane } from "@kubekit/generic-controlplane/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

const CONFIGMAPS: ResourceRef = { group: "", version: "v1", resource: "configmaps", namespaced: true };
const ANNOTATION = "example.com/keys";

interface ConfigMap {
  metadata: { namespace: string; name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

// Annotates every ConfigMap with the number of keys it holds.
const keysAnnotator = controllerFor(CONFIGMAPS)
  .named("keys-annotator")
  .withOptions({ workers: 2 })
  .complete(async (key, { primary, client }) => {
    const configMap = primary.cache.get(key) as ConfigMap | undefined;
    if (configMap === undefined) return; // deleted meanwhile
    const keys = String(Object.keys(configMap.data ?? {}).length);
    if (configMap.metadata.annotations?.[ANNOTATION] === keys) return;
    // A throw (a conflict, the server away) requeues the key with backoff.
    await client.patch(CONFIGMAPS, configMap.metadata.namespace, configMap.metadata.name, {
      metadata: { annotations: { [ANNOTATION]: keys } },
    });
  });

let test: TestPlane;
let client: KubeClient;
let manager: ControllerManager;

beforeAll(async () => {
  test = await startTestPlane();
  client = new KubeClient(test.url);
  manager = new ControllerManager({ client, controllers: ["keys-annotator"], extraControllers: [keysAnnotator], leaderElection: false });
  manager.start();
});
afterAll(async () => {
  await manager.stop();
  client.close();
  await test.close();
});

it("annotates a ConfigMap with its number of keys", async () => {
  await client.create(CONFIGMAPS, "default", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings" },
    data: { mode: "fast", level: "3" },
  });
  await expect.poll(async () => (await client.get(CONFIGMAPS, "default", "settings")).metadata?.annotations?.[ANNOTATION]).toBe("2");
});
