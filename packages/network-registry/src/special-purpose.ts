import { NetworkRegistryError } from "./errors.js";
import { parsePrefix, parseTablePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { describeValue } from "./describe-value.js";
import {
  IPV4_DEFAULT,
  IPV4_SPECIAL_PURPOSE,
  IPV6_DEFAULT,
  IPV6_SPECIAL_PURPOSE,
  type SpecialPurposeAction,
  type SpecialPurposeRange,
} from "./special-purpose-table.js";
import { PrefixTrie } from "./trie.js";

/** One table range that a checked prefix lies in (`inside`) or spans (`contains`). */
export interface SpecialPurposeFinding {
  readonly range: SpecialPurposeRange;
  readonly relation: "inside" | "contains";
}

/** The verdict for one prefix: the most severe action of every range it touches. */
export interface SpecialPurposeVerdict {
  readonly prefix: string;
  readonly action: SpecialPurposeAction;
  readonly findings: readonly SpecialPurposeFinding[];
  /** Human-readable reason for `warn` and `reject`; empty for `allow`. */
  readonly message: string;
}

/** Caller changes to the table: change an existing range's action or add a range (e.g. a known default). */
export interface SpecialPurposeOverride {
  readonly prefix: string;
  readonly action: SpecialPurposeAction;
  readonly name?: string;
  readonly rfc?: string;
}

const SEVERITY: Record<SpecialPurposeAction, number> = { allow: 0, warn: 1, reject: 2 };

/**
 * Classifies prefixes against the IANA special-purpose registries by longest match. A prefix
 * spanning several ranges gets the most severe action among them (`0.0.0.0/0` is rejected
 * because it contains loopback).
 */
export class SpecialPurposePolicy {
  private readonly table = new PrefixTrie<SpecialPurposeRange>();

  constructor(overrides: readonly SpecialPurposeOverride[] = []) {
    if (!Array.isArray(overrides))
      throw new NetworkRegistryError("invalid-argument", `SpecialPurposePolicy takes a list of overrides, got ${describeValue(overrides)}`);
    for (const range of [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE]) this.table.insert(parseTablePrefix(range.prefix), range);
    for (const override of overrides as readonly SpecialPurposeOverride[]) {
      if (typeof override !== "object" || override === null)
        throw new NetworkRegistryError("invalid-argument", `a special-purpose override must be an object, got ${describeValue(override)}`);
      const prefix = parsePrefix(override.prefix);
      if (
        (override.name !== undefined && typeof override.name !== "string") ||
        (override.rfc !== undefined && typeof override.rfc !== "string")
      ) {
        throw new NetworkRegistryError("invalid-argument", `special-purpose override for ${override.prefix}: name and rfc must be strings`);
      }
      if (!["reject", "warn", "allow"].includes(override.action)) {
        throw new NetworkRegistryError(
          "invalid-argument",
          `special-purpose override for ${override.prefix}: action must be reject, warn or allow`,
        );
      }
      const existing = this.table.get(prefix) ?? (prefix.length === 0 ? (prefix.family === 4 ? IPV4_DEFAULT : IPV6_DEFAULT) : undefined);
      this.table.insert(prefix, {
        prefix: prefix.toString(),
        name: override.name ?? existing?.name ?? "Caller-defined range",
        rfc: override.rfc ?? existing?.rfc ?? "",
        action: override.action,
      });
    }
  }

  /** The ranges in effect, in address order. */
  ranges(): SpecialPurposeRange[] {
    return [...this.table].map((entry) => entry.value);
  }

  /** Only the action (no message): the cheap path for the common `allow` case. */
  actionOf(prefix: Prefix): SpecialPurposeAction {
    const covering = this.table.covering(prefix);
    const innermost = covering[covering.length - 1]?.value ?? (prefix.family === 4 ? IPV4_DEFAULT : IPV6_DEFAULT);
    let action: SpecialPurposeAction = innermost.action;
    if (action === "reject") return action;
    for (const entry of this.table.coveredBy(prefix)) {
      if (entry.prefix.length > prefix.length && SEVERITY[entry.value.action] > SEVERITY[action]) action = entry.value.action;
    }
    return action;
  }

  check(input: string | Prefix): SpecialPurposeVerdict {
    const prefix = typeof input === "string" ? parsePrefix(input) : input;
    if (!(prefix instanceof Prefix))
      throw new NetworkRegistryError("invalid-argument", `check takes a prefix string or a Prefix, got ${describeValue(input)}`);
    const covering = this.table.covering(prefix);
    const innermost = covering[covering.length - 1]?.value ?? (prefix.family === 4 ? IPV4_DEFAULT : IPV6_DEFAULT);
    const findings: SpecialPurposeFinding[] = [{ range: innermost, relation: "inside" }];
    for (const entry of this.table.coveredBy(prefix)) {
      if (entry.prefix.length > prefix.length) findings.push({ range: entry.value, relation: "contains" });
    }
    let action: SpecialPurposeAction = "allow";
    for (const finding of findings) if (SEVERITY[finding.range.action] > SEVERITY[action]) action = finding.range.action;
    const text = prefix.toString();
    const reasons = findings
      .filter((f) => f.range.action === action && action !== "allow")
      .map(
        (f) =>
          `${f.relation === "inside" ? "is inside" : "contains"} ${f.range.prefix} ${f.range.name}${f.range.rfc ? ` (${f.range.rfc})` : ""}`,
      );
    return { prefix: text, action, findings, message: reasons.length === 0 ? "" : `${text} ${reasons.join("; ")}` };
  }
}

/** The policy with the table as shipped. */
export const defaultSpecialPurposePolicy = new SpecialPurposePolicy();
