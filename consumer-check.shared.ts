import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = import.meta.dirname;

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** A fenced TypeScript or JavaScript block of a README: run unless its info string says `fragment`. */
export interface ReadmeBlock {
  language: "ts" | "js";
  /** 1-based position among the README's `ts` blocks. */
  index: number;
  /** The line of the opening fence, for messages. */
  line: number;
  code: string;
  runnable: boolean;
}

/** The README's ```ts and ```js blocks, in order. ```ts fragment marks an excerpt that is shown, not run. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript)(\s+.*)?$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    const info = (open[2] ?? "").trim().split(/\s+/);
    const language = open[1]!.startsWith("t") ? "ts" : "js";
    blocks.push({
      language,
      index: blocks.length + 1,
      line: start + 1,
      code: `${body.join("\n")}\n`,
      runnable: !info.includes("fragment"),
    });
  }
  return blocks;
}

/**
 * The same block as a CommonJS module: CJS has no top-level await, so everything after the
 * imports runs in an async function, and a rejection fails the process as it would in ESM.
 */
export function asCommonJs(code: string, language: "ts" | "js"): string {
  const imports = /^(?:import\s[\s\S]*?from\s+"[^"]+";\n)*/.exec(code)?.[0] ?? "";
  const rest = code.slice(imports.length);
  // TypeScript compiles the imports to require(); plain JavaScript needs them written so.
  const head = language === "ts" ? imports : asRequires(imports);
  const error = language === "ts" ? "error: unknown" : "error";
  return `${head}void (async () => {\n${rest}})().catch((${error}) => {\n  console.error(error);\n  process.exit(1);\n});\n`;
}

/** `import { a, b as c } from "x";` as `const { a, b: c } = require("x");` (named imports only). */
function asRequires(imports: string): string {
  return imports.replace(/import\s*\{([\s\S]*?)\}\s*from\s+"([^"]+)";/g, (_, names: string, from: string) => {
    const bindings = names
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "" && !name.startsWith("type "))
      .map((name) => name.replace(/\s+as\s+/, ": "));
    return `const { ${bindings.join(", ")} } = require(${JSON.stringify(from)});`;
  });
}

/** The workspace packages `name` needs at run time, itself first. */
function workspaceClosure(name: string): string[] {
  return workspaceClosureOf([name]);
}

function workspaceClosureOf(names: readonly string[]): string[] {
  const dirs = new Map<string, string>();
  for (const dir of readdirSync(join(repoRoot, "packages"))) {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "packages", dir, "package.json"), "utf8")) as PackageJson;
    dirs.set(pkg.name, join(repoRoot, "packages", dir));
  }
  const seen = new Set<string>();
  const visit = (current: string) => {
    if (seen.has(current)) return;
    seen.add(current);
    const pkg = JSON.parse(readFileSync(join(dirs.get(current)!, "package.json"), "utf8")) as PackageJson;
    for (const dep of Object.keys(pkg.dependencies ?? {})) if (dirs.has(dep)) visit(dep);
  };
  for (const name of names) visit(name);
  return [...seen].map((n) => dirs.get(n)!);
}

function isWorkspacePackage(name: string): boolean {
  return readdirSync(join(repoRoot, "packages")).some(
    (dir) => (JSON.parse(readFileSync(join(repoRoot, "packages", dir, "package.json"), "utf8")) as PackageJson).name === name,
  );
}

function directorySize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directorySize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Installed packages: every folder under node_modules with a package.json, nested ones included. */
function packageCount(nodeModules: string): number {
  let count = 0;
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        visit(path);
        continue;
      }
      try {
        statSync(join(path, "package.json"));
        count++;
      } catch {
        continue;
      }
      try {
        visit(join(path, "node_modules"));
      } catch {
        // no nested dependencies
      }
    }
  };
  visit(nodeModules);
  return count;
}

/**
 * What a user gets from `npm install <package>`: the package is packed as npm would publish it
 * (with the workspace packages it depends on, which the registry would serve), installed alone into
 * an empty project, and every runnable ```ts block of its README is compiled under strict TypeScript
 * as an ES module and as CommonJS, then run with Node; each must exit 0 on its own. The install's
 * package count and size are printed.
 */
/** A command of the package's own `bin`, run in the project before any optional peer is installed. */
export interface LeanCommand {
  title: string;
  /** The bin name, then its arguments; `{project}` is replaced by the project's folder. */
  argv: readonly string[];
  /** Files written into the project first, by relative path. */
  files?: Record<string, string>;
  code: number;
  stdout?: RegExp;
  stderr?: RegExp;
}

export interface ConsumerOptions {
  leanCommands?: readonly LeanCommand[];
  /** The most the install may bring: packages (the package itself included) and MiB on disk. */
  budget?: { packages: number; mib: number };
}

