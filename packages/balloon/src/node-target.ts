import { isConflict, PATCH_MERGE, type KubeClient, type Node } from "@kubekit/client";
import { NODE_TARGET_ANNOTATION } from "./names.js";
import { formatResourceList, parseResourceList, type ResourceList } from "./resource-list.js";
import { NODES } from "./resources.js";

const CONFLICT_RETRIES = 5;

/** What `recordNodeTarget` wrote over, so a resize that did not happen can put it back. */
export interface RecordedTarget {
  readonly node: string;
  /** The annotation before (undefined: there was none). */
  readonly previous: string | undefined;
  /** The annotation written. */
  readonly recorded: string;
}

/**
 * The target a node should keep after a resize to `target`: the resources `target` names replace
 * theirs in the current annotation, the others stay (a resize of cpu alone keeps the memory target).
 * An annotation that does not parse is replaced.
 */
export function mergedTarget(current: string | undefined, target: ResourceList): string {
  let kept: ResourceList;
  try {
    kept = current === undefined ? {} : parseResourceList(current, NODE_TARGET_ANNOTATION);
  } catch {
    kept = {};
  }
  return formatResourceList({ ...kept, ...target });
}

/**
 * Writes `balloon.kubekit.dev/target` so it agrees with a resize to `target`: whatever restores a
 * recreated balloon (the agent) then brings it back at this size instead of the old one, and an
 * agent running meanwhile works towards the same size instead of undoing it. A merge patch with
 * the read resourceVersion as precondition, re-read on 409.
 */
export async function recordNodeTarget(client: KubeClient, nodeName: string, target: ResourceList): Promise<RecordedTarget> {
  for (let attempt = 0; ; attempt++) {
    const node = await client.get<Node>(NODES, undefined, nodeName);
    const previous = node.metadata?.annotations?.[NODE_TARGET_ANNOTATION];
    const recorded = mergedTarget(previous, target);
    if (recorded === previous) return { node: nodeName, previous, recorded };
    try {
      await client.patch(
        NODES,
        undefined,
        nodeName,
        { metadata: { resourceVersion: node.metadata?.resourceVersion, annotations: { [NODE_TARGET_ANNOTATION]: recorded } } },
        PATCH_MERGE,
      );
      return { node: nodeName, previous, recorded };
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
    }
  }
}

/** Puts back the annotation `recordNodeTarget` replaced, unless someone has changed it since. Returns whether it did. */
export async function restoreNodeTarget(client: KubeClient, record: RecordedTarget): Promise<boolean> {
  if (record.previous === record.recorded) return false;
  for (let attempt = 0; ; attempt++) {
    const node = await client.get<Node>(NODES, undefined, record.node);
    if (node.metadata?.annotations?.[NODE_TARGET_ANNOTATION] !== record.recorded) return false;
    try {
      await client.patch(
        NODES,
        undefined,
        record.node,
        {
          metadata: { resourceVersion: node.metadata.resourceVersion, annotations: { [NODE_TARGET_ANNOTATION]: record.previous ?? null } },
        },
        PATCH_MERGE,
      );
      return true;
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
    }
  }
}
