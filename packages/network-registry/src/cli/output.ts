import { stringify } from "yaml";
import { Prefix } from "../prefix.js";

export type OutputFormat = "human" | "json" | "yaml";

/** JSON-safe copy: BigInt → decimal string, prefixes → canonical text. */
export function toPlain(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Prefix) return value.toString();
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toPlain(v)]),
    );
  }
  return value;
}

/** Render machine output; `human` is handled by each command. */
export function renderData(value: unknown, format: "json" | "yaml"): string {
  const plain = toPlain(value);
  return format === "json" ? `${JSON.stringify(plain, null, 2)}\n` : stringify(plain);
}
