export interface Varnish {
  /** varnishd's and varnishncsa's pids. */
  pid: number;
  logPid: number;
  /** The front listener (balancer and cache) and the bucket listener (the bucket's CDN). */
  url: string;
  bucketUrl: string;
  accessLog: string;
}
/** The VCL `npm run cluster` runs. */
export function vcl(options: { instancePorts: number[]; bucket: { port: number }; bucketPort: number }): string;
/** varnishd and varnishncsa, under `dir`; resolves once both listen and the log is written. */
export function startVarnish(
  dir: string,
  log: (message: string) => void,
  instancePorts: number[],
  options: { port: number; bucketPort: number; bucket: { port: number } },
): Promise<Varnish>;
