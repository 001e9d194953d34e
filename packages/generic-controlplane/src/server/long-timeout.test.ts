import { afterEach, describe, expect, it, vi } from "vitest";
import { setLongTimeout } from "./long-timeout.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("setLongTimeout", () => {
  it("fires a delay beyond 2^31-1 ms at its deadline, not after 1 ms", () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const days = 30;
    setLongTimeout(fired, days * 86_400_000);
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(days * 86_400_000 - 1001);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("never fires for an infinite delay, and cancels", () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    setLongTimeout(fired, Infinity);
    vi.advanceTimersByTime(100 * 86_400_000);
    expect(fired).not.toHaveBeenCalled();
    const short = vi.fn();
    const cancel = setLongTimeout(short, 10);
    cancel();
    vi.advanceTimersByTime(20);
    expect(short).not.toHaveBeenCalled();
  });
});
