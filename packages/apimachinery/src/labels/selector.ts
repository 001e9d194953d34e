import { fieldInvalid, formatFieldError, type FieldError } from "../validation/field.js";
import { isQualifiedName, isValidLabelValue } from "../validation/names.js";

/**
 * Label selectors with the grammar, matching and error messages of apimachinery's
 * `pkg/labels/selector.go`: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * `a>1`, `a<1`, joined by commas (AND).
 */

export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector has no requirements and matches everything. */
  readonly empty: boolean;
  /** `null` (stored by older versions for `labels: null`) and non-objects count as no labels. */
  matches(labels: Record<string, string> | null | undefined): boolean;
}

type TokenKind = "ident" | "(" | ")" | "," | "!" | "=" | "==" | "!=" | ">" | "<" | "in" | "notin" | "end" | "error";
interface Token {
  kind: TokenKind;
  literal: string;
}

const SPECIAL = new Set(["!", "=", "(", ")", ",", ">", "<"]);
const SPECIAL_TOKENS: Record<string, TokenKind> = {
  "(": "(",
  ")": ")",
  ",": ",",
  "!": "!",
  "=": "=",
  "==": "==",
  "!=": "!=",
  ">": ">",
  "<": "<",
};
const isWhitespace = (ch: string) => ch === " " || ch === "\t" || ch === "\r" || ch === "\n";

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] ?? "";
    if (isWhitespace(ch)) {
      i++;
      continue;
    }
    if (SPECIAL.has(ch)) {
      // Longest run of special characters that is still a known token.
      let buffer = "";
      let last: Token | undefined;
      let lastEnd = i;
      let j = i;
      while (j < input.length && SPECIAL.has(input[j] ?? "")) {
        buffer += input[j];
        j++;
        const kind = SPECIAL_TOKENS[buffer];
        if (kind !== undefined) {
          last = { kind, literal: buffer };
          lastEnd = j;
        }
      }
      if (last === undefined) {
        tokens.push({ kind: "error", literal: `error expected: keyword found '${buffer}'` });
        return tokens;
      }
      tokens.push(last);
      i = lastEnd;
      continue;
    }
    let j = i;
    while (j < input.length && !isWhitespace(input[j] ?? "") && !SPECIAL.has(input[j] ?? "")) j++;
    const word = input.slice(i, j);
    tokens.push({ kind: word === "in" ? "in" : word === "notin" ? "notin" : "ident", literal: word });
    i = j;
  }
  tokens.push({ kind: "end", literal: "" });
  return tokens;
}

/** Why a label selector string does not parse, in `labels.Parse`'s words. */
export class LabelSelectorParseError extends Error {
  override readonly name = "LabelSelectorParseError";
}

const BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  /** In the Values context `in` and `notin` are plain identifiers. */
  private peek(values: boolean): Token {
    const token = this.tokens[this.position] ?? { kind: "end", literal: "" };
    if (values && (token.kind === "in" || token.kind === "notin")) return { kind: "ident", literal: token.literal };
    return token;
  }
  private next(values: boolean): Token {
    const token = this.peek(values);
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.peek(true);
      if (token.kind === "ident" || token.kind === "!") {
        try {
          requirements.push(this.parseRequirement());
        } catch (error) {
          throw new LabelSelectorParseError(`unable to parse requirement: ${(error as Error).message}`);
        }
        const after = this.next(true);
        if (after.kind === "end") return requirements;
        if (after.kind === ",") {
          const following = this.peek(true);
          if (following.kind !== "ident" && following.kind !== "!")
            throw new LabelSelectorParseError(`found '${following.literal}', expected: identifier after ','`);
          continue;
        }
        throw new LabelSelectorParseError(`found '${after.literal}', expected: ',' or 'end of string'`);
      }
      if (token.kind === "end") return requirements;
      throw new LabelSelectorParseError(`found '${token.literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): LabelRequirement {
    let token = this.next(true);
    let operator: LabelOperator | undefined;
    if (token.kind === "!") {
      operator = "!";
      token = this.next(true);
    }
    if (token.kind !== "ident") throw new Error(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(formatFieldError(fieldInvalid("<nil>", key, keyErrors.join("; "))));
    const ahead = this.peek(true).kind;
    if (ahead === "end" || ahead === ",") operator ??= "exists";
    if (operator === "exists" || operator === "!") return newRequirement(key, operator, []);

    const opToken = this.next(false);
    let op: LabelOperator;
    switch (opToken.kind) {
      case "in":
      case "notin":
      case "=":
      case "==":
      case "!=":
        op = opToken.kind;
        break;
      case ">":
        op = "gt";
        break;
      case "<":
        op = "lt";
        break;
      default:
        throw new Error(`found '${opToken.literal}', expected: ${BINARY_OPERATORS}`);
    }
    const values = op === "in" || op === "notin" ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseValues(): Set<string> {
    const open = this.next(true);
    if (open.kind !== "(") throw new Error(`found '${open.literal}' expected: '('`);
    const ahead = this.peek(true);
    if (ahead.kind === "ident" || ahead.kind === ",") {
      const values = this.parseIdentifiersList();
      const close = this.next(true);
      if (close.kind !== ")") throw new Error(`found '${ahead.literal}', expected: ')'`);
      return values;
    }
    if (ahead.kind === ")") {
      this.next(true);
      return new Set([""]);
    }
    throw new Error(`found '${ahead.literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const token = this.next(true);
      if (token.kind === "ident") {
        values.add(token.literal);
        const ahead = this.peek(true);
        if (ahead.kind === ",") continue;
        if (ahead.kind === ")") return values;
        throw new Error(`found '${ahead.literal}', expected: ',' or ')'`);
      }
      if (token.kind === ",") {
        if (values.size === 0) values.add("");
        const ahead = this.peek(true);
        if (ahead.kind === ")") {
          values.add("");
          return values;
        }
        if (ahead.kind === ",") {
          this.next(true);
          values.add("");
        }
        continue;
      }
      throw new Error(`found '${token.literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.peek(true);
    if (ahead.kind === "end" || ahead.kind === ",") return new Set([""]);
    const token = this.next(true);
    if (token.kind === "ident") return new Set([token.literal]);
    throw new Error(`found '${token.literal}', expected: identifier`);
  }
}

function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errors: FieldError[] = [];
  const keyErrors = isQualifiedName(key);
  if (keyErrors.length > 0) errors.push(fieldInvalid("key", key, keyErrors.join("; ")));
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) errors.push(fieldInvalid("values", values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) errors.push(fieldInvalid("values", values, "exact-match compatibility requires one single value"));
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) errors.push(fieldInvalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) errors.push(fieldInvalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    case "exists":
    case "!":
      break;
  }
  values.forEach((v, i) => {
    const valueErrors = isValidLabelValue(v);
    if (valueErrors.length > 0) errors.push(fieldInvalid(`values[${i}][${key}]`, v, valueErrors.join("; ")));
  });
  if (errors.length === 1) throw new Error(formatFieldError(errors[0] as FieldError));
  if (errors.length > 1) throw new Error(`[${errors.map(formatFieldError).join(", ")}]`);
  return { key, operator, values };
}

function matchesRequirement(requirement: LabelRequirement, labels: Record<string, string> | null | undefined): boolean {
  const has = typeof labels === "object" && labels !== null && Object.hasOwn(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case "=":
    case "==":
    case "in":
      return has && requirement.values.includes(value ?? "");
    case "!=":
    case "notin":
      return !has || !requirement.values.includes(value ?? "");
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || !/^[+-]?\d+$/.test(value ?? "")) return false;
      const actual = BigInt(value ?? "0");
      const bound = BigInt(requirement.values[0] ?? "0");
      return requirement.operator === "gt" ? actual > bound : actual < bound;
    }
  }
}

/** A selector of exactly these requirements, ANDed (labels.NewSelector().Add(...)). */
export function selectorFrom(requirements: LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels)),
  };
}

/** Matches everything. */
export const EVERYTHING_LABELS: LabelSelector = selectorFrom([]);

/**
 * Parses a label selector (`labels.Parse`). Throws a `LabelSelectorParseError` with the upstream
 * message (e.g. `unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt`).
 */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  if (selector === undefined || selector.trim() === "") return EVERYTHING_LABELS;
  return selectorFrom(new Parser(lex(selector)).parse());
}

/** The canonical string form, e.g. `app=web,tier in (a,b),!legacy`. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.requirements
    .map((r) => {
      switch (r.operator) {
        case "exists":
          return r.key;
        case "!":
          return `!${r.key}`;
        case "in":
        case "notin":
          return `${r.key} ${r.operator} (${r.values.join(",")})`;
        case "gt":
          return `${r.key}>${r.values[0] ?? ""}`;
        case "lt":
          return `${r.key}<${r.values[0] ?? ""}`;
        default:
          return `${r.key}${r.operator}${r.values[0] ?? ""}`;
      }
    })
    .join(",");
}
