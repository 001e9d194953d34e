import { compileRegexp, type Regexp } from "@kubekit/apimachinery/regex";
import { CcmE2eError } from "../errors.js";

/** A compiled label filter: true when a test with these labels is selected. */
export type LabelFilter = (labels: readonly string[]) => boolean;

type Token = { kind: "and" | "or" | "not" | "open" | "close" } | { kind: "label"; text: string } | { kind: "regex"; pattern: Regexp };

const SPECIAL = "&|!,()/";

function invalid(filter: string, message: string): never {
  throw new CcmE2eError("invalid-argument", `invalid label filter ${JSON.stringify(filter)}: ${message}`);
}

function tokenize(filter: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < filter.length) {
    const c = filter[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (filter.startsWith("&&", i)) {
      tokens.push({ kind: "and" });
      i += 2;
    } else if (filter.startsWith("||", i)) {
      tokens.push({ kind: "or" });
      i += 2;
    } else if (c === ",") {
      tokens.push({ kind: "or" });
      i++;
    } else if (c === "!") {
      tokens.push({ kind: "not" });
      i++;
    } else if (c === "(" || c === ")") {
      tokens.push({ kind: c === "(" ? "open" : "close" });
      i++;
    } else if (c === "/") {
      const end = filter.indexOf("/", i + 1);
      if (end < 0) invalid(filter, `unterminated regular expression at ${i}`);
      const source = filter.slice(i + 1, end);
      try {
        // Go's RE2 syntax, as Ginkgo compiles it; case-insensitive, as labels are.
        tokens.push({ kind: "regex", pattern: compileRegexp(`(?i)${source}`) });
      } catch (error) {
        invalid(filter, `bad regular expression /${source}/: ${(error as Error).message}`);
      }
      i = end + 1;
    } else if (c === "&" || c === "|") {
      invalid(filter, `a lone "${c}" at ${i}; write "${c}${c}"`);
    } else {
      let j = i;
      while (j < filter.length && !SPECIAL.includes(filter[j]!)) j++;
      tokens.push({ kind: "label", text: filter.slice(i, j).trim().toLowerCase() });
      i = j;
    }
  }
  return tokens;
}

/**
 * Compiles a Ginkgo label filter: labels (case-insensitive), `/regex/`, `!`, `&&`, `||` or `,`
 * (both "or", binding looser than `&&`), and parentheses. An empty filter selects everything.
 */
export function parseLabelFilter(filter: string): LabelFilter {
  const tokens = tokenize(filter);
  if (tokens.length === 0) return () => true;
  let position = 0;
  const peek = () => tokens[position];

  const parseOr = (): LabelFilter => {
    const parts = [parseAnd()];
    while (peek()?.kind === "or") {
      position++;
      parts.push(parseAnd());
    }
    return parts.length === 1 ? parts[0]! : (labels) => parts.some((part) => part(labels));
  };
  const parseAnd = (): LabelFilter => {
    const parts = [parseUnary()];
    while (peek()?.kind === "and") {
      position++;
      parts.push(parseUnary());
    }
    return parts.length === 1 ? parts[0]! : (labels) => parts.every((part) => part(labels));
  };
  const parseUnary = (): LabelFilter => {
    const token = tokens[position++];
    if (token === undefined) invalid(filter, "ends where a label was expected");
    switch (token.kind) {
      case "not": {
        const inner = parseUnary();
        return (labels) => !inner(labels);
      }
      case "open": {
        const inner = parseOr();
        if (tokens[position++]?.kind !== "close") invalid(filter, "a parenthesis is not closed");
        return inner;
      }
      case "label":
        return (labels) => labels.some((label) => label.toLowerCase() === token.text);
      case "regex":
        return (labels) => labels.some((label) => token.pattern.test(label));
      default:
        return invalid(filter, `unexpected "${token.kind === "close" ? ")" : token.kind === "and" ? "&&" : "||"}"`);
    }
  };

  const compiled = parseOr();
  if (position < tokens.length) invalid(filter, "unexpected text after a complete expression (a missing && or ||?)");
  return compiled;
}
