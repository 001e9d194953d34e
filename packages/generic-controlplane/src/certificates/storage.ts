import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createGenericStore, type ResourceStoreOptions } from "../registry/store.js";
import type { ResourceStore } from "../registry/types.js";
import type { Storage } from "../storage/types.js";
import { certificateSigningRequestsResource, prepareApprovalUpdate } from "./resource.js";

/**
 * CSRs' REST storage (upstream `pkg/registry/certificates/certificates/storage`): the main resource
 * with `/status`, and `/approval`, a copy of it whose updates write the conditions only.
 */
export function createCertificateSigningRequestStorage(
  storage: Storage,
  options: ResourceStoreOptions = {},
  definition: ResourceDefinition = certificateSigningRequestsResource,
): { store: ResourceStore; subresources: { approval: ResourceStore } } {
  const store = createGenericStore(definition, storage, options);
  const approvalDefinition: ResourceDefinition = {
    ...definition,
    // The approval strategy decides what of status is written; the generic status rule would drop it all.
    statusSubresource: false,
    strategy: { ...definition.strategy, prepareForUpdate: (object, old) => prepareApprovalUpdate(object, old) },
  };
  return { store, subresources: { approval: createGenericStore(approvalDefinition, storage, options) } };
}
