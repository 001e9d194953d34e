import { parseArgs } from "node:util";
import { parseGoDuration, UsageError } from "@kubekit/generic-controlplane";
import { KNOWN_CONTROLLERS, selectControllers } from "@kubekit/generic-controlplane/controllers";

export interface SampleOptions {
  host: string;
  port: number;
  /** `memory`, `sqlite:<path>`, or `etcd:<url>[,<url>…]` with kube-apiserver's `--etcd-*` settings. */
  storage: { kind: "memory" } | { kind: "sqlite"; path: string } | ({ kind: "etcd" } & EtcdOptions);
  kubeconfig: string;
  /** Milliseconds between storage compactions (the first runs at startup); 0 turns them off. */
  compactionInterval: number;
  /** Deadline of every request but watches, in milliseconds (kube-apiserver's `--request-timeout`); 0 = none. */
  requestTimeout: number;
  /** Milliseconds `/readyz` fails before the drain starts on SIGTERM/SIGINT (kube-apiserver's `--shutdown-delay-duration`). */
  shutdownDelay: number;
  /** API Priority and Fairness; false falls back to the max-in-flight limits. */
  enablePriorityAndFairness: boolean;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** One JSON log line per request on stderr. */
  requestLog: boolean;
  /** kube-controller-manager's `--controllers` entries; empty runs no controllers. */
  controllers: string[];
  /** Run the controllers only while holding the kube-system/kube-controller-manager Lease. */
  leaderElect: boolean;
  /** How clients reach the server and prove who they are; `insecureHttp` serves plain HTTP without authentication. */
  security: SecurityOptions;
  /** kube-apiserver's `--authorization-mode`; by default RBAC over HTTPS and AlwaysAllow with `--insecure-http`. */
  authorizationModes: AuthorizationModeName[];
  /** `--audit-policy-file` and `--audit-log-*`: audit events go to the log only when both a policy and a path are given. */
  audit: AuditFlags | undefined;
  help: boolean;
}

export interface SecurityOptions {
  /** Plain HTTP, every request anonymous (`--insecure-http`). */
  insecureHttp: boolean;
  /** Where the generated CA, serving and admin certificates and the service account keys live (`--cert-dir`). */
  certDir: string;
  /** Extra names for the generated serving certificate (`--tls-san`). */
  tlsSans: string[];
  /** A serving certificate and key of the user's (`--tls-cert-file`, `--tls-private-key-file`). */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** More CAs whose client certificates are accepted (`--client-ca-file`). */
  clientCaFile?: string;
  /** `--token-auth-file`. */
  tokenAuthFile?: string;
  /** `--anonymous-auth`: requests without credentials are `system:anonymous`, and the authorizer decides them. */
  anonymousAuth: boolean;
  /** `--service-account-issuer` (repeatable), `--api-audiences`, `--service-account-*-file`. */
  serviceAccountIssuers: string[];
  apiAudiences: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountKeyFiles: string[];
  /** Milliseconds; 0 = no cap. */
  serviceAccountMaxTokenExpiration: number;
  /** Rotate the generated signing key in `certDir` at startup, keeping the old one for verification. */
  rotateServiceAccountKey: boolean;
}

export type AuthorizationModeName = "RBAC" | "AlwaysAllow" | "AlwaysDeny";
const AUTHORIZATION_MODES: readonly AuthorizationModeName[] = ["RBAC", "AlwaysAllow", "AlwaysDeny"];

export interface AuditFlags {
  policyFile: string;
  /** A file, or `-` for stdout. */
  logPath: string;
  maxSizeMB: number;
  maxBackups: number;
  maxAgeDays: number;
}

