import { badRequest, conflict, namespaceMismatch, nameMismatch, unsupportedMediaType } from "../../api/errors/index.js";
import { isControlPlaneError, type ControlPlaneError } from "../../api/errors/control-plane-error.js";
import type { RequestOptions } from "../../registry/types.js";
import type { KubeObject, StatusCause } from "../../api/types.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { checkUnknownFields, parseJson, parseYaml, yamlUnmarshalErrors } from "./decode/decode-object.js";
import type { HandlerEnv } from "../handler-env.js";
import { bodyFormat, type ResponseFormat } from "./negotiation/negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { shapeObject, writeEncoded } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { optionsInvalid, parseWriteOptions, type WriteOptions } from "./options/write-options.js";
import { checkName, groupVersionOf, reconcileNamespace, requestOptions } from "./rest.js";
import { checkFieldTypes, patchedFieldTypeError } from "../../validation/field-types.js";
import { fieldInvalid, invalidError } from "../../validation/field-errors.js";
import { cloneJson, goSprintValue } from "../../patch/json-value.js";
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  findDuplicateFields,
  findUnknownFields,
  withObjectMeta,
} from "../../patch/index.js";
import { undeclaredFieldsError } from "../../fieldmanager/undeclared-fields.js";
import { warningHeader } from "./responsewriters/status.js";

type PatchType = "json-patch" | "merge-patch" | "strategic-merge-patch" | "apply-patch";

/**
 * PATCH: read-modify-write through the store's guaranteedUpdate (retried on conflicts). JSON
 * patch (RFC 6902), merge patch (RFC 7386) and strategic merge patch (merge keys from the
 * resource's schema), and server-side apply (see fieldmanager/); other types are a 415
 * naming the accepted ones.
 */
