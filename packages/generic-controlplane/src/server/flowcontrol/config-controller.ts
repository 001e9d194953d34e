import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
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
    if (stopped) return;
    const flowSchemas = schemas.items as unknown as FlowSchema[];
    flowControl.configure(flowSchemas, levels.items as unknown as PriorityLevelConfiguration[]);
    const levelNames = new Set(levels.items.map((level) => level.metadata?.name));
    for (const schema of flowSchemas) await markDangling(stores.flowSchemas, schema, levelNames);
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

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * Upstream's `Dangling` condition on a FlowSchema: True (reason NotFound) while its priority level
 * does not exist — the schema is then skipped — and False (reason Found) once it does.
 */
async function markDangling(store: ResourceStore, schema: FlowSchema, levelNames: ReadonlySet<string | undefined>): Promise<void> {
  const level = schema.spec.priorityLevelConfiguration.name;
  const found = levelNames.has(level);
  const desired: Condition = found
    ? {
        type: "Dangling",
        status: "False",
        reason: "Found",
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`,
      }
    : {
        type: "Dangling",
        status: "True",
        reason: "NotFound",
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`,
      };
  const current = ((schema as { status?: { conditions?: Condition[] } }).status?.conditions ?? []).find((c) => c.type === "Dangling");
  if (current?.status === desired.status && current.reason === desired.reason && current.message === desired.message) return;
  try {
    await store.guaranteedUpdate(
      undefined,
      schema.metadata.name,
      (object) => {
        const status = ((object as { status?: { conditions?: Condition[] } }).status ??= {});
        const others = (status.conditions ?? []).filter((c) => c.type !== "Dangling");
        status.conditions = [...others, { ...desired, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") }];
        return object;
      },
      { subresource: "status", fieldManager: "api-priority-and-fairness-config-consumer-v1" },
    );
  } catch (error) {
    // Deleted meanwhile: nothing to mark. Anything else is retried on the next change.
    if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
  }
}
