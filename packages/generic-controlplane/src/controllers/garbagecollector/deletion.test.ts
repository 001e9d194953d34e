import { afterEach, describe, expect, it, vi } from "vitest";
import type { DeleteOptions, KubeObject } from "../../api/types.js";
import { CONFIGMAPS, SECRETS, eventually, isGoneFrom, ownerRef, startControllers, type ControllerHarness } from "../test-support.js";
import { garbageCollector } from "./controller.js";

let h: ControllerHarness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

const ns = "default";

async function configMap(name: string): Promise<KubeObject> {
  return h!.client.create(CONFIGMAPS, ns, { apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
}

async function dependent(name: string, owners: KubeObject[]): Promise<KubeObject> {
  return h!.client.create(SECRETS, ns, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, ownerReferences: owners.map((owner) => ownerRef(owner)) },
  });
}

/** Waits until the collector has listed secrets, so it sees the dependents created next through its watch. */
async function watchingSecrets(): Promise<void> {
  await eventually("the collector to list secrets", () =>
    h!.logs.some((r) => r.msg === "listed" && r["informer"] === "secrets") ? true : undefined,
  );
}

describe("garbage collector deletion path", () => {
  it("deletes dependents of a deleted owner from the informer's copy, with uid and resourceVersion preconditions and no live GET", async () => {
    h = await startControllers([garbageCollector({ workers: 4 })]);
    await watchingSecrets();
    const owner = await configMap("owner");
    const created = new Map<string, KubeObject>();
    for (let i = 0; i < 10; i++) created.set(`dep-${i}`, await dependent(`dep-${i}`, [owner]));
    await new Promise((resolve) => setTimeout(resolve, 300));

    const gets = vi.spyOn(h.client, "get");
    const deletes = vi.spyOn(h.client, "delete");
    await h.client.delete(CONFIGMAPS, ns, "owner", { propagationPolicy: "Background" });
    // Polled with LISTs, so every GET of a secret counted below is the collector's.
    await eventually("every dependent to be deleted", async () =>
      (await h!.client.list(SECRETS, ns)).items.length === 0 ? true : undefined,
    );

    const secretGets = gets.mock.calls.filter(([ref]) => ref.resource === "secrets");
    expect(secretGets).toEqual([]);
    const secretDeletes = deletes.mock.calls.filter(([ref]) => ref.resource === "secrets");
    expect(secretDeletes).toHaveLength(created.size);
    for (const [, , name, options] of secretDeletes) {
      const object = created.get(name)!;
      expect((options as DeleteOptions).preconditions).toEqual({
        uid: object.metadata?.uid,
        resourceVersion: object.metadata?.resourceVersion,
      });
    }
  }, 30_000);

  it("keeps a dependent that gained a live owner after the informer's copy: the stale DELETE fails its resourceVersion precondition and the live object is classified", async () => {
    h = await startControllers([garbageCollector({ workers: 4 })]);
    const dying = await configMap("dying");
    const living = await configMap("living");
    await watchingSecrets();
    await dependent("late", [dying]);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The first DELETE of the dependent races with a writer adding a live owner just before it lands.
    const deleteObject = h.client.delete.bind(h.client);
    let raced = false;
    vi.spyOn(h.client, "delete").mockImplementation(async (ref, namespace, name, options) => {
      if (ref.resource === "secrets" && name === "late" && !raced) {
        raced = true;
        await h!.client.patch(SECRETS, ns, "late", { metadata: { ownerReferences: [ownerRef(dying), ownerRef(living)] } });
      }
      return deleteObject(ref, namespace, name, options);
    });
    await h.client.delete(CONFIGMAPS, ns, "dying", { propagationPolicy: "Background" });

    const refs = await eventually("the reference to the deleted owner to be removed", async () => {
      if (await isGoneFrom(h!.client, SECRETS, ns, "late")) return "deleted";
      const names = ((await h!.client.get(SECRETS, ns, "late")).metadata?.ownerReferences ?? []).map((r) => r.name);
      return names.includes("dying") ? undefined : names;
    });
    expect(raced).toBe(true);
    expect(refs).toEqual(["living"]);
  }, 30_000);
});
