#!/usr/bin/env node
import { parseArgs } from "node:util";
import { DEFAULT_PLAN, formatPlan, planClusters } from "./plan.js";

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: String(DEFAULT_PLAN.clusters) },
    nodes: { type: "string", default: String(DEFAULT_PLAN.nodesPerCluster) },
    supernet: { type: "string", default: DEFAULT_PLAN.ipv4Supernet },
    "supernet-v6": { type: "string", default: DEFAULT_PLAN.ipv6Supernet },
    json: { type: "boolean", default: false },
  },
});

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
  process.exitCode = 1;
}
