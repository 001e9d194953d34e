import { CcmE2eError } from "../errors.js";

/** A semantic version as `utilversion.ParseSemantic` reads it, with an optional leading `v`. */
const SEMANTIC_VERSION = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

/**
 * `--upgrade-target` as the upgrade tests use it: upstream's `Versions[1].Version.String()`, the
 * version without its `v`. Upstream also takes release labels (`ci/latest`) it resolves with
 * `hack/get-build.sh`; here the version is given as it is.
 */
export function parseUpgradeTarget(text: string | undefined): string | undefined {
  if (text === undefined || text === "") return undefined;
  const match = SEMANTIC_VERSION.exec(text.trim());
  if (match === null)
    throw new CcmE2eError("invalid-argument", `--upgrade-target: ${JSON.stringify(text)} is not a semantic version such as 1.33.1`);
  return match[1]!;
}
