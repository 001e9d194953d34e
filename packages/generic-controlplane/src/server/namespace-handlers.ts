import type { KubeObject, Status } from "../api/types.js";
import type { ResourceStore } from "../registry/types.js";
import {
  beginNamespaceTermination,
  finalizeNamespace,
  isNamespaceTerminating,
  namespaceReadyForDeletion,
  shouldDeleteNamespaceDuringUpdate,
} from "../resources/namespaces.js";
import { ControlPlaneError } from "../errors.js";
import { runAdmission } from "./admission.js";
import { readBody } from "./body.js";
import { decodeObject } from "./decode-object.js";
import { readDeleteOptions } from "./handlers/delete.js";
import { defaultTypeMeta } from "./handlers/type-meta.js";
import { checkName } from "./handlers/update.js";
import { methodNotAllowed, notAcceptable } from "./status.js";
import { negotiateObjectFormat } from "./negotiation.js";
import { shapeObject, writeEncoded } from "./respond.js";
import type { ResourceHandlers } from "./resource-handler.js";
import { parseWriteOptions } from "./write-options.js";

/**
 * Namespace deletion as upstream's namespace REST storage does it. The first DELETE stores the
 * namespace with `deletionTimestamp` and phase `Terminating` (200 with the object) instead of
 * removing it. This control plane runs no namespace controller yet: the namespace stays
 * Terminating until a client empties `spec.finalizers` through `PUT …/finalize`, which removes
 * it — the seam where a namespace-deletion controller (deleting the namespace's content, then
 * finalizing) plugs in.
 *
 * `lifecycle` is a store over the same storage whose strategy lets these transitions through
 * (`namespaceFinalizeStrategy`), written with `subresource: "status"` semantics.
 */
export function namespaceHandlers(lifecycle: ResourceStore): ResourceHandlers {
  return {
    verbs: {
      async delete(ctx, info, served, env) {
        const format = negotiateObjectFormat(ctx.req.headers.accept, false);
        if (format === undefined) throw notAcceptable();
        const deleteOptions = await readDeleteOptions(ctx, env);
        await runAdmission(env.admission, {
          operation: "DELETE",
          definition: served.definition,
          namespace: undefined,
          name: info.name,
          subresource: "",
          object: undefined,
          oldObject: undefined,
          dryRun: ctx.dryRun,
        });
        const current = await served.store.get(undefined, info.name);
        const uid = deleteOptions.preconditions?.uid;
        if (uid !== undefined && uid !== current.metadata?.uid) {
          throw new ControlPlaneError("Conflict", `Operation cannot be fulfilled on namespaces "${info.name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid ?? ""}`, {
            details: { name: info.name, kind: "namespaces" },
          });
        }
        let object: KubeObject = current;
        if (!isNamespaceTerminating(current)) {
          const options = ctx.dryRun ? { dryRun: true, subresource: "status" as const } : { subresource: "status" as const };
          object = await lifecycle.guaranteedUpdate(undefined, info.name, (cur) => beginNamespaceTermination(cur), options);
        }
        if (namespaceReadyForDeletion(object) && (object.metadata?.finalizers ?? []).length === 0) {
          const result = await served.store.delete(undefined, info.name, deleteOptions, ctx.dryRun ? { dryRun: true } : {});
          if (result.deleted) {
            const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: info.name, kind: "namespaces" }, code: 200 };
            if (result.object.metadata?.uid !== undefined) status.details!.uid = result.object.metadata.uid;
            writeEncoded(ctx, 200, status, format);
            return;
          }
          object = result.object;
        }
        writeEncoded(ctx, 200, shapeObject(object, format, served.definition, env.codecs, "Metadata"), format);
      },
    },
    subresources: {
      async finalize(ctx, info, served, env) {
        if (info.verb !== "update") throw methodNotAllowed(ctx.method, ctx.path);
        const format = negotiateObjectFormat(ctx.req.headers.accept, false);
        if (format === undefined) throw notAcceptable();
        const options = parseWriteOptions(ctx.query, "UpdateOptions");
        ctx.dryRun = options.dryRun;
        const body = await readBody(ctx.req, env.maxBodyBytes);
        const requested = decodeObject(ctx, body, served.definition, env.codecs, options.fieldValidation);
        defaultTypeMeta(requested, served.definition);
        checkName(requested, info.name);
        await runAdmission(env.admission, {
          operation: "UPDATE",
          definition: served.definition,
          namespace: undefined,
          name: info.name,
          subresource: "finalize",
          object: requested,
          oldObject: undefined,
          dryRun: options.dryRun,
        });
        const precondition = requested.metadata?.resourceVersion;
        const writeOptions = options.dryRun ? { dryRun: true } : {};
        const updated = await lifecycle.guaranteedUpdate(
          undefined,
          info.name,
          (current) => {
            const next = finalizeNamespace(current, requested);
            if (precondition !== undefined && precondition !== "") (next.metadata ??= {}).resourceVersion = precondition;
            return next;
          },
          writeOptions,
        );
        if (shouldDeleteNamespaceDuringUpdate(updated)) {
          await served.store.delete(undefined, info.name, {}, writeOptions);
        }
        writeEncoded(ctx, 200, shapeObject(updated, format, served.definition, env.codecs, "Metadata"), format);
      },
    },
  };
}
