import { resourceVerbs, subresourcesOf } from "../discovery/discovery.js";
import type { OperationSpec, PathSpec } from "./model.js";
import { groupVersionPrefix } from "./names.js";
import {
  createOperation,
  deleteCollectionOperation,
  deleteOperation,
  listOperation,
  patchOperation,
  readOperation,
  replaceOperation,
  watchListOperation,
  watchOperation,
  type ResourceOperations,
} from "./operations.js";

/**
 * Every path of one resource with the operations its verbs allow, in upstream's order: the
 * collection, one object, its subresources, the deprecated `/watch/` paths, and for a namespaced
 * resource the cluster-wide list and watch. Paths may come out without operations.
 */
export function resourcePaths(r: ResourceOperations): PathSpec[] {
  const d = r.definition;
  const verbs = resourceVerbs(d);
  const prefix = groupVersionPrefix(d.group, d.version);
  const namespaced = d.scope === "Namespaced";
  const base = namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}` : `${prefix}/${d.plural}`;
  const paths: PathSpec[] = [
    { path: base, operations: collectionOperations(r, verbs) },
    { path: `${base}/{name}`, operations: [readOperation(r), replaceOperation(r), patchOperation(r), deleteOperation(r)] },
  ];
  for (const sub of subresourcesOf(d)) {
    const operations: OperationSpec[] = [];
    if (sub.verbs.includes("get")) operations.push(readOperation(r, sub.name));
    if (sub.verbs.includes("update")) operations.push(replaceOperation(r, sub.name));
    if (sub.verbs.includes("patch")) operations.push(patchOperation(r, sub.name));
    paths.push({ path: `${base}/{name}/${sub.name}`, operations });
  }
  if (verbs.includes("watch")) {
    const watchBase = namespaced ? `${prefix}/watch/namespaces/{namespace}/${d.plural}` : `${prefix}/watch/${d.plural}`;
    paths.push({ path: watchBase, operations: [watchListOperation(r)] }, { path: `${watchBase}/{name}`, operations: [watchOperation(r)] });
  }
  if (namespaced) {
    if (verbs.includes("list")) paths.push({ path: `${prefix}/${d.plural}`, operations: [listOperation(r, true)] });
    if (verbs.includes("watch")) paths.push({ path: `${prefix}/watch/${d.plural}`, operations: [watchListOperation(r, true)] });
  }
  return paths;
}

function collectionOperations(r: ResourceOperations, verbs: readonly string[]): OperationSpec[] {
  const operations: OperationSpec[] = [];
  if (verbs.includes("list")) operations.push(listOperation(r));
  if (verbs.includes("create")) operations.push(createOperation(r));
  if (verbs.includes("deletecollection")) operations.push(deleteCollectionOperation(r));
  return operations;
}
