import { badRequest, nameMismatch, namespaceMismatch } from "../../api/errors/index.js";
import type { KubeObject } from "../../api/types.js";
import type { ResourceDefinition } from "../../registry/rest/resource-definition.js";
import type { RequestOptions } from "../../registry/types.js";
import type { ResourceRequestInfo } from "../request-info.js";

/**
 * What every REST handler shares, after k8s.io/apiserver's `endpoints/handlers/rest.go`: the
 * checks that tie a decoded body to its URL and the registry options of a write. Handlers import
 * from here and from the helpers beside it (decode/, negotiation/, options/, responsewriters/),
 * never from one another; `src/layers.test.ts` keeps it that way.
 */

/** The registry's options of a write: dry run, field manager and the subresource written. */
export function requestOptions(
  options: { dryRun: boolean; fieldManager: string | undefined },
  subresource = "",
  user?: RequestOptions["user"],
): RequestOptions {
  const out: RequestOptions = {};
  if (user !== undefined) out.user = user;
  if (options.dryRun) out.dryRun = true;
  if (options.fieldManager !== undefined) out.fieldManager = options.fieldManager;
  if (subresource !== "") out.subresource = subresource;
  return out;
}

/** Takes the name from the URL when the body has none; a different one is a 400, as upstream's `checkName`. */
export function checkName(object: KubeObject, name: string): void {
  const metadata = (object.metadata ??= {});
  if (metadata.name === undefined || metadata.name === "") metadata.name = name;
  else if (metadata.name !== name) {
    throw nameMismatch(metadata.name, name);
  }
}

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
    throw badRequest(
      `the object provided is unrecognized (must be of type ${definition.kind}): kind ${JSON.stringify(object.kind)} does not match`,
    );
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
