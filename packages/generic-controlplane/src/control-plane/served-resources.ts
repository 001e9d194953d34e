import { badRequest } from "../api/errors/index.js";
import { createCrdStorage } from "../apiextensions/crd-store.js";
import { CRD_GROUP, CRD_PLURAL } from "../apiextensions/types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createResourceStore } from "../registry/store.js";
import type { ResourceStore } from "../registry/types.js";
import type { AdmissionPlugin } from "../admission/types.js";
import { flowSchemasResource, priorityLevelConfigurationsResource } from "../resources/flowcontrol.js";
import { createNamespaceStorage } from "../resources/namespace-store.js";
import { createCertificateSigningRequestStorage } from "../certificates/storage.js";
import { CERTIFICATES_GROUP } from "../certificates/types.js";
import type { ServedResource } from "../server/served-resource.js";
import type { Storage } from "../storage/types.js";

/** `configmaps`, `leases.coordination.k8s.io`: how upstream names a resource across versions. */
export function groupResource(definition: Pick<ResourceDefinition, "group" | "plural">): string {
  return definition.group === "" ? definition.plural : `${definition.plural}.${definition.group}`;
}

/**
 * The definitions to serve: the chosen ones, plus the flow control types while flow control is in
 * force (kube-apiserver serves its configuration as API objects). A type defined twice is an error.
 */
export function servedDefinitions(resources: readonly ResourceDefinition[], withFlowControl: boolean): ResourceDefinition[] {
  const definitions = [...resources];
  if (withFlowControl) {
    for (const definition of [flowSchemasResource, priorityLevelConfigurationsResource]) {
      if (!definitions.some((d) => d.group === definition.group && d.plural === definition.plural)) definitions.push(definition);
    }
  }
  const seen = new Set<string>();
  for (const definition of definitions) {
    const key = `${definition.group}/${definition.version}/${definition.plural}`;
    if (seen.has(key)) throw badRequest(`resource ${groupResource(definition)} (${definition.version}) is defined twice`);
    seen.add(key);
  }
  return definitions;
}

export interface ServedResources {
  served: ServedResource[];
  /** The main store of each served resource, by group resource. */
  stores: Map<string, ResourceStore>;
  /** The namespaces store, when namespaces are served. */
  namespaces: ResourceStore | undefined;
}

/**
 * The REST storage of each definition (upstream's per-group storage providers): namespaces get
 * their own (termination and `/finalize`), CRDs theirs (the cleanup finalizer on delete), every
 * other type the generic store. All share
 * `admission` by reference, so plugins added to it later apply to every store.
 */
export function buildServedResources(
  definitions: readonly ResourceDefinition[],
  storage: Storage,
  admission: AdmissionPlugin[],
): ServedResources {
  const served: ServedResource[] = [];
  const stores = new Map<string, ResourceStore>();
  let namespaces: ResourceStore | undefined;
  for (const definition of definitions) {
    let entry: ServedResource;
    if (definition.group === "" && definition.plural === "namespaces") {
      entry = { definition, ...createNamespaceStorage(storage, { admission }, definition) };
      namespaces = entry.store;
    } else if (definition.group === CERTIFICATES_GROUP && definition.plural === "certificatesigningrequests") {
      entry = { definition, ...createCertificateSigningRequestStorage(storage, { admission }, definition) };
    } else if (definition.group === CRD_GROUP && definition.plural === CRD_PLURAL) {
      entry = { definition, store: createCrdStorage(definition, storage, { admission }) };
    } else {
      entry = { definition, store: createResourceStore(definition, storage, { admission }) };
    }
    stores.set(groupResource(definition), entry.store);
    served.push(entry);
  }
  return { served, stores, namespaces };
}
