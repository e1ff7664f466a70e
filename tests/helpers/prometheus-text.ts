/**
 * Reads Prometheus' text format as tests need it: each sample by its name and labels, as written
 * (`name{a="1",b="2"}`, labels in the order prom-client writes them: as declared).
 */
export type Samples = Map<string, number>;

export function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** A sample's value; 0 when it is absent (a counter not counted yet). */
export const sample = (samples: Samples, series: string): number => samples.get(series) ?? 0;
