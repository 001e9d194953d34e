import { Indexer } from "@kubekit/generic-controlplane/controllers";
import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import { emptyUsage, type NodeUsage } from "./framework.js";
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

  it("holds each node's usage, by name, through the Node's updates and after a delete and a new add", () => {
    const usages = new Map<string, NodeUsage>();
    const list = new NodeList((name) => usages.get(name) ?? (usages.set(name, emptyUsage()), usages.get(name)!));
    list.set(node("a", 1));
    list.set(node("b", 1));
    list.set(node("a", 2));
    expect(list.slotAt(0)).toEqual({ name: "a", node: node("a", 2), usage: usages.get("a") });
    expect(list.slotAt(0).usage).toBe(usages.get("a"));
    list.delete("a");
    list.set(node("a", 3));
    expect(list.slotAt(1).name).toBe("a");
    expect(list.slotAt(1).usage).toBe(usages.get("a"));
    expect(list.slotAt(0).usage).toBe(usages.get("b"));
  });
});
