import type { Node } from "../resources/nodes.js";

/**
 * The scheduler's Nodes in the order of its Node informer's cache, kept by the informer's events:
 * an attempt walks this list where it copied the cache into a new array (1,000 Nodes) every time.
 * An updated Node keeps its place and a new one goes last, as in the cache's map, so the attempts'
 * round robin over the nodes (`nextStartNodeIndex`) visits them in the same order as before.
 */
export class NodeList {
  readonly #nodes: Node[] = [];
  readonly #index = new Map<string, number>();

  get length(): number {
    return this.#nodes.length;
  }

  /** The Node at `position` (0 ≤ position < length). */
  at(position: number): Node {
    return this.#nodes[position]!;
  }

  /** Adds the Node, or replaces the one of the same name where it stands. */
  set(node: Node): void {
    const name = node.metadata?.name ?? "";
    const position = this.#index.get(name);
    if (position !== undefined) this.#nodes[position] = node;
    else this.#index.set(name, this.#nodes.push(node) - 1);
  }

  delete(name: string): void {
    const position = this.#index.get(name);
    if (position === undefined) return;
    this.#index.delete(name);
    this.#nodes.splice(position, 1);
    for (let i = position; i < this.#nodes.length; i++) this.#index.set(this.#nodes[i]!.metadata?.name ?? "", i);
  }
}
