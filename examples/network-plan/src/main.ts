#!/usr/bin/env node
import { parseArgs } from "node:util";
import { DEFAULT_PLAN, formatPlan, planClusters } from "./plan.js";

/** 1 when the plan cannot be granted, 2 for bad usage, as every command of the project. */
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;

function options() {
  try {
    return parseArgs({
      options: {
        clusters: { type: "string", default: String(DEFAULT_PLAN.clusters) },
        nodes: { type: "string", default: String(DEFAULT_PLAN.nodesPerCluster) },
        supernet: { type: "string", default: DEFAULT_PLAN.ipv4Supernet },
        "supernet-v6": { type: "string", default: DEFAULT_PLAN.ipv6Supernet },
        json: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`network-plan: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(EXIT_USAGE);
  }
}

const values = options();
try {
  const plan = planClusters({
    ...DEFAULT_PLAN,
    clusters: Number.parseInt(values.clusters, 10),
    nodesPerCluster: Number.parseInt(values.nodes, 10),
    ipv4Supernet: values.supernet,
    ipv6Supernet: values["supernet-v6"],
  });
  process.stdout.write(values.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
} catch (error) {
  process.stderr.write(`network-plan: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = EXIT_REFUSED;
}
