/**
 * A prefix names a directory, as in kube-apiserver's etcd3 store, which appends "/" before listing:
 * `/registry/configmaps/a` must not match `/registry/configmaps/ab/x`.
 */
export function directoryPrefix(prefix: string): string {
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}

/** The directories containing `key`, outermost first: `/a/b/c` → `/`, `/a/`, `/a/b/`. */
export function parentDirectories(key: string): string[] {
  const directories: string[] = [];
  let index = key.indexOf("/");
  while (index !== -1) {
    directories.push(key.slice(0, index + 1));
    index = key.indexOf("/", index + 1);
  }
  return directories;
}

/** The smallest string greater than every string starting with `prefix` (for range scans). */
export function prefixEnd(prefix: string): string {
  // Prefixes end in "/" (0x2f), so bumping the last code unit never overflows.
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
