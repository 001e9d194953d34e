import type { Node } from "../resources/nodes.js";
import { emptyUsage, type NodeUsage } from "./framework.js";

/** A Node in the scheduler's list, with its name and what its pods take, read without a lookup. */
export interface NodeSlot {
  readonly name: string;
  node: Node;
  readonly usage: NodeUsage;
}

/**
 * The scheduler's Nodes in the order of its Node informer's cache, kept by the informer's events:
 * an attempt walks this list where it copied the cache into a new array (1,000 Nodes) every time.
 * An updated Node keeps its place and a new one goes last, as in the cache's map, so the attempts'
 * round robin over the nodes (`nextStartNodeIndex`) visits them in the same order as before. Each
 * slot holds the node's usage (from `usageOf`, by name): an attempt over 420 nodes reads it there
 * rather than looking each node's name up in a map.
 */
export class NodeList {
  readonly #slots: NodeSlot[] = [];
  readonly #index = new Map<string, number>();
  readonly #usageOf: (name: string) => NodeUsage;

  constructor(usageOf: (name: string) => NodeUsage = () => emptyUsage()) {
    this.#usageOf = usageOf;
  }

  get length(): number {
    return this.#slots.length;
  }

  /** The Node at `position` (0 ≤ position < length). */
  at(position: number): Node {
    return this.#slots[position]!.node;
  }

  /** The slot at `position` (0 ≤ position < length); it holds the Node until the next `set` of that name. */
  slotAt(position: number): NodeSlot {
    return this.#slots[position]!;
  }

  /** Adds the Node, or replaces the one of the same name where it stands. */
  set(node: Node): void {
    const name = node.metadata?.name ?? "";
    const position = this.#index.get(name);
    if (position !== undefined) this.#slots[position]!.node = node;
    else this.#index.set(name, this.#slots.push({ name, node, usage: this.#usageOf(name) }) - 1);
  }

  delete(name: string): void {
    const position = this.#index.get(name);
    if (position === undefined) return;
    this.#index.delete(name);
    this.#slots.splice(position, 1);
    for (let i = position; i < this.#slots.length; i++) this.#index.set(this.#slots[i]!.name, i);
  }
}
