// The `repository`, `homepage` and `bugs` fields of every published package, written from the
// repository that builds the release. No URL is recorded in the repository itself: on GitHub Actions
// `GITHUB_SERVER_URL` and `GITHUB_REPOSITORY` name it, and npm provenance refuses a package whose
// `repository.url` names another repository than the one that built it.
//   node scripts/repository-fields.mjs                   writes the fields (URL from GitHub's variables)
//   node scripts/repository-fields.mjs --url <url>       writes them for that repository
//   node scripts/repository-fields.mjs --check [--url …] fails when a package lacks them or names another URL
//   --root <dir>                                         the repository root (default: this script's)
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { join } from "node:path";

const usage = "usage: node scripts/repository-fields.mjs [--check] [--url https://host/owner/name] [--root dir]";

/** `https://github.com/o/r`, also from `git+https://github.com/o/r.git` or a trailing slash; undefined when it is no http(s) URL. */
export function normalizeRepositoryUrl(text) {
  const trimmed = text
    .trim()
    .replace(/^git\+/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  let url;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return undefined;
  if (url.pathname.split("/").filter(Boolean).length < 2) return undefined;
  return `${url.origin}${url.pathname}`;
}

/** The repository URL the release runs in, from `--url` or GitHub Actions' variables. */
export function repositoryUrlFrom(flag, env) {
  if (flag !== undefined) return normalizeRepositoryUrl(flag);
  const server = env.GITHUB_SERVER_URL;
  const repository = env.GITHUB_REPOSITORY;
  if (!server || !repository) return undefined;
  return normalizeRepositoryUrl(`${server}/${repository}`);
}

/** The three fields of the package in `packages/<folder>`, for the repository at `url`. */
export function expectedFields(url, folder) {
  return {
    repository: { type: "git", url: `git+${url}.git`, directory: `packages/${folder}` },
    homepage: `${url}/tree/main/packages/${folder}#readme`,
    bugs: { url: `${url}/issues` },
  };
}

/** Every package folder under `packages/` that npm would publish (not `private`). */
export function publishablePackages(root) {
  const packagesDir = join(root, "packages");
  const found = [];
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(packagesDir, entry.name, "package.json");
    if (!existsSync(path)) continue;
    const pkg = JSON.parse(readFileSync(path, "utf8"));
    if (pkg.private === true) continue;
    found.push({ folder: entry.name, path, pkg });
  }
  return found.sort((a, b) => a.folder.localeCompare(b.folder));
}

/** The package with the fields set; new fields go after `keywords` (or `license`), existing ones keep their place. */
function withFields(pkg, fields) {
  const anchor = Object.hasOwn(pkg, "keywords") ? "keywords" : Object.hasOwn(pkg, "license") ? "license" : undefined;
  const result = {};
  for (const [key, value] of Object.entries(pkg)) {
    result[key] = Object.hasOwn(fields, key) ? fields[key] : value;
    if (key === anchor) for (const [name, field] of Object.entries(fields)) if (!Object.hasOwn(pkg, name)) result[name] = field;
  }
  for (const [name, field] of Object.entries(fields)) if (!Object.hasOwn(result, name)) result[name] = field;
  return result;
}

/** One line per field of a package that is missing or differs from `url`'s. */
export function problems(root, url) {
  const found = [];
  for (const { folder, pkg } of publishablePackages(root)) {
    for (const [name, expected] of Object.entries(expectedFields(url, folder))) {
      if (!Object.hasOwn(pkg, name)) found.push(`${pkg.name}: no "${name}" (want ${JSON.stringify(expected)})`);
      else if (!isDeepStrictEqual(pkg[name], expected))
        found.push(`${pkg.name}: "${name}" is ${JSON.stringify(pkg[name])}, want ${JSON.stringify(expected)}`);
    }
  }
  return found;
}

/** Writes the fields into every publishable package; returns the names of the packages it changed. */
export function writeFields(root, url) {
  const changed = [];
  for (const { folder, path, pkg } of publishablePackages(root)) {
    const updated = withFields(pkg, expectedFields(url, folder));
    if (isDeepStrictEqual(Object.entries(updated), Object.entries(pkg))) continue;
    writeFileSync(path, `${JSON.stringify(updated, null, 2)}\n`);
    changed.push(pkg.name);
  }
  return changed;
}

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        check: { type: "boolean", default: false },
        url: { type: "string" },
        root: { type: "string", default: join(import.meta.dirname, "..") },
      },
    }));
  } catch (error) {
    console.error(`${error.message}\n${usage}`);
    return 2;
  }
  const url = repositoryUrlFrom(values.url, process.env);
  if (url === undefined) {
    console.error(
      values.url !== undefined
        ? `--url ${JSON.stringify(values.url)} is not an http(s) URL of a repository (https://host/owner/name)\n${usage}`
        : `no repository URL: pass --url, or run where GITHUB_SERVER_URL and GITHUB_REPOSITORY are set (GitHub Actions)\n${usage}`,
    );
    return 2;
  }
  if (values.check) {
    const found = problems(values.root, url);
    for (const line of found) console.error(line);
    if (found.length > 0) {
      console.error(`run \`node scripts/repository-fields.mjs --url ${url}\` to write them`);
      return 1;
    }
    console.log(`every package names ${url}`);
    return 0;
  }
  const changed = writeFields(values.root, url);
  console.log(
    changed.length > 0 ? `repository fields for ${url} written into ${changed.join(", ")}` : `every package already names ${url}`,
  );
  return 0;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) process.exitCode = main();
