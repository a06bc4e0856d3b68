/** The Node.js lines Holdfast is built and tested for (package.json's engines says the same). */
export const SUPPORTED_NODE_MAJORS = [22, 24] as const;

/**
 * What to tell an operator about the Node.js running Holdfast, or null when it is a supported
 * line. Node 20 still runs Holdfast and its suite, but gets no security fixes since April 2026.
 */
export function nodeSupportWarning(version: string = process.version): string | null {
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if ((SUPPORTED_NODE_MAJORS as readonly number[]).includes(major)) return null;
  const lines = SUPPORTED_NODE_MAJORS.join(' and ');
  if (major === 20)
    return `Node.js ${version} reached end of life in April 2026: Holdfast runs on it, but supports Node.js ${lines}; upgrade`;
  return `Node.js ${version} is not a line Holdfast is tested on: it supports Node.js ${lines}`;
}
