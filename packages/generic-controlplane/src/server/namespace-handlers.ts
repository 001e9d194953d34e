import type { KubeObject } from "../api/types.js";
import type { AdmissionPlugin, ResourceStore } from "../registry/types.js";
import {
  beginNamespaceTermination,
  finalizeNamespace,
  isNamespaceTerminating,
  shouldDeleteNamespaceDuringUpdate,
} from "../resources/namespaces.js";
import { deletedStatus, methodNotAllowed, notAcceptable, preconditionFailed } from "../api/errors/index.js";
import { isControlPlaneError } from "../errors.js";
import { runAdmission } from "./admission.js";
import { readBody } from "./body.js";
import { decodeObject } from "./decode-object.js";
import { readDeleteOptions } from "./handlers/delete.js";
import { defaultTypeMeta } from "./handlers/type-meta.js";
import { checkName } from "./handlers/update.js";
import { negotiateObjectFormat } from "./negotiation.js";
import { shapeObject, writeEncoded } from "./respond.js";
import type { ResourceHandlers } from "./resource-handler.js";
import { parseWriteOptions } from "./write-options.js";

/**
 * Namespace deletion as upstream's namespace REST storage does it. The first DELETE stores the
 * namespace with `deletionTimestamp` and phase `Terminating` (200 with the object) instead of
 * removing it. It stays Terminating until a client empties `spec.finalizers` through
 * `PUT …/finalize`, which removes it: the namespace controller (`controllers/namespace`) deletes
 * the namespace's content, then finalizes.
 *
 * `stores` are stores over the same storage whose strategies let these transitions through;
 * `admission` runs here for the DELETE and the finalize UPDATE because those stores have none.
 */
export interface NamespaceLifecycleStores {
  /** Writes the Terminating transition (deletionTimestamp and status.phase together). */
  termination: ResourceStore;
  /** Writes `/finalize` (spec.finalizers only). */
  finalize: ResourceStore;
}

const NAMESPACES = { group: "", resource: "namespaces" };

export function namespaceHandlers(stores: NamespaceLifecycleStores, admission: readonly AdmissionPlugin[]): ResourceHandlers {
  return {
    verbs: {
      // Upstream serves no deletecollection for namespaces: each one goes through termination.
      deletecollection: (ctx) => Promise.reject(methodNotAllowed(ctx.method, ctx.path)),
      async delete(ctx, info, served, env) {
        const format = negotiateObjectFormat(ctx.req.headers.accept, false);
        if (format === undefined) throw notAcceptable();
        const deleteOptions = await readDeleteOptions(ctx, env);
        await runAdmission(admission, {
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
          throw preconditionFailed(NAMESPACES, info.name, "UID", uid, current.metadata?.uid ?? "");
        }
        const rv = deleteOptions.preconditions?.resourceVersion;
        if (rv !== undefined && rv !== current.metadata?.resourceVersion) {
          throw preconditionFailed(NAMESPACES, info.name, "ResourceVersion", rv, current.metadata?.resourceVersion ?? "");
        }
        let object: KubeObject = current;
        const writeOptions = ctx.dryRun ? { dryRun: true } : {};
        if (!isNamespaceTerminating(current)) {
          object = await stores.termination.guaranteedUpdate(undefined, info.name, (cur) => beginNamespaceTermination(cur), {
            ...writeOptions,
            allowSettingDeletionTimestamp: true,
          });
        }
        if (shouldDeleteNamespaceDuringUpdate(object)) {
          // Nothing holds it: it goes now (the store may already have removed it during the update).
          await served.store.delete(undefined, info.name, deleteOptions, writeOptions).catch((error: unknown) => {
            if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
          });
          writeEncoded(ctx, 200, deletedStatus(NAMESPACES, info.name, object.metadata?.uid), format, env.codecs);
          return;
        }
        writeEncoded(ctx, 200, shapeObject(object, format, served.definition, env.codecs, "Metadata"), format, env.codecs);
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
        await runAdmission(admission, {
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
        const updated = await stores.finalize.guaranteedUpdate(
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
          // The store may already have removed it during the update (strategy.shouldDeleteDuringUpdate).
          await served.store.delete(undefined, info.name, {}, writeOptions).catch((error: unknown) => {
            if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
          });
        }
        writeEncoded(ctx, 200, shapeObject(updated, format, served.definition, env.codecs, "Metadata"), format, env.codecs);
      },
    },
  };
}
