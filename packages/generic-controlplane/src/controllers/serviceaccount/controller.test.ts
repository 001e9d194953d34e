import { afterEach, describe, expect, it } from "vitest";
import { NAMESPACES_REF, eventually, isGoneFrom, startControllers, type ControllerHarness } from "../test-support.js";
import { namespaceController } from "../namespace/controller.js";
import { SERVICE_ACCOUNTS, serviceAccountController } from "./controller.js";

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function defaultServiceAccount(namespace: string) {
  return eventually(`the default service account in ${namespace}`, async () => {
    try {
      return await h!.client.get(SERVICE_ACCOUNTS, namespace, "default");
    } catch {
      return undefined;
    }
  });
}

describe("serviceaccount controller", () => {
  it("gives every existing and new namespace a default ServiceAccount and re-creates it when deleted", async () => {
    h = await startControllers([serviceAccountController()]);
    const { client } = h;
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) await defaultServiceAccount(ns);
    await client.create(NAMESPACES_REF, undefined, { metadata: { name: "team-a" } });
    const first = await defaultServiceAccount("team-a");
    await client.delete(SERVICE_ACCOUNTS, "team-a", "default");
    const second = await eventually("the default service account to come back", async () => {
      try {
        const sa = await client.get(SERVICE_ACCOUNTS, "team-a", "default");
        return sa.metadata?.uid !== first.metadata?.uid ? sa : undefined;
      } catch {
        return undefined;
      }
    });
    expect(second.metadata?.name).toBe("default");
  });

  it("leaves a namespace being deleted alone, without failing and retrying", async () => {
    h = await startControllers([serviceAccountController(), namespaceController({ deletionGracePeriodMs: 0 })]);
    const { client } = h;
    await client.create(NAMESPACES_REF, undefined, { metadata: { name: "leaving" } });
    await defaultServiceAccount("leaving");
    await client.delete(NAMESPACES_REF, undefined, "leaving");
    await eventually("the namespace to go", async () =>
      (await isGoneFrom(client, NAMESPACES_REF, undefined, "leaving")) ? true : undefined,
    );
    expect(await isGoneFrom(client, SERVICE_ACCOUNTS, "leaving", "default")).toBe(true);
    expect(await h.registry.metrics()).toContain('workqueue_retries_total{name="serviceaccount"} 0');
  });
});
