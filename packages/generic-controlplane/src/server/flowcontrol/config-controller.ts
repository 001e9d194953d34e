import { isControlPlaneError } from "../../errors.js";
import type { ResourceStore, ResourceWatch } from "../../registry/types.js";
import type { FlowSchema, PriorityLevelConfiguration } from "./defaults.js";
import type { PriorityAndFairness } from "./priority-and-fairness.js";

export interface FlowControlConfigStores {
  flowSchemas: ResourceStore;
  priorityLevels: ResourceStore;
}

/**
 * Upstream's APF config controller, reduced to what this server needs: at start it creates the
 * bootstrap FlowSchemas and PriorityLevelConfigurations that are missing (as kube-apiserver's
 * `apf_configuration` post-start hook does), then applies the stored ones to `flowControl` and
 * re-applies them whenever one changes. Returns a function that stops watching.
 */
export async function startFlowControlConfig(
  flowControl: PriorityAndFairness,
  stores: FlowControlConfigStores,
  bootstrap: { flowSchemas: readonly FlowSchema[]; priorityLevels: readonly PriorityLevelConfiguration[] },
): Promise<() => void> {
  for (const level of bootstrap.priorityLevels) await createIfMissing(stores.priorityLevels, level);
  for (const schema of bootstrap.flowSchemas) await createIfMissing(stores.flowSchemas, schema);

  let stopped = false;
  let pending: Promise<void> | undefined;
  const apply = async (): Promise<void> => {
    const [schemas, levels] = await Promise.all([stores.flowSchemas.list(undefined), stores.priorityLevels.list(undefined)]);
    if (!stopped) flowControl.configure(schemas.items as unknown as FlowSchema[], levels.items as unknown as PriorityLevelConfiguration[]);
  };
  // Changes that arrive together are applied once.
  const reapply = (): void => {
    pending ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(apply)
      .catch(() => undefined)
      .finally(() => (pending = undefined));
  };
  await apply();
  const watches: ResourceWatch[] = [];
  for (const store of [stores.flowSchemas, stores.priorityLevels]) {
    const { metadata } = await store.list(undefined, { limit: 1 });
    watches.push(await store.watch(undefined, { resourceVersion: metadata.resourceVersion ?? "0" }, reapply));
  }
  return () => {
    stopped = true;
    for (const watch of watches) watch.stop();
  };
}

async function createIfMissing(store: ResourceStore, object: FlowSchema | PriorityLevelConfiguration): Promise<void> {
  const { uid: _uid, ...metadata } = object.metadata;
  try {
    await store.create(undefined, { ...object, metadata });
  } catch (error) {
    if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
  }
}
