import { BalloonError } from "./errors.js";
import { Quantity } from "@kubekit/apimachinery";
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
const ONE_MILLI = Quantity.parse("1m");

export function granularityFor(name: string, granularity: ResourceList | undefined): Quantity {
  const step = granularity?.[name] ?? DEFAULT_GRANULARITY[name] ?? ONE_UNIT;
  if (step.sign() <= 0) {
    throw new BalloonError("invalid-argument", `granularity for ${name} must be positive, got ${step.toString()}`);
  }
  requireSensibleUnits({ [name]: step }, "granularity");
  if (name === "cpu" && step.nanos % ONE_MILLI.nanos !== 0n) {
    // Finer steps would emit requests like "1500u" that the kubelet rounds up to whole millicores anyway.
    throw new BalloonError(
      "invalid-argument",
      `granularity cpu: ${JSON.stringify(step.toString())} must be a whole number of millicores (1m is the kubelet's unit)`,
    );
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

/** Resources counted in bytes, where a fraction of a byte is meaningless (upstream warns "must be an integer"). */
function isByteResource(name: string): boolean {
  return name === "memory" || name === "ephemeral-storage" || name.startsWith("hugepages-");
}

/**
 * Units that make sense for the resource: whole bytes for memory (`memory=500m` is half a byte,
 * the pitfall kube-apiserver warns about) and no binary suffix for CPU (`cpu=4Gi` is four billion
 * cores).
 */
export function requireSensibleUnits(list: ResourceList | undefined, role: string): void {
  for (const [name, quantity] of Object.entries(list ?? {})) {
    if (isByteResource(name) && quantity.nanos % 1_000_000_000n !== 0n) {
      throw new BalloonError(
        "invalid-argument",
        `${role} ${name}: fractional byte value ${JSON.stringify(quantity.toString())} is invalid, must be an integer (did you mean ${suggestBytes(quantity)}?)`,
      );
    }
    if (name === "cpu" && quantity.format === "BinarySI" && !quantity.isZero()) {
      throw new BalloonError(
        "invalid-argument",
        `${role} cpu: ${JSON.stringify(quantity.toString())} uses a binary (byte) suffix; CPU is counted in cores, e.g. 4 or 500m`,
      );
    }
  }
}

function suggestBytes(quantity: Quantity): string {
  // "500m" was most likely meant as 500Mi.
  const text = quantity.toString();
  return text.endsWith("m") ? `${text.slice(0, -1)}Mi` : quantity.ceilTo(ONE_UNIT).toString();
}

/** The floor to apply: the defaults for every resource the given floor does not name. */
export function floorWithDefaults(floor: ResourceList | undefined): ResourceList {
  return { ...DEFAULT_FLOOR, ...floor };
}

/** Why a balloon with no request above zero can never be resized (one wording for every caller). */
export function bestEffortBalloon(subject: string): string {
  return `${subject} has no request above zero, so its pod is BestEffort and in-place resize can never change it (a resize may not change the QoS class); recreate it from a template with requests, e.g. cpu=1m,memory=1Mi`;
}

/** The checks a target passes before any node is looked at: non-negative, resizable, sensible units. */
export function requireValidTarget(target: ResourceList): void {
  requireNonNegative(target, "target");
  requireSensibleUnits(target, "target");
  for (const name of Object.keys(target)) requireResizable(name, "target");
}
