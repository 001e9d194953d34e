import { configFromKubeconfig, type ClientConfig } from "@kubekit/generic-controlplane/controllers";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { CliError, EXIT_USAGE } from "./cli-error.js";

/** Where the connection comes from: the `--kubeconfig` and `--context` flags, and the environment. */
export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
}

type Entry = { name?: unknown } & Record<string, unknown>;
type Kubeconfig = Record<string, unknown> & { "current-context"?: unknown; clusters?: Entry[]; users?: Entry[]; contexts?: Entry[] };

/** Fields holding file paths; a relative one is relative to the file it is written in. */
const PATH_FIELDS: Record<"clusters" | "users", { key: "cluster" | "user"; fields: string[] }> = {
  clusters: { key: "cluster", fields: ["certificate-authority"] },
  users: { key: "user", fields: ["client-certificate", "client-key", "tokenFile"] },
};

function absolutePaths(config: Kubeconfig, file: string): void {
  for (const [list, { key, fields }] of Object.entries(PATH_FIELDS) as [keyof typeof PATH_FIELDS, (typeof PATH_FIELDS)["clusters"]][]) {
    for (const entry of config[list] ?? []) {
      const body = entry[key] as Record<string, unknown> | undefined;
      if (body === undefined || body === null || typeof body !== "object") continue;
      for (const field of fields) {
        const value = body[field];
        if (typeof value === "string" && value !== "" && !isAbsolute(value)) body[field] = resolve(dirname(file), value);
      }
    }
  }
}

async function readKubeconfig(file: string, required: boolean): Promise<Kubeconfig | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`error loading kubeconfig ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
  let config: unknown;
  try {
    config = parse(text) ?? {};
  } catch (error) {
    throw new CliError(`error loading kubeconfig ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw new CliError(`error loading kubeconfig ${file}: not a kubeconfig`, EXIT_USAGE);
  absolutePaths(config as Kubeconfig, file);
  return config as Kubeconfig;
}

/**
 * kubectl's merge of the `KUBECONFIG` files: the first file to define a cluster, user or
 * context name wins, and the first file that sets `current-context` sets it.
 */
function merge(configs: readonly Kubeconfig[]): Kubeconfig {
  const merged: Kubeconfig = { apiVersion: "v1", kind: "Config", clusters: [], users: [], contexts: [] };
  for (const config of configs) {
    if (merged["current-context"] === undefined && typeof config["current-context"] === "string" && config["current-context"] !== "") merged["current-context"] = config["current-context"];
    for (const list of ["clusters", "users", "contexts"] as const) {
      for (const entry of config[list] ?? []) {
        if (!merged[list]!.some((e) => e.name === entry.name)) merged[list]!.push(entry);
      }
    }
  }
  return merged;
}

/**
 * The connection kubectl would use: `--kubeconfig` (that file only), else the files listed in
 * `KUBECONFIG` merged, else `~/.kube/config`; the context is `--context`, else the current one.
 */
export async function resolveClientConfig(flags: KubeconfigFlags, env: NodeJS.ProcessEnv = process.env): Promise<ClientConfig> {
  let configs: Kubeconfig[];
  let where: string;
  if (flags.kubeconfig !== undefined && flags.kubeconfig !== "") {
    configs = [(await readKubeconfig(flags.kubeconfig, true))!];
    where = flags.kubeconfig;
  } else if (env["KUBECONFIG"] !== undefined && env["KUBECONFIG"] !== "") {
    const files = env["KUBECONFIG"].split(delimiter).filter((f) => f !== "");
    configs = (await Promise.all(files.map((f) => readKubeconfig(f, false)))).filter((c) => c !== undefined);
    where = `KUBECONFIG=${env["KUBECONFIG"]}`;
  } else {
    const file = join(env["HOME"] ?? homedir(), ".kube", "config");
    const config = await readKubeconfig(file, false);
    configs = config === undefined ? [] : [config];
    where = file;
  }
  if (configs.length === 0) throw new CliError(`no kubeconfig found (${where}); pass --kubeconfig or set KUBECONFIG`, EXIT_USAGE);
  const merged = merge(configs);
  const context = flags.context !== undefined && flags.context !== "" ? flags.context : merged["current-context"];
  if (typeof context !== "string" || context === "") throw new CliError(`the kubeconfig (${where}) sets no current-context; pass --context`, EXIT_USAGE);
  if (!merged.contexts!.some((c) => c.name === context)) throw new CliError(`context "${context}" does not exist in ${where}`, EXIT_USAGE);
  try {
    return { ...(await configFromKubeconfig(stringify(merged), { context })), userAgent: "kana" };
  } catch (error) {
    throw new CliError(`${where}: ${(error as Error).message}`, EXIT_USAGE);
  }
}
