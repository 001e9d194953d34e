import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore, toTable, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { controllerRevisionsResource } from "./controller-revisions.js";
import { daemonSetsResource, type DaemonSet } from "./daemonsets.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function storeFor(definition: typeof daemonSetsResource): ResourceStore {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return createResourceStore(definition, storage);
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the write to be refused");
}

const ds = (spec: Record<string, unknown> = {}) => ({
  metadata: { name: "ds" },
  spec: {
    selector: { matchLabels: { app: "a" } },
    template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "x" }] } },
    ...spec,
  },
});

// After pkg/apis/apps/validation's TestValidateDaemonSet and TestValidateDaemonSetUpdate.
describe("daemonsets", () => {
  it("defaults RollingUpdate with maxUnavailable 1 and maxSurge 0, and ten revisions", async () => {
    const created = (await storeFor(daemonSetsResource).create("default", ds())) as DaemonSet;
    expect(created.spec?.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(created.spec?.revisionHistoryLimit).toBe(10);
    expect(created.spec?.template?.spec?.restartPolicy).toBe("Always");
  });

  const invalid: Array<{ name: string; spec: Record<string, unknown>; message: string }> = [
    { name: "no selector", spec: { selector: undefined }, message: "spec.selector: Required value" },
    {
      name: "an empty selector",
      spec: { selector: {} },
      message: 'spec.selector: Invalid value: "": empty selector is invalid for daemonset',
    },
    {
      name: "a selector not matching the template",
      spec: { selector: { matchLabels: { app: "b" } } },
      message: "`selector` does not match template `labels`",
    },
    {
      name: "an unknown strategy",
      spec: { updateStrategy: { type: "Sometimes" } },
      message: 'spec.updateStrategy.type: Unsupported value: "Sometimes": supported values: "OnDelete", "RollingUpdate"',
    },
    {
      name: "both surge and unavailable",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "10%", maxUnavailable: 1 } } },
      message: 'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero',
    },
    {
      name: "neither surge nor unavailable",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } } },
      message: "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
    },
    {
      name: "over 100%",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "150%" } } },
      message: 'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    },
    {
      name: "a restart policy other than Always",
      spec: { template: { metadata: { labels: { app: "a" } }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x" }] } } },
      message: 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    },
    {
      name: "a negative minReadySeconds",
      spec: { minReadySeconds: -1 },
      message: "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
    },
  ];
  for (const c of invalid) {
    it(`refuses ${c.name}`, async () => {
      const refused = await rejection(storeFor(daemonSetsResource).create("default", ds(c.spec)));
      expect(refused.code).toBe("Invalid");
      expect(refused.message).toContain(c.message);
    });
  }

  it("keeps the selector as created", async () => {
    const store = storeFor(daemonSetsResource);
    const created = (await store.create("default", ds())) as DaemonSet;
    const changed = structuredClone(created);
    changed.spec!.selector = { matchLabels: { app: "a", extra: "x" } };
    changed.spec!.template!.metadata!.labels = { app: "a", extra: "x" };
    expect((await rejection(store.update("default", "ds", changed))).message).toContain("spec.selector: Invalid value");
  });

  it("prints kubectl's columns", async () => {
    const created = (await storeFor(daemonSetsResource).create(
      "default",
      ds({
        template: {
          metadata: { labels: { app: "a" } },
          spec: { nodeSelector: { b: "2", a: "1" }, containers: [{ name: "c", image: "x" }] },
        },
      }),
    )) as DaemonSet;
    created.status = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberReady: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 1,
    };
    const table = toTable(daemonSetsResource, [created], { includeObject: "None" }) as {
      columnDefinitions: Array<{ name: string }>;
      rows: Array<{ cells: unknown[] }>;
    };
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Up-to-date",
      "Available",
      "Node Selector",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
    expect(table.rows[0]!.cells.filter((_, i) => i !== 7)).toEqual(["ds", 3, 2, 1, 2, 1, "a=1,b=2", "c", "x", "app=a"]);
  });
});

describe("controllerrevisions", () => {
  it("keeps data fixed and the revision non-negative", async () => {
    const store = storeFor(controllerRevisionsResource);
    const created = (await store.create("default", { metadata: { name: "r" }, data: { spec: { a: 1 } }, revision: 1 })) as KubeObject & {
      data: unknown;
      revision: number;
    };
    expect((await rejection(store.update("default", "r", { ...created, data: { spec: { a: 2 } } }))).message).toContain(
      "data: Invalid value",
    );
    expect((await rejection(store.create("default", { metadata: { name: "neg" }, data: {}, revision: -1 }))).message).toContain(
      "revision: Invalid value: -1: must be greater than or equal to 0",
    );
    expect(((await store.update("default", "r", { ...created, revision: 3 })) as { revision: number }).revision).toBe(3);
  });
});
