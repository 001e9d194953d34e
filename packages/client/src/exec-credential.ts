import { spawn } from "node:child_process";

/** The ExecCredential versions kubectl 1.24+ runs (v1alpha1 is gone upstream). */
export const EXEC_API_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** A kubeconfig user's `exec` stanza (client-go's `clientcmdapi.ExecConfig`). */
export interface ExecConfig {
  /** The plugin; a relative path with a `/` is already resolved against the kubeconfig's directory. */
  command: string;
  args: readonly string[];
  /** Added to the plugin's environment (over this process's). */
  env: readonly { name: string; value: string }[];
  apiVersion: ExecApiVersion;
  /** `Never`, `IfAvailable` (v1beta1's default) or `Always`; v1 requires it. */
  interactiveMode: "Never" | "IfAvailable" | "Always";
  /** Printed after the error when the command is not found. */
  installHint?: string;
  /** The cluster the plugin is told about in `KUBERNETES_EXEC_INFO` when `provideClusterInfo` is set. */
  cluster?: Record<string, unknown>;
}

/** What a plugin answered: a bearer token, or a client certificate and key. */
export interface ExecCredential {
  token?: string;
  cert?: string;
  key?: string;
  /** Milliseconds since the epoch; absent means valid until the server refuses it. */
  expiresAt?: number;
}

/**
 * Runs a kubeconfig's credential plugin as client-go's exec authenticator does and keeps its
 * answer until `expirationTimestamp` (or until the server answers 401, see `invalidate`); callers
 * that ask at the same time share one run of the plugin.
 */
export class ExecCredentialProvider {
  readonly #config: ExecConfig;
  readonly #now: () => number;
  readonly #stdinIsTerminal: boolean;
  #cached: ExecCredential | undefined;
  #pending: Promise<ExecCredential> | undefined;

  constructor(config: ExecConfig, options: { now?: () => number; stdinIsTerminal?: boolean } = {}) {
    this.#config = config;
    this.#now = options.now ?? Date.now;
    this.#stdinIsTerminal = options.stdinIsTerminal ?? process.stdin.isTTY === true;
  }

  async get(): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached !== undefined && (cached.expiresAt === undefined || this.#now() < cached.expiresAt)) return cached;
    this.#pending ??= this.#run().then(
      (credential) => {
        this.#cached = credential;
        this.#pending = undefined;
        return credential;
      },
      (error: unknown) => {
        this.#pending = undefined;
        throw error;
      },
    );
    return this.#pending;
  }

  /** Forgets `used` (the server refused it) so the next request runs the plugin again. */
  invalidate(used: ExecCredential): void {
    if (this.#cached === used) this.#cached = undefined;
  }

  async #run(): Promise<ExecCredential> {
    const config = this.#config;
    const interactive = config.interactiveMode !== "Never" && this.#stdinIsTerminal;
    if (config.interactiveMode === "Always" && !interactive)
      throw new Error("exec plugin cannot support interactive mode: standard input is not a terminal");
    const info = {
      kind: "ExecCredential",
      apiVersion: config.apiVersion,
      spec: { interactive, ...(config.cluster !== undefined ? { cluster: config.cluster } : {}) },
    };
    const env = {
      ...process.env,
      ...Object.fromEntries(config.env.map((e) => [e.name, e.value])),
      KUBERNETES_EXEC_INFO: JSON.stringify(info),
    };
    const stdout = await new Promise<string>((resolve, reject) => {
      // Like client-go: the plugin's stderr is the user's (login prompts), stdin only when interactive.
      const child = spawn(config.command, [...config.args], { env, stdio: [interactive ? "inherit" : "ignore", "pipe", "inherit"] });
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT")
          reject(
            new Error(`exec: executable ${config.command} not found${config.installHint ? `\n\n${config.installHint}` : ""}`, {
              cause: error,
            }),
          );
        else reject(new Error(`exec: executable ${config.command} failed: ${error.message}`, { cause: error }));
      });
      child.once("close", (code, signal) => {
        if (code === 0) resolve(Buffer.concat(chunks).toString("utf8"));
        else
          reject(new Error(`exec: executable ${config.command} failed with ${signal === null ? `exit code ${code}` : `signal ${signal}`}`));
      });
    });
    return this.#decode(stdout);
  }

  #decode(stdout: string): ExecCredential {
    let answer: unknown;
    try {
      answer = JSON.parse(stdout);
    } catch (error) {
      throw new Error(`decoding stdout: ${(error as Error).message}`, { cause: error });
    }
    const object = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
    if (object.apiVersion !== this.#config.apiVersion) {
      throw new Error(
        `exec plugin is configured to use API version ${this.#config.apiVersion}, plugin returned version ${String(object.apiVersion)}`,
      );
    }
    const status = object.status;
    if (typeof status !== "object" || status === null) throw new Error("exec plugin didn't return a status field");
    const fields = status as Record<string, unknown>;
    const text = (name: string): string | undefined => (typeof fields[name] === "string" && fields[name] !== "" ? fields[name] : undefined);
    const token = text("token");
    const cert = text("clientCertificateData");
    const key = text("clientKeyData");
    if (token === undefined && cert === undefined && key === undefined)
      throw new Error("exec plugin didn't return a token or cert/key pair");
    if ((cert === undefined) !== (key === undefined)) throw new Error("exec plugin returned only certificate or key, not both");
    const credential: ExecCredential = {};
    if (token !== undefined) credential.token = token;
    if (cert !== undefined && key !== undefined) Object.assign(credential, { cert, key });
    const expiration = text("expirationTimestamp");
    if (expiration !== undefined) {
      const expiresAt = Date.parse(expiration);
      if (Number.isNaN(expiresAt)) throw new Error(`exec plugin returned an invalid expirationTimestamp ${JSON.stringify(expiration)}`);
      credential.expiresAt = expiresAt;
    }
    return credential;
  }
}
