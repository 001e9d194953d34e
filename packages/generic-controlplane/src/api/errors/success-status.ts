import type { Status } from "../types.js";
import { statusDetails } from "./details.js";
import type { GroupResource } from "./group-resource.js";

/**
 * The `Status{status: Success}` a DELETE answers once the object is gone (the generic store's
 * `finalizeDelete`): its name, group, resource (in `kind`, as upstream does) and uid let a client
 * tell "deleted" from "kept by finalizers", which answers with the object instead.
 */
export function deletedStatus(resource: GroupResource, name: string, uid: string | undefined): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: statusDetails({ name, group: resource.group, kind: resource.resource, ...(uid === undefined ? {} : { uid }) }),
    code: 200,
  };
}