export async function handlePatch(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const contentType = ctx.req.headers["content-type"] ?? "";
  const type = bodyFormat(contentType);
  const accepted = scope.patchTypes;
  const patchType = type as PatchType;
  const mediaType = `application/${type}${type === "apply-patch" ? "+yaml" : "+json"}`;
  if (!accepted.includes(mediaType)) throw unsupportedMediaType(contentType, accepted);

  const options = parseWriteOptions(ctx.query, "PatchOptions", ctx.req.headers["user-agent"]);
  ctx.dryRun = options.dryRun;
  if (patchType === "apply-patch") return handleApply(ctx, info, scope, env, format, options);
  if (options.force !== undefined) {
    const causes: StatusCause[] = [
      { reason: "FieldValueForbidden", field: "force", message: "Forbidden: may not be specified for non-apply patch" },
    ];
    throw optionsInvalid("PatchOptions", causes);
  }
  const body = await readBody(ctx.req, env.maxBodyBytes);
  const patch = parseJson(body.toString("utf8"));
  const definition = scope.definition;
  if (patchType === "json-patch" && !Array.isArray(patch)) {
    throw badRequest(
      "the server rejected our request due to an error in our request: json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    );
  }
  if (patchType !== "json-patch" && (patch === null || typeof patch !== "object" || Array.isArray(patch))) {
    throw badRequest("the body of a merge patch must be a JSON object");
  }

  const apply = (current: KubeObject): KubeObject => {
    switch (patchType) {
      case "json-patch":
        return applyJsonPatch(current, patch);
      case "merge-patch":
        return applyMergePatch(current, patch);
      default:
        // Accepted only for a resource with a schema (see RequestScope.patchTypes).
        return applyStrategicMergePatch(current, patch, definition.schema!);
    }
  };

  // The subresource reaches the store, as a PUT's does: admission and managedFields name it (`pods/resize`).
  const subresource = info.subresource;
  let checked = false;
  const updated = await scope.store.guaranteedUpdate(
    info.namespace,
    info.name,
    (current) => {
      const patched = apply(current);
      if (patched === null || typeof patched !== "object" || Array.isArray(patched)) {
        throw badRequest("the patch produced something other than an object");
      }
      const mistyped = patchedFieldTypeError(patched, definition);
      if (mistyped !== undefined)
        throw patchInvalid(patchType === "strategic-merge-patch" ? goSprintValue(patch) : JSON.stringify(patched), mistyped);
      keepIdentity(patched, current, definition);
      if (!checked) {
        // Warnings are collected once even when a conflict makes the store retry the mutation.
        checked = true;
        checkUnknownFields(ctx, patched, scope, options.fieldValidation);
      }
      return patched;
    },
    requestOptions(options, subresource, ctx.user),
  );
  writeEncoded(ctx, 200, shapeObject(updated, format, scope, "Metadata"), format);
}

/**
 * A patch whose result does not decode into the Go type: upstream's 422 against the empty kind,
 * ` "" is invalid: patch: Invalid value: "<patched object>": json: cannot unmarshal …` (for strategic
 * merge, the patch as Go prints its map: `map[immutable:yes]`).
 */
function patchInvalid(value: string, reason: string): ControlPlaneError {
  return invalidError({ group: "", kind: "" }, "", [fieldInvalid("patch", value, reason)]);
}

/** A patch cannot move an object: name, namespace and type stay those of the URL. */
function keepIdentity(patched: KubeObject, current: KubeObject, definition: RequestScope["definition"]): void {
  const metadata = (patched.metadata ??= {});
  const name = current.metadata?.name;
  if (metadata.name !== name) {
    throw nameMismatch(metadata.name ?? "", name ?? "");
  }
  if (definition.scope === "Namespaced" && metadata.namespace !== current.metadata?.namespace) {
    throw namespaceMismatch();
  }
  if (patched.apiVersion === undefined) patched.apiVersion = groupVersionOf(definition);
  if (patched.kind === undefined) patched.kind = definition.kind;
}

/**
 * fieldValidation of an apply patch: it is YAML (JSON included), so duplicates are go-yaml's
 * `line 11: key "foo" already set in map`, refused as upstream's strict YAML decoding refuses them
 * (Strict) or sent as one Warning each (Warn).
 */
function checkApplyDuplicates(ctx: RequestContext, text: string, validation: WriteOptions["fieldValidation"]): void {
  if (validation === "Ignore") return;
  const duplicates = findDuplicateFields(text, "application/yaml");
  if (duplicates.length === 0) return;
  if (validation === "Strict")
    throw badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlUnmarshalErrors(duplicates)}`);
  for (const duplicate of duplicates) ctx.warnings.push(warningHeader(duplicate));
}

/** Server-side apply: creates the object when it is missing (201), otherwise merges by field ownership (200). */
async function handleApply(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
  options: WriteOptions,
): Promise<void> {
  // Apply needs an explicit manager: the User-Agent default does not count.
  const manager = ctx.query.get("fieldManager") === null ? undefined : options.fieldManager;
  if (manager === undefined || manager === "") {
    throw optionsInvalid("PatchOptions", [
      { reason: "FieldValueRequired", field: "fieldManager", message: "Required value: is required for apply patch" },
    ]);
  }
  const definition = scope.definition;
  const body = await readBody(ctx.req, env.maxBodyBytes);
  const text = body.toString("utf8");
  const applied = parseYaml(text);
  if (applied === null || typeof applied !== "object" || Array.isArray(applied))
    throw badRequest("the body of an apply patch must be an object");
  const object = applied as KubeObject;
  // Type errors are refused as at decode; nulls stay, as apply gives them their own meaning.
  checkFieldTypes(cloneJson(object), definition);
  // The field manager types the configuration: fields the schema lacks fail whatever fieldValidation says.
  const unknown = scope.fieldSchema === undefined ? [] : findUnknownFields(object, scope.fieldSchema);
  if (unknown.length > 0) {
    const identity = {
      namespace: info.namespace ?? "",
      name: info.name,
      apiVersion: object.apiVersion ?? groupVersionOf(definition),
      kind: object.kind ?? definition.kind,
    };
    throw undeclaredFieldsError(object, withObjectMeta(scope.fieldSchema!), unknown, identity);
  }
  checkApplyDuplicates(ctx, text, options.fieldValidation);
  // Unlike other writes, apply takes no type from the URL: the field manager requires the configuration's own.
  reconcileNamespace(object, info, definition);
  checkName(object, info.name);
  // The subresource reaches the store, as a PUT's does: admission and managedFields name it (`pods/resize`).
  const subresource = info.subresource;
  // The store merges the configuration into the live object by field ownership (fieldmanager/).
  const writeOptions: RequestOptions = {
    ...requestOptions(options, subresource, ctx.user),
    fieldManager: manager,
    apply: { force: options.force === true },
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const updated = await scope.store.guaranteedUpdate(info.namespace, info.name, () => object, writeOptions);
      writeEncoded(ctx, 200, shapeObject(updated, format, scope, "Metadata"), format);
      return;
    } catch (error) {
      if (!(isControlPlaneError(error) && error.code === "NotFound") || subresource !== "") throw error;
    }
    try {
      const created = await scope.store.create(info.namespace, object, writeOptions);
      writeEncoded(ctx, 201, shapeObject(created, format, scope, "Metadata"), format);
      return;
    } catch (error) {
      // Created concurrently: apply over it.
      if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
    }
  }
  throw conflict(
    { group: definition.group, resource: definition.plural },
    info.name,
    "the object was created and deleted concurrently; try again",
  );
}
