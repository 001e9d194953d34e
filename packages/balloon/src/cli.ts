#!/usr/bin/env node
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KubeClient, Pod } from "@kubekit/client";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { stringify } from "yaml";
import { BalloonError, isBalloonError } from "./errors.js";
import { balloonManifests, manifestList, manifestsToYaml } from "./manifests.js";
import { DEFAULT_NAME, DEFAULT_NAMESPACE, NODE_TARGET_ANNOTATION } from "./names.js";
import { isBalloonPod, isPodTerminal, podRequests } from "./pods.js";
import { parseObjectsYaml, podsOf } from "./objects.js";
import { formatPlanText, formatSplitText, formatStatusText } from "./plan-format.js";
import type { ResizeResult } from "./resize-client.js";
import { formatResourceList, parseResourceList, type ResourceList } from "./resource-list.js";
import { planResize, type ShortfallPolicy } from "./sizing.js";
import { splitHost } from "./split-host.js";
import { VERSION } from "./version.js";

/**
 * Exit status, the same across the project's commands (`kana`, `ccm-e2e`): 0 done, 1 a valid answer
 * that is "no" (a refused plan or resize), 2 bad usage or unreadable input, 3 the cluster could not
 * be reached or refused the request. `balloon resize` adds 4 (infeasible on the node) and 5 (timeout).
 */
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;
const EXIT_SERVER = 3;

type Output = "text" | "json" | "yaml";

