import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { EXEC_API_VERSIONS, type ExecApiVersion, type ExecConfig } from "./exec-credential.js";

/** How to reach one API server: what a kubeconfig context resolves to. */
export interface ClientConfig {
  /** `https://host:port` or `http://host:port`, optionally with a path prefix. */
  server: string;
  /** Bearer token. */
  token?: string;
  username?: string;
  password?: string;
  /** PEM CA bundle trusted for the server's certificate. */
  ca?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  insecureSkipTLSVerify?: boolean;
  /** The name the server's certificate is checked against instead of the URL's host (kubeconfig `tls-server-name`). */
  tlsServerName?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Sent as `User-Agent`. */
  userAgent?: string;
  /** A credential plugin run for the token or client certificate (kubeconfig `exec`). */
  exec?: ExecConfig;
  /** An `http://` or `https://` proxy reached with CONNECT (kubeconfig `proxy-url`). */
  proxyUrl?: string;
}

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}

type Fields = Record<string, unknown>;

/**
 * The connection a kubeconfig's context describes (`current-context` unless `context` is given).
 * Relative file paths resolve against `baseDir` (the kubeconfig's directory). An `exec` plugin is
 * checked and described (`exec`), run later by the client; auth-provider users fail with an error
 * naming the context.
 */
export async function configFromKubeconfig(text: string, options: { context?: string; baseDir?: string } = {}): Promise<ClientConfig> {
  const doc = (parse(text) ?? {}) as {
    "current-context"?: string;
    contexts?: Named<Fields>[];
    clusters?: Named<Fields>[];
    users?: Named<Fields>[];
  };
  const contextName = options.context ?? doc["current-context"];
  if (!contextName) throw new Error("kubeconfig has no current-context");
  const context = doc.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) throw new Error(`kubeconfig has no context ${JSON.stringify(contextName)}`);
  const cluster = doc.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (cluster === undefined || typeof cluster.server !== "string")
    throw new Error(`kubeconfig context ${JSON.stringify(contextName)} names no cluster with a server`);
  const user = doc.users?.find((u) => u.name === context.user)?.user ?? {};
  if (user["auth-provider"] !== undefined) {
    throw new Error(
      `kubeconfig context ${JSON.stringify(contextName)}: auth-provider credentials are not supported (kubectl removed them too; use an exec plugin such as kubelogin)`,
    );
  }
  const baseDir = options.baseDir ?? process.cwd();
  const material = async (data: unknown, file: unknown): Promise<string | undefined> => {
    if (typeof data === "string" && data !== "") return Buffer.from(data, "base64").toString("utf8");
    if (typeof file === "string" && file !== "") return readFile(isAbsolute(file) ? file : resolve(baseDir, file), "utf8");
    return undefined;
  };
  const config: ClientConfig = { server: cluster.server.replace(/\/+$/, "") };
  const ca = await material(cluster["certificate-authority-data"], cluster["certificate-authority"]);
  if (ca !== undefined) config.ca = ca;
  if (cluster["insecure-skip-tls-verify"] === true) config.insecureSkipTLSVerify = true;
  if (typeof cluster["tls-server-name"] === "string" && cluster["tls-server-name"] !== "")
    config.tlsServerName = cluster["tls-server-name"];
  const cert = await material(user["client-certificate-data"], user["client-certificate"]);
  if (cert !== undefined) config.cert = cert;
  const key = await material(user["client-key-data"], user["client-key"]);
  if (key !== undefined) config.key = key;
  const token = typeof user.token === "string" && user.token !== "" ? user.token : await material(undefined, user.tokenFile);
  if (token !== undefined) config.token = token.trim();
  if (typeof user.username === "string") config.username = user.username;
  if (typeof user.password === "string") config.password = user.password;
  if (typeof context.namespace === "string" && context.namespace !== "") config.namespace = context.namespace;
  const proxyUrl = cluster["proxy-url"];
  if (typeof proxyUrl === "string" && proxyUrl !== "") config.proxyUrl = checkedProxyUrl(proxyUrl, contextName);
  if (user.exec !== undefined && user.exec !== null) config.exec = execConfig(user.exec as Fields, context.user, cluster, config, baseDir);
  return config;
}

