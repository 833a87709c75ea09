// Reads Prometheus text exposition back into samples, for the /metrics tests (R18.5).

/** `name{a="x",b="y"} value` lines, keyed by the name and its labels in sorted order. */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v] as const);
    samples.set(sampleKey(match[1], Object.fromEntries(labels)), Number(match[3]));
  }
  return samples;
}

export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`);
  return `${name}{${sorted.join(",")}}`;
}
