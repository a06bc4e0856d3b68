import { readFileSync } from 'node:fs';

/** Resident memory of a process now, in MiB (Linux /proc). */
export function residentMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

export interface MemoryWatch {
  readonly beforeMiB: number;
  /** Stops sampling; the highest resident memory seen since the watch began. */
  stop(): number;
}

/** Samples a process's resident memory every 10 ms from now on: what an attack made it hold at its peak. */
export function watchMemory(pid: number): MemoryWatch {
  const beforeMiB = residentMiB(pid);
  let peak = beforeMiB;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, residentMiB(pid));
    } catch {
      // The process is gone: the test's own assertions say so.
    }
  }, 10);
  return {
    beforeMiB,
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, residentMiB(pid));
      return peak;
    },
  };
}
