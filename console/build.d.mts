// Types for console/build.mjs (imported by the console test).
export declare const DIST_DIR: string;
export declare function isStale(outDir?: string): boolean;
export declare function buildConsole(opts?: { outDir?: string; minify?: boolean }): Promise<{ outDir: string; files: string[]; appJs: string; stylesCss: string }>;
