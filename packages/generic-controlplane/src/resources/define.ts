import type { KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

/**
 * Lets each built-in be written against its own object shape while being served through the
 * shape-agnostic `ResourceDefinition`. The registry only ever hands a definition objects of its
 * own kind, so narrowing the callbacks' parameter type is sound.
 */
export function defineResource<T extends KubeObject>(definition: ResourceDefinition<T>): ResourceDefinition {
  return definition as unknown as ResourceDefinition;
}

/** Objects arrive as parsed JSON; this reads a nested record without trusting its shape. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
