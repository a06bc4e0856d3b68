export interface BrowserChoice {
  readonly executablePath: string;
  /** Where it came from, for the log line that says which browser ran. */
  readonly source: string;
  readonly env?: Record<string, string>;
}
export declare const CHROMIUM_FLAGS: readonly string[];
export declare function onPath(name: string): string | null;
export declare function chooseBrowser(env?: NodeJS.ProcessEnv): Promise<BrowserChoice>;
