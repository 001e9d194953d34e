import { versionInfo, type HandlerStage } from "@kubekit/generic-controlplane/server";
import { writeJson } from "./respond.js";

/** The version a control plane reports, which an upgrade or a downgrade changes. */
export class ReportedVersion {
  #gitVersion: string | undefined;

  /** Sets `gitVersion` (`v1.33.1`, the `v` optional); major and minor are read from it, as a real build's. */
  set(gitVersion: string): void {
    if (!/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/.test(gitVersion))
      throw new Error(`invalid version ${JSON.stringify(gitVersion)}: want a semantic version such as v1.33.1`);
    this.#gitVersion = gitVersion.startsWith("v") ? gitVersion : `v${gitVersion}`;
  }

  /** `version.Info` as `GET /version` answers it. */
  info(): Record<string, string> {
    const base = versionInfo();
    if (this.#gitVersion === undefined) return base;
    const [major, minor] = this.#gitVersion.slice(1).split(".") as [string, string];
    return { ...base, major, minor, gitVersion: this.#gitVersion };
  }
}

/** Answers `GET /version` with the reported version once it was set; every other request passes. */
export function versionStage(version: ReportedVersion): HandlerStage {
  return {
    name: "sim-cluster-version",
    handle(ctx) {
      if (ctx.path !== "/version" || (ctx.method !== "GET" && ctx.method !== "HEAD")) return false;
      writeJson(ctx, 200, version.info());
      return true;
    },
  };
}
