#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatPlanText, isBalloonError, parseResourceList } from "@kubekit/balloon";
import { planTargets } from "./plans.js";

/** 2 for bad usage or unreadable input, as every command of the project. */
const EXIT_USAGE = 2;

const usage = "usage: balloon-plan <node-and-pods.yaml|-> --target cpu=4,memory=16Gi [--target …] [--floor …] [--granularity …] [--json]";

function main(): number {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      target: { type: "string", multiple: true },
      floor: { type: "string" },
      granularity: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const [file] = positionals;
  if (!file || !values.target?.length) {
    process.stderr.write(`${usage}\n`);
    return EXIT_USAGE;
  }
  const yaml = readFileSync(file === "-" ? 0 : file, "utf8");
  const plans = planTargets(yaml, values.target, {
    ...(values.floor ? { floor: parseResourceList(values.floor, "--floor") } : {}),
    ...(values.granularity ? { granularity: parseResourceList(values.granularity, "--granularity") } : {}),
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(plans, null, 2)}\n`);
  } else {
    for (const { target, plan } of plans) {
      process.stdout.write(`== node ${plan.node}, balloon ${plan.balloonPod}, target ${target}\n${formatPlanText(plan)}\n`);
    }
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  // Every failure here is about the input: a flag parseArgs refuses, a file, a quantity.
  process.stderr.write(`balloon-plan: ${isBalloonError(error) || error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = EXIT_USAGE;
}
