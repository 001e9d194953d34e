import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Every Status the server answers with comes from this catalogue, so its wording has one source.
 * This scan fails when code outside the catalogue builds one by hand: a `kind: "Status"` literal,
 * a `new ControlPlaneError(…)`, or a subclass of it.
 */

const SRC = fileURLToPath(new URL("../../", import.meta.url));
const CATALOGUE = `api${sep}errors${sep}`;

/** Places that must mention these forms, each with why. Keep this list short. */
const ALLOWED: Record<string, { rule: Rule; why: string }[]> = {
  // The group/version/kind of the Status schema in the OpenAPI document, not a response body.
  [`openapi${sep}model.ts`]: [{ rule: "status-literal", why: "Status schema GVK" }],
  // Flow control marks its 429 with why it rejected; the code, message and details are the catalogue's `tooManyInFlight()`.
  [`server${sep}flowcontrol${sep}queue-set.ts`]: [{ rule: "subclass", why: "FlowControlRejection" }],
};

type Rule = "status-literal" | "error-constructor" | "subclass";

const RULES: Record<Rule, RegExp> = {
  "status-literal": /\bkind\s*:\s*["'`]Status["'`]/g,
  "error-constructor": /\bnew\s+ControlPlaneError\s*\(/g,
  subclass: /\bextends\s+ControlPlaneError\b/g,
};

interface Finding {
  file: string;
  line: number;
  rule: Rule;
  text: string;
}

/** The ad-hoc Status constructions in one file's source. */
function findAdHocStatus(file: string, source: string): Finding[] {
  const findings: Finding[] = [];
  for (const [rule, pattern] of Object.entries(RULES) as [Rule, RegExp][]) {
    for (const match of source.matchAll(pattern)) {
      const line = source.slice(0, match.index).split("\n").length;
      findings.push({ file, line, rule, text: source.split("\n")[line - 1]?.trim() ?? "" });
    }
  }
  return findings;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts"))
    .filter((path) => !path.startsWith(CATALOGUE));
}

describe("the error catalogue", () => {
  it("is the only place a Status or a ControlPlaneError is built", () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const findings = files
      .flatMap((file) => findAdHocStatus(file, readFileSync(join(SRC, file), "utf8")))
      .filter((finding) => !(ALLOWED[finding.file] ?? []).some((allowed) => allowed.rule === finding.rule));
    expect(findings.map((f) => `${relative(".", join("src", f.file))}:${f.line} ${f.rule}: ${f.text}`)).toEqual([]);
  });

  it("has an allow-list entry only where the form still occurs", () => {
    for (const [file, entries] of Object.entries(ALLOWED)) {
      const rules = new Set(findAdHocStatus(file, readFileSync(join(SRC, file), "utf8")).map((f) => f.rule));
      for (const entry of entries) expect(rules.has(entry.rule), `${file}: ${entry.why}`).toBe(true);
    }
  });

  it("recognises each ad-hoc form", () => {
    const source = [
      "const ok = notFound(resource, name);",
      'const body = { kind: "Status", apiVersion: "v1" };',
      'throw new ControlPlaneError("BadRequest", "nope");',
      "class Mine extends ControlPlaneError {}",
    ].join("\n");
    expect(findAdHocStatus("x.ts", source).map((f) => [f.line, f.rule])).toEqual([
      [2, "status-literal"],
      [3, "error-constructor"],
      [4, "subclass"],
    ]);
  });
});
