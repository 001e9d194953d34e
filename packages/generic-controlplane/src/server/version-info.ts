import { VERSION } from "./version.js";

/** The Kubernetes API version this server speaks (what clients compare for version skew). */
export const KUBE_API_MAJOR = "1";
export const KUBE_API_MINOR = "32";

/** `version.Info` for `GET /version`: major and minor are strings of integers, as Conformance checks. */
export function versionInfo(): Record<string, string> {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  return {
    major: KUBE_API_MAJOR,
    minor: KUBE_API_MINOR,
    gitVersion: `v${KUBE_API_MAJOR}.${KUBE_API_MINOR}.0+kubekit-${VERSION}`,
    gitCommit: "",
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "node",
    platform: `${process.platform}/${arch}`,
  };
}
