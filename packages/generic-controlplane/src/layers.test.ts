import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The folders follow k8s.io/apiserver's layering: each layer imports only the layers before it in
 * `LAYERS`, so a lower layer never reaches up into the HTTP server, and the README's map is this
 * list. REST handlers share code through `server/handlers/rest.ts` and the helper folders beside
 * it, never by importing one another (upstream's handlers each stand alone over one RequestScope).
 */

const SRC = fileURLToPath(new URL("./", import.meta.url));
const README = fileURLToPath(new URL("../README.md", import.meta.url));
const TSUP_CONFIG = fileURLToPath(new URL("../tsup.config.ts", import.meta.url));

/**
 * The layers of `src`, lowest first: a folder with everything below it, except the sub-folders
 * listed as layers of their own (`registry/rest` below `admission`, `registry` above it).
 * `.` is the files directly in `src` and the package's entry points.
 */
const LAYERS = [
  "schema",
  "api",
  "regex",
  "certs",
  "patch",
  "validation",
  "registry/rest",
  "selectors",
  "cel",
  "webhook",
  "storage",
  "fieldmanager",
  "admission",
  "quota",
  "registry",
  "resources",
  "admission/plugin",
  "discovery",
  "openapi",
  "protobuf",
  "audit",
  "metrics",
  "authn",
  "server",
  "rbac",
  "certificates",
  "apiextensions",
  "aggregator",
  "controllers",
  "control-plane",
  "command",
  "testing",
  ".",
] as const;

/**
 * Imports allowed to go up a layer, each with its reason. Keep this empty: a new entry needs the
 * type moved to the layer that owns it or the dependency inverted instead.
 */
const EXCEPTIONS: ReadonlyArray<{ file: string; imports: string; why: string }> = [];

const HANDLERS = join("server", "handlers");
/** Files of `server/handlers` that are shared by the handlers rather than handlers themselves. */
const SHARED_BY_HANDLERS = join(HANDLERS, "rest.ts");

/** The package's entry points (tsup's `entry`): its surface, re-exporting from any layer, so they sit on top. */
function entryPoints(): Set<string> {
  const config = readFileSync(TSUP_CONFIG, "utf8");
  return new Set([...config.matchAll(/"src\/([^"]+\.ts)"/g)].map((match) => normalize(match[1]!)));
}

/**
 * Tests and what only tests use (fixtures, test servers, harnesses) may import any layer; no other
 * code imports them but an entry (the `testing` entry ships the test plane).
 */
function isTestCode(file: string): boolean {
  const name = basename(file);
  return name.endsWith(".test.ts") || name.endsWith(".fixture.ts") || name.startsWith("test-");
}

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

function isUnder(file: string, folder: string): boolean {
  return file.startsWith(folder.split("/").join(sep) + sep);
}

/** The layer a file belongs to: the longest layer folder holding it; `.` for the entries and the files in `src`. */
function layerOf(file: string, entries: ReadonlySet<string>): string | undefined {
  if (entries.has(file) || dirname(file) === ".") return ".";
  let found: string | undefined;
  for (const layer of LAYERS) if (isUnder(file, layer) && (found === undefined || layer.length > found.length)) found = layer;
  return found;
}

/** A REST handler: a file directly in `server/handlers` other than the shared `rest.ts`. */
function isHandler(file: string): boolean {
  return dirname(file) === HANDLERS && file !== SHARED_BY_HANDLERS && !file.endsWith(".test.ts");
}

interface Violation {
  file: string;
  imports: string;
  rule: "handler imports a handler" | "imports a higher layer" | "imports test code" | "in no layer";
}

interface Edge {
  from: string;
  to: string;
}

/** Every import between two layers, tests and their helpers left out. */
function layerEdges(files: ReadonlyMap<string, string>, entries: ReadonlySet<string>): Array<Edge & { file: string; imports: string }> {
  const edges: Array<Edge & { file: string; imports: string }> = [];
  for (const [file, source] of files) {
    if (isTestCode(file)) continue;
    for (const target of importsOf(source).map((specifier) => resolveImport(file, specifier))) {
      const from = layerOf(file, entries);
      const to = layerOf(target, entries);
      if (from !== undefined && to !== undefined && from !== to) edges.push({ from, to, file, imports: target });
    }
  }
  return edges;
}

function violations(files: ReadonlyMap<string, string>, entries: ReadonlySet<string> = new Set()): Violation[] {
  const found: Violation[] = [];
  const rank = (layer: string) => LAYERS.indexOf(layer as (typeof LAYERS)[number]);
  for (const [file, source] of files) {
    if (layerOf(file, entries) === undefined) found.push({ file, imports: "", rule: "in no layer" });
    for (const target of importsOf(source).map((specifier) => resolveImport(file, specifier))) {
      if (isUnder(file, HANDLERS) && isHandler(target) && target !== file) {
        found.push({ file, imports: target, rule: "handler imports a handler" });
      }
      if (!isTestCode(file) && !entries.has(file) && isTestCode(target)) found.push({ file, imports: target, rule: "imports test code" });
    }
  }
  for (const edge of layerEdges(files, entries)) {
    if (rank(edge.to) < rank(edge.from)) continue;
    if (EXCEPTIONS.some((exception) => exception.file === edge.file && exception.imports === edge.imports)) continue;
    found.push({ file: edge.file, imports: edge.imports, rule: "imports a higher layer" });
  }
  return found;
}

/** The layers on a cycle of the layer graph (Tarjan's strongly connected components of more than one layer). */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)!.add(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The layers the README's Architecture map lists: its lines naming a folder at the first indent. */
function readmeLayers(readme: string): string[] {
  const architecture = readme.slice(readme.indexOf("## Architecture"));
  const map = /```\nsrc\/\n([\s\S]*?)```/.exec(architecture)?.[1] ?? "";
  const layers: string[] = [];
  for (const line of map.split("\n")) {
    const entry = /^ {2}(\S+)/.exec(line)?.[1];
    if (entry === undefined) continue;
    layers.push(entry.endsWith("/") ? entry.slice(0, -1) : ".");
  }
  return layers.filter((layer, i) => layer !== "." || layers[i - 1] !== ".");
}

function sourceTree(): Map<string, string> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
  return new Map(files.map((file) => [file, readFileSync(join(SRC, file), "utf8")]));
}

describe("the layering of src", () => {
  it("has every import between folders going down a layer, no handler importing another, no code importing test helpers", () => {
    const tree = sourceTree();
    expect([...tree.keys()].filter(isHandler).length).toBeGreaterThanOrEqual(6);
    expect(violations(tree, entryPoints()).map((v) => `${v.file} → ${v.imports}: ${v.rule}`)).toEqual([]);
  });

  it("has no cycle between folders", () => {
    const edges = layerEdges(sourceTree(), entryPoints());
    expect(edges.length).toBeGreaterThan(100);
    expect(cycles(edges)).toEqual([]);
  });

  it("declares every folder of src in a layer and every layer is a folder", () => {
    const folders = new Set([...sourceTree().keys()].map((file) => dirname(file).split(sep)[0]!).filter((folder) => folder !== "."));
    expect(LAYERS.filter((layer) => layer !== "." && !layer.includes("/")).sort()).toEqual([...folders].sort());
    const subfolders = new Set([...sourceTree().keys()].map((file) => dirname(file).split(sep).slice(0, 2).join("/")));
    expect(LAYERS.filter((layer) => layer.includes("/") && !subfolders.has(layer))).toEqual([]);
  });

  it("is the map the README shows, in the same order", () => {
    expect(readmeLayers(readFileSync(README, "utf8"))).toEqual([...LAYERS]);
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

  it("sees a lower layer importing a higher one, type-only and dynamic imports included, and test helpers and entries exempt", () => {
    const tree = new Map([
      [join("registry", "index.ts"), 'export { namespaceLifecycle } from "../admission/plugin/namespace-lifecycle.js";'],
      [join("storage", "x.ts"), 'type L = import("../server/logger.js").Logger;'],
      [join("registry", "rest", "y.ts"), 'import type { AdmissionPlugin } from "../../admission/types.js";'],
      [join("validation", "y.ts"), 'import type { FieldError } from "./field-errors.js";\nimport { Schema } from "../schema/types.js";'],
      [join("server", "test-support.ts"), 'import { createControlPlane } from "../control-plane.js";'],
      [join("server", "x.ts"), 'import { startTestPlane } from "./test-support.js";'],
      [join("control-plane.ts"), 'import { ApiServer } from "./server/api-server.js";'],
    ]);
    expect(violations(tree).map((v) => [v.file, v.rule])).toEqual([
      [join("server", "x.ts"), "imports test code"],
      [join("registry", "index.ts"), "imports a higher layer"],
      [join("storage", "x.ts"), "imports a higher layer"],
      [join("registry", "rest", "y.ts"), "imports a higher layer"],
    ]);
    expect(violations(tree, new Set([join("registry", "index.ts")])).map((v) => v.file)).not.toContain(join("registry", "index.ts"));
    expect(violations(new Map([[join("nowhere", "x.ts"), ""]]))).toEqual([
      { file: join("nowhere", "x.ts"), imports: "", rule: "in no layer" },
    ]);
  });

  it("finds a cycle between layers", () => {
    expect(
      cycles([
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
        { from: "c", to: "d" },
      ]),
    ).toEqual([["a", "b", "c"]]);
    expect(
      cycles([
        { from: "a", to: "b" },
        { from: "b", to: "c" },
      ]),
    ).toEqual([]);
  });
});
