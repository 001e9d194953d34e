import { descriptionProblem, nameProblem, referenceProblem } from "./claim-validation.js";
import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import { ALLOCATION_STRATEGIES, type AllocationStrategy } from "./free-space.js";
import { parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import type { AllocateRequest, NetworkRegistryOptions, ReleaseOptions } from "./registry-types.js";
import { SpecialPurposePolicy } from "./special-purpose.js";

/*
 * The checks of the registry's arguments as a caller passes them (JavaScript callers and the
 * CLI pass anything): each names the argument and what it must be, as an `invalid-argument`.
 */

export function invalidArgument(message: string): NetworkRegistryError {
  return new NetworkRegistryError("invalid-argument", message);
}

export function checkName(name: unknown, what: string): string {
  const problem = nameProblem(name, what);
  if (problem !== undefined) throw invalidArgument(problem);
  return name as string;
}

/** Whether the release cascades. */
export function checkReleaseOptions(options: unknown): boolean {
  if (options === undefined) return false;
  if (typeof options !== "object" || options === null) throw invalidArgument("release options must be an object like { cascade: true }");
  const cascade = (options as ReleaseOptions).cascade;
  if (cascade !== undefined && typeof cascade !== "boolean") throw invalidArgument("release option cascade must be a boolean");
  return cascade === true;
}

export function toPrefixArgument(input: unknown, what: string): Prefix {
  if (input instanceof Prefix) return input;
  if (typeof input === "string") return parsePrefix(input);
  throw invalidArgument(`${what} must be a CIDR prefix string or a Prefix, got ${describeValue(input)}`);
}

export function checkRegistryOptions(options: NetworkRegistryOptions): void {
  if (typeof options !== "object" || options === null) throw invalidArgument("NetworkRegistry options must be an object");
  if (options.policy !== undefined && !(options.policy instanceof SpecialPurposePolicy))
    throw invalidArgument("options.policy must be a SpecialPurposePolicy");
  if (options.clock !== undefined && typeof options.clock !== "function")
    throw invalidArgument("options.clock must be a function returning a Date");
  if (
    options.wellKnownClaims !== undefined &&
    (!Array.isArray(options.wellKnownClaims) || options.wellKnownClaims.some((n) => typeof n !== "string"))
  ) {
    throw invalidArgument("options.wellKnownClaims must be a list of claim names");
  }
}

/** An allocation request's own fields, checked before the registry is consulted: its strategy and pool. */
export function checkAllocateRequest(request: AllocateRequest): { strategy: AllocationStrategy; pool: Prefix } {
  if (typeof request !== "object" || request === null) throw invalidArgument("allocate takes a request object");
  checkName(request.claim, "claim");
  const referenceIssue = referenceProblem(request.reference, "reference");
  if (referenceIssue !== undefined) throw invalidArgument(referenceIssue);
  const descriptionIssue = descriptionProblem(request.description, "description");
  if (descriptionIssue !== undefined) throw invalidArgument(descriptionIssue);
  const strategy = request.strategy ?? "best-fit";
  if (!ALLOCATION_STRATEGIES.includes(strategy)) {
    throw invalidArgument(`unknown allocation strategy ${describeValue(strategy)}; use ${ALLOCATION_STRATEGIES.join(" or ")}`);
  }
  const pool = toPrefixArgument(request.from, "from");
  if (!Number.isInteger(request.prefixLength) || request.prefixLength < pool.length || request.prefixLength > pool.bits) {
    throw invalidArgument(`cannot allocate a /${describeValue(request.prefixLength)} from ${pool.toString()}`);
  }
  return { strategy, pool };
}
