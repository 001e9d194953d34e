/** Requests the server answered (`apiserver_request_total`), summed over the series whose labels `matches` accepts. */
export async function servedRequests(url: string, matches: (labels: string) => boolean): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("apiserver_request_total{") && matches(l.slice(0, l.lastIndexOf(" "))))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
}
