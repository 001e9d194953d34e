import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The folders follow k8s.io/apiserver's layering: storage → registry → admission → server/filters
 * → server/handlers. A lower layer never reaches up into the HTTP server, and REST handlers share
 * code through `server/handlers/rest.ts` and the helper folders beside it, never by importing one
 * another (upstream's handlers each stand alone over one RequestScope).
 */

const SRC = fileURLToPath(new URL("./", import.meta.url));

/** Folders below the HTTP server: none of their files may import from `server/`. */
const BELOW_SERVER = ["storage", "registry", "validation", "api", "admission", "fieldmanager", "patch", "selectors", "schema", "regex"];

const HANDLERS = join("server", "handlers");
/** Files of `server/handlers` that are shared by the handlers rather than handlers themselves. */
const SHARED_BY_HANDLERS = join(HANDLERS, "rest.ts");

/** The relative module specifiers a source file imports or re-exports, types included. */
function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

/** The `src`-relative path of what `specifier` in `file` names (`./x.js` is the source `./x.ts`). */
function resolveImport(file: string, specifier: string): string {
  return normalize(join(dirname(file), specifier.replace(/\.js$/, ".ts")));
}

/** A REST handler: a file directly in `server/handlers` other than the shared `rest.ts`. */
function isHandler(file: string): boolean {
  return dirname(file) === HANDLERS && file !== SHARED_BY_HANDLERS && !file.endsWith(".test.ts");
}

function isUnder(file: string, folder: string): boolean {
  return file.startsWith(folder + sep);
}

interface Violation {
  file: string;
  imports: string;
  rule: "handler imports a handler" | "lower layer imports server";
}

function violations(files: ReadonlyMap<string, string>): Violation[] {
  const found: Violation[] = [];
  for (const [file, source] of files) {
    for (const target of importsOf(source).map((specifier) => resolveImport(file, specifier))) {
      if (isUnder(file, HANDLERS) && isHandler(target) && target !== file) {
        found.push({ file, imports: target, rule: "handler imports a handler" });
      }
      if (BELOW_SERVER.some((folder) => isUnder(file, folder)) && isUnder(target, "server")) {
        found.push({ file, imports: target, rule: "lower layer imports server" });
      }
    }
  }
  return found;
}

function sourceTree(): Map<string, string> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
  return new Map(files.map((file) => [file, readFileSync(join(SRC, file), "utf8")]));
}

describe("the layering of src", () => {
  it("has no handler importing another handler and no lower layer importing server/", () => {
    const tree = sourceTree();
    expect([...tree.keys()].filter(isHandler).length).toBeGreaterThanOrEqual(6);
    expect(violations(tree).map((v) => `${v.file} → ${v.imports}: ${v.rule}`)).toEqual([]);
  });

  it("sees a handler importing another handler, from a handler or a helper beside it", () => {
    const tree = new Map([
      [join(HANDLERS, "update.ts"), 'import { requestOptions } from "./create.js";\nimport { checkName } from "./rest.js";'],
      [join(HANDLERS, "options", "x.ts"), 'export type { Y } from "../patch.js";'],
      [join(HANDLERS, "create.ts"), 'import { shapeObject } from "./responsewriters/respond.js";'],
    ]);
    expect(violations(tree)).toEqual([
      { file: join(HANDLERS, "update.ts"), imports: join(HANDLERS, "create.ts"), rule: "handler imports a handler" },
      { file: join(HANDLERS, "options", "x.ts"), imports: join(HANDLERS, "patch.ts"), rule: "handler imports a handler" },
    ]);
  });

  it("sees a lower layer importing server/, type-only and dynamic imports included", () => {
    const tree = new Map([
      [join("registry", "index.ts"), 'export { namespaceLifecycle } from "../server/namespace-lifecycle.js";'],
      [join("storage", "x.ts"), 'type L = import("../server/logger.js").Logger;'],
      [join("validation", "y.ts"), 'import type { FieldError } from "./field-errors.js";'],
      [join("control-plane.ts"), 'import { ApiServer } from "./server/api-server.js";'],
    ]);
    expect(violations(tree).map((v) => [v.file, v.rule])).toEqual([
      [join("registry", "index.ts"), "lower layer imports server"],
      [join("storage", "x.ts"), "lower layer imports server"],
    ]);
  });
});