export function describeConsumer(packageDir: string, options: ConsumerOptions = {}): void {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as PackageJson;
  const blocks = readmeBlocks(readFileSync(join(packageDir, "README.md"), "utf8"));
  const runnable = blocks.filter((block) => block.runnable);

  describe(`${pkg.name} installed alone in a new project`, { timeout: 120_000 }, () => {
    let dir: string;
    let project: string;
    let installPeers: () => Promise<void>;
    let installed: { packages: number; mib: number };
    let peersInstalled: Promise<void> | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "kubekit-consumer-"));
      project = join(dir, "project");
      mkdirSync(project);
      const pack = async (workspaces: readonly string[]) => {
        const tarballs: string[] = [];
        for (const workspace of workspaces) {
          const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: workspace });
          const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
          tarballs.push(join(dir, basename(packed!.filename)));
        }
        return tarballs;
      };
      const install = (specs: readonly string[]) =>
        run("npm", ["install", "--no-fund", "--no-audit", "--no-package-lock", ...specs], { cwd: project, maxBuffer: 16 << 20 });
      writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`);
      await install(await pack(workspaceClosure(pkg.name)));
      const modules = join(project, "node_modules");
      installed = { packages: packageCount(modules), mib: directorySize(modules) / (1 << 20) };
      const budget = options.budget ? ` (budget ${options.budget.packages} packages, ${options.budget.mib} MiB)` : "";
      console.log(`${pkg.name}: npm install brings ${installed.packages} packages, ${installed.mib.toFixed(1)} MiB${budget}`);
      // The optional peers (which the README tells users of those entries to install), added
      // afterwards when an example needs them: it imports one, or a subpath entry of the package.
      const specifiers = runnable.flatMap((block) => [...block.code.matchAll(/from\s+"([^"]+)"/g)].map((match) => match[1]!));
      const allPeers = Object.keys(pkg.peerDependencies ?? {});
      const needsPeers = specifiers.some(
        (specifier) => specifier.startsWith(`${pkg.name}/`) || allPeers.includes(packageNameOf(specifier)),
      );
      const peers = needsPeers ? allPeers : [];
      const workspacePeers = peers.filter(isWorkspacePackage);
      const registryPeers = peers.filter((peer) => !isWorkspacePackage(peer)).map((peer) => `${peer}@${pkg.peerDependencies![peer]!}`);
      installPeers = async () => {
        if (peers.length > 0) await install([...(await pack(workspaceClosureOf(workspacePeers))), ...registryPeers]);
      };
    }, 300_000);

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    if (options.budget) {
      const budget = options.budget;
      it(`installs at most ${budget.packages} packages and ${budget.mib} MiB`, () => {
        expect(installed.packages).toBeLessThanOrEqual(budget.packages);
        expect(installed.mib).toBeLessThanOrEqual(budget.mib);
      });
    }

    for (const command of options.leanCommands ?? []) {
      it(`without its optional peers: ${command.title}`, async () => {
        for (const [path, text] of Object.entries(command.files ?? {})) writeFileSync(join(project, path), text);
        const [bin, ...args] = command.argv.map((arg) => arg.replaceAll("{project}", project));
        const result = await run(join(project, "node_modules/.bin", bin!), args, { cwd: project, timeout: 60_000 }).then(
          ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
          (error: { code?: number; stdout?: string; stderr?: string }) => ({
            code: error.code ?? -1,
            stdout: error.stdout ?? "",
            stderr: error.stderr ?? "",
          }),
        );
        expect(result, JSON.stringify(result)).toMatchObject({ code: command.code });
        if (command.stdout) expect(result.stdout).toMatch(command.stdout);
        if (command.stderr) expect(result.stderr).toMatch(command.stderr);
      });
    }

    it("has README examples to run (```ts fragment marks excerpts)", () => {
      expect(runnable.length).toBeGreaterThan(0);
    });

    for (const block of runnable) {
      it(`compiles and runs README block ${block.index} (line ${block.line}) as ESM and CJS`, async () => {
        await (peersInstalled ??= installPeers());
        const name = `readme-${block.index}`;
        const out = join(project, `out-${block.index}`);
        if (block.language === "ts") {
          writeFileSync(join(project, `${name}.mts`), block.code);
          writeFileSync(join(project, `${name}.cts`), asCommonJs(block.code, "ts"));
          writeFileSync(
            join(project, `tsconfig.${name}.json`),
            JSON.stringify({
              compilerOptions: {
                strict: true,
                module: "nodenext",
                moduleResolution: "nodenext",
                target: "es2023",
                lib: ["es2023"],
                types: ["node"],
                typeRoots: [join(repoRoot, "node_modules/@types")],
                skipLibCheck: false,
                outDir: out,
              },
              files: [`${name}.mts`, `${name}.cts`],
            }),
          );
          const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
          await run(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], { cwd: project }).catch((error: { stdout?: string }) => {
            throw new Error(`README block ${block.index} (line ${block.line}) does not compile:\n${error.stdout ?? String(error)}`);
          });
        } else {
          mkdirSync(out);
          writeFileSync(join(out, `${name}.mjs`), block.code);
          writeFileSync(join(out, `${name}.cjs`), asCommonJs(block.code, "js"));
        }
        for (const file of [`${name}.mjs`, `${name}.cjs`]) {
          const work = mkdtempSync(join(dir, "run-"));
          await run(process.execPath, [join(out, file)], { cwd: work, timeout: 60_000, env: { ...process.env, NODE_PATH: "" } }).catch(
            (error: { killed?: boolean; stderr?: string; code?: number }) => {
              const why = error.killed ? "did not exit within 60 s" : `exited ${String(error.code)}`;
              throw new Error(`README block ${block.index} (line ${block.line}) as ${file} ${why}:\n${error.stderr ?? ""}`);
            },
          );
        }
      });
    }
  });
}
