import { readFile } from "node:fs/promises";
import { parseGoDuration } from "@kubekit/client";
import { unreadableDriver } from "./file-error.js";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { CcmE2eError } from "../errors.js";
import { DEFAULT_TIMEOUTS } from "./timeouts.js";
import { runCommand } from "./exec.js";
import { capabilitiesSchema, cloudLoadBalancerSchema, internalLoadBalancerSchema, parseStrict } from "./schema.js";
import { checkTemplate, renderTemplate } from "./template.js";
import type { Capabilities, CcmDriver, CloudLoadBalancer, InternalLoadBalancerRequest, NodeRef, ServiceRef, Timeouts } from "./types.js";

const NODE_VARIABLES = ["kubeconfig", "nodeName", "providerID"];
const SERVICE_VARIABLES = ["kubeconfig", "namespace", "serviceName", "serviceUID", "loadBalancerName"];

/** Each hook a YAML driver may name, with the template variables it is given. */
const HOOK_VARIABLES = {
  setup: ["kubeconfig"],
  teardown: ["kubeconfig"],
  beforeEach: ["kubeconfig", "testName", "namespace"],
  afterEach: ["kubeconfig", "testName", "namespace", "outcome"],
  deleteInstance: NODE_VARIABLES,
  stopInstance: NODE_VARIABLES,
  startInstance: NODE_VARIABLES,
  rebootInstance: [...NODE_VARIABLES, "mode"],
  disruptNetwork: [...NODE_VARIABLES, "direction", "seconds"],
  execOnNode: [...NODE_VARIABLES, "command"],
  upgradeControlPlane: ["kubeconfig", "version"],
  upgradeNodes: ["kubeconfig", "version"],
  downgrade: ["kubeconfig", "version", "part"],
  instanceExists: NODE_VARIABLES,
  getLoadBalancer: SERVICE_VARIABLES,
  cleanupServiceResources: SERVICE_VARIABLES,
} as const;

type YamlHookName = keyof typeof HOOK_VARIABLES;

/** Hooks that run a whole upgrade, under the `upgrade` timeout rather than `hook`. */
const UPGRADE_HOOKS: ReadonlySet<YamlHookName> = new Set(["upgradeControlPlane", "upgradeNodes", "downgrade"]);

const commandSchema = z.array(z.string()).min(1, "a command needs at least the program to run");

const durationSchema = z.string({ error: "must be a Go duration such as 90s or 2m" }).transform((text, ctx) => {
  try {
    const ms = parseGoDuration(text);
    if (ms > 0) return ms;
    ctx.addIssue({ code: "custom", message: `must be positive, got ${JSON.stringify(text)}` });
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
  }
  return z.NEVER;
});

const yamlDriverSchema = z.strictObject({
  name: z.string().min(1),
  capabilities: capabilitiesSchema,
  timeouts: z
    .strictObject(
      Object.fromEntries(Object.keys(DEFAULT_TIMEOUTS).map((key) => [key, durationSchema.optional()])) as Record<
        keyof Timeouts,
        z.ZodOptional<typeof durationSchema>
      >,
    )
    .optional(),
  timeoutScale: z.number().positive().optional(),
  /** Extra environment for every command (KUBECONFIG is always set). */
  env: z.record(z.string(), z.string()).optional(),
  internalLoadBalancer: internalLoadBalancerSchema.optional(),
  hooks: z
    .strictObject(
      Object.fromEntries(Object.keys(HOOK_VARIABLES).map((key) => [key, commandSchema.optional()])) as Record<
        YamlHookName,
        z.ZodOptional<typeof commandSchema>
      >,
    )
    .optional(),
});

export type YamlDriverDocument = z.infer<typeof yamlDriverSchema>;

export interface YamlDriverOptions {
  /** The kubeconfig the run uses, given to commands as `KUBECONFIG` and `{{.kubeconfig}}`. */
  kubeconfig: string;
  /** Where the text came from, for error messages. */
  source?: string;
}

/**
 * A driver from a YAML document: capabilities and timeouts declared, hooks as commands run
 * without a shell with `{{.variable}}` placeholders filled per call. Unknown fields and unknown
 * placeholders are errors naming the field and its path.
 */
