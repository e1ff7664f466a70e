export interface ThreadCpu {
  total: number;
  main: number;
  byName: Record<string, number>;
}

/** Resident memory of a process, MB (from /proc). */
export function rssMb(pid: number): number;
/** Samples a process's RSS every 20 ms until the returned function is called; it returns the peak, MB. */
export function sampleRss(pid: number): () => number;
/** CPU time of a process's threads so far, ms: all, the main thread, by thread name. */
export function threadCpuMs(pid: number): ThreadCpu;
/** The CPU time a process used between two readings. */
export function cpuBetween(before: ThreadCpu, after: ThreadCpu): { cpu: { total: number; main: number }; cpuByThread: Record<string, number> };
/** Minor page faults a process has taken so far. */
export function minorFaults(pid: number): number;
