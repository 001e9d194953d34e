import { join } from "node:path";
import { startBinary as startScript, type RunningBinary } from "../../../packages/generic-controlplane/test/harness/binary.js";

export type { RunningBinary };

/** The built binary: nx builds it (and the library it bundles) before this project's tests. */
export const mainScript = join(import.meta.dirname, "..", "dist", "main.js");

/** Starts the binary with `args` and waits for its `ready <url>` line (20 s at most). */
export function startBinary(args: string[], cwd: string): Promise<RunningBinary> {
  return startScript(mainScript, args, cwd);
}
