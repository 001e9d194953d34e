import type { KubeObject, Node, Pod } from "@kubekit/client";
import { parseAllDocuments } from "yaml";
import { BalloonError } from "./errors.js";
import { resourceList } from "./resource-list.js";
import type { NodeResources } from "./sizing.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Every Kubernetes object in a YAML or JSON stream: multiple documents, and `List`/`PodList`
 * style `items` (as `kubectl get -o yaml` prints) are flattened; empty documents are skipped.
 */
export function parseObjectsYaml(text: string, source = "YAML"): KubeObject[] {
  const result: KubeObject[] = [];
  const visit = (value: unknown, where: string): void => {
    if (value === null || value === undefined) return;
    if (!isObject(value) || typeof value.kind !== "string") {
      throw new BalloonError("invalid-input", `${where}: expected a Kubernetes object with a kind`);
    }
    const kind = value.kind;
    if (kind.endsWith("List") && Array.isArray(value.items)) {
      // Items of a typed list (PodList) carry no kind of their own; a plain List's items do.
      const itemKind = kind === "List" ? undefined : kind.slice(0, -"List".length);
      value.items.forEach((item: unknown, index) => {
        const withKind = itemKind && isObject(item) && item.kind === undefined ? { ...item, kind: itemKind } : item;
        visit(withKind, `${where} item ${index + 1}`);
      });
      return;
    }
    result.push(value);
  };
  parseAllDocuments(text).forEach((document, index) => {
    if (document.errors.length > 0) {
      throw new BalloonError("invalid-input", `${source}: document ${index + 1}: ${document.errors[0]?.message ?? "invalid YAML"}`, {
        cause: document.errors[0],
      });
    }
    visit(document.toJS(), `${source}: document ${index + 1}`);
  });
  return result;
}

/** The pods among parsed objects. */
export function podsOf(objects: readonly KubeObject[]): Pod[] {
  return objects.filter((object): object is Pod => object.kind === "Pod");
}

/** The nodes among parsed objects. */
export function nodesOf(objects: readonly KubeObject[]): Node[] {
  return objects.filter((object): object is Node => object.kind === "Node");
}

/** A node's `status.capacity` and `status.allocatable` as resource lists. */
export function nodeResources(node: Node): NodeResources {
  const name = node.metadata?.name ?? "?";
  const allocatable = node.status?.allocatable;
  if (!allocatable) throw new BalloonError("invalid-input", `node ${name} has no status.allocatable`);
  const capacity = node.status?.capacity;
  return {
    allocatable: resourceList(allocatable, `node ${name} allocatable`),
    ...(capacity ? { capacity: resourceList(capacity, `node ${name} capacity`) } : {}),
  };
}
