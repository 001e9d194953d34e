import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";

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
 * Relative file paths resolve against `baseDir` (the kubeconfig's directory). Exec and auth-provider
 * plugins are not run: such users fail with an error naming the context.
 */
export async function configFromKubeconfig(text: string, options: { context?: string; baseDir?: string } = {}): Promise<ClientConfig> {
  const doc = (parse(text) ?? {}) as { "current-context"?: string; contexts?: Named<Fields>[]; clusters?: Named<Fields>[]; users?: Named<Fields>[] };
  const contextName = options.context ?? doc["current-context"];
  if (!contextName) throw new Error("kubeconfig has no current-context");
  const context = doc.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) throw new Error(`kubeconfig has no context ${JSON.stringify(contextName)}`);
  const cluster = doc.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (cluster === undefined || typeof cluster.server !== "string") throw new Error(`kubeconfig context ${JSON.stringify(contextName)} names no cluster with a server`);
  const user = doc.users?.find((u) => u.name === context.user)?.user ?? {};
  if (user.exec !== undefined || user["auth-provider"] !== undefined) {
    throw new Error(`kubeconfig context ${JSON.stringify(contextName)}: exec and auth-provider credentials are not supported`);
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
  if (typeof cluster["tls-server-name"] === "string" && cluster["tls-server-name"] !== "") config.tlsServerName = cluster["tls-server-name"];
  const cert = await material(user["client-certificate-data"], user["client-certificate"]);
  if (cert !== undefined) config.cert = cert;
  const key = await material(user["client-key-data"], user["client-key"]);
  if (key !== undefined) config.key = key;
  const token = typeof user.token === "string" && user.token !== "" ? user.token : await material(undefined, user.tokenFile);
  if (token !== undefined) config.token = token.trim();
  if (typeof user.username === "string") config.username = user.username;
  if (typeof user.password === "string") config.password = user.password;
  if (typeof context.namespace === "string" && context.namespace !== "") config.namespace = context.namespace;
  return config;
}

/** Reads the kubeconfig at `path`, else the first file of `$KUBECONFIG`, else `~/.kube/config`. */
export async function loadKubeconfig(path?: string, context?: string): Promise<ClientConfig> {
  const file = path ?? process.env.KUBECONFIG?.split(":").find((p) => p !== "") ?? join(homedir(), ".kube", "config");
  const text = await readFile(file, "utf8");
  return configFromKubeconfig(text, { baseDir: dirname(resolve(file)), ...(context !== undefined ? { context } : {}) });
}
