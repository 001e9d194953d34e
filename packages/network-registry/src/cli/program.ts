import { Command, CommanderError, Option } from "commander";
import { isNetworkRegistryError, NetworkRegistryError } from "../errors.js";
import { formatPercent } from "../free-space.js";
import { parsePrefix } from "../parse.js";
import { describeReference } from "../records.js";
import { NetworkRegistry } from "../registry.js";
import type { AddressRecord, NetworkClaim } from "../types.js";
import { VERSION } from "../version.js";
import { CliError, EXIT_CONFLICT, EXIT_OK, EXIT_USAGE } from "./cli-error.js";
import { loadClaims } from "./load-claims.js";
import type * as Online from "./online.js";
import { renderData, type OutputFormat } from "./output.js";
import { renderWhois } from "./render-whois.js";

export type { CliIO } from "./online.js";
type CliIO = Online.CliIO;

/**
 * The commands that talk to a cluster, loaded when one runs: they need
 * `@kubekit/generic-controlplane` (an optional peer dependency), the offline ones do not.
 */
async function onlineCommands(command: string): Promise<typeof Online> {
  try {
    return await import("./online.js");
  } catch (error) {
    const missing =
      (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" &&
      String((error as Error).message).includes("@kubekit/generic-controlplane");
    if (!missing) throw error;
    throw new CliError(
      `kana ${command} talks to a cluster through @kubekit/generic-controlplane, which is not installed: npm install @kubekit/generic-controlplane`,
      EXIT_USAGE,
    );
  }
}
export { EXIT_CONFLICT, EXIT_OK, EXIT_SERVER, EXIT_USAGE } from "./cli-error.js";

interface CheckedClaim {
  name: string;
  file: string;
  claim?: NetworkClaim;
  error?: string;
}

function outputOption(): Option {
  return new Option("-o, --output <format>", "output format").choices(["human", "json", "yaml"]).default("human");
}

function filesOption(): Option {
  return new Option("-f, --file <path...>", "NetworkClaim YAML/JSON files (repeatable)").makeOptionMandatory();
}

/** Register every claim in file order; malformed or mismatching claims are reported, not fatal. */
async function buildRegistry(files: readonly string[]): Promise<{ registry: NetworkRegistry; checked: CheckedClaim[]; skipped: string[] }> {
  const registry = new NetworkRegistry();
  const { claims, skipped, invalid } = await loadClaims(files);
  const checked: CheckedClaim[] = invalid.map((i) => ({ name: i.where, file: i.file, error: i.message }));
  for (const loaded of claims) {
    const name = String(loaded.claim.metadata?.name);
    try {
      checked.push({ name, file: loaded.file, claim: registry.claim(loaded.claim) });
    } catch (error) {
      if (!isNetworkRegistryError(error) || (error.code !== "invalid-claim" && error.code !== "claim-mismatch")) throw error;
      checked.push({ name, file: loaded.file, error: error.message });
    }
  }
  // Report the final state: a claim applied early may be granted by one applied later (its parent).
  for (const c of checked) if (c.claim !== undefined) c.claim = registry.get(c.claim.metadata.name) ?? c.claim;
  return { registry, checked, skipped };
}

function recordLine(record: AddressRecord): string {
  const what = describeReference(record.reference);
  const description = record.description ? ` "${record.description}"` : "";
  if (record.status === "allocated") return `  ok        ${record.prefix}  ${what}${description}`;
  if (record.conflict === undefined) return `  excluded  ${record.prefix}  ${what}${description} (carved out)`;
  const hint =
    record.conflict.nearestFree !== undefined && !record.conflict.message.includes("nearest free")
      ? `; nearest free: ${record.conflict.nearestFree}`
      : "";
  return `  CONFLICT  ${record.prefix}  ${what}: ${record.conflict.reason}: ${record.conflict.message}${hint}`;
}

async function check(files: string[], format: OutputFormat, io: CliIO): Promise<number> {
  const { checked, skipped } = await buildRegistry(files);
  const records = checked.flatMap((c) => (c.claim?.status?.addressSpace ?? []).map((record) => ({ claim: c.name, record })));
  const conflicts = records.filter((r) => r.record.conflict !== undefined);
  const errors = checked.filter((c) => c.error !== undefined);
  const warnings = records.flatMap((r) =>
    (r.record.warnings ?? []).map((warning) => ({ claim: r.claim, prefix: r.record.prefix, warning })),
  );
  const summary = {
    claims: checked.length,
    records: records.length,
    allocated: records.filter((r) => r.record.status === "allocated").length,
    carvedOut: records.filter((r) => r.record.status === "unavailable" && r.record.conflict === undefined).length,
    conflicts: conflicts.length,
    invalidClaims: errors.length,
    warnings: warnings.length,
  };
  const failed = conflicts.length > 0 || errors.length > 0;
  if (format !== "human") {
    io.stdout(
      renderData(
        {
          ok: !failed,
          summary,
          conflicts: conflicts.map((c) => ({ claim: c.claim, prefix: c.record.prefix, conflict: c.record.conflict })),
          errors: errors.map((e) => ({ claim: e.name, file: e.file, message: e.error })),
          skipped,
          warnings,
          claims: checked.flatMap((c) => (c.claim === undefined ? [] : [c.claim])),
        },
        format,
      ),
    );
    return failed ? EXIT_CONFLICT : EXIT_OK;
  }
  const lines: string[] = skipped.map((note) => `note      ${note}`);
  for (const c of checked) {
    if (c.claim === undefined && c.name.startsWith("document ")) {
      lines.push(`INVALID   ${c.error ?? ""}`);
      continue;
    }
    lines.push(`${c.name} (${c.file})`);
    if (c.error !== undefined) lines.push(`  INVALID   ${c.error}`);
    for (const record of c.claim?.status?.addressSpace ?? []) {
      lines.push(recordLine(record));
      for (const warning of record.warnings ?? []) lines.push(`  warning   ${warning}`);
    }
  }
  lines.push("");
  lines.push(
    `${summary.claims} claims, ${summary.records} records: ${summary.allocated} allocated, ${summary.carvedOut} carved out, ${summary.conflicts} conflicts, ${summary.invalidClaims} invalid claims, ${summary.warnings} warnings`,
  );
  lines.push(failed ? "FAIL: the address plan has conflicts" : "OK: no conflicts");
  io.stdout(`${lines.join("\n")}\n`);
  return failed ? EXIT_CONFLICT : EXIT_OK;
}

async function whois(query: string, files: string[], format: OutputFormat, io: CliIO): Promise<number> {
  const { registry, skipped } = await buildRegistry(files);
  for (const note of skipped) io.stderr(`kana: note: ${note}\n`);
  const result = registry.whois(query);
  if (format !== "human") {
    io.stdout(renderData(result, format));
    return EXIT_OK;
  }
  io.stdout(renderWhois(result));
  return EXIT_OK;
}

interface AllocateOptions {
  from: string;
  size: string;
  file: string[];
  claim?: string;
  strategy: "first-fit" | "best-fit";
  count: string;
  group: string;
  resource: string;
  output: OutputFormat;
}

async function allocate(options: AllocateOptions, io: CliIO): Promise<number> {
  if (!/^\/?\d{1,3}$/.test(options.size))
    throw new NetworkRegistryError(
      "invalid-argument",
      `--size must be a prefix length such as 24 or /24, got ${JSON.stringify(options.size)}`,
    );
  if (!/^[1-9]\d{0,5}$/.test(options.count))
    throw new NetworkRegistryError("invalid-argument", `--count must be a positive integer, got ${JSON.stringify(options.count)}`);
  const size = Number(options.size.replace(/^\//, ""));
  const count = Number(options.count);
  const { registry, skipped } = await buildRegistry(options.file);
  for (const note of skipped) io.stderr(`kana: note: ${note}\n`);
  const pool = parsePrefix(options.from);
  const owner = options.claim ?? registry.whois(pool).exact.find((o) => o.record.status === "allocated")?.claim;
  if (owner === undefined)
    throw new NetworkRegistryError("pool-not-found", `${pool.toString()} is not an allocated record in the given claims`);
  const allocated: AddressRecord[] = [];
  for (let i = 0; i < count; i++) {
    try {
      allocated.push(
        registry.allocate({
          claim: owner,
          reference: { group: options.group, resource: options.resource },
          from: pool,
          prefixLength: size,
          strategy: options.strategy,
        }),
      );
    } catch (error) {
      if (!isNetworkRegistryError(error) || error.code !== "pool-exhausted" || count === 1) throw error;
      // All or nothing: a plan that needs three blocks gets none when only two fit.
      throw new NetworkRegistryError(
        "pool-exhausted",
        `only ${i} of ${count} /${size} blocks are free in ${pool.toString()}: ${error.message}`,
      );
    }
  }
  if (options.output !== "human") io.stdout(renderData({ claim: owner, pool: pool.toString(), allocated }, options.output));
  else io.stdout(`${allocated.map((r) => r.prefix).join("\n")}\n`);
  return EXIT_OK;
}

async function free(options: { from: string; file: string[]; output: OutputFormat }, io: CliIO): Promise<number> {
  const { registry, skipped } = await buildRegistry(options.file);
  for (const note of skipped) io.stderr(`kana: note: ${note}\n`);
  const usage = registry.utilization(options.from);
  const blocks = registry.freeBlocks(options.from);
  if (options.output !== "human") {
    io.stdout(renderData({ ...usage, freeBlocks: blocks }, options.output));
    return EXIT_OK;
  }
  const lines = [
    `pool      ${usage.pool}`,
    `used      ${usage.used} of ${usage.size} addresses (${formatPercent(usage.percentUsed)})`,
    `largest   ${usage.largestFree ?? "none"}`,
    `by size   ${
      Object.entries(usage.freeBlocksByLength)
        .map(([length, n]) => `${n}×/${length}`)
        .join(" ") || "none"
    }`,
    "free blocks:",
    ...blocks.map((b) => `  ${b.toString()}`),
  ];
  io.stdout(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

function kubeconfigOptions(command: Command): Command {
  return command
    .option("--kubeconfig <path>", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
    .option("--context <name>", "kubeconfig context (default: its current-context)");
}

/** Options of the command merged with the program's (`kana --kubeconfig x list` and `kana list --kubeconfig x` mean the same). */
function optionsOf<T>(command: Command): T {
  return command.optsWithGlobals<T & object>();
}

export interface RunOptions {
  /** How the program is called in help and messages: `kana`, or `kubectl kana` as a kubectl plugin. */
  name?: string;
  /** Where `kana arbiter` listens for SIGTERM and SIGINT (default `process`). */
  signals?: NodeJS.EventEmitter;
}

/** Run `kana` with `argv` (without node and script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO, runOptions: RunOptions = {}): Promise<number> {
  const name = runOptions.name ?? "kana";
  let exitCode = EXIT_OK;
  const program = kubeconfigOptions(new Command(name))
    .description(
      "Check, query and allocate a cluster's address space: NetworkClaim files offline, or a cluster's NetworkClaims with --kubeconfig.",
    )
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command("check")
    .description("validate claims from one or more clusters; exit 1 on any conflict")
    .argument("<files...>", "NetworkClaim YAML/JSON files; with several clusters, names become <cluster>.<name>")
    .addOption(outputOption())
    .action(async (files: string[], options: { output: OutputFormat }) => {
      exitCode = await check(files, options.output, io);
    });

  kubeconfigOptions(program.command("whois"))
    .description("who owns an address or prefix: in the cluster's NetworkClaims, or in files with -f")
    .argument("<query>", "IP address or CIDR prefix")
    .addOption(new Option("-f, --file <path...>", "NetworkClaim YAML/JSON files (offline)"))
    .addOption(outputOption())
    .action(async (query: string, _options: unknown, command: Command) => {
      const options = optionsOf<{ file?: string[]; output: OutputFormat; kubeconfig?: string; context?: string }>(command);
      exitCode =
        options.file !== undefined
          ? await whois(query, options.file, options.output, io)
          : await (await onlineCommands("whois")).whoisOnline(query, options, io);
    });

  kubeconfigOptions(program.command("allocate"))
    .description(
      "take a free block: from a claim in the cluster (--from <claim> --length 24 --for nodes/node-1), or a dry run on files (-f … --from <prefix> --size 24)",
    )
    .requiredOption("--from <claim|prefix>", "online: the claim to allocate from; with -f: the pool prefix")
    .option("--length <length>", "prefix length of the block, e.g. 24")
    .option("--size <length>", "the same as --length")
    .option("--for <resource>", "online: what the block is for, <resource>[.<group>][/<name>], e.g. nodes/node-1")
    .option("--pool <prefix>", "online: the pool record when the claim has several")
    .addOption(new Option("-f, --file <path...>", "NetworkClaim YAML/JSON files (a dry run; files are not changed)"))
    .option("--claim <name>", "claim receiving the block (default: the pool's owner)")
    .addOption(new Option("--strategy <strategy>", "allocation strategy").choices(["best-fit", "first-fit"]).default("best-fit"))
    .option("--count <n>", "with -f: number of blocks", "1")
    .option("--group <group>", "with -f: reference group of the new records", "")
    .option("--resource <resource>", "with -f: reference resource of the new records", "nodes")
    .option("--description <text>", "online: description of the block")
    .option("--timeout <duration>", "online: how long to wait for the arbiter's decision", "30s")
    .addOption(outputOption())
    .action(async (_options: unknown, command: Command) => {
      const options = optionsOf<AllocateOptions & Partial<Online.OnlineAllocateOptions> & { length?: string; size?: string; for?: string }>(
        command,
      );
      if (options.length !== undefined && options.size !== undefined && options.length !== options.size)
        throw new CliError("--length and --size mean the same; pass one", EXIT_USAGE);
      const length = options.length ?? options.size;
      if (length === undefined) throw new CliError("pass --length <prefix length>, e.g. --length 24", EXIT_USAGE);
      if (options.file !== undefined) {
        exitCode = await allocate({ ...options, size: length }, io);
        return;
      }
      if (options.for === undefined)
        throw new CliError("pass --for <resource>[/<name>] (what the block is for), or -f <files> for a dry run", EXIT_USAGE);
      exitCode = await (
        await onlineCommands("allocate")
      ).allocateOnline({ ...options, length, for: options.for } as Online.OnlineAllocateOptions, io);
    });

  program
    .command("free")
    .description("free space and utilization of a pool or any prefix (in files)")
    .requiredOption("--from <prefix>", "pool prefix")
    .addOption(filesOption())
    .addOption(outputOption())
    .action(async (options: { from: string; file: string[]; output: OutputFormat }) => {
      exitCode = await free(options, io);
    });

  kubeconfigOptions(program.command("claim"))
    .description("apply NetworkClaims to the cluster and wait for the arbiter's decision; exit 1 on a conflict")
    .addOption(new Option("-f, --file <path...>", "NetworkClaim YAML/JSON files"))
    .option("--name <name>", "claim name (instead of -f)")
    .option("--prefix <cidr...>", "prefixes to claim (with --name)")
    .option("--resource <resource>", "what the prefixes are for (with --name)", "pods")
    .option("--group <group>", "API group of --resource", "")
    .option("--description <text>", "record description")
    .option("--timeout <duration>", "how long to wait for the arbiter's decision", "30s")
    .addOption(outputOption())
    .action(async (_options: unknown, command: Command) => {
      exitCode = await (await onlineCommands("claim")).claim(optionsOf<Online.ClaimOptions>(command), io);
    });

  kubeconfigOptions(program.command("list"))
    .description("list the cluster's NetworkClaims (or allocations) like kubectl get")
    .argument("[what]", "claims or allocations", "claims")
    .addOption(outputOption())
    .action(async (what: string, _options: unknown, command: Command) => {
      if (what !== "claims" && what !== "allocations")
        throw new CliError(`list takes "claims" or "allocations", got ${JSON.stringify(what)}`, EXIT_USAGE);
      exitCode = await (await onlineCommands("list")).list(what, optionsOf<{ output: OutputFormat }>(command), io);
    });

  kubeconfigOptions(program.command("drift"))
    .description("compare the address space the cluster uses (ServiceCIDRs, node pod CIDRs, flags) with its claims; exit 1 on drift")
    .option("--cluster-cidr <cidrs>", "kube-controller-manager's --cluster-cidr (comma-separated for dual-stack)")
    .option("--service-cluster-ip-range <cidrs>", "the --service-cluster-ip-range (when ServiceCIDRs are not served)")
    .option("--cluster <name>", "the cluster observed: claims labelled kana.kubekit.io/cluster for another cluster are not judged Unused")
    .addOption(outputOption())
    .action(async (_options: unknown, command: Command) => {
      exitCode = await (await onlineCommands("drift")).drift(optionsOf<Online.DriftOptions>(command), io);
    });

  kubeconfigOptions(program.command("import"))
    .description(
      "print the well-known claims (kube-apiserver, kube-controller-manager) for the ranges the cluster is configured with, or apply them with --apply",
    )
    .option("--cluster-cidr <cidrs>", "kube-controller-manager's --cluster-cidr (comma-separated for dual-stack)")
    .option("--service-cluster-ip-range <cidrs>", "the --service-cluster-ip-range (when ServiceCIDRs are not served)")
    .option("--apply", "apply them and wait for the arbiter's decision; exit 1 on a conflict", false)
    .option("--timeout <duration>", "how long to wait for the arbiter's decision", "30s")
    .addOption(new Option("-o, --output <format>", "output format when printing").choices(["yaml", "json"]).default("yaml"))
    .action(async (_options: unknown, command: Command) => {
      exitCode = await (await onlineCommands("import")).importClaims(optionsOf<Online.ImportOptions>(command), io);
    });

  kubeconfigOptions(program.command("install"))
    .description("print the NetworkClaim API's manifests (CRDs, policy, RBAC), or apply them with --apply")
    .option("--apply", "server-side apply them to the cluster", false)
    .option(
      "--arbiter-identity <user>",
      "the user the arbiter runs as: allowed to write the well-known claims' status and bound to kana:arbiter",
      "system:serviceaccount:kube-system:kana-arbiter",
    )
    .addOption(new Option("-o, --output <format>", "output format when printing").choices(["yaml", "json"]).default("yaml"))
    .action(async (_options: unknown, command: Command) => {
      exitCode = await (await onlineCommands("install")).install(optionsOf<Online.InstallCliOptions>(command), io);
    });

  kubeconfigOptions(program.command("arbiter"))
    .description("run the arbiter that decides NetworkClaims and allocations, until SIGTERM or SIGINT")
    .option("--metrics-port <port>", "serve Prometheus metrics on this port")
    .option("--no-leader-elect", "run without leader election (one instance only)")
    .action(async (_options: unknown, command: Command) => {
      exitCode = await (await onlineCommands("arbiter")).arbiter(optionsOf<Online.ArbiterCliOptions>(command), io, runOptions.signals);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (error instanceof CliError) {
      io.stderr(`${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (isNetworkRegistryError(error)) {
      io.stderr(`${name}: ${error.message}\n`);
      return ["invalid-argument", "invalid-prefix", "invalid-address", "invalid-claim"].includes(error.code) ? EXIT_USAGE : EXIT_CONFLICT;
    }
    throw error;
  }
}