export interface EtcdOptions {
  endpoints: string[];
  prefix: string;
  /** PEM files (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_STORAGE = "sqlite:.kubekit/data/state.db";
export const DEFAULT_KUBECONFIG = ".kubekit/kubeconfig";
export const DEFAULT_CERT_DIR = ".kubekit/pki";
/** kube-apiserver's `--etcd-compaction-interval` default (and kine's): 5m. */
export const DEFAULT_COMPACTION_INTERVAL = "5m";

export const USAGE = `Usage: sample-generic-controlplane [flags]

Flags:
  --host <address>        address to listen on (default 127.0.0.1)
  --port <n>              port to listen on; 0 picks a free port (default ${DEFAULT_PORT})
  --storage <spec>        memory | sqlite:<path> | etcd:<url>[,<url>...] (default ${DEFAULT_STORAGE});
                          several servers may share one etcd, e.g. etcd:http://127.0.0.1:2379
  --etcd-prefix <prefix>  where objects live in etcd (default /registry)
  --etcd-cafile, --etcd-certfile, --etcd-keyfile <path>
                          TLS to etcd (https:// URLs need --etcd-cafile)
  --kubeconfig <path>     where to write a kubeconfig for this server (default ${DEFAULT_KUBECONFIG})
  --controllers <list>    controllers to run in-process, kube-controller-manager style: "*" is every
                          controller (namespace, garbagecollector, serviceaccount, eventttl), "-name"
                          turns one off, "" none
                          (default "*")
  --leader-elect <bool>   run the controllers only while holding the Lease
                          kube-system/kube-controller-manager (default true)
  --compaction-interval <duration>
                          how often old revisions are compacted, e.g. 30s, 5m, 1h30m; the first
                          compaction runs at startup; 0 turns compaction off (default ${DEFAULT_COMPACTION_INTERVAL})
  --request-timeout <duration>
                          every request but watches must finish within this, or gets 504 Timeout
                          (a shorter ?timeout= applies to its own request) (default 1m0s)
  --shutdown-delay-duration <duration>
                          on SIGTERM/SIGINT, /readyz fails at once and requests are still served
                          this long before the drain starts (default 0s)
  --enable-priority-and-fairness=<true|false>
                          API Priority and Fairness: fair queues per client and priority level
                          (default true); false limits requests with the two max-in-flight limits
  --max-requests-inflight <n>
                          read-only requests in flight (default 400); with priority and fairness,
                          the two limits add up to the server's seats
  --max-mutating-requests-inflight <n>
                          mutating requests in flight (default 200)
  --insecure-http         serve plain HTTP with no authentication (every request anonymous)
                          instead of HTTPS
  --cert-dir <path>       where the generated CA, serving and admin certificates and the service
                          account signing keys are kept and reused (default ${DEFAULT_CERT_DIR})
  --tls-san <name>        another DNS name or IP address for the generated serving certificate
                          (repeatable; localhost, 127.0.0.1 and ::1 are always included)
  --tls-cert-file, --tls-private-key-file <path>
                          serve with this PEM certificate and key instead of a generated one
  --client-ca-file <path> also accept client certificates signed by these CAs (CN = user, O = groups)
  --token-auth-file <path>
                          static bearer tokens, one token,user,uid,"group1,group2" line each
  --anonymous-auth=<true|false>
                          requests without credentials are system:anonymous and the authorizer
                          decides them (RBAC lets them read health and version) (default true)
  --service-account-issuer <url>
                          iss of service account tokens; repeat to keep accepting older issuers
                          (default https://kubernetes.default.svc.cluster.local)
  --api-audiences <list>  audiences the server accepts in tokens (default: the issuer)
  --service-account-signing-key-file <path>
                          PEM private key tokens are signed with (default: <cert-dir>/sa.key, generated)
  --service-account-key-file <path>
                          PEM public keys whose tokens are accepted too (repeatable)
  --service-account-max-token-expiration <duration>
                          longest lifetime a requested token gets (default 0: no cap)
  --rotate-service-account-key
                          start signing with a new <cert-dir>/sa.key; tokens of the old key stay
                          valid while <cert-dir>/sa-retired-<kid>.pub is kept
  --authorization-mode <list>
                          RBAC, AlwaysAllow or AlwaysDeny, asked in order (default RBAC, or
                          AlwaysAllow with --insecure-http); the admin kubeconfig's user is in
                          system:masters, which RBAC always allows
  --audit-policy-file <path>
                          an audit.k8s.io/v1 Policy (YAML or JSON); with --audit-log-path, requests
                          are written to the audit log at the levels it gives them
  --audit-log-path <path> where audit events go as JSON lines ("-" for stdout)
  --audit-log-maxsize <n>, --audit-log-maxbackup <n>, --audit-log-maxage <n>
                          rotate the audit log at n megabytes (default 100), keep n rotated files
                          (default 0: all), and remove those older than n days (default 0: never)
  --quiet                 no per-request log lines on stderr
  -h, --help              show this help

Prints "ready <url>" on stdout once serving; logs go to stderr as JSON lines.
SIGINT/SIGTERM shut down gracefully: /readyz fails, requests are served for --shutdown-delay-duration,
then new requests get 429 with Retry-After while watches end and in-flight requests finish.`;

export function parseOptions(argv: string[]): SampleOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: String(DEFAULT_PORT) },
      storage: { type: "string", default: DEFAULT_STORAGE },
      "etcd-prefix": { type: "string", default: "/registry" },
      "etcd-cafile": { type: "string" },
      "etcd-certfile": { type: "string" },
      "etcd-keyfile": { type: "string" },
      kubeconfig: { type: "string", default: DEFAULT_KUBECONFIG },
      "compaction-interval": { type: "string", default: DEFAULT_COMPACTION_INTERVAL },
      "request-timeout": { type: "string", default: "1m0s" },
      "shutdown-delay-duration": { type: "string", default: "0s" },
      "enable-priority-and-fairness": { type: "string", default: "true" },
      "max-requests-inflight": { type: "string", default: "400" },
      "max-mutating-requests-inflight": { type: "string", default: "200" },
      quiet: { type: "boolean", default: false },
      controllers: { type: "string", default: "*" },
      "leader-elect": { type: "string", default: "true" },
      "insecure-http": { type: "boolean", default: false },
      "cert-dir": { type: "string", default: DEFAULT_CERT_DIR },
      "tls-san": { type: "string", multiple: true, default: [] },
      "tls-cert-file": { type: "string" },
      "tls-private-key-file": { type: "string" },
      "client-ca-file": { type: "string" },
      "token-auth-file": { type: "string" },
      "anonymous-auth": { type: "string", default: "true" },
      "service-account-issuer": { type: "string", multiple: true, default: [] },
      "api-audiences": { type: "string", default: "" },
      "service-account-signing-key-file": { type: "string" },
      "service-account-key-file": { type: "string", multiple: true, default: [] },
      "service-account-max-token-expiration": { type: "string", default: "0s" },
      "rotate-service-account-key": { type: "boolean", default: false },
      "authorization-mode": { type: "string" },
      "audit-policy-file": { type: "string" },
      "audit-log-path": { type: "string" },
      "audit-log-maxsize": { type: "string", default: "100" },
      "audit-log-maxbackup": { type: "string", default: "0" },
      "audit-log-maxage": { type: "string", default: "0" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer between 0 and 65535, got ${JSON.stringify(values.port)}`);
  const leaderElect = values["leader-elect"];
  if (leaderElect !== "true" && leaderElect !== "false")
    throw new UsageError(`--leader-elect must be true or false, got ${JSON.stringify(leaderElect)}`);
  const controllers = values.controllers
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  try {
    selectControllers(controllers, KNOWN_CONTROLLERS);
  } catch (error) {
    throw new UsageError(`--controllers: ${(error as Error).message}`);
  }
  return {
    host: values.host,
    port,
    storage: parseStorage(values.storage, {
      prefix: values["etcd-prefix"],
      ...(values["etcd-cafile"] === undefined ? {} : { caFile: values["etcd-cafile"] }),
      ...(values["etcd-certfile"] === undefined ? {} : { certFile: values["etcd-certfile"] }),
      ...(values["etcd-keyfile"] === undefined ? {} : { keyFile: values["etcd-keyfile"] }),
    }),
    kubeconfig: values.kubeconfig,
    compactionInterval: parseFlagDuration("--compaction-interval", values["compaction-interval"]),
    requestTimeout: parseFlagDuration("--request-timeout", values["request-timeout"]),
    shutdownDelay: parseFlagDuration("--shutdown-delay-duration", values["shutdown-delay-duration"]),
    enablePriorityAndFairness: parseFlagBool("--enable-priority-and-fairness", values["enable-priority-and-fairness"]),
    maxRequestsInflight: parseFlagCount("--max-requests-inflight", values["max-requests-inflight"]),
    maxMutatingRequestsInflight: parseFlagCount("--max-mutating-requests-inflight", values["max-mutating-requests-inflight"]),
    requestLog: !values.quiet,
    controllers,
    leaderElect: leaderElect === "true",
    security: parseSecurity(values),
    authorizationModes: parseAuthorizationModes(values["authorization-mode"], values["insecure-http"]),
    audit: parseAudit(values),
    help: values.help,
  };
}

function parseSecurity(values: {
  "insecure-http": boolean;
  "cert-dir": string;
  "tls-san": string[];
  "tls-cert-file"?: string | undefined;
  "tls-private-key-file"?: string | undefined;
  "client-ca-file"?: string | undefined;
  "token-auth-file"?: string | undefined;
  "anonymous-auth": string;
  "service-account-issuer": string[];
  "api-audiences": string;
  "service-account-signing-key-file"?: string | undefined;
  "service-account-key-file": string[];
  "service-account-max-token-expiration": string;
  "rotate-service-account-key": boolean;
}): SecurityOptions {
  if ((values["tls-cert-file"] === undefined) !== (values["tls-private-key-file"] === undefined))
    throw new UsageError("--tls-cert-file and --tls-private-key-file go together");
  if (values["rotate-service-account-key"] && values["service-account-signing-key-file"] !== undefined) {
    throw new UsageError(
      "--rotate-service-account-key rotates the generated key in --cert-dir; it cannot be used with --service-account-signing-key-file",
    );
  }
  for (const issuer of values["service-account-issuer"]) {
    if (issuer === "") throw new UsageError("--service-account-issuer must not be empty");
    if (issuer.includes(":") && !issuer.startsWith("https://")) {
      let ok: boolean;
      try {
        ok = new URL(issuer).protocol === "https:";
      } catch {
        ok = false;
      }
      if (!ok) throw new UsageError(`--service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid https URL`);
    }
  }
  const maxExpiration = parseFlagDuration("--service-account-max-token-expiration", values["service-account-max-token-expiration"]);
  if (maxExpiration !== 0 && maxExpiration < 3600_000)
    throw new UsageError("--service-account-max-token-expiration must be at least 1h0m0s");
  return {
    insecureHttp: values["insecure-http"],
    certDir: values["cert-dir"],
    tlsSans: values["tls-san"]
      .flatMap((san) => san.split(","))
      .map((san) => san.trim())
      .filter((san) => san !== ""),
    ...(values["tls-cert-file"] === undefined ? {} : { tlsCertFile: values["tls-cert-file"] }),
    ...(values["tls-private-key-file"] === undefined ? {} : { tlsPrivateKeyFile: values["tls-private-key-file"] }),
    ...(values["client-ca-file"] === undefined ? {} : { clientCaFile: values["client-ca-file"] }),
    ...(values["token-auth-file"] === undefined ? {} : { tokenAuthFile: values["token-auth-file"] }),
    anonymousAuth: parseFlagBool("--anonymous-auth", values["anonymous-auth"]),
    serviceAccountIssuers: values["service-account-issuer"],
    apiAudiences: values["api-audiences"]
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== ""),
    ...(values["service-account-signing-key-file"] === undefined
      ? {}
      : { serviceAccountSigningKeyFile: values["service-account-signing-key-file"] }),
    serviceAccountKeyFiles: values["service-account-key-file"],
    serviceAccountMaxTokenExpiration: maxExpiration,
    rotateServiceAccountKey: values["rotate-service-account-key"],
  };
}

export function parseStorage(spec: string, etcd: Omit<EtcdOptions, "endpoints"> = { prefix: "/registry" }): SampleOptions["storage"] {
  if (spec === "memory") return { kind: "memory" };
  if (spec.startsWith("sqlite:") && spec.length > "sqlite:".length) return { kind: "sqlite", path: spec.slice("sqlite:".length) };
  if (spec.startsWith("etcd:"))
    return { kind: "etcd", endpoints: parseEtcdEndpoints(spec.slice("etcd:".length), etcd), ...checkEtcdSettings(etcd) };
  throw new UsageError(`--storage must be "memory", "sqlite:<path>" or "etcd:<url>[,<url>...]", got ${JSON.stringify(spec)}`);
}

/** kube-apiserver's `--etcd-servers`: a comma-separated list of http(s)://host:port client URLs. */
function parseEtcdEndpoints(list: string, etcd: Omit<EtcdOptions, "endpoints">): string[] {
  const endpoints = list.split(",").map((entry) => entry.trim());
  for (const endpoint of endpoints) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      url.port === "" ||
      (url.pathname !== "/" && url.pathname !== "")
    ) {
      throw new UsageError(`--storage etcd: ${JSON.stringify(endpoint)} is not an etcd client URL (http://host:port or https://host:port)`);
    }
    if (url.protocol === "https:" && etcd.caFile === undefined)
      throw new UsageError(`--storage etcd: ${endpoint} is https, which needs --etcd-cafile`);
  }
  return endpoints;
}

