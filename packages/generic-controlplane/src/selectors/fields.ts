import { badRequest } from "../api/errors/index.js";

/**
 * Field selectors with the grammar of apimachinery's `pkg/fields/selector.go`: comma-separated
 * `field=value`, `field==value` or `field!=value` terms (AND). `\,`, `\=` and `\\` escape
 * those characters in values.
 */

export interface FieldRequirement {
  field: string;
  operator: "=" | "!=";
  value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** `fields` maps each supported field label to the object's value (missing = `""`). */
  matches(fields: Readonly<Record<string, string | undefined>>): boolean;
  /** The value this selector requires for `field` with `=`, if any (e.g. `metadata.name` for a single-object watch). */
  requiredValue(field: string): string | undefined;
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let current = "";
  let escaped = false;
  for (const ch of selector) {
    if (escaped) {
      current += ch;
      escaped = false;
    } else if (ch === "\\") {
      current += ch;
      escaped = true;
    } else if (ch === ",") {
      terms.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  terms.push(current);
  return terms;
}

const TERM_OPERATORS = ["!=", "==", "="] as const;

function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  if (!value.includes("\\") && !value.includes(",") && !value.includes("=")) return value;
  let out = "";
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== "\\" && ch !== "," && ch !== "=") throw badRequest(`invalid field selector: invalid escape sequence: \\${ch}`);
      out += ch;
      escaped = false;
    } else if (ch === "\\") {
      escaped = true;
    } else if (ch === "," || ch === "=") {
      // Go prints the rune with %v, i.e. as its code point.
      throw badRequest(`invalid field selector: unescaped character in value: ${ch.codePointAt(0) ?? 0}`);
    } else {
      out += ch;
    }
  }
  if (escaped) throw badRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}

function selectorFrom(requirements: FieldRequirement[]): FieldSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (fields) =>
      requirements.every((r) => {
        const actual = (Object.hasOwn(fields, r.field) ? fields[r.field] : undefined) ?? "";
        return r.operator === "=" ? actual === r.value : actual !== r.value;
      }),
    requiredValue: (field) => requirements.find((r) => r.field === field && r.operator === "=")?.value,
  };
}

export const EVERYTHING_FIELDS: FieldSelector = selectorFrom([]);

/**
 * Parses a field selector. `supportedFields`, when given, limits the field labels: any other gives
 * 400 `field label not supported: <label>` like kube-apiserver.
 */
export function parseFieldSelector(selector: string | undefined, supportedFields?: Iterable<string>): FieldSelector {
  if (selector === undefined || selector.trim() === "") return EVERYTHING_FIELDS;
  const supported = supportedFields === undefined ? undefined : new Set(supportedFields);
  const terms = splitTerms(selector).sort();
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === "") continue;
    const parts = splitTerm(term);
    if (parts === undefined) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const value = unescapeValue(parts.rhs);
    const field = parts.lhs.trim();
    if (supported !== undefined && !supported.has(field)) throw badRequest(`field label not supported: ${field}`);
    requirements.push({ field, operator: parts.op === "!=" ? "!=" : "=", value });
  }
  return selectorFrom(requirements);
}
