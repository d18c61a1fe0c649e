// Types for scripts/build-server.mjs (imported by tests that run the build).
export declare const SERVER_DIST_DIR: string;
export declare function isStale(outDir?: string): boolean;
export declare function buildServer(opts?: { outDir?: string }): Promise<{ outDir: string; files: string[] }>;
