import { describe, expect, it } from "vitest";
import { pageBytes } from "./page-buffers.js";

describe("pageBytes", () => {
  it("copies text and buffers, in order, into one buffer", () => {
    const page = pageBytes(['{"items":[', Buffer.from('{"a":"é"}'), Buffer.from(',{"b":2}'), "]}\n"]);
    expect(page.bytes.toString("utf8")).toBe('{"items":[{"a":"é"},{"b":2}]}\n');
    page.release();
  });

  /** A page of 100 KiB: as large as 300 configmaps, large enough for a reused buffer. */
  const page = (name: string) => [name, Buffer.alloc(100 * 1024, name.at(-1))];

  it("reuses a released buffer for the next large page, and never one still held", () => {
    const first = pageBytes(page("first"));
    const held = pageBytes(page("second"));
    expect(held.bytes.buffer).not.toBe(first.bytes.buffer);
    first.release();
    // Releasing twice hands the buffer out once.
    first.release();
    const third = pageBytes(page("third"));
    const fourth = pageBytes(page("fourth"));
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(fourth.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(held.bytes.subarray(0, 8).toString()).toBe("seconddd");
    expect(held.bytes.length).toBe("second".length + 100 * 1024);
    for (const bytes of [held, third, fourth]) bytes.release();
  });

  it("gives a small page a buffer of its own", () => {
    const small = pageBytes(["[", Buffer.from('{"a":1}'), "]"]);
    small.release();
    const next = pageBytes(page("next"));
    expect(next.bytes.buffer).not.toBe(small.bytes.buffer);
    next.release();
  });

  it("copies a page larger than a reusable buffer into a buffer of its own", () => {
    const large = "x".repeat(2 << 20);
    const page = pageBytes(["[", Buffer.from(large), "]"]);
    expect(page.bytes.length).toBe(large.length + 2);
    expect(page.bytes.subarray(0, 2).toString()).toBe("[x");
    page.release();
  });
});
