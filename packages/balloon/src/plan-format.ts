import type { NodeBalloonStatus } from "./node-status.js";
import { formatResourceList, type ResourceList } from "./resource-list.js";
import type { ResizePlan } from "./sizing.js";
import type { HostSplit } from "./split-host.js";

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "));
}

/** A plan as a short human-readable report (what `balloon plan` prints). */
export function formatPlanText(plan: ResizePlan): string {
  const rows = [
    ["RESOURCE", "BALLOON", plan.decision === "refused" ? "NODE WOULD OFFER" : "NODE OFFERS", "TARGET", "DIRECTION"],
    ...plan.resources.map((r) => [
      r.resource,
      `${r.current.toString()} -> ${r.planned.toString()}`,
      r.effective.toString(),
      r.target.toString(),
      r.direction + (r.limitedBy ? ` (limited by ${r.limitedBy})` : ""),
    ]),
  ];
  const lines = [`decision: ${plan.decision}`, ...table(rows)];
  if (plan.decision === "refused" || plan.decision === "defer") {
    const verb = plan.decision === "refused" ? "refused" : "waits for";
    for (const r of plan.refusals) {
      lines.push(
        `${verb} ${r.resource}: the balloon needs ${r.requested.toString()}, but other pods request ${r.otherPods.toString()} of ${r.allocatable.toString()} allocatable, leaving ${r.room.toString()}`,
      );
    }
  }
  if (plan.decision === "refused") {
    lines.push(`balloon stays: ${formatResourceList(plan.balloon)}`);
  } else if (plan.decision === "defer") {
    lines.push(`balloon requests (Deferred until pods leave): ${formatResourceList(plan.balloon)}`);
  } else {
    lines.push(`balloon requests: ${formatResourceList(plan.balloon)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A host split as a short human-readable report (what `balloon split` prints). */
export function formatSplitText(split: HostSplit): string {
  const rows = [
    ["RESOURCE", "SHARE", "ALLOCATABLE", "BALLOON", "EFFECTIVE", "UNUSED"],
    ...split.resources.map((r) => [
      r.resource,
      r.share.toString(),
      r.allocatable.toString(),
      r.balloon.toString(),
      r.effective.toString(),
      r.unused.toString(),
    ]),
  ];
  return `${[`kubelets: ${split.kubelets}`, ...table(rows), `balloon requests per node: ${formatResourceList(split.balloon)}`].join("\n")}\n`;
}

/** Nodes with their balloons as a table (what `balloon status` prints). */
export function formatStatusText(rows: readonly NodeBalloonStatus[]): string {
  const list = (l: ResourceList) => (Object.keys(l).length === 0 ? "-" : formatResourceList(l));
  return `${table([
    ["NODE", "CAPACITY", "ALLOCATABLE", "BALLOON DESIRED", "BALLOON ALLOCATED", "EFFECTIVE", "TARGET", "RESIZE"],
    ...rows.map((r) => [
      r.node,
      list(r.capacity),
      list(r.allocatable),
      list(r.desired),
      list(r.allocated),
      list(r.effective),
      r.target ?? "-",
      r.resize || "-",
    ]),
  ]).join("\n")}\n`;
}