function resources(flag: string) {
  return (value: string): ResourceList => {
    try {
      return parseResourceList(value, flag);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

function outputOption(): Option {
  return new Option("-o, --output <format>", "output format").choices(["text", "json", "yaml"]).default("text");
}

function print(value: unknown, output: Output, text: () => string): void {
  if (output === "json") process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else if (output === "yaml") process.stdout.write(stringify(JSON.parse(JSON.stringify(value)) as unknown));
  else process.stdout.write(text());
}

function readInput(path: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    throw new BalloonError("invalid-input", `cannot read ${path === "-" ? "standard input" : path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The unfinished (not terminal), non-balloon pods of one node: `--node`'s, or the only node the file's bound pods
 * are on. Pods of several nodes without `--node` are an error, not a sum over the cluster.
 */
function podsOnOneNode(pods: readonly Pod[], node: string | undefined, source: string): Pod[] {
  const counted = pods.filter((pod) => !isPodTerminal(pod) && !isBalloonPod(pod) && pod.spec?.nodeName);
  if (node !== undefined) return counted.filter((pod) => pod.spec?.nodeName === node);
  const nodes = [...new Set(counted.map((pod) => pod.spec?.nodeName))];
  if (nodes.length > 1) {
    throw new BalloonError(
      "invalid-input",
      `--pods ${source} holds pods of ${nodes.length} nodes (${nodes.join(", ")}); pass --node to say which node to plan for`,
    );
  }
  return counted;
}

function program(): Command {
  const cli = new Command("balloon")
    .description("Plan node resizes through KEP-5620 balloon pods, and print their manifests.")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  cli
    .command("manifests")
    .description("print the balloon PriorityClass, DaemonSet and resizer RBAC as YAML")
    .option("--name <name>", "base name of the objects", "node-balloon")
    .option("--namespace <namespace>", "namespace of the DaemonSet and the agent", "kube-system")
    .option("--image <image>", "balloon container image")
    .option("--priority <value>", "PriorityClass value (at most 1000000000)", (v) => {
      if (!/^-?[0-9]+$/.test(v)) throw new InvalidArgumentError(`--priority: ${JSON.stringify(v)} is not an integer`);
      return Number(v);
    })
    .option("--requests <list>", "template requests, e.g. cpu=1m,memory=1Mi", resources("--requests"))
    .option("--memory-limit", "give the balloon a memory limit equal to its request, so it never swaps (LimitedSwap nodes)")
    .addOption(new Option("-o, --output <format>", "output format").choices(["yaml", "json"]).default("yaml"))
    .action(
      (options: {
        name: string;
        namespace: string;
        image?: string;
        priority?: number;
        requests?: ResourceList;
        memoryLimit?: boolean;
        output: "yaml" | "json";
      }) => {
        const bundle = balloonManifests({
          name: options.name,
          namespace: options.namespace,
          ...(options.memoryLimit ? { memoryLimit: true } : {}),
          ...(options.image ? { image: options.image } : {}),
          ...(options.priority !== undefined ? { priority: options.priority } : {}),
          ...(options.requests ? { requests: options.requests } : {}),
        });
        if (options.output === "json") {
          process.stdout.write(`${JSON.stringify({ apiVersion: "v1", kind: "List", items: manifestList(bundle) }, null, 2)}\n`);
        } else {
          process.stdout.write(manifestsToYaml(bundle));
        }
      },
    );

  cli
    .command("plan")
    .description("decide the balloon's new requests for a target node size")
    .requiredOption("--allocatable <list>", "node allocatable, e.g. cpu=8,memory=32Gi", resources("--allocatable"))
    .option("--capacity <list>", "node capacity (checked against allocatable)", resources("--capacity"))
    .requiredOption("--balloon <list>", "the balloon's current requests", resources("--balloon"))
    .requiredOption("--target <list>", "the effective node size wanted", resources("--target"))
    .option("--pods <file>", "YAML/JSON of the node's pods (Pod, List or PodList; - for stdin)")
    .option("--node <name>", "only count pods bound to this node")
    .option("--floor <list>", "smallest balloon allowed (default cpu=1m,memory=1Mi)", resources("--floor"))
    .option("--granularity <list>", "rounding step (default cpu=1m,memory=1Mi)", resources("--granularity"))
    .addOption(
      new Option(
        "--on-shortfall <policy>",
        "when the balloon cannot grow beside the running pods: refuse, defer (submit and wait), partial",
      )
        .choices(["refuse", "defer", "partial"])
        .default("refuse"),
    )
    .addOption(outputOption())
    .action(
      (options: {
        onShortfall: ShortfallPolicy;
        allocatable: ResourceList;
        capacity?: ResourceList;
        balloon: ResourceList;
        target: ResourceList;
        pods?: string;
        node?: string;
        floor?: ResourceList;
        granularity?: ResourceList;
        output: Output;
      }) => {
        const pods = options.pods
          ? podsOnOneNode(podsOf(parseObjectsYaml(readInput(options.pods), options.pods)), options.node, options.pods)
          : [];
        const plan = planResize({
          onShortfall: options.onShortfall,
          node: { allocatable: options.allocatable, ...(options.capacity ? { capacity: options.capacity } : {}) },
          pods: pods.map(podRequests),
          balloon: options.balloon,
          target: options.target,
          ...(options.floor ? { floor: options.floor } : {}),
          ...(options.granularity ? { granularity: options.granularity } : {}),
        });
        print(plan, options.output, () => formatPlanText(plan));
        if (plan.decision === "refused") process.exitCode = EXIT_REFUSED;
      },
    );

  cli
    .command("split")
    .description("size balloons so N kubelets on one host never oversubscribe it")
    .requiredOption("--host <list>", "the host's resources, e.g. cpu=64,memory=256Gi", resources("--host"))
    .requiredOption("--kubelets <n>", "number of kubelets on the host", (v) => {
      if (!/^[1-9][0-9]*$/.test(v)) throw new InvalidArgumentError(`--kubelets: ${JSON.stringify(v)} is not a positive integer`);
      return BigInt(v);
    })
    .option("--reserved <list>", "what each node reserves for itself", resources("--reserved"))
    .option("--allocatable <list>", "what each kubelet reports (default host − reserved)", resources("--allocatable"))
    .option("--granularity <list>", "rounding step (default cpu=1m,memory=1Mi)", resources("--granularity"))
    .option("--floor <list>", "smallest balloon per node (default cpu=1m,memory=1Mi)", resources("--floor"))
    .addOption(outputOption())
    .action(
      (options: {
        host: ResourceList;
        kubelets: bigint;
        reserved?: ResourceList;
        allocatable?: ResourceList;
        granularity?: ResourceList;
        floor?: ResourceList;
        output: Output;
      }) => {
        const split = splitHost({
          ...(options.floor ? { floor: options.floor } : {}),
          host: options.host,
          kubelets: options.kubelets,
          ...(options.reserved ? { reservedPerNode: options.reserved } : {}),
          ...(options.allocatable ? { allocatable: options.allocatable } : {}),
          ...(options.granularity ? { granularity: options.granularity } : {}),
        });
        print({ ...split, kubelets: split.kubelets.toString() }, options.output, () => formatSplitText(split));
      },
    );

  cli
    .command("status")
    .description("show every node's capacity, allocatable, balloon and effective size from a kubeconfig")
    .option("--kubeconfig <path>", "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--name <name>", "the balloon DaemonSet and PriorityClass (as given to manifests)", DEFAULT_NAME)
    .option("--namespace <namespace>", "the balloon DaemonSet's namespace", DEFAULT_NAMESPACE)
    .addOption(outputOption())
    .action(async (options: { kubeconfig?: string; context?: string; name: string; namespace: string; output: Output }) => {
      const { readNodeBalloonStatus } = await import("./node-status.js");
      const rows = await readNodeBalloonStatus(await kubeClient(options), { name: options.name, namespace: options.namespace });
      print(rows, options.output, () => formatStatusText(rows));
    });

  cli
    .command("resize")
    .description("resize a node through its balloon pod and wait for the kubelet")
    .requiredOption("--node <name>", "the node")
    .requiredOption("--target <list>", "the effective node size wanted, e.g. cpu=4,memory=16Gi", resources("--target"))
    .option("--kubeconfig <path>", "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--name <name>", "the balloon DaemonSet and PriorityClass (as given to manifests)", DEFAULT_NAME)
    .option("--namespace <namespace>", "the balloon DaemonSet's namespace", DEFAULT_NAMESPACE)
    .option("--floor <list>", "smallest balloon allowed (default cpu=1m,memory=1Mi)", resources("--floor"))
    .option("--granularity <list>", "rounding step (default cpu=1m,memory=1Mi)", resources("--granularity"))
    .addOption(
      new Option("--on-shortfall <policy>", "when the balloon cannot grow beside the running pods")
        .choices(["refuse", "defer", "partial"])
        .default("refuse"),
    )
    .option("--no-record-target", `leave the node's ${NODE_TARGET_ANNOTATION} annotation as it is`)
    .option(
      "--timeout <seconds>",
      "how long to wait for the kubelet",
      (v) => {
        if (!/^[0-9]+$/.test(v)) throw new InvalidArgumentError(`--timeout: ${JSON.stringify(v)} is not a whole number of seconds`);
        return Number(v);
      },
      60,
    )
    .addOption(outputOption())
    .action(
      async (options: {
        node: string;
        target: ResourceList;
        kubeconfig?: string;
        context?: string;
        name: string;
        namespace: string;
        floor?: ResourceList;
        granularity?: ResourceList;
        onShortfall: ShortfallPolicy;
        timeout: number;
        recordTarget: boolean;
        output: Output;
      }) => {
        const { resizeNode } = await import("./resize-client.js");
        const { recordNodeTarget, restoreNodeTarget } = await import("./node-target.js");
        const client = await kubeClient(options);
        // Recorded first, so an agent running meanwhile aims at the same size instead of undoing it.
        const record = options.recordTarget ? await recordTarget(() => recordNodeTarget(client, options.node, options.target)) : undefined;
        const result = await resizeNode(client, options.node, options.target, {
          onShortfall: options.onShortfall,
          owner: { name: options.name, namespace: options.namespace },
          timeoutMs: options.timeout * 1000,
          ...(options.floor ? { floor: options.floor } : {}),
          ...(options.granularity ? { granularity: options.granularity } : {}),
        });
        // Nothing was resized: the node keeps its former target.
        if (record && (result.outcome === "refused" || result.outcome === "infeasible"))
          await recordTarget(() => restoreNodeTarget(client, record));
        print(result, options.output, () => formatResizeText(result));
        process.exitCode = RESIZE_EXIT[result.outcome];
      },
    );

  return cli;
}

/** `balloon resize` exit status per outcome: 0 when the node has (or is reserving) its size. */
const RESIZE_EXIT = { applied: 0, deferred: 0, refused: EXIT_REFUSED, infeasible: 4, timeout: 5 } as const;

function formatResizeText(result: ResizeResult): string {
  const detail =
    result.outcome === "applied"
      ? `allocated: ${formatResourceList(result.allocated)}`
      : result.outcome === "refused"
        ? `reason: ${result.reason}`
        : `message: ${result.message}`;
  return `node: ${result.node}\noutcome: ${result.outcome}\npatched: ${String(result.patched)}\n${detail}\n`;
}

/**
 * Writing the target annotation is bookkeeping around the resize: without the right to patch
 * nodes the resize still happens, and the user is told the annotation was not kept in step.
 */
async function recordTarget<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    process.stderr.write(
      `balloon: warning: could not update the node's ${NODE_TARGET_ANNOTATION} annotation: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return undefined;
  }
}

/**
 * A client from the kubeconfig as kubectl reads it (`--kubeconfig`, else `$KUBECONFIG`, else
 * `~/.kube/config`; exec plugins included), or in a pod without any of them, its service account.
 * The client loads only for the commands that talk to a cluster.
 */
async function kubeClient(options: { kubeconfig?: string; context?: string }): Promise<KubeClient> {
  const { KubeClient, inClusterConfig, isInCluster, loadKubeconfig } = await import("@kubekit/client");
  const noKubeconfig =
    options.kubeconfig === undefined && !process.env.KUBECONFIG && !existsSync(join(process.env.HOME ?? homedir(), ".kube", "config"));
  try {
    const config = noKubeconfig && isInCluster() ? await inClusterConfig() : await loadKubeconfig(options.kubeconfig, options.context);
    return new KubeClient({ ...config, userAgent: `balloon/${VERSION}` });
  } catch (error) {
    throw new BalloonError(
      "invalid-input",
      `cannot read the kubeconfig ${options.kubeconfig ?? "(default)"}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its message (and help for usage errors); --help and
      // --version end here too, with 0.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    // Everything this package throws is about its input; anything else came from the cluster
    // or the way to it (the client library's errors, a refused connection).
    process.stderr.write(`balloon: ${isBalloonError(error) ? error.message : describeClusterError(error)}\n`);
    process.exitCode = isBalloonError(error) ? EXIT_USAGE : EXIT_SERVER;
  }
}

/** One line for a failure reaching or talking to the cluster, with the underlying cause when there is one. */
function describeClusterError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

void main(process.argv.slice(2));
