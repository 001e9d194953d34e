import type { HandlerStage } from "../server/filters/stages.js";
import { warningHeader } from "../server/handlers/responsewriters/status.js";
import type { CrdController } from "./controller.js";
import { serveScale } from "./scale.js";

/**
 * The parts of upstream's crdHandler the generic handlers do not have: a `Warning` on every
 * request to a deprecated version, and `<custom resource>/scale`. Every other custom resource
 * request goes on to the generic handlers. `controller` is read per request, so the stage can be
 * handed to the server before the controller exists.
 */
export function customResourceStage(controller: () => CrdController | undefined, maxBodyBytes: number): HandlerStage {
  return {
    name: "custom-resources",
    handle(ctx) {
      const info = ctx.info;
      const crds = controller();
      if (info === undefined || !info.isResourceRequest || crds === undefined) return false;
      const warning = crds.deprecationWarning(info.group, info.version, info.resource);
      if (warning !== undefined) ctx.warnings.push(warningHeader(warning));
      if (info.subresource !== "scale" || info.name === "") return false;
      const target = crds.scalable(info.group, info.version, info.resource);
      if (target === undefined) return false;
      return serveScale(ctx, info, target.store, target.scale, maxBodyBytes).then(() => true);
    },
  };
}
