import { Indexer } from "@kubekit/generic-controlplane/controllers";
import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import { NodeList } from "./node-list.js";

const node = (name: string, generation: number): Node => ({ metadata: { name, generation } });

describe("NodeList", () => {
  it("keeps the Node informer cache's order and objects through adds, updates and deletes", () => {
    const cache = new Indexer();
    const list = new NodeList();
    const set = (n: Node) => (cache.set(n.metadata!.name!, n), list.set(n));
    const remove = (name: string) => (cache.delete(name), list.delete(name));
    const contents = () => Array.from({ length: list.length }, (_, i) => list.at(i));

    for (const name of ["a", "b", "c", "d"]) set(node(name, 1));
    set(node("b", 2));
    remove("a");
    set(node("a", 3));
    remove("c");
    set(node("e", 1));
    set(node("d", 2));
    remove("zz");
    expect(contents()).toEqual(cache.list());
    expect(contents().map((n) => `${n.metadata?.name}${n.metadata?.generation}`)).toEqual(["b2", "d2", "a3", "e1"]);
    remove("b");
    remove("e");
    set(node("b", 4));
    expect(contents()).toEqual(cache.list());
    expect(list.length).toBe(3);
  });
});
