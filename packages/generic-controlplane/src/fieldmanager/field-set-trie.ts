/**
 * A set of field paths as structured-merge-diff's `fieldpath.Set` holds one: a trie whose nodes
 * list the path elements that are members at that level and the subsets below each element. A path
 * is its elements (`["f:spec", "f:replicas"]`). Sharing prefixes keeps a set as large as the object
 * it describes — a set of flat paths would grow with the square of the nesting depth, and objects
 * nest 10,000 levels deep — and every operation here walks with an explicit stack for that reason.
 *
 * The algebra never changes its operands: results may share subtrees with them, so a set is only
 * mutated while it is being built.
 */

export type FieldPath = readonly string[];

export class FieldSet {
  /** Elements that are members at this level. */
  readonly members = new Set<string>();
  /** The set below each element that has members under it. */
  readonly children = new Map<string, FieldSet>();

  static of(...paths: FieldPath[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** The subset below `element`, created when absent (while building a set). */
  child(element: string): FieldSet {
    let child = this.children.get(element);
    if (child === undefined) {
      child = new FieldSet();
      this.children.set(element, child);
    }
    return child;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    const node = path.slice(0, -1).reduce<FieldSet>((set, element) => set.child(element), this);
    node.members.add(path[path.length - 1]!);
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    const node = path.slice(0, -1).reduce<FieldSet | undefined>((set, element) => set?.children.get(element), this);
    return node !== undefined && node.members.has(path[path.length - 1]!);
  }

  /** Whether no path is a member (subsets left empty while building count as nothing). */
  isEmpty(): boolean {
    const pending: FieldSet[] = [this];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (node.members.size > 0) return false;
      for (const child of node.children.values()) pending.push(child);
    }
    return true;
  }

  /** How many paths are members. */
  get size(): number {
    let count = 0;
    const pending: FieldSet[] = [this];
    while (pending.length > 0) {
      const node = pending.pop()!;
      count += node.members.size;
      for (const child of node.children.values()) pending.push(child);
    }
    return count;
  }

  /** Every member path. Each one is built whole, so this is for small sets (conflicts, tests). */
  *[Symbol.iterator](): IterableIterator<FieldPath> {
    const pending: Array<[FieldSet, string[]]> = [[this, []]];
    while (pending.length > 0) {
      const [node, prefix] = pending.pop()!;
      for (const element of node.members) yield [...prefix, element];
      for (const [element, child] of node.children) pending.push([child, [...prefix, element]]);
    }
  }
}

/** Every path in any of `sets`. */
export function union(...sets: FieldSet[]): FieldSet {
  const out = new FieldSet();
  const pending: Array<[FieldSet, FieldSet]> = sets.map((set) => [set, out]);
  while (pending.length > 0) {
    const [from, into] = pending.pop()!;
    for (const member of from.members) into.members.add(member);
    for (const [element, child] of from.children) pending.push([child, into.child(element)]);
  }
  return out;
}

/** The paths of `set` that `other` lacks. */
export function difference(set: FieldSet, other: FieldSet): FieldSet {
  const out = new FieldSet();
  const pending: Array<[FieldSet, FieldSet | undefined, FieldSet]> = [[set, other, out]];
  while (pending.length > 0) {
    const [from, without, into] = pending.pop()!;
    for (const member of from.members) if (without?.members.has(member) !== true) into.members.add(member);
    for (const [element, child] of from.children) {
      const against = without?.children.get(element);
      // Nothing to take away below: the subset is shared as it is.
      if (against === undefined) into.children.set(element, child);
      else pending.push([child, against, into.child(element)]);
    }
  }
  return pruned(out);
}

/** The paths in both sets. */
export function intersection(set: FieldSet, other: FieldSet): FieldSet {
  const out = new FieldSet();
  const pending: Array<[FieldSet, FieldSet, FieldSet]> = [[set, other, out]];
  while (pending.length > 0) {
    const [left, right, into] = pending.pop()!;
    for (const member of left.members) if (right.members.has(member)) into.members.add(member);
    for (const [element, child] of left.children) {
      const both = right.children.get(element);
      if (both !== undefined) pending.push([child, both, into.child(element)]);
    }
  }
  return pruned(out);
}

/** Whether the two sets hold the same paths. */
export function sameSet(a: FieldSet, b: FieldSet): boolean {
  return difference(a, b).isEmpty() && difference(b, a).isEmpty();
}

/** `set` without the paths that start with an element `drop` names (and everything under them). */
export function withoutTopLevel(set: FieldSet, drop: (element: string) => boolean): FieldSet {
  const out = new FieldSet();
  for (const member of set.members) if (!drop(member)) out.members.add(member);
  for (const [element, child] of set.children) if (!drop(element)) out.children.set(element, child);
  return out;
}

/** `set` with every subset that holds no member removed, so that a shared subset is never empty. */
export function pruned(set: FieldSet): FieldSet {
  // Parents before children; walked backwards, every child is settled before its parent.
  const order: FieldSet[] = [];
  const pending: FieldSet[] = [set];
  while (pending.length > 0) {
    const node = pending.pop()!;
    order.push(node);
    for (const child of node.children.values()) pending.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!;
    for (const [element, child] of node.children) if (child.members.size === 0 && child.children.size === 0) node.children.delete(element);
  }
  return set;
}
