import { describeReference } from "../records.js";
import type { WhoisResult } from "../registry.js";

/** `kana whois` for a person: the owner first, then every exact, covering and covered record. */
export function renderWhois(result: WhoisResult): string {
  const lines = [`${result.query}`];
  const show = (label: string, owners: WhoisResult["exact"]) => {
    for (const o of owners)
      lines.push(
        `  ${label.padEnd(9)} ${o.record.prefix}  ${o.claim}  ${describeReference(o.record.reference)}${o.record.status === "unavailable" ? " (carved out)" : ""}`,
      );
  };
  lines.push(
    result.mostSpecific === undefined
      ? "  owner     none"
      : `  owner     ${result.mostSpecific.claim} (${result.mostSpecific.record.prefix})`,
  );
  show("exact", result.exact);
  show("covering", result.covering);
  show("covered", result.covered);
  return `${lines.join("\n")}\n`;
}
