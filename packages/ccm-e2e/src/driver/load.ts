import { access } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { CcmE2eError } from "../errors.js";
import { unreadableDriver } from "./file-error.js";
import { DEFAULT_TIMEOUTS } from "./timeouts.js";
import { capabilitiesSchema, internalLoadBalancerSchema, parseStrict } from "./schema.js";
import type { CcmDriver } from "./types.js";
import { loadYamlDriver } from "./yaml-driver.js";

const FUNCTION_FIELDS = [
  "setup",
  "teardown",
  "beforeEach",
  "afterEach",
  "deleteInstance",
  "stopInstance",
  "startInstance",
  "rebootInstance",
  "disruptNetwork",
  "execOnNode",
  "upgradeControlPlane",
  "upgradeNodes",
  "downgrade",
  "instanceExists",
  "getLoadBalancer",
  "cleanupServiceResources",
] as const;

const trafficClientSchema = z.custom<object>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as Record<string, unknown>).httpGet === "function" &&
    typeof (value as Record<string, unknown>).udpExchange === "function",
  "must have httpGet and udpExchange functions",
);

const moduleDriverSchema = z.strictObject({
  name: z.string().min(1),
  capabilities: capabilitiesSchema,
  timeouts: z
    .strictObject(Object.fromEntries(Object.keys(DEFAULT_TIMEOUTS).map((key) => [key, z.number().positive().optional()])))
    .optional(),
  timeoutScale: z.number().positive().optional(),
  external: trafficClientSchema.optional(),
  inCluster: trafficClientSchema.optional(),
  internalLoadBalancer: internalLoadBalancerSchema.optional(),
  ...Object.fromEntries(FUNCTION_FIELDS.map((name) => [name, z.function().optional()])),
});

/**
 * Checks a driver object given in code with the same strictness as a YAML file: unknown fields
 * (a misspelt hook or capability) are errors naming the field, not silently ignored.
 */
export function validateDriver(value: unknown, source = "driver"): CcmDriver {
  parseStrict(moduleDriverSchema, value, source);
  return value as CcmDriver;
}

/**
 * Loads a driver file: `.yaml`/`.yml` as a declarative driver, anything else as a JS module whose
 * default export (or `driver` export) is a driver or a function returning one, given the kubeconfig.
 */
export async function loadDriver(path: string, options: { kubeconfig: string }): Promise<CcmDriver> {
  try {
    await access(path);
  } catch (error) {
    throw unreadableDriver(path, error);
  }
  const ext = extname(path).toLowerCase();
  if (ext === ".yaml" || ext === ".yml") return loadYamlDriver(path, options.kubeconfig);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CcmE2eError("invalid-driver", `${path}: cannot load the driver module: ${(error as Error).message}`, { cause: error });
  }
  let exported = module.default ?? module.driver;
  if (exported === undefined)
    throw new CcmE2eError("invalid-driver", `${path}: exports no driver (export default a driver, or a function returning one)`);
  if (typeof exported === "function")
    exported = await (exported as (options: { kubeconfig: string }) => unknown)({ kubeconfig: options.kubeconfig });
  return validateDriver(exported, path);
}
