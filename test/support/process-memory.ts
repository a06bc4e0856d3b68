import { readFileSync, writeFileSync } from 'node:fs';

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

/** The kernel's high-water mark of a process's resident memory, in MiB. */
function highWaterMiB(pid: number): number {
  const kib = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib ?? 0) / 1024;
}

/** Resets the kernel's high-water mark to the current resident memory; false where that is not allowed. */
function resetHighWater(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * What an attack made a process hold at its peak, from now on: the kernel's own high-water mark
 * (reset here, so no peak between two samples is missed, however busy this process is), and
 * samples every 10 ms where it cannot be reset.
 */
export function watchMemory(pid: number): MemoryWatch {
  const exact = resetHighWater(pid);
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
      if (exact) peak = Math.max(peak, highWaterMiB(pid));
      return peak;
    },
  };
}
