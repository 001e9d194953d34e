import { badRequest, namespaceMismatch } from "../../api/errors/index.js";
import type { KubeObject } from "../../api/types.js";
import type { ResourceDefinition } from "../../registry/resource-definition.js";
import type { ResourceRequestInfo } from "../request-info.js";

export function groupVersionOf(definition: ResourceDefinition): string {
  return definition.group === "" ? definition.version : `${definition.group}/${definition.version}`;
}

/**
 * Fills `apiVersion` and `kind` from the URL when a body omits them (the python client does), and
 * rejects a body of another type, like kube-apiserver's decoder with a default GVK.
 */
export function defaultTypeMeta(object: KubeObject, definition: ResourceDefinition): void {
  const apiVersion = groupVersionOf(definition);
  if (object.apiVersion === undefined || object.apiVersion === "") object.apiVersion = apiVersion;
  else if (object.apiVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`);
  }
  if (object.kind === undefined || object.kind === "") object.kind = definition.kind;
  else if (object.kind !== definition.kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${definition.kind}): kind ${JSON.stringify(object.kind)} does not match`);
  }
}

/** Takes the namespace from the URL when the body has none; a different one is a 400, as upstream. */
export function reconcileNamespace(object: KubeObject, info: ResourceRequestInfo, definition: ResourceDefinition): void {
  if (definition.scope !== "Namespaced") return;
  const metadata = (object.metadata ??= {});
  if (metadata.namespace === undefined || metadata.namespace === "") {
    if (info.namespace !== undefined) metadata.namespace = info.namespace;
  } else if (info.namespace !== undefined && metadata.namespace !== info.namespace) {
    throw namespaceMismatch();
  }
}
