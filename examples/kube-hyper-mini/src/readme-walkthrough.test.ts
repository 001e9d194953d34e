import { describe, expect, it } from "vitest";
import { comparable, shellWords, walkthroughSteps } from "./readme-walkthrough.js";

describe("README walkthrough extraction", () => {
  it("reads each $ command of console blocks with the lines under it, ignoring other blocks", () => {
    const readme = [
      "```sh",
      "$ not-this",
      "```",
      "text",
      "```console",
      "$ kubectl get widgets",
      "NAME   AGE",
      "blue   5s",
      "$ kubectl delete widget blue",
      'widget "blue" deleted',
      "```",
      "",
    ].join("\n");
    expect(walkthroughSteps(readme)).toEqual([
      { command: "kubectl get widgets", output: "NAME   AGE\nblue   5s" },
      { command: "kubectl delete widget blue", output: 'widget "blue" deleted' },
    ]);
  });

  it("splits quoted words as a shell does", () => {
    expect(shellWords(`kubectl get wd -o jsonpath='{.items[*].metadata.name}' -l "a=b c"`)).toEqual([
      "kubectl",
      "get",
      "wd",
      "-o",
      "jsonpath={.items[*].metadata.name}",
      "-l",
      "a=b c",
    ]);
  });

  it("compares output without ages or trailing whitespace, and nothing else", () => {
    expect(comparable("NAME   AGE  \nblue   5s\nred    2m3s\n\n")).toBe("NAME   AGE\nblue   <age>\nred    <age>");
    expect(comparable("size 42 is over the limit of 10")).toBe("size 42 is over the limit of 10");
    expect(comparable("blue   3      5s")).not.toBe(comparable("blue   4      5s"));
  });
});