function checkEtcdSettings(etcd: Omit<EtcdOptions, "endpoints">): Omit<EtcdOptions, "endpoints"> {
  if (!etcd.prefix.startsWith("/") || etcd.prefix.endsWith("/"))
    throw new UsageError(`--etcd-prefix must start with "/" and not end with it, got ${JSON.stringify(etcd.prefix)}`);
  if ((etcd.certFile === undefined) !== (etcd.keyFile === undefined))
    throw new UsageError("--etcd-certfile and --etcd-keyfile go together");
  return etcd;
}

function parseAuthorizationModes(list: string | undefined, insecureHttp: boolean): AuthorizationModeName[] {
  if (list === undefined) return insecureHttp ? ["AlwaysAllow"] : ["RBAC"];
  const modes = list.split(",").map((mode) => mode.trim());
  for (const mode of modes) {
    if (!AUTHORIZATION_MODES.includes(mode as AuthorizationModeName)) {
      throw new UsageError(`--authorization-mode: ${JSON.stringify(mode)} is not one of ${AUTHORIZATION_MODES.join(", ")}`);
    }
  }
  if (new Set(modes).size !== modes.length) throw new UsageError(`--authorization-mode: ${JSON.stringify(list)} names a mode twice`);
  return modes as AuthorizationModeName[];
}

