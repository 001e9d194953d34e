import { describe, expect, it } from "vitest";
import { pageBytes } from "./page-buffers.js";

describe("pageBytes", () => {
  it("copies text and buffers, in order, into one buffer", () => {
    const page = pageBytes(['{"items":[', Buffer.from('{"a":"é"}'), Buffer.from(',{"b":2}'), "]}\n"]);
    expect(page.bytes.toString("utf8")).toBe('{"items":[{"a":"é"},{"b":2}]}\n');
    page.release();
  });

  it("reuses a released buffer for the next page, and never one still held", () => {
    const first = pageBytes([Buffer.from("first page")]);
    const held = pageBytes([Buffer.from("second page")]);
    expect(held.bytes.buffer).not.toBe(first.bytes.buffer);
    first.release();
    // Releasing twice hands the buffer out once.
    first.release();
    const third = pageBytes([Buffer.from("third page")]);
    const fourth = pageBytes([Buffer.from("fourth page")]);
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(fourth.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(held.bytes.toString()).toBe("second page");
    for (const page of [held, third, fourth]) page.release();
  });

  it("copies a page larger than a reusable buffer into a buffer of its own", () => {
    const large = "x".repeat(2 << 20);
    const page = pageBytes(["[", Buffer.from(large), "]"]);
    expect(page.bytes.length).toBe(large.length + 2);
    expect(page.bytes.subarray(0, 2).toString()).toBe("[x");
    page.release();
  });
});
