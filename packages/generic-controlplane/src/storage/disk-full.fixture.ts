import { closeSync, openSync, readdirSync, readlinkSync } from "node:fs";

/**
 * Makes every file descriptor of this process that points at `path` (and its `-wal`/`-shm`
 * files) point at /dev/full instead, so writes through it fail with ENOSPC as on a full disk.
 * Linux only (it reads /proc/self/fd). POSIX hands out the lowest free descriptor, so reopening
 * right after closing one lands on the same number; lower free numbers are filled and released.
 */
export function fillDiskUnder(path: string): number {
  const targets: number[] = [];
  for (const entry of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${entry}`);
    } catch {
      continue;
    }
    if (target === path || target === `${path}-wal` || target === `${path}-shm`) targets.push(Number(entry));
  }
  for (const fd of targets) {
    closeSync(fd);
    const fillers: number[] = [];
    let got = openSync("/dev/full", "r+");
    while (got !== fd) {
      if (got > fd) throw new Error(`could not reopen descriptor ${fd} on /dev/full`);
      fillers.push(got);
      got = openSync("/dev/full", "r+");
    }
    for (const filler of fillers) closeSync(filler);
  }
  return targets.length;
}