function parseAudit(values: {
  "audit-policy-file"?: string | undefined;
  "audit-log-path"?: string | undefined;
  "audit-log-maxsize": string;
  "audit-log-maxbackup": string;
  "audit-log-maxage": string;
}): AuditFlags | undefined {
  const maxSizeMB = parseFlagCount("--audit-log-maxsize", values["audit-log-maxsize"]);
  const maxBackups = parseFlagCount("--audit-log-maxbackup", values["audit-log-maxbackup"]);
  const maxAgeDays = parseFlagCount("--audit-log-maxage", values["audit-log-maxage"]);
  const policyFile = values["audit-policy-file"];
  const logPath = values["audit-log-path"];
  // As kube-apiserver: a policy without a backend (or a backend without a policy) audits nothing.
  if (policyFile === undefined || logPath === undefined || logPath === "") return undefined;
  return { policyFile, logPath, maxSizeMB, maxBackups, maxAgeDays };
}

function parseFlagDuration(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (error) {
    throw new UsageError(
      `${flag} must be a duration such as 30s, 5m or 1h30m (0 turns it off), got ${JSON.stringify(text)}: ${(error as Error).message}`,
    );
  }
  if (ms < 0) throw new UsageError(`${flag} must not be negative, got ${JSON.stringify(text)}`);
  return ms;
}

function parseFlagBool(flag: string, text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new UsageError(`${flag} must be true or false, got ${JSON.stringify(text)}`);
}

function parseFlagCount(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}
