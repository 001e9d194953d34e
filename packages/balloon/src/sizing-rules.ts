import { BalloonError } from "./errors.js";
import { Quantity } from "./quantity.js";
import type { ResourceList } from "./resource-list.js";

/** In-place pod resize (KEP-1287) can change only these, so a balloon can only move these. */
export const RESIZABLE_RESOURCES: readonly string[] = ["cpu", "memory"];

/** Default rounding: whole millicores (the kubelet's unit) and whole MiB (stable, readable strings). */
export const DEFAULT_GRANULARITY: ResourceList = {
  cpu: Quantity.parse("1m"),
  memory: Quantity.parse("1Mi"),
};

/**
 * Default balloon floor: the DaemonSet template's requests. Keeping a request above zero keeps the
 * balloon Burstable; a resize that would make it BestEffort is rejected by the API server.
 */
export const DEFAULT_FLOOR: ResourceList = {
  cpu: Quantity.parse("1m"),
  memory: Quantity.parse("1Mi"),
};

const ONE_UNIT = Quantity.parse("1");

export function granularityFor(name: string, granularity: ResourceList | undefined): Quantity {
  const step = granularity?.[name] ?? DEFAULT_GRANULARITY[name] ?? ONE_UNIT;
  if (step.sign() <= 0) {
    throw new BalloonError("invalid-argument", `granularity for ${name} must be positive, got ${step.toString()}`);
  }
  return step;
}

export function requireResizable(name: string, role: string): void {
  if (!RESIZABLE_RESOURCES.includes(name)) {
    throw new BalloonError(
      "invalid-argument",
      `${role} names ${JSON.stringify(name)}, but in-place resize can only change ${RESIZABLE_RESOURCES.join(" and ")}`,
    );
  }
}

export function requireNonNegative(list: ResourceList | undefined, role: string): void {
  for (const [name, quantity] of Object.entries(list ?? {})) {
    if (quantity.sign() < 0) {
      throw new BalloonError("invalid-argument", `${role} ${name} must not be negative, got ${quantity.toString()}`);
    }
  }
}