function checkedProxyUrl(text: string, contextName: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`kubeconfig context ${JSON.stringify(contextName)}: proxy-url ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(
      `kubeconfig context ${JSON.stringify(contextName)}: proxy-url scheme ${JSON.stringify(url.protocol.replace(/:$/, ""))} is not supported (http and https are)`,
    );
  }
  return text;
}

/** A user's `exec` stanza checked as clientcmd validates it; the messages are clientcmd's. */
function execConfig(exec: Fields, userName: unknown, cluster: Fields, connection: ClientConfig, baseDir: string): ExecConfig {
  const who = String(userName);
  const command = exec.command;
  if (typeof command !== "string" || command === "")
    throw new Error(`command must be specified for ${who} to use exec authentication plugin`);
  const apiVersion = exec.apiVersion;
  if (typeof apiVersion !== "string" || apiVersion === "")
    throw new Error(`apiVersion must be specified for ${who} to use exec authentication plugin`);
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(apiVersion))
    throw new Error(`exec plugin: invalid apiVersion ${JSON.stringify(apiVersion)}`);
  let interactiveMode = exec.interactiveMode;
  if (interactiveMode === undefined || interactiveMode === "") {
    if (apiVersion === "client.authentication.k8s.io/v1")
      throw new Error(`interactiveMode must be specified for ${who} to use exec authentication plugin`);
    interactiveMode = "IfAvailable";
  }
  if (interactiveMode !== "Never" && interactiveMode !== "IfAvailable" && interactiveMode !== "Always") {
    throw new Error(`invalid interactiveMode for ${who}: ${JSON.stringify(interactiveMode)}`);
  }
  const env: { name: string; value: string }[] = [];
  for (const [index, entry] of (Array.isArray(exec.env) ? (exec.env as unknown[]) : []).entries()) {
    const { name, value } = (entry ?? {}) as Fields;
    if (typeof name !== "string" || name === "")
      throw new Error(`env variable name must be specified for ${who} to use exec authentication plugin (env[${index}])`);
    env.push({ name, value: typeof value === "string" ? value : "" });
  }
  const config: ExecConfig = {
    command: command.includes("/") && !isAbsolute(command) ? resolve(baseDir, command) : command,
    args: Array.isArray(exec.args) ? (exec.args as unknown[]).map(String) : [],
    env,
    apiVersion: apiVersion as ExecApiVersion,
    interactiveMode,
  };
  if (typeof exec.installHint === "string" && exec.installHint !== "") config.installHint = exec.installHint;
  if (exec.provideClusterInfo === true) config.cluster = execClusterInfo(cluster, connection);
  return config;
}

/** The `spec.cluster` of `KUBERNETES_EXEC_INFO` (client-go's `clientauthentication.Cluster`). */
function execClusterInfo(cluster: Fields, connection: ClientConfig): Record<string, unknown> {
  const info: Record<string, unknown> = { server: connection.server };
  if (connection.tlsServerName !== undefined) info["tls-server-name"] = connection.tlsServerName;
  if (connection.insecureSkipTLSVerify === true) info["insecure-skip-tls-verify"] = true;
  if (connection.ca !== undefined) info["certificate-authority-data"] = Buffer.from(connection.ca).toString("base64");
  if (connection.proxyUrl !== undefined) info["proxy-url"] = connection.proxyUrl;
  const extensions = Array.isArray(cluster.extensions) ? (cluster.extensions as Fields[]) : [];
  const execExtension = extensions.find((e) => e?.name === "client.authentication.k8s.io/exec");
  if (execExtension?.extension !== undefined) info.config = execExtension.extension;
  return info;
}

type Entry = { name?: unknown } & Record<string, unknown>;
type KubeconfigDocument = Record<string, unknown> & {
  "current-context"?: unknown;
  clusters?: Entry[];
  users?: Entry[];
  contexts?: Entry[];
};

/** Fields holding file paths; a relative one is relative to the file it is written in. */
const PATH_FIELDS = [
  { list: "clusters", key: "cluster", fields: ["certificate-authority"] },
  { list: "users", key: "user", fields: ["client-certificate", "client-key", "tokenFile"] },
] as const;

function absolutePaths(config: KubeconfigDocument, file: string): void {
  // clientcmd resolves an exec command against the file only when it names a path (`./plugin`),
  // not a program looked up on PATH.
  for (const entry of config.users ?? []) {
    const exec = (entry.user as Fields | undefined)?.exec as Fields | undefined;
    if (typeof exec?.command === "string" && exec.command.includes("/") && !isAbsolute(exec.command))
      exec.command = resolve(dirname(file), exec.command);
  }
  for (const { list, key, fields } of PATH_FIELDS) {
    for (const entry of config[list] ?? []) {
      const body = entry[key];
      if (body === undefined || body === null || typeof body !== "object") continue;
      for (const field of fields) {
        const value = (body as Fields)[field];
        if (typeof value === "string" && value !== "" && !isAbsolute(value)) (body as Fields)[field] = resolve(dirname(file), value);
      }
    }
  }
}

async function readKubeconfig(file: string, required: boolean): Promise<KubeconfigDocument | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`error loading kubeconfig ${file}: ${(error as Error).message}`, { cause: error });
  }
  let config: unknown;
  try {
    config = parse(text) ?? {};
  } catch (error) {
    throw new Error(`error loading kubeconfig ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new Error(`error loading kubeconfig ${file}: not a kubeconfig`);
  absolutePaths(config as KubeconfigDocument, file);
  return config as KubeconfigDocument;
}

