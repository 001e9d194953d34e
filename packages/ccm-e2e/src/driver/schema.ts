import { z } from "zod";
import { CcmE2eError } from "../errors.js";
import { CAPABILITY_NAMES, type CapabilityName } from "./types.js";

/** The capabilities manifest; an unknown name is an error (a typo must not silently skip tests). */
export const capabilitiesSchema = z.strictObject({
  ...(Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, z.boolean().optional()])) as Record<
    CapabilityName,
    z.ZodOptional<z.ZodBoolean>
  >),
  ipMode: z.enum(["VIP", "Proxy"]).optional(),
});

/** `internalLoadBalancer`: the annotations asking for one, and where its addresses lie. */
export const internalLoadBalancerSchema = z.strictObject({
  annotations: z
    .record(z.string(), z.string())
    .refine((annotations) => Object.keys(annotations).length > 0, "must name at least one annotation"),
  ingressCIDRs: z.array(z.union([z.cidrv4(), z.cidrv6()])).optional(),
});

const protocolSchema = z.enum(["TCP", "UDP", "SCTP"]);

/** What a driver's `getLoadBalancer` answers (a YAML driver's command prints it as JSON). */
export const cloudLoadBalancerSchema = z.strictObject({
  ingress: z.array(z.strictObject({ ip: z.string().optional(), hostname: z.string().optional() })),
  ports: z.array(z.strictObject({ port: z.number().int(), protocol: protocolSchema, nodePort: z.number().int().optional() })),
  backendNodes: z.array(z.string()),
  sessionAffinity: z.enum(["None", "ClientIP"]),
});

function pathText(path: readonly PropertyKey[]): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? String(part) : `.${String(part)}`;
  return text;
}

/**
 * Reads `value` with `schema`, or throws `invalid-driver` naming every offending field by its
 * path (`capabilities.udpp: unknown field "udpp"`), prefixed with where the value came from.
 */
export function parseStrict<T>(schema: z.ZodType<T>, value: unknown, source: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => `${pathText([...issue.path, key])}: unknown field "${key}"`);
    }
    const at = pathText(issue.path);
    return [`${at === "" ? "(top level)" : at}: ${issue.message}`];
  });
  return failInvalid(`${source}: ${problems.join("; ")}`);
}

function failInvalid(message: string): never {
  throw new CcmE2eError("invalid-driver", message);
}