export function yamlDriver(text: string, options: YamlDriverOptions): CcmDriver {
  const source = options.source ?? "driver";
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new CcmE2eError("invalid-driver", `${source}: not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  const spec = parseStrict(yamlDriverSchema, document, source);
  const hooks = spec.hooks ?? {};
  for (const [name, argv] of Object.entries(hooks) as [YamlHookName, string[] | undefined][]) {
    if (argv) checkTemplate(argv, HOOK_VARIABLES[name], `${source}: hooks.${name}`);
  }
  const timeouts = spec.timeouts as Partial<Timeouts> | undefined;
  const env = { ...process.env, ...spec.env, KUBECONFIG: options.kubeconfig };
  const run = (name: YamlHookName, values: Record<string, string>): Promise<string> =>
    runCommand(renderTemplate(hooks[name]!, { kubeconfig: options.kubeconfig, ...values }), {
      env,
      hook: `${spec.name}: hooks.${name}`,
      timeoutMs: UPGRADE_HOOKS.has(name) ? (timeouts?.upgrade ?? DEFAULT_TIMEOUTS.upgrade) : (timeouts?.hook ?? DEFAULT_TIMEOUTS.hook),
    });
  const node = (ref: NodeRef) => ({ nodeName: ref.name, providerID: ref.providerID });
  const service = (ref: ServiceRef) => ({
    namespace: ref.namespace,
    serviceName: ref.name,
    serviceUID: ref.uid,
    loadBalancerName: ref.loadBalancerName,
  });

  const driver: CcmDriver = { name: spec.name, capabilities: spec.capabilities as Capabilities };
  if (timeouts) driver.timeouts = timeouts;
  if (spec.timeoutScale !== undefined) driver.timeoutScale = spec.timeoutScale;
  if (spec.internalLoadBalancer !== undefined) driver.internalLoadBalancer = spec.internalLoadBalancer as InternalLoadBalancerRequest;
  if (hooks.setup) driver.setup = async () => void (await run("setup", {}));
  if (hooks.teardown) driver.teardown = async () => void (await run("teardown", {}));
  if (hooks.beforeEach)
    driver.beforeEach = async (test) => void (await run("beforeEach", { testName: test.name, namespace: test.namespace }));
  if (hooks.afterEach)
    driver.afterEach = async (test, outcome) => void (await run("afterEach", { testName: test.name, namespace: test.namespace, outcome }));
  if (hooks.deleteInstance) driver.deleteInstance = async (ref) => void (await run("deleteInstance", node(ref)));
  if (hooks.stopInstance) driver.stopInstance = async (ref) => void (await run("stopInstance", node(ref)));
  if (hooks.startInstance) driver.startInstance = async (ref) => void (await run("startInstance", node(ref)));
  if (hooks.rebootInstance) driver.rebootInstance = async (ref, mode) => void (await run("rebootInstance", { ...node(ref), mode }));
  if (hooks.disruptNetwork)
    driver.disruptNetwork = async (ref, direction, seconds) =>
      void (await run("disruptNetwork", { ...node(ref), direction, seconds: String(seconds) }));
  if (hooks.execOnNode) driver.execOnNode = (ref, command) => run("execOnNode", { ...node(ref), command });
  if (hooks.upgradeControlPlane) driver.upgradeControlPlane = async (version) => void (await run("upgradeControlPlane", { version }));
  if (hooks.upgradeNodes) driver.upgradeNodes = async (version) => void (await run("upgradeNodes", { version }));
  if (hooks.downgrade) driver.downgrade = async (version, part) => void (await run("downgrade", { version, part }));
  if (hooks.instanceExists) {
    driver.instanceExists = async (ref) => {
      const answer = (await run("instanceExists", node(ref))).trim();
      if (answer === "true" || answer === "false") return answer === "true";
      throw new CcmE2eError(
        "driver-hook-failed",
        `${spec.name}: hooks.instanceExists must print true or false, printed ${JSON.stringify(answer)}`,
      );
    };
  }
  if (hooks.getLoadBalancer) {
    driver.getLoadBalancer = async (ref) => {
      const answer = (await run("getLoadBalancer", service(ref))).trim();
      if (answer === "" || answer === "null") return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer);
      } catch (error) {
        throw new CcmE2eError(
          "driver-hook-failed",
          `${spec.name}: hooks.getLoadBalancer must print JSON or null: ${(error as Error).message}`,
          { cause: error },
        );
      }
      try {
        return parseStrict(cloudLoadBalancerSchema, parsed, `${spec.name}: hooks.getLoadBalancer output`) as CloudLoadBalancer;
      } catch (error) {
        throw new CcmE2eError("driver-hook-failed", (error as Error).message, { cause: error });
      }
    };
  }
  if (hooks.cleanupServiceResources)
    driver.cleanupServiceResources = async (ref) => void (await run("cleanupServiceResources", service(ref)));
  return driver;
}

/** Reads and checks a YAML driver file. */
export async function loadYamlDriver(path: string, kubeconfig: string): Promise<CcmDriver> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw unreadableDriver(path, error);
  }
  return yamlDriver(text, { kubeconfig, source: path });
}
