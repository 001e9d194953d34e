import type { HandlerStage } from "../server/filters/stages.js";
import type { CrdController } from "./controller.js";
import { serveScale } from "./scale.js";

/**
 * Serves `<custom resource>/scale` for CRDs with a scale subresource (the generic handlers serve
 * every other custom resource request). `controller` is read per request, so the stage can be
 * handed to the server before the controller exists.
 */
export function scaleStage(controller: () => CrdController | undefined, maxBodyBytes: number): HandlerStage {
  return {
    name: "custom-resource-scale",
    async handle(ctx) {
      const info = ctx.info;
      if (info === undefined || !info.isResourceRequest || info.subresource !== "scale" || info.name === "") return false;
      const target = controller()?.scalable(info.group, info.version, info.resource);
      if (target === undefined) return false;
      await serveScale(ctx, info, target.store, target.scale, maxBodyBytes);
      return true;
    },
  };
}
