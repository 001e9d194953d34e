/** A named health check, as in k8s.io/apiserver's `healthz` package. Throwing or rejecting means unhealthy. */
export interface HealthCheck {
  name: string;
  check(): Promise<void> | void;
}

export type HealthEndpoint = "healthz" | "livez" | "readyz";

export interface HealthResult {
  code: number;
  body: string;
}

/**
 * Runs the checks of one endpoint. `/readyz` plain answers `ok`; `?verbose` lists every check as
 * `[+]name ok` / `[-]name failed: reason withheld`; `?exclude=name` skips checks; `/readyz/<name>`
 * runs one check.
 */
export async function runHealthChecks(
  endpoint: HealthEndpoint,
  checks: readonly HealthCheck[],
  subpath: string,
  query: URLSearchParams,
): Promise<HealthResult> {
  if (subpath !== "") {
    const check = checks.find((c) => c.name === subpath);
    if (check === undefined) return { code: 404, body: "404 page not found\n" };
    try {
      await check.check();
      return { code: 200, body: "ok" };
    } catch (error) {
      return { code: 500, body: `internal server error: ${(error as Error).message ?? String(error)}\n` };
    }
  }
  const excluded = new Set(query.getAll("exclude"));
  const lines: string[] = [];
  let failed = false;
  for (const check of checks) {
    if (excluded.has(check.name)) {
      lines.push(`[+]${check.name} excluded: ok`);
      continue;
    }
    try {
      await check.check();
      lines.push(`[+]${check.name} ok`);
    } catch {
      failed = true;
      lines.push(`[-]${check.name} failed: reason withheld`);
    }
  }
  const verbose = query.has("verbose");
  if (failed) return { code: 500, body: `${lines.join("\n")}\n${endpoint} check failed\n` };
  return { code: 200, body: verbose ? `${lines.join("\n")}\n${endpoint} check passed\n` : "ok" };
}
