/** Writes better-sqlite3's local prebuild into `folder`; returns the environment that makes npm install use it. */
export declare function localPrebuild(
  folder: string,
  root?: string,
): { npm_config_better_sqlite3_local_prebuilds: string };
