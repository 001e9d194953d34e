import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../api/types.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";
import { createMemoryStorage } from "../storage/memory.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import type { Storage } from "../storage/types.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";
import { createGenericStore, type ResourceStoreOptions } from "./store.js";

/** A ConfigMap-like namespaced type for tests. */
export const widgets: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  singular: "widget",
  scope: "Namespaced",
  fieldSelectors: { color: (o) => (o as { spec?: { color?: string } }).spec?.color },
  strategy: {
    validate: (o) =>
      (o as { spec?: { color?: unknown } }).spec?.color === 1
        ? [{ type: "FieldValueInvalid", field: "spec.color", detail: "must be a string", value: 1 }]
        : [],
  },
};

/** A CRD-like cluster-scoped type with a status subresource and generation tracking. */
export const gadgets: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Cluster",
  statusSubresource: true,
  tracksGeneration: true,
};

export function widget(name: string, extra: Partial<KubeObject> & { labels?: Record<string, string>; color?: string } = {}): KubeObject {
  const { labels, color, ...rest } = extra;
  return {
    metadata: { name, ...(labels ? { labels } : {}) },
    ...(color !== undefined ? { spec: { color } } : {}),
    ...rest,
  };
}

export function setup(
  definition: ResourceDefinition = widgets,
  options: ResourceStoreOptions = {},
): { storage: Storage; store: ReturnType<typeof createGenericStore> } {
  const storage = createMemoryStorage({ compactInterval: 0 });
  return { storage, store: createGenericStore(definition, storage, { clock: () => new Date("2026-01-02T03:04:05.678Z"), ...options }) };
}

/** The storage backends the registry tests run on; each opened store is closed (and its files removed) by `closeAll`. */
export interface Backend {
  name: string;
  open(
    definition?: ResourceDefinition,
    options?: ResourceStoreOptions,
  ): Promise<{ storage: Storage; store: ReturnType<typeof createGenericStore> }>;
}

const opened: { storage: Storage; dir?: string }[] = [];

export const backends: Backend[] = [
  {
    name: "memory",
    open: (definition = widgets, options = {}) => {
      const ctx = setup(definition, options);
      opened.push({ storage: ctx.storage });
      return Promise.resolve(ctx);
    },
  },
  {
    name: "sqlite",
    open: async (definition = widgets, options = {}) => {
      const dir = mkdtempSync(join(tmpdir(), "kubekit-registry-"));
      const storage = await createSqliteStorage({ path: join(dir, "state.db"), compactInterval: 0 });
      opened.push({ storage, dir });
      return { storage, store: createGenericStore(definition, storage, { clock: () => new Date("2026-01-02T03:04:05.678Z"), ...options }) };
    },
  },
];

export async function closeAll(): Promise<void> {
  for (const { storage, dir } of opened.splice(0)) {
    await storage.close().catch(() => {});
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<ControlPlaneError> {
  try {
    await promise;
  } catch (error) {
    return error as ControlPlaneError;
  }
  throw new Error("expected a rejection");
}
