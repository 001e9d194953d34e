import { afterEach, describe, expect, it } from "vitest";
import type { AdmissionPlugin } from "../admission/types.js";
import { configMapsResource, eventsResource, eventsV1Resource, leasesResource, namespacesResource } from "./builtin-resources.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";
import { cachedObjectCounts, countStoredObjects } from "./object-counts.js";
import { buildServedResources, groupResource, servedDefinitions } from "./served-resources.js";

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

function memory(): Storage {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return storage;
}

describe("served resources", () => {
  it("adds the flow control types while flow control is on, once, and refuses a type defined twice", () => {
    const withFlowControl = servedDefinitions([configMapsResource], true).map(groupResource);
    expect(withFlowControl).toEqual([
      "configmaps",
      "flowschemas.flowcontrol.apiserver.k8s.io",
      "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
    ]);
    expect(servedDefinitions([configMapsResource], false).map(groupResource)).toEqual(["configmaps"]);
    expect(() => servedDefinitions([leasesResource, configMapsResource, leasesResource], false)).toThrow(
      "resource leases.coordination.k8s.io (v1) is defined twice",
    );
  });

  it("serves namespaces through their own storage, with /finalize, and every store shares one admission chain", async () => {
    const seen: string[] = [];
    const admission: AdmissionPlugin[] = [];
    const { served, stores, namespaces } = buildServedResources([namespacesResource, configMapsResource], memory(), admission);
    // Plugins added after the stores were built still apply (NamespaceLifecycle is added this way).
    admission.push({ name: "recorder", validate: (a) => void seen.push(`${a.operation} ${a.definition.plural} ${a.subresource || "-"}`) });
    expect(served.map((s) => [groupResource(s.definition), Object.keys(s.subresources ?? {})])).toEqual([
      ["namespaces", ["finalize"]],
      ["configmaps", []],
    ]);
    expect(namespaces).toBe(stores.get("namespaces"));
    const created = await namespaces!.create(undefined, { metadata: { name: "ns" } });
    await stores.get("configmaps")!.create("ns", { metadata: { name: "cm" } });
    const terminating = await namespaces!.delete(undefined, "ns");
    expect(terminating).toMatchObject({ deleted: false, object: { status: { phase: "Terminating" } } });
    await served[0]!.subresources!["finalize"]!.update(undefined, "ns", { ...terminating.object, spec: {} }, { subresource: "finalize" });
    expect(seen).toEqual(["CREATE namespaces -", "CREATE configmaps -", "DELETE namespaces -", "UPDATE namespaces finalize"]);
    expect(created.metadata?.name).toBe("ns");
    expect(buildServedResources([configMapsResource], memory(), []).namespaces).toBeUndefined();
  });

  it("counts stored objects per stored type, and flow control's counts follow a type stored as another", async () => {
    const storage = memory();
    const { stores } = buildServedResources([eventsResource, eventsV1Resource], storage, []);
    await stores
      .get("events")!
      .create("default", { metadata: { name: "e" }, involvedObject: { kind: "Pod", namespace: "default", name: "p" } });
    const definitions = [eventsResource, eventsV1Resource];
    expect(await countStoredObjects(definitions, storage)).toEqual([{ resource: "events", count: 1 }]);
    const counts = cachedObjectCounts(definitions, storage);
    expect(await counts("events.k8s.io", "events")).toBe(1);
    expect(await counts("", "configmaps")).toBeUndefined();
  });
});
