/**
 * Kubernetes version priority (apimachinery `CompareKubeAwareVersionStrings`): GA before beta
 * before alpha, higher major first, then higher minor; anything that is not a kube version sorts
 * last, alphabetically. Negative means `a` is preferred.
 */
export function compareKubeVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) {
    if (pa !== undefined) return -1;
    if (pb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

interface KubeVersion {
  major: number;
  /** 3 = GA, 2 = beta, 1 = alpha. */
  stage: number;
  minor: number;
}

function parse(version: string): KubeVersion | undefined {
  const match = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/.exec(version);
  if (match === null) return undefined;
  const stage = match[2] === undefined ? 3 : match[2] === "beta" ? 2 : 1;
  return { major: Number(match[1]), stage, minor: match[3] === undefined ? 0 : Number(match[3]) };
}
