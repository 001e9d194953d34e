import { jsonLineLogger } from "@kubekit/generic-controlplane";
import { KubeClient, type ClientConfig } from "@kubekit/generic-controlplane/controllers";
import { validateClaim } from "../claim-validation.js";
import { isNetworkRegistryError, NetworkRegistryError } from "../errors.js";
import { describeReference } from "../records.js";
import { parsePrefix } from "../parse.js";
import { NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND, type AddressRecord, type NetworkClaim, type ResourceReference } from "../types.js";
import { detectDrift, renderDrift } from "../kube/drift.js";
import { importObservedSpace, type ControllerManagerFlags } from "../kube/importers/index.js";
import { wellKnownClaimsFromObserved } from "../kube/importers/well-known-claims.js";
import { servedResource } from "../kube/importers/served.js";
import {
  allocate as requestAllocation,
  claim as applyClaim,
  install as installKanaAPI,
  installManifests,
  NETWORK_CLAIMS,
  runArbiter,
  type NetworkAllocationObject,
  type NetworkClaimObject,
} from "../kube/index.js";
import { CliError, EXIT_CONFLICT, EXIT_OK, EXIT_SERVER, EXIT_USAGE } from "./cli-error.js";
import { decidedRegistry, readClusterClaims } from "./cluster-state.js";
import { resolveClientConfig, type KubeconfigFlags } from "./kubeconfig.js";
import { loadClaims } from "./load-claims.js";
import { renderData, type OutputFormat } from "./output.js";
import { serverFailure } from "./server-errors.js";
import { renderWhois } from "./render-whois.js";
import { age, renderTable } from "./table.js";

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment for kubeconfig resolution (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `work` with a client for the kubeconfig's cluster; failures to reach the server and
 * the server's refusals become kubectl-style messages (exit 3).
 */
export async function withCluster(
  flags: KubeconfigFlags,
  io: CliIO,
  work: (client: KubeClient, config: ClientConfig) => Promise<number>,
): Promise<number> {
  const config = await resolveClientConfig(flags, io.env);
  const client = new KubeClient(config);
  try {
    return await work(client, config);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (isNetworkRegistryError(error) && error.code !== "api-error") throw error;
    throw serverFailure(error, config.server);
  } finally {
    client.close();
  }
}

// ---------------------------------------------------------------------------------------------
// drift

/** The options as commander names them (it camel-cases `--cluster-cidr` to `clusterCidr`). */
export interface DriftOptions extends KubeconfigFlags {
  /** `--cluster`: the cluster observed, as the claims' `kana.kubekit.io/cluster` label names it. */
  cluster?: string;
  clusterCidr?: string;
  serviceClusterIpRange?: string;
  output: OutputFormat;
}

export async function drift(options: DriftOptions, io: CliIO): Promise<number> {
  const flags: ControllerManagerFlags = {
    ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
    ...(options.serviceClusterIpRange !== undefined ? { serviceClusterIPRange: options.serviceClusterIpRange } : {}),
  };
  return withCluster(options, io, async (client) => {
    const space = await importObservedSpace(client, flags);
    const report = detectDrift(
      space,
      decidedRegistry(await readClusterClaims(client)),
      options.cluster !== undefined ? { cluster: options.cluster } : {},
    );
    io.stdout(options.output === "human" ? renderDrift(report) : renderData(report, options.output));
    return report.drift ? EXIT_CONFLICT : EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// import

export interface ImportOptions extends KubeconfigFlags {
  clusterCidr?: string;
  serviceClusterIpRange?: string;
  apply: boolean;
  timeout: string;
  output: "yaml" | "json";
}

/** The well-known claims for the ranges the cluster is configured with: printed, or applied with --apply. */
export async function importClaims(options: ImportOptions, io: CliIO): Promise<number> {
  const flags: ControllerManagerFlags = {
    ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
    ...(options.serviceClusterIpRange !== undefined ? { serviceClusterIPRange: options.serviceClusterIpRange } : {}),
  };
  const timeoutMs = parseTimeout(options.timeout);
  return withCluster(options, io, async (client) => {
    const space = await importObservedSpace(client, flags);
    for (const note of [...space.skipped, ...space.problems]) io.stderr(`kana: note: ${note}\n`);
    const claims = wellKnownClaimsFromObserved(space);
    if (claims.length === 0)
      throw new CliError(
        "nothing to import: no ServiceCIDRs are served and neither --cluster-cidr nor --service-cluster-ip-range was given",
        EXIT_USAGE,
      );
    if (!options.apply) {
      const objects = claims.map((c) => ({ apiVersion: NETWORK_CLAIM_API_VERSION, kind: NETWORK_CLAIM_KIND, ...c }));
      io.stdout(
        options.output === "json"
          ? renderData({ apiVersion: "v1", kind: "List", items: objects }, "json")
          : objects.map((o) => renderData(o, "yaml")).join("---\n"),
      );
      return EXIT_OK;
    }
    let conflict = false;
    for (const c of claims) {
      const decided = await applyClaim(client, c, { timeoutMs, fieldManager: "kana-import" });
      conflict ||= decided.status?.phase !== "Allocated";
      io.stdout(
        `networkclaim/${c.metadata.name} ${decided.status?.phase ?? "applied"}${decided.status?.allocatedPrefixes !== undefined ? ` ${decided.status.allocatedPrefixes}` : ""}\n`,
      );
    }
    return conflict ? EXIT_CONFLICT : EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// whois

export async function whoisOnline(query: string, options: KubeconfigFlags & { output: OutputFormat }, io: CliIO): Promise<number> {
  return withCluster(options, io, async (client) => {
    const result = decidedRegistry(await readClusterClaims(client)).whois(query);
    io.stdout(options.output === "human" ? renderWhois(result) : renderData(result, options.output));
    return EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// list

function claimRow(claim: NetworkClaimObject, now: number): string[] {
  const records = claim.status?.addressSpace ?? [];
  const granted = records.filter((r) => r.status === "allocated");
  const declared = claim.spec?.addressSpace?.filter((r) => r.status !== "unavailable").length ?? 0;
  return [
    claim.metadata.name,
    claim.status?.phase ?? "Pending",
    `${granted.length}/${declared}`,
    granted.map((r) => r.prefix).join(",") || "<none>",
    age(claim.metadata.creationTimestamp, now),
  ];
}

function allocationRow(allocation: NetworkAllocationObject, now: number): string[] {
  return [
    allocation.metadata.name,
    allocation.spec.claim,
    allocation.spec.pool,
    allocation.status?.prefix ?? "<none>",
    allocation.status?.phase ?? "Pending",
    describeReference(allocation.spec.reference),
    age(allocation.metadata.creationTimestamp, now),
  ];
}

export async function list(
  what: "claims" | "allocations",
  options: KubeconfigFlags & { output: OutputFormat },
  io: CliIO,
): Promise<number> {
  return withCluster(options, io, async (client) => {
    const state = await readClusterClaims(client);
    const items = what === "claims" ? state.claims : state.allocations;
    if (options.output !== "human") {
      io.stdout(renderData({ apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items }, options.output));
      return EXIT_OK;
    }
    if (items.length === 0) {
      io.stderr(`No ${what === "claims" ? "NetworkClaims" : "NetworkAllocations"} found.\n`);
      return EXIT_OK;
    }
    const now = Date.now();
    io.stdout(
      what === "claims"
        ? renderTable(
            ["name", "phase", "granted", "prefixes", "age"],
            state.claims.map((c) => claimRow(c, now)),
          )
        : renderTable(
            ["name", "claim", "pool", "prefix", "phase", "for", "age"],
            state.allocations.map((a) => allocationRow(a, now)),
          ),
    );
    return EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// claim

export interface ClaimOptions extends KubeconfigFlags {
  file?: string[];
  name?: string;
  prefix?: string[];
  resource: string;
  group: string;
  description?: string;
  timeout: string;
  output: OutputFormat;
}

/** `30s`, `2m`, `500ms` or a number of seconds, as kubectl's `--timeout` takes it. */
export function parseTimeout(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (match === null) throw new CliError(`--timeout must be a duration such as 30s or 2m, got ${JSON.stringify(text)}`, EXIT_USAGE);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

async function claimsToApply(options: ClaimOptions): Promise<NetworkClaim[]> {
  if (options.file !== undefined && options.file.length > 0) {
    if (options.name !== undefined || options.prefix !== undefined)
      throw new CliError("pass either -f or --name with --prefix, not both", EXIT_USAGE);
    const { claims, invalid } = await loadClaims(options.file);
    if (invalid.length > 0) throw new CliError(invalid.map((i) => i.message).join("\n"), EXIT_USAGE);
    if (claims.length === 0) throw new CliError(`no NetworkClaim in ${options.file.join(", ")}`, EXIT_USAGE);
    return claims.map((c) => c.claim);
  }
  if (options.name === undefined || options.prefix === undefined || options.prefix.length === 0)
    throw new CliError("pass -f <file> or --name <name> with --prefix <cidr>", EXIT_USAGE);
  const reference: ResourceReference = { group: options.group, resource: options.resource };
  return [
    {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_CLAIM_KIND,
      metadata: { name: options.name },
      spec: {
        addressSpace: options.prefix.map((prefix) => ({
          reference,
          prefix,
          ...(options.description !== undefined ? { description: options.description } : {}),
        })),
      },
    },
  ];
}

function outcomeLine(record: AddressRecord): string {
  const what = describeReference(record.reference);
  if (record.status === "allocated") return `  allocated  ${record.prefix}  ${what}`;
  if (record.conflict === undefined) return `  excluded   ${record.prefix}  ${what} (carved out)`;
  return `  CONFLICT   ${record.prefix}  ${what}: ${record.conflict.reason}: ${record.conflict.message}`;
}

export async function claim(options: ClaimOptions, io: CliIO): Promise<number> {
  const claims = await claimsToApply(options);
  // Check locally first: a non-canonical prefix gets the registry's message with its fix.
  for (const c of claims) {
    for (const record of c.spec?.addressSpace ?? []) if (typeof record?.prefix === "string") parsePrefix(record.prefix);
    const { problems } = validateClaim(c);
    if (problems.length > 0)
      throw new NetworkRegistryError("invalid-claim", `NetworkClaim ${String(c.metadata?.name)}: ${problems.join("; ")}`);
  }
  const timeoutMs = parseTimeout(options.timeout);
  return withCluster(options, io, async (client) => {
    const decided: NetworkClaimObject[] = [];
    for (const c of claims) {
      try {
        decided.push(await applyClaim(client, c, { timeoutMs, fieldManager: "kana" }));
      } catch (error) {
        if (isNetworkRegistryError(error) && error.code === "timeout") {
          throw new CliError(
            `NetworkClaim ${c.metadata.name} was applied, but no decision came within ${options.timeout}: is the arbiter running ("kana arbiter")?`,
            EXIT_SERVER,
          );
        }
        throw error;
      }
    }
    const failed = decided.some((c) => c.status?.phase !== "Allocated");
    if (options.output !== "human") {
      io.stdout(renderData(decided.length === 1 ? decided[0] : { apiVersion: "v1", kind: "List", items: decided }, options.output));
    } else {
      const lines: string[] = [];
      for (const c of decided) {
        lines.push(`networkclaim.${NETWORK_CLAIMS.group}/${c.metadata.name} ${c.status?.phase ?? "Pending"}`);
        if (c.status?.message !== undefined) lines.push(`  ${c.status.message}`);
        for (const record of c.status?.addressSpace ?? []) lines.push(outcomeLine(record));
      }
      io.stdout(`${lines.join("\n")}\n`);
    }
    return failed ? EXIT_CONFLICT : EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// allocate

/** `nodes/node-1`, `ciliumnodes.cilium.io/worker-1`, `services`: a resource reference as kubectl names objects. */
export function parseReference(text: string): ResourceReference {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\.[a-z0-9.-]+)?(?:\/([^/\s]+))?$/.exec(text);
  if (match === null)
    throw new CliError(
      `--for must name a resource as <resource>[.<group>][/<name>], e.g. nodes/node-1, got ${JSON.stringify(text)}`,
      EXIT_USAGE,
    );
  return { group: match[3]?.slice(1) ?? "", resource: match[1]!, ...(match[4] !== undefined ? { name: match[4] } : {}) };
}

export interface OnlineAllocateOptions extends KubeconfigFlags {
  from: string;
  length: string;
  for: string;
  pool?: string;
  claim?: string;
  strategy: "best-fit" | "first-fit";
  description?: string;
  timeout: string;
  output: OutputFormat;
}

export async function allocateOnline(options: OnlineAllocateOptions, io: CliIO): Promise<number> {
  if (!/^\/?\d{1,3}$/.test(options.length))
    throw new CliError(`--length must be a prefix length such as 24 or /24, got ${JSON.stringify(options.length)}`, EXIT_USAGE);
  const prefixLength = Number(options.length.replace(/^\//, ""));
  const reference = parseReference(options.for);
  if (options.pool !== undefined) parsePrefix(options.pool);
  const timeoutMs = parseTimeout(options.timeout);
  return withCluster(options, io, async (client) => {
    let pool = options.pool;
    if (pool === undefined) {
      const owner = (await readClusterClaims(client)).claims.find((c) => c.metadata.name === options.from);
      if (owner === undefined) throw new CliError(`NetworkClaim ${options.from} not found`, EXIT_CONFLICT);
      const granted = (owner.status?.addressSpace ?? []).filter((r) => r.status === "allocated").map((r) => r.prefix);
      if (granted.length === 0) throw new CliError(`NetworkClaim ${options.from} has no granted record to allocate from`, EXIT_CONFLICT);
      if (granted.length > 1)
        throw new CliError(
          `NetworkClaim ${options.from} has several granted records (${granted.join(", ")}); pass --pool <prefix>`,
          EXIT_USAGE,
        );
      pool = granted[0]!;
    }
    try {
      const allocation = await requestAllocation(
        client,
        {
          claim: options.claim ?? options.from,
          pool,
          prefixLength,
          reference,
          strategy: options.strategy,
          ...(options.description !== undefined ? { description: options.description } : {}),
        },
        { timeoutMs },
      );
      io.stdout(options.output === "human" ? `${allocation.status?.prefix ?? ""}\n` : renderData(allocation, options.output));
      return EXIT_OK;
    } catch (error) {
      if (isNetworkRegistryError(error) && error.code === "timeout") {
        throw new CliError(
          `no decision on the allocation within ${options.timeout}: is the arbiter running ("kana arbiter")?`,
          EXIT_SERVER,
        );
      }
      throw error;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// install

export interface InstallCliOptions extends KubeconfigFlags {
  apply: boolean;
  output: "yaml" | "json";
  /** `--arbiter-identity`: the user the arbiter runs as. */
  arbiterIdentity?: string;
}

export async function install(options: InstallCliOptions, io: CliIO): Promise<number> {
  const identity = options.arbiterIdentity !== undefined ? { arbiterIdentity: options.arbiterIdentity } : {};
  const manifests = installManifests(identity);
  if (!options.apply) {
    io.stdout(
      options.output === "json"
        ? renderData({ apiVersion: "v1", kind: "List", items: manifests }, "json")
        : manifests.map((m) => renderData(m, "yaml")).join("---\n"),
    );
    return EXIT_OK;
  }
  return withCluster(options, io, async (client) => {
    // The bootstrap roles need RBAC; a server that does not authorize by RBAC works without them.
    const clusterRoles = (await servedResource(client, "rbac.authorization.k8s.io", "clusterroles")) !== undefined;
    if (!clusterRoles)
      io.stderr("kana: note: skipped the ClusterRoles: the server does not serve rbac.authorization.k8s.io ClusterRoles\n");
    for (const object of await installKanaAPI(client, { clusterRoles, ...identity })) {
      const group = (object.apiVersion ?? "").includes("/") ? `.${(object.apiVersion ?? "").split("/")[0]}` : "";
      io.stdout(`${(object.kind ?? "").toLowerCase()}${group}/${object.metadata?.name ?? ""} applied\n`);
    }
    return EXIT_OK;
  });
}

// ---------------------------------------------------------------------------------------------
// arbiter

export interface ArbiterCliOptions extends KubeconfigFlags {
  metricsPort?: string;
  leaderElect: boolean;
}

/** Runs the arbiter until SIGTERM or SIGINT, then releases the Lease and exits 0. */
export async function arbiter(options: ArbiterCliOptions, io: CliIO, signals: NodeJS.EventEmitter = process): Promise<number> {
  const config = await resolveClientConfig(options, io.env);
  let metricsPort: number | undefined;
  if (options.metricsPort !== undefined) {
    if (!/^\d{1,5}$/.test(options.metricsPort) || Number(options.metricsPort) > 65535)
      throw new CliError(`--metrics-port must be a port number, got ${JSON.stringify(options.metricsPort)}`, EXIT_USAGE);
    metricsPort = Number(options.metricsPort);
  }
  const running = await runArbiter({
    config,
    logger: jsonLineLogger(process.stderr),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    ...(options.leaderElect ? {} : { leaderElection: false as const }),
  });
  io.stderr(
    `kana arbiter: deciding NetworkClaims on ${config.server}${running.metricsUrl !== undefined ? `; metrics on ${running.metricsUrl}` : ""}\n`,
  );
  await new Promise<void>((resolve) => {
    signals.once("SIGTERM", resolve);
    signals.once("SIGINT", resolve);
  });
  await running.stop();
  return EXIT_OK;
}
