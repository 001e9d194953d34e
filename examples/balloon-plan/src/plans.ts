import {
  nodesOf,
  parseObjectsYaml,
  parseResourceList,
  planNodeResize,
  podsOf,
  type NodeResizePlan,
  type ResourceList,
} from "@kubekit/balloon";

export interface TargetPlan {
  /** The target as given, e.g. `cpu=4,memory=16Gi`. */
  readonly target: string;
  readonly plan: NodeResizePlan;
}

/**
 * Reads one Node and its pods from a YAML stream and plans the balloon resize for each target
 * effective size, independently (each plan starts from the balloon's current requests).
 */
export function planTargets(
  yaml: string,
  targets: readonly string[],
  options: { floor?: ResourceList; granularity?: ResourceList } = {},
): TargetPlan[] {
  const objects = parseObjectsYaml(yaml);
  const nodes = nodesOf(objects);
  if (nodes.length !== 1) throw new Error(`expected exactly one Node in the input, found ${nodes.length}`);
  const node = nodes[0]!;
  const pods = podsOf(objects);
  return targets.map((target) => ({
    target,
    plan: planNodeResize({ node, pods, target: parseResourceList(target, "--target"), ...options }),
  }));
}
