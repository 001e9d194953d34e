// scripts/repository-fields.mjs run as the release runs it, on a copy of the packages' manifests:
// the fields it writes, its --check, and the manifest inside the tarball npm packs afterwards.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";

const repositoryRoot = join(import.meta.dirname, "..");
const script = join(import.meta.dirname, "repository-fields.mjs");
const url = "https://github.example/kube-owner/kube-repo";
const packageFolders = readdirSync(join(repositoryRoot, "packages")).filter((folder) =>
  readdirSync(join(repositoryRoot, "packages", folder)).includes("package.json"),
);

/** A root with every package's package.json, README and LICENSE, and one private package. */
function copyOfPackages() {
  const root = mkdtempSync(join(tmpdir(), "repository-fields-"));
  for (const folder of packageFolders) {
    mkdirSync(join(root, "packages", folder), { recursive: true });
    for (const file of ["package.json", "README.md", "LICENSE"]) {
      cpSync(join(repositoryRoot, "packages", folder, file), join(root, "packages", folder, file));
    }
  }
  mkdirSync(join(root, "packages", "internal"));
  writeFileSync(join(root, "packages", "internal", "package.json"), `${JSON.stringify({ name: "internal", private: true }, null, 2)}\n`);
  return root;
}

function run(args, env = {}) {
  const inherited = { ...process.env };
  delete inherited.GITHUB_SERVER_URL;
  delete inherited.GITHUB_REPOSITORY;
  return spawnSync(process.execPath, [script, ...args], { encoding: "utf8", env: { ...inherited, ...env } });
}

const manifest = (root, folder) => JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8"));

describe("repository-fields", () => {
  let root;
  before(() => {
    root = copyOfPackages();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("--check fails and names every package while the fields are missing", () => {
    const result = run(["--root", root, "--check", "--url", url]);
    assert.equal(result.status, 1, result.stderr);
    for (const folder of packageFolders) {
      assert.match(result.stderr, new RegExp(`@kubekit/${folder}: no "repository"`));
      assert.match(result.stderr, new RegExp(`@kubekit/${folder}: no "homepage"`));
      assert.match(result.stderr, new RegExp(`@kubekit/${folder}: no "bugs"`));
    }
  });

  it("writes the fields from GitHub Actions' variables into every published package, and nothing else", () => {
    const original = Object.fromEntries(packageFolders.map((folder) => [folder, manifest(root, folder)]));
    const result = run(["--root", root], { GITHUB_SERVER_URL: "https://github.example", GITHUB_REPOSITORY: "kube-owner/kube-repo" });
    assert.equal(result.status, 0, result.stderr);
    for (const folder of packageFolders) {
      const pkg = manifest(root, folder);
      assert.deepEqual(pkg.repository, { type: "git", url: `git+${url}.git`, directory: `packages/${folder}` });
      assert.equal(pkg.homepage, `${url}/tree/main/packages/${folder}#readme`);
      assert.deepEqual(pkg.bugs, { url: `${url}/issues` });
      const { repository: _r, homepage: _h, bugs: _b, ...rest } = pkg;
      assert.deepEqual(rest, original[folder]);
    }
    assert.deepEqual(manifest(root, "internal"), { name: "internal", private: true });
  });

  it("--check passes for the URL written, in any of its spellings, and fails for another", () => {
    for (const spelling of [url, `${url}/`, `git+${url}.git`]) {
      const result = run(["--root", root, "--check", "--url", spelling]);
      assert.equal(result.status, 0, result.stderr);
    }
    const other = run(["--root", root, "--check", "--url", "https://github.example/someone/else"]);
    assert.equal(other.status, 1);
    assert.match(other.stderr, /@kubekit\/client: "repository" is .*kube-owner\/kube-repo.*, want .*someone\/else/);
  });

  it("writing again changes nothing", () => {
    const original = packageFolders.map((folder) => readFileSync(join(root, "packages", folder, "package.json"), "utf8"));
    const result = run(["--root", root, "--url", url]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /already names/);
    assert.deepEqual(
      packageFolders.map((folder) => readFileSync(join(root, "packages", folder, "package.json"), "utf8")),
      original,
    );
  });

  it("the tarball npm packs carries the fields", () => {
    const folder = "apimachinery";
    const packageDir = join(root, "packages", folder);
    const [dryRun] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: packageDir, encoding: "utf8" }),
    );
    assert.ok(dryRun.files.some((file) => file.path === "package.json"));
    // The dry run's report lists files, not the manifest: pack for real and read the manifest back.
    const destination = mkdtempSync(join(tmpdir(), "repository-fields-pack-"));
    try {
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
          cwd: packageDir,
          encoding: "utf8",
        }),
      );
      assert.equal(packed.filename, dryRun.filename);
      const shipped = JSON.parse(
        execFileSync("tar", ["-xzOf", join(destination, packed.filename), "package/package.json"], { encoding: "utf8" }),
      );
      assert.deepEqual(shipped.repository, { type: "git", url: `git+${url}.git`, directory: `packages/${folder}` });
      assert.equal(shipped.homepage, `${url}/tree/main/packages/${folder}#readme`);
      assert.deepEqual(shipped.bugs, { url: `${url}/issues` });
    } finally {
      rmSync(destination, { recursive: true, force: true });
    }
  });

  it("refuses to guess: no URL, or one that names no repository, is bad usage", () => {
    const none = run(["--root", root]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no repository URL: pass --url, or run where GITHUB_SERVER_URL and GITHUB_REPOSITORY are set/);
    for (const bad of ["github.com/o/r", "https://github.com/", "ssh://git@github.com/o/r", "https://github.com/o/r?x=1"]) {
      const result = run(["--root", root, "--url", bad]);
      assert.equal(result.status, 2, bad);
      assert.match(result.stderr, /is not an http\(s\) URL of a repository/);
    }
    assert.equal(run(["--root", root, "--bogus"]).status, 2);
  });
});