/**
 * kubectl's merge of the `KUBECONFIG` files: the first file to define a cluster, user or
 * context name wins, and the first file that sets `current-context` sets it.
 */
function merge(configs: readonly KubeconfigDocument[]): KubeconfigDocument {
  const merged: KubeconfigDocument = { apiVersion: "v1", kind: "Config", clusters: [], users: [], contexts: [] };
  for (const config of configs) {
    if (merged["current-context"] === undefined && typeof config["current-context"] === "string" && config["current-context"] !== "")
      merged["current-context"] = config["current-context"];
    for (const list of ["clusters", "users", "contexts"] as const) {
      for (const entry of config[list] ?? []) {
        if (!merged[list]!.some((e) => e.name === entry.name)) merged[list]!.push(entry);
      }
    }
  }
  return merged;
}

/**
 * The connection kubectl would use: the kubeconfig at `path` (that file only), else the files
 * listed in `$KUBECONFIG` merged as kubectl merges them (missing ones skipped), else
 * `~/.kube/config`; the context is `context`, else the current one. Errors name the file and
 * what is wrong with it.
 */
export async function loadKubeconfig(path?: string, context?: string, env: NodeJS.ProcessEnv = process.env): Promise<ClientConfig> {
  let configs: KubeconfigDocument[];
  let where: string;
  const listed = env.KUBECONFIG ?? "";
  if (path !== undefined && path !== "") {
    configs = [(await readKubeconfig(path, true))!];
    where = path;
  } else if (listed !== "") {
    const files = listed.split(delimiter).filter((f) => f !== "");
    configs = (await Promise.all(files.map((f) => readKubeconfig(f, false)))).filter((c) => c !== undefined);
    where = `KUBECONFIG=${listed}`;
  } else {
    const file = join(env.HOME ?? homedir(), ".kube", "config");
    const config = await readKubeconfig(file, false);
    configs = config === undefined ? [] : [config];
    where = file;
  }
  if (configs.length === 0) throw new Error(`no kubeconfig found (${where}); pass --kubeconfig or set KUBECONFIG`);
  const merged = merge(configs);
  const contextName = context !== undefined && context !== "" ? context : merged["current-context"];
  if (typeof contextName !== "string" || contextName === "")
    throw new Error(`the kubeconfig (${where}) sets no current-context; pass --context`);
  if (!merged.contexts!.some((c) => c.name === contextName)) throw new Error(`context "${contextName}" does not exist in ${where}`);
  try {
    return await configFromKubeconfig(stringify(merged), { context: contextName });
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
  }
}
